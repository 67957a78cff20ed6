//! The few CUDA driver API calls the smoke test needs, loaded from `libcuda.so.1` at run time
//! (libloading), so the tool builds and runs on machines without CUDA and says why it skipped.
//!
//! One device (ordinal 0), its primary context, one module per PTX text. Every call's result
//! is checked; a failure comes back as an error naming the call and CUDA's own message.

use dlc_loop::interp::KernelArg;
use libloading::{Library, Symbol};
use std::ffi::{c_char, c_int, c_uint, c_void, CStr, CString};

type CuResult = c_int;
type CuDevice = c_int;
type CuContext = *mut c_void;
type CuModule = *mut c_void;
type CuFunction = *mut c_void;
type CuDevicePtr = u64;

/// `cuLaunchKernel(f, grid x/y/z, block x/y/z, shared bytes, stream, params, extra)`.
type CuLaunchKernel = unsafe extern "C" fn(
    CuFunction,
    c_uint,
    c_uint,
    c_uint,
    c_uint,
    c_uint,
    c_uint,
    c_uint,
    *mut c_void,
    *mut *mut c_void,
    *mut *mut c_void,
) -> CuResult;

const CUDA_SUCCESS: CuResult = 0;
const ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: c_int = 75;
const ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: c_int = 76;
const LIMIT_STACK_SIZE: c_int = 0;

/// Why the GPU cannot be used: the tool then skips rather than fails.
#[derive(Debug)]
pub struct Unavailable(pub String);

/// The CUDA driver with device 0's primary context current on this thread.
pub struct Cuda {
    lib: Library,
    device: CuDevice,
    context: CuContext,
}

/// A device allocation, freed on drop.
struct DeviceBuffer<'a> {
    cuda: &'a Cuda,
    ptr: CuDevicePtr,
}

impl Drop for DeviceBuffer<'_> {
    fn drop(&mut self) {
        // SAFETY: `ptr` came from cuMemAlloc_v2 of this driver and is freed once.
        let _ = unsafe { self.cuda.call1::<CuDevicePtr>("cuMemFree_v2", self.ptr) };
    }
}

impl Cuda {
    /// Loads the driver and makes device 0's primary context current; `Unavailable` when there
    /// is no driver or no device.
    pub fn open() -> Result<Cuda, Unavailable> {
        // SAFETY: loading the system's CUDA driver library runs its initialisers, which have no
        // preconditions.
        let lib = unsafe { Library::new("libcuda.so.1") }
            .map_err(|e| Unavailable(format!("no CUDA driver (libcuda.so.1: {e})")))?;
        let mut cuda = Cuda {
            lib,
            device: 0,
            context: std::ptr::null_mut(),
        };
        // SAFETY: cuInit takes a flags word (must be 0).
        unsafe { cuda.call1::<c_uint>("cuInit", 0) }
            .map_err(|e| Unavailable(format!("cuInit failed: {e}")))?;
        let mut count: c_int = 0;
        // SAFETY: the out-pointer is valid for one c_int.
        unsafe { cuda.call1::<*mut c_int>("cuDeviceGetCount", &mut count) }.map_err(Unavailable)?;
        if count == 0 {
            return Err(Unavailable("no CUDA device".into()));
        }
        let mut device: CuDevice = 0;
        // SAFETY: the out-pointer is valid for one device handle; ordinal 0 exists.
        unsafe { cuda.call2::<*mut CuDevice, c_int>("cuDeviceGet", &mut device, 0) }
            .map_err(Unavailable)?;
        let mut context: CuContext = std::ptr::null_mut();
        // SAFETY: the out-pointer is valid for one context handle; `device` is valid.
        unsafe {
            cuda.call2::<*mut CuContext, CuDevice>("cuDevicePrimaryCtxRetain", &mut context, device)
        }
        .map_err(Unavailable)?;
        // SAFETY: `context` was just retained.
        unsafe { cuda.call1::<CuContext>("cuCtxSetCurrent", context) }.map_err(Unavailable)?;
        cuda.device = device;
        cuda.context = context;
        Ok(cuda)
    }

    /// The device's compute capability as `major * 10 + minor` (90 for an H100).
    pub fn compute_capability(&self) -> Result<u32, String> {
        let mut major: c_int = 0;
        let mut minor: c_int = 0;
        // SAFETY: out-pointers valid for one c_int each; `device` is valid.
        unsafe {
            self.call3::<*mut c_int, c_int, CuDevice>(
                "cuDeviceGetAttribute",
                &mut major,
                ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                self.device,
            )?;
            self.call3::<*mut c_int, c_int, CuDevice>(
                "cuDeviceGetAttribute",
                &mut minor,
                ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                self.device,
            )?;
        }
        Ok((major * 10 + minor) as u32)
    }

    /// Sets the stack every thread of later launches gets, in bytes (`cuCtxSetLimit` of
    /// `CU_LIMIT_STACK_SIZE`; CUDA's default is 1 KiB).
    pub fn set_stack_bytes(&self, bytes: u64) -> Result<(), String> {
        let bytes = usize::try_from(bytes).map_err(|_| "stack size too large".to_string())?;
        // SAFETY: cuCtxSetLimit takes a limit kind and a size; the context is current.
        unsafe { self.call2::<c_int, usize>("cuCtxSetLimit", LIMIT_STACK_SIZE, bytes) }
    }

    /// Loads `ptx`, runs its kernel `name` on a `grid` of `block`s with `args` (the kernel ABI
    /// of docs/codegen.md: a buffer is its device pointer then every dim as a 64-bit integer,
    /// an index is a 64-bit integer), and copies every buffer back into `args`.
    pub fn run(
        &self,
        ptx: &str,
        name: &str,
        grid: [u32; 3],
        block: [u32; 3],
        args: &mut [KernelArg],
    ) -> Result<(), String> {
        let ptx = CString::new(ptx).map_err(|_| "PTX text holds a NUL byte".to_string())?;
        let name_c = CString::new(name).map_err(|_| "kernel name holds a NUL byte".to_string())?;
        let mut module: CuModule = std::ptr::null_mut();
        // SAFETY: `ptx` is a NUL-terminated PTX text; the out-pointer is valid.
        unsafe {
            self.call2::<*mut CuModule, *const c_void>(
                "cuModuleLoadData",
                &mut module,
                ptx.as_ptr().cast(),
            )?
        };
        let result = self.launch(module, &name_c, grid, block, args);
        // SAFETY: `module` was loaded above and is unloaded once.
        let unload = unsafe { self.call1::<CuModule>("cuModuleUnload", module) };
        result.and(unload)
    }

    fn launch(
        &self,
        module: CuModule,
        name: &CStr,
        grid: [u32; 3],
        block: [u32; 3],
        args: &mut [KernelArg],
    ) -> Result<(), String> {
        let mut function: CuFunction = std::ptr::null_mut();
        // SAFETY: `module` is loaded, `name` NUL-terminated, the out-pointer valid.
        unsafe {
            self.call3::<*mut CuFunction, CuModule, *const c_char>(
                "cuModuleGetFunction",
                &mut function,
                module,
                name.as_ptr(),
            )?
        };
        let mut buffers = Vec::new();
        let mut words: Vec<u64> = Vec::new();
        for arg in args.iter() {
            match arg {
                KernelArg::Buffer(t) => {
                    let bytes = t.to_le_bytes();
                    let buffer = self.upload(&bytes)?;
                    words.push(buffer.ptr);
                    words.extend(t.shape().iter().map(|&d| d as u64));
                    buffers.push(buffer);
                }
                KernelArg::Index(i) => words.push(*i as u64),
            }
        }
        // cuLaunchKernel takes one pointer per parameter, to its value.
        let mut params: Vec<*mut c_void> = words
            .iter_mut()
            .map(|w| (w as *mut u64).cast::<c_void>())
            .collect();
        // SAFETY: `function` is a kernel of the loaded module whose parameters are exactly
        // `words` (one 64-bit word each, the ABI above); `params` points at them and outlives
        // the launch, which is synchronised below before they are dropped.
        unsafe {
            let launch: Symbol<CuLaunchKernel> = self.symbol("cuLaunchKernel")?;
            let r = launch(
                function,
                grid[0],
                grid[1],
                grid[2],
                block[0],
                block[1],
                block[2],
                0,
                std::ptr::null_mut(),
                params.as_mut_ptr(),
                std::ptr::null_mut(),
            );
            self.check("cuLaunchKernel", r)?;
            self.call0("cuCtxSynchronize")?;
        }
        let mut next = buffers.iter();
        for arg in args.iter_mut() {
            if let KernelArg::Buffer(t) = arg {
                let buffer = next.next().ok_or("buffer count changed")?;
                let mut bytes = vec![0u8; t.to_le_bytes().len()];
                // SAFETY: `bytes` has room for the whole buffer, which the device holds at
                // `buffer.ptr` with that size.
                unsafe {
                    self.call3::<*mut c_void, CuDevicePtr, usize>(
                        "cuMemcpyDtoH_v2",
                        bytes.as_mut_ptr().cast(),
                        buffer.ptr,
                        bytes.len(),
                    )?
                };
                *t = dlc_tensor::Literal::from_le_bytes(t.dtype(), t.shape(), &bytes)?;
            }
        }
        Ok(())
    }

    /// A device copy of `bytes` (at least one byte is allocated).
    fn upload(&self, bytes: &[u8]) -> Result<DeviceBuffer<'_>, String> {
        let mut ptr: CuDevicePtr = 0;
        // SAFETY: the out-pointer is valid; the size is non-zero.
        unsafe {
            self.call2::<*mut CuDevicePtr, usize>("cuMemAlloc_v2", &mut ptr, bytes.len().max(1))?
        };
        let buffer = DeviceBuffer { cuda: self, ptr };
        // SAFETY: the allocation holds at least `bytes.len()` bytes.
        unsafe {
            self.call3::<CuDevicePtr, *const c_void, usize>(
                "cuMemcpyHtoD_v2",
                ptr,
                bytes.as_ptr().cast(),
                bytes.len(),
            )?
        };
        Ok(buffer)
    }

    /// # Safety
    /// `T` must be the C type of the function's symbol.
    unsafe fn symbol<T>(&self, name: &str) -> Result<Symbol<'_, T>, String> {
        self.lib
            .get(name.as_bytes())
            .map_err(|e| format!("{name}: not in the CUDA driver ({e})"))
    }

    /// Turns a `CUresult` into an error with CUDA's message.
    fn check(&self, call: &str, result: CuResult) -> Result<(), String> {
        if result == CUDA_SUCCESS {
            return Ok(());
        }
        let mut text: *const c_char = std::ptr::null();
        // SAFETY: cuGetErrorString writes a pointer to a static string (or leaves it null).
        let known = unsafe {
            self.symbol::<unsafe extern "C" fn(CuResult, *mut *const c_char) -> CuResult>(
                "cuGetErrorString",
            )
            .map(|f| f(result, &mut text))
        };
        let message = match known {
            Ok(CUDA_SUCCESS) if !text.is_null() => {
                // SAFETY: non-null results point at NUL-terminated static strings.
                unsafe { CStr::from_ptr(text) }
                    .to_string_lossy()
                    .into_owned()
            }
            _ => "unknown error".to_string(),
        };
        Err(format!("{call} failed: CUDA error {result}: {message}"))
    }

    /// # Safety
    /// The named driver function must take no arguments.
    unsafe fn call0(&self, name: &str) -> Result<(), String> {
        let f = self.symbol::<unsafe extern "C" fn() -> CuResult>(name)?;
        self.check(name, f())
    }

    /// # Safety
    /// The named driver function must take one argument of type `A`, valid as given.
    unsafe fn call1<A>(&self, name: &str, a: A) -> Result<(), String> {
        let f = self.symbol::<unsafe extern "C" fn(A) -> CuResult>(name)?;
        self.check(name, f(a))
    }

    /// # Safety
    /// The named driver function must take arguments of types `A`, `B`, valid as given.
    unsafe fn call2<A, B>(&self, name: &str, a: A, b: B) -> Result<(), String> {
        let f = self.symbol::<unsafe extern "C" fn(A, B) -> CuResult>(name)?;
        self.check(name, f(a, b))
    }

    /// # Safety
    /// The named driver function must take arguments of types `A`, `B`, `C`, valid as given.
    unsafe fn call3<A, B, C>(&self, name: &str, a: A, b: B, c: C) -> Result<(), String> {
        let f = self.symbol::<unsafe extern "C" fn(A, B, C) -> CuResult>(name)?;
        self.check(name, f(a, b, c))
    }
}

impl Drop for Cuda {
    fn drop(&mut self) {
        if !self.context.is_null() {
            // SAFETY: the primary context of `device` was retained once in `open`.
            let _ = unsafe { self.call1::<CuDevice>("cuDevicePrimaryCtxRelease_v2", self.device) };
        }
    }
}
