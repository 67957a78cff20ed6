//! Loading object code into this process: a small safe wrapper over LLVM's ORC `LLJIT`.
//!
//! Kernels are compiled to relocatable object files (one per kernel, in parallel, or read back
//! from the kernel cache), so the JIT must link objects rather than compile IR. MCJIT, which
//! inkwell wraps, only takes IR modules; ORC's `LLJIT` takes object files through LLVM's C API
//! (`LLVMOrcLLJITAddObjectFile`) and links them with JITLink, resolving their external symbols
//! against the absolute addresses given to [`ObjectJit::new`] (the runtime's entry points) and
//! then against the symbols of this process (`memset`, `fmodf`, ...). Linking our own shared
//! objects with the system linker and `dlopen` would need a linker at run time and a file per
//! load; LLJIT needs neither.

use inkwell::llvm_sys::core::LLVMCreateMemoryBufferWithMemoryRangeCopy;
use inkwell::llvm_sys::error::{LLVMDisposeErrorMessage, LLVMErrorRef, LLVMGetErrorMessage};
use inkwell::llvm_sys::orc2::lljit::{
    LLVMOrcCreateLLJIT, LLVMOrcDisposeLLJIT, LLVMOrcLLJITAddObjectFile,
    LLVMOrcLLJITGetGlobalPrefix, LLVMOrcLLJITGetMainJITDylib, LLVMOrcLLJITLookup,
    LLVMOrcLLJITMangleAndIntern, LLVMOrcLLJITRef,
};
use inkwell::llvm_sys::orc2::{
    LLVMJITEvaluatedSymbol, LLVMJITSymbolFlags, LLVMJITSymbolGenericFlags, LLVMOrcAbsoluteSymbols,
    LLVMOrcCSymbolMapPair, LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess,
    LLVMOrcDisposeMaterializationUnit, LLVMOrcJITDylibAddGenerator, LLVMOrcJITDylibDefine,
};
use std::ffi::{CStr, CString};
use std::ptr;

/// A JIT that links object files into this process. The code it loaded lives until it drops.
pub(crate) struct ObjectJit {
    jit: LLVMOrcLLJITRef,
}

// SAFETY: an `LLJIT` may be used from any thread (ORC's execution session locks its state), and
// this wrapper hands out no references into it.
unsafe impl Send for ObjectJit {}
// SAFETY: as above; `&ObjectJit` only allows `lookup`, which ORC makes thread-safe.
unsafe impl Sync for ObjectJit {}

impl ObjectJit {
    /// A JIT in which each `(name, address)` of `absolute` is defined (unmangled C names), and
    /// the other undefined symbols of loaded objects come from this process.
    pub(crate) fn new(absolute: &[(&str, usize)]) -> Result<ObjectJit, String> {
        let mut raw = ptr::null_mut();
        // SAFETY: a null builder asks for the default LLJIT for this host; on success `raw` is
        // a JIT that `ObjectJit` owns and disposes.
        check(unsafe { LLVMOrcCreateLLJIT(&mut raw, ptr::null_mut()) })?;
        let jit = ObjectJit { jit: raw };
        // SAFETY: `jit.jit` is a live LLJIT; its main dylib lives as long as it.
        let dylib = unsafe { LLVMOrcLLJITGetMainJITDylib(jit.jit) };
        let mut symbols = Vec::with_capacity(absolute.len());
        for &(name, address) in absolute {
            let name = CString::new(name).map_err(|_| format!("symbol name {name:?} has a NUL"))?;
            symbols.push(LLVMOrcCSymbolMapPair {
                // SAFETY: `name` is a NUL-terminated string; the returned pool entry's
                // reference is handed to `LLVMOrcAbsoluteSymbols` below, which takes it.
                Name: unsafe { LLVMOrcLLJITMangleAndIntern(jit.jit, name.as_ptr()) },
                Sym: LLVMJITEvaluatedSymbol {
                    Address: address as u64,
                    Flags: LLVMJITSymbolFlags {
                        GenericFlags: LLVMJITSymbolGenericFlags::LLVMJITSymbolGenericFlagsExported
                            as u8
                            | LLVMJITSymbolGenericFlags::LLVMJITSymbolGenericFlagsCallable as u8,
                        TargetFlags: 0,
                    },
                },
            });
        }
        if !symbols.is_empty() {
            // SAFETY: `symbols` holds `len` initialised pairs; the materialization unit takes
            // the names' references.
            let unit = unsafe { LLVMOrcAbsoluteSymbols(symbols.as_mut_ptr(), symbols.len()) };
            // SAFETY: `dylib` belongs to `jit`; on success it owns `unit`, on failure the unit
            // is still ours and is disposed.
            if let Err(e) = check(unsafe { LLVMOrcJITDylibDefine(dylib, unit) }) {
                unsafe { LLVMOrcDisposeMaterializationUnit(unit) };
                return Err(e);
            }
        }
        let mut generator = ptr::null_mut();
        // SAFETY: `generator` receives a new definition generator on success, which
        // `LLVMOrcJITDylibAddGenerator` takes over; no filter is passed.
        check(unsafe {
            LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(
                &mut generator,
                LLVMOrcLLJITGetGlobalPrefix(jit.jit),
                None,
                ptr::null_mut(),
            )
        })?;
        // SAFETY: `dylib` is live and takes ownership of `generator`.
        unsafe { LLVMOrcJITDylibAddGenerator(dylib, generator) };
        Ok(jit)
    }

    /// Adds a relocatable object file (position-independent code for this host). Its symbols
    /// are linked on the first [`ObjectJit::lookup`] that needs them.
    pub(crate) fn add_object(&self, object: &[u8], name: &str) -> Result<(), String> {
        let name = CString::new(name).unwrap_or_default();
        // SAFETY: the buffer copies `object`'s bytes; `LLVMOrcLLJITAddObjectFile` takes the
        // buffer in every case.
        let buffer = unsafe {
            LLVMCreateMemoryBufferWithMemoryRangeCopy(
                object.as_ptr().cast(),
                object.len(),
                name.as_ptr(),
            )
        };
        // SAFETY: `self.jit` is live; its main dylib exists for its whole life.
        check(unsafe {
            LLVMOrcLLJITAddObjectFile(self.jit, LLVMOrcLLJITGetMainJITDylib(self.jit), buffer)
        })
    }

    /// The address of the (unmangled) symbol `name`, linking what it needs first.
    pub(crate) fn lookup(&self, name: &str) -> Result<usize, String> {
        let c_name = CString::new(name).map_err(|_| format!("symbol name {name:?} has a NUL"))?;
        let mut address = 0;
        // SAFETY: `self.jit` is live and `c_name` is NUL-terminated; `address` receives the
        // symbol's address on success.
        check(unsafe { LLVMOrcLLJITLookup(self.jit, &mut address, c_name.as_ptr()) })?;
        usize::try_from(address).map_err(|_| format!("symbol '{name}' is out of reach"))
    }
}

impl Drop for ObjectJit {
    fn drop(&mut self) {
        // SAFETY: `self.jit` was created by `LLVMOrcCreateLLJIT` and is disposed once; no code
        // it loaded runs any more (its owner, `CpuModule`, is being dropped).
        let error = unsafe { LLVMOrcDisposeLLJIT(self.jit) };
        // A failure to tear down is not actionable; its message is freed.
        let _ = check(error);
    }
}

/// `Ok` for a null error; otherwise the error's message, the error consumed.
fn check(error: LLVMErrorRef) -> Result<(), String> {
    if error.is_null() {
        return Ok(());
    }
    // SAFETY: a non-null `LLVMErrorRef` is consumed by `LLVMGetErrorMessage`, whose string is
    // copied and then freed with `LLVMDisposeErrorMessage`.
    unsafe {
        let message = LLVMGetErrorMessage(error);
        let text = CStr::from_ptr(message).to_string_lossy().into_owned();
        LLVMDisposeErrorMessage(message);
        Err(text)
    }
}
