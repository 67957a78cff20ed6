//! Running a compiled host program: the per-model memory and the run loop.
//!
//! A [`Session`] owns everything a run writes: one persistent allocation per host `loop.alloc`
//! (the arena, when `plan-memory` has run), private copies of inputs the program writes or
//! returns, and the slot tables. Allocations are made on the first run and again only when a
//! run needs more bytes than the slot holds, so steady-state runs allocate nothing; outputs are
//! borrowed from the session until the next run.
//!
//! **Reused memory is not re-zeroed.** A fresh allocation is zeroed, but a reused one keeps the
//! previous run's bytes: lowered programs write every element before they read it, so zeroing
//! would be wasted bandwidth. [`Session::set_poison`] fills every allocation with `0xFF` bytes
//! (NaN for floats, -1 for integers) before each run, which tests use to prove that no kernel
//! reads memory it did not write.
//!
//! Inputs are checked against the program's [`Signature`](crate::Signature) before anything
//! runs; host arithmetic, sizes, views and launch arguments are checked as they execute. All
//! failures are [`RuntimeError`]s, never panics or out-of-bounds kernels.

use crate::error::RuntimeError;
use crate::program::{wrap, CheckedIndices, HostProgram, Instr, IntOp, LaunchArg, Param, Size};
use crate::tensor::{byte_size, AlignedBytes, Tensor, TensorView};
use dlc_ir::Location;
use dlc_tensor::unravel;

/// A buffer value during a run: where its bytes are and how many there are.
#[derive(Copy, Clone)]
struct Buf {
    ptr: *mut u8,
    bytes: usize,
}

/// The memory and scratch space for running one [`HostProgram`] repeatedly.
pub struct Session<'p> {
    program: &'p HostProgram,
    scalars: Vec<i64>,
    bufs: Vec<Buf>,
    dims: Vec<usize>,
    allocs: Vec<Option<AlignedBytes>>,
    input_copies: Vec<Option<AlignedBytes>>,
    words: Vec<u64>,
    seen: Vec<Option<(usize, usize, usize)>>,
    allocations: usize,
    poison: bool,
    ran: bool,
    /// Per launch (index into the program's launches): total time and count, when profiling.
    profile: Option<Vec<(std::time::Duration, u32)>>,
}

/// The time one kernel took over the runs of a profiling session ([`Session::set_profile`]).
#[derive(Clone, Debug, PartialEq)]
pub struct KernelTime {
    /// The kernel's symbol (`@name` without the `@`).
    pub name: String,
    /// Wall time of all its launches.
    pub total: std::time::Duration,
    /// How many launches that was.
    pub launches: u32,
}

impl<'p> Session<'p> {
    /// A session with no memory yet (it is allocated by the first run).
    pub fn new(program: &'p HostProgram) -> Session<'p> {
        Session {
            program,
            scalars: vec![0; program.num_scalars],
            bufs: vec![
                Buf {
                    ptr: std::ptr::null_mut(),
                    bytes: 0
                };
                program.buf_dtype.len()
            ],
            dims: vec![0; program.num_dims],
            allocs: (0..program.num_allocs).map(|_| None).collect(),
            input_copies: (0..program.params.len()).map(|_| None).collect(),
            words: vec![0; program.max_words],
            seen: vec![None; program.signature.num_symbols()],
            allocations: 0,
            poison: false,
            ran: false,
            profile: None,
        }
    }

    /// When on, every allocation is filled with `0xFF` bytes before each run (see the module
    /// docs); off by default.
    pub fn set_poison(&mut self, poison: bool) {
        self.poison = poison;
    }

    /// When on, each launch is timed (wall clock around the kernel call) and the times add up
    /// until [`Session::kernel_times`] reads them; turning it on again starts from zero.
    pub fn set_profile(&mut self, on: bool) {
        self.profile = on.then(|| vec![Default::default(); self.program.launches.len()]);
    }

    /// The time of each launch site in program order, summed over the runs since profiling
    /// was turned on (empty when it is off).
    pub fn kernel_times(&self) -> Vec<KernelTime> {
        let Some(profile) = &self.profile else {
            return Vec::new();
        };
        self.program
            .launches
            .iter()
            .zip(profile)
            .map(|(launch, &(total, launches))| KernelTime {
                name: launch.name.clone(),
                total,
                launches,
            })
            .collect()
    }

    /// How many allocations (arena slots and input copies) this session has made so far: a
    /// run that reuses all its memory leaves it unchanged.
    pub fn allocation_count(&self) -> usize {
        self.allocations
    }

    /// The bytes currently held by the session's `loop.alloc` slots.
    pub fn arena_bytes(&self) -> usize {
        self.allocs.iter().flatten().map(AlignedBytes::len).sum()
    }

    /// Runs the program on `inputs`, returning its outputs (borrowed until the next run).
    pub fn run(&mut self, inputs: &[&Tensor]) -> Result<Outputs<'_>, RuntimeError> {
        self.ran = false;
        crate::pool::num_threads()?;
        let program = self.program;
        program.signature.check(inputs, &mut self.seen)?;
        self.bind(inputs)?;
        let session = SendSession(self);
        // SAFETY: the session is used by the one pool thread that runs the closure while this
        // thread waits in `run_in_pool`, so access stays exclusive; its raw buffer pointers are
        // what make it `!Send`, and they point to memory this session owns or borrows for the
        // run.
        let result = crate::pool::run_in_pool(move || {
            let session = session;
            let this = session.0;
            program
                .instrs
                .iter()
                .zip(&program.locs)
                .try_for_each(|(instr, loc)| this.exec(instr, *loc))
        });
        result?;
        self.ran = true;
        Ok(Outputs { session: self })
    }

    /// The outputs of the last successful run (none before one).
    pub fn outputs(&self) -> Outputs<'_> {
        Outputs { session: self }
    }

    /// Binds the (already checked) inputs to the argument slots.
    fn bind(&mut self, inputs: &[&Tensor]) -> Result<(), RuntimeError> {
        for (i, (param, t)) in self.program.params.iter().zip(inputs).enumerate() {
            match *param {
                Param::Scalar { slot } => {
                    let n = t.dtype().size_bytes();
                    self.scalars[slot as usize] = read_int(&t.bytes()[..n]);
                }
                Param::Buffer { slot, copy } => {
                    let bytes = t.bytes();
                    let ptr = if copy {
                        let buf = reserve(
                            &mut self.input_copies[i],
                            bytes.len(),
                            &mut self.allocations,
                        )
                        .map_err(|e| RuntimeError::Tensor(format!("the copy of input {i}: {e}")))?;
                        buf.as_mut_slice()[..bytes.len()].copy_from_slice(bytes);
                        buf.as_mut_ptr()
                    } else {
                        // Only read by the program (checked at compile time), never written.
                        t.as_ptr().cast_mut()
                    };
                    self.bufs[slot as usize] = Buf {
                        ptr,
                        bytes: bytes.len(),
                    };
                    let at = self.program.buf_dims_at[slot as usize] as usize;
                    self.dims[at..at + t.shape().len()].copy_from_slice(t.shape());
                }
            }
        }
        Ok(())
    }

    fn exec(&mut self, instr: &Instr, loc: Location) -> Result<(), RuntimeError> {
        let fail = |message: String| RuntimeError::Op {
            location: loc,
            message,
        };
        let s = &mut self.scalars;
        match instr {
            Instr::Const { dst, value } => s[*dst as usize] = *value,
            Instr::Binary {
                op,
                width,
                dst,
                a,
                b,
            } => {
                let v = int_binary(*op, s[*a as usize], s[*b as usize], *width).map_err(fail)?;
                s[*dst as usize] = v;
            }
            Instr::Cmp {
                pred,
                width,
                dst,
                a,
                b,
            } => {
                let (x, y) = (s[*a as usize], s[*b as usize]);
                let (ux, uy) = (unsigned(x, *width), unsigned(y, *width));
                let r = match pred {
                    0 => x == y,
                    1 => x != y,
                    2 => x < y,
                    3 => x <= y,
                    4 => x > y,
                    5 => x >= y,
                    6 => ux < uy,
                    7 => ux <= uy,
                    8 => ux > uy,
                    _ => ux >= uy,
                };
                // An i1 true is held sign-extended, as -1.
                s[*dst as usize] = -i64::from(r);
            }
            Instr::Select { dst, cond, a, b } => {
                s[*dst as usize] = if s[*cond as usize] != 0 {
                    s[*a as usize]
                } else {
                    s[*b as usize]
                };
            }
            Instr::Cast {
                dst,
                src,
                from,
                to,
                zext,
            } => {
                let x = s[*src as usize];
                let x = if *zext { unsigned(x, *from) as i64 } else { x };
                s[*dst as usize] = crate::program::wrap(x, *to);
            }
            Instr::Dim { dst, buf, axis } => {
                let at = self.program.buf_dims_at[*buf as usize] as usize;
                s[*dst as usize] = self.dims[at + *axis as usize] as i64;
            }
            Instr::Alloc { dst, alloc, dims } => {
                let bytes = self.set_dims(*dst, dims).map_err(fail)?;
                let buf = reserve(
                    &mut self.allocs[*alloc as usize],
                    bytes,
                    &mut self.allocations,
                )
                .map_err(|e| fail(format!("the buffer allocated here: {e}")))?;
                if self.poison {
                    buf.as_mut_slice().fill(0xFF);
                }
                self.bufs[*dst as usize] = Buf {
                    ptr: buf.as_mut_ptr(),
                    bytes,
                };
            }
            Instr::Constant {
                dst,
                constant,
                dims,
            } => {
                self.set_dims(*dst, dims).map_err(fail)?;
                let c = &self.program.constants[*constant as usize];
                // Kernels never write constants (the loop dialect makes writing one an error),
                // so handing out a mutable pointer to the program's bytes is never used to write.
                self.bufs[*dst as usize] = Buf {
                    ptr: c.as_ptr().cast_mut(),
                    bytes: c.len(),
                };
            }
            Instr::View {
                dst,
                arena,
                offset,
                dims,
            } => {
                let bytes = self.set_dims(*dst, dims).map_err(fail)?;
                let arena = self.bufs[*arena as usize];
                let offset = self.scalars[*offset as usize];
                let align = self.program.buf_dtype[*dst as usize].size_bytes();
                let start = usize::try_from(offset)
                    .ok()
                    .filter(|o| o % align == 0)
                    .ok_or_else(|| {
                        fail(format!(
                            "byte offset {offset} is not a non-negative multiple of the element size {align}"
                        ))
                    })?;
                match start.checked_add(bytes) {
                    Some(end) if end <= arena.bytes => {}
                    _ => {
                        return Err(fail(format!(
                            "view of {bytes} bytes at byte offset {start} is out of range of an arena of {} bytes",
                            arena.bytes
                        )))
                    }
                }
                self.bufs[*dst as usize] = Buf {
                    // SAFETY: `start + bytes <= arena.bytes`, so the pointer stays inside the
                    // arena's allocation (or one past it for an empty view).
                    ptr: unsafe { arena.ptr.add(start) },
                    bytes,
                };
            }
            Instr::Reshape { dst, src, dims } => {
                let bytes = self.set_dims(*dst, dims).map_err(fail)?;
                let src = self.bufs[*src as usize];
                if bytes != src.bytes {
                    return Err(fail(format!(
                        "cannot reshape a buffer of {} bytes to one of {bytes} bytes",
                        src.bytes
                    )));
                }
                self.bufs[*dst as usize] = src;
            }
            Instr::Launch(i) => self.launch(*i as usize, loc)?,
        }
        Ok(())
    }

    /// Computes and records the dims of buffer slot `dst`; returns its byte size.
    fn set_dims(&mut self, dst: u32, dims: &[Size]) -> Result<usize, String> {
        let at = self.program.buf_dims_at[dst as usize] as usize;
        for (k, size) in dims.iter().enumerate() {
            let n = match *size {
                Size::Static(n) => n,
                Size::Scalar(slot) => {
                    let v = self.scalars[slot as usize];
                    usize::try_from(v).map_err(|_| format!("negative buffer size {v}"))?
                }
            };
            self.dims[at + k] = n;
        }
        let dtype = self.program.buf_dtype[dst as usize];
        byte_size(&self.dims[at..at + dims.len()], dtype).map_err(|e| e.to_string())
    }

    fn launch(&mut self, index: usize, loc: Location) -> Result<(), RuntimeError> {
        let launch = &self.program.launches[index];
        let fail = |message: String| RuntimeError::Op {
            location: loc,
            message: format!("launch of '@{}': {message}", launch.name),
        };
        let mut w = 0;
        for (i, arg) in launch.args.iter().enumerate() {
            match arg {
                LaunchArg::Buffer {
                    slot,
                    declared,
                    written,
                } => {
                    let buf = self.bufs[*slot as usize];
                    let at = self.program.buf_dims_at[*slot as usize] as usize;
                    let dims = &self.dims[at..at + declared.len()];
                    for (axis, (&d, decl)) in dims.iter().zip(declared.iter()).enumerate() {
                        if let Some(n) = *decl {
                            if n != d {
                                return Err(fail(format!(
                                    "argument #{i} has size {d} in dim {axis} but the kernel declares {n}"
                                )));
                            }
                        }
                    }
                    self.check_overlap(launch.args.get(..i).unwrap_or(&[]), (*slot, *written), i)
                        .map_err(fail)?;
                    self.words[w] = buf.ptr as u64;
                    w += 1;
                    for &d in dims {
                        self.words[w] = d as u64;
                        w += 1;
                    }
                }
                LaunchArg::Scalar { slot } => {
                    self.words[w] = self.scalars[*slot as usize] as u64;
                    w += 1;
                }
            }
        }
        for check in launch.index_checks.iter() {
            self.check_indices(check).map_err(fail)?;
        }
        // SAFETY: the words follow the kernel ABI for this kernel's argument list (layout fixed
        // at compile time from the kernel's signature); every buffer pointer is valid for its
        // dims (checked against the kernel's static dims above), buffers passed together are
        // either the same view or disjoint, and every index the kernel loads at unchecked is in
        // range (its index checks, just above). Inputs the kernel may write are private copies.
        let start = self.profile.is_some().then(std::time::Instant::now);
        unsafe { (launch.kernel)(self.words.as_ptr()) };
        if let (Some(start), Some(profile)) = (start, self.profile.as_mut()) {
            let entry = &mut profile[index];
            entry.0 += start.elapsed();
            entry.1 += 1;
        }
        Ok(())
    }

    /// Checks that every element of the index buffer of `c` is in `[-n, n)` for the size `n` of
    /// the axis it indexes; the error names the first one that is not.
    fn check_indices(&self, c: &CheckedIndices) -> Result<(), String> {
        let p = self.program;
        let (indices, data) = (c.indices as usize, c.data as usize);
        let n = self.dims[p.buf_dims_at[data] as usize + c.check.axis] as i64;
        let width = p.buf_dtype[indices].size_bytes();
        let buf = self.bufs[indices];
        // SAFETY: `buf` is a live buffer of `buf.bytes` bytes (an input, a constant or an
        // allocation of this session), only read here, before the kernel runs.
        let bytes = unsafe { std::slice::from_raw_parts(buf.ptr.cast_const(), buf.bytes) };
        for (k, element) in bytes.chunks_exact(width).enumerate() {
            let i = read_int(element);
            if i < -n || i >= n {
                let at = p.buf_dims_at[indices] as usize;
                let shape = &self.dims[at..at + p.buf_rank[indices] as usize];
                return Err(format!(
                    "index {i} (element {:?} of the indices, argument #{}) is out of range for \
                     axis {} of size {n} of argument #{}: valid indices are in [{}, {n})",
                    unravel(k, shape),
                    c.check.indices,
                    c.check.axis,
                    c.check.data,
                    -n
                ));
            }
        }
        Ok(())
    }

    /// Checks that buffer slot `slot` (argument `i`, which the kernel writes if `written`) is
    /// the same view as, or disjoint from, each buffer among `earlier` that either of them is
    /// written through; buffers the kernel only reads may share bytes (a tensor and a reshape
    /// of it).
    fn check_overlap(
        &self,
        earlier: &[LaunchArg],
        (slot, written): (u32, bool),
        i: usize,
    ) -> Result<(), String> {
        let a = self.bufs[slot as usize];
        for (j, arg) in earlier.iter().enumerate() {
            let LaunchArg::Buffer {
                slot: other,
                written: other_written,
                ..
            } = arg
            else {
                continue;
            };
            if !written && !other_written {
                continue;
            }
            let b = self.bufs[*other as usize];
            let (a0, b0) = (a.ptr as usize, b.ptr as usize);
            let overlap = a.bytes > 0 && b.bytes > 0 && a0 < b0 + b.bytes && b0 < a0 + a.bytes;
            if overlap && !self.same_view(slot, *other) {
                return Err(format!(
                    "arguments #{j} and #{i} overlap without being the same view"
                ));
            }
        }
        Ok(())
    }

    fn same_view(&self, x: u32, y: u32) -> bool {
        let p = self.program;
        let (a, b) = (self.bufs[x as usize], self.bufs[y as usize]);
        let dims = |s: u32| {
            let at = p.buf_dims_at[s as usize] as usize;
            &self.dims[at..at + p.buf_rank[s as usize] as usize]
        };
        a.ptr == b.ptr
            && a.bytes == b.bytes
            && p.buf_dtype[x as usize] == p.buf_dtype[y as usize]
            && dims(x) == dims(y)
    }
}

/// The allocation in `slot`, grown (fresh and zeroed) if it holds fewer than `bytes` bytes.
fn reserve<'a>(
    slot: &'a mut Option<AlignedBytes>,
    bytes: usize,
    count: &mut usize,
) -> Result<&'a mut AlignedBytes, RuntimeError> {
    if slot.as_ref().is_none_or(|b| b.len() < bytes) {
        *slot = None;
        *slot = Some(AlignedBytes::zeroed(bytes)?);
        *count += 1;
    }
    slot.as_mut().ok_or(RuntimeError::OutOfMemory { bytes })
}

/// The little-endian integer in `bytes` (1 to 8 of them), sign-extended.
fn read_int(bytes: &[u8]) -> i64 {
    let mut raw = [0u8; 8];
    raw[..bytes.len()].copy_from_slice(bytes);
    wrap(i64::from_le_bytes(raw), 8 * bytes.len() as u32)
}

/// The outputs of a run, borrowed from the session.
#[derive(Copy, Clone)]
pub struct Outputs<'s> {
    session: &'s Session<'s>,
}

impl<'s> Outputs<'s> {
    /// The number of outputs (0 before a successful run).
    pub fn len(&self) -> usize {
        if self.session.ran {
            self.session.program.output_slots.len()
        } else {
            0
        }
    }

    /// True when there are no outputs.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Output `i`.
    pub fn get(&self, i: usize) -> Option<TensorView<'s>> {
        if i >= self.len() {
            return None;
        }
        let s = self.session;
        let slot = s.program.output_slots[i] as usize;
        let buf = s.bufs[slot];
        let at = s.program.buf_dims_at[slot] as usize;
        let rank = s.program.buf_rank[slot] as usize;
        // SAFETY: after a successful run, an output slot points into memory the session or
        // the program owns (an allocation, a private input copy or a constant; never a
        // caller's tensor), valid for `bytes` bytes and not written until the next run, which
        // needs `&mut` access to the session this borrows.
        let bytes = unsafe { std::slice::from_raw_parts(buf.ptr, buf.bytes) };
        Some(TensorView {
            dtype: s.program.outputs[i].dtype,
            shape: &s.dims[at..at + rank],
            bytes,
        })
    }

    /// The outputs in order.
    pub fn iter(&self) -> impl Iterator<Item = TensorView<'s>> + '_ {
        (0..self.len()).filter_map(|i| self.get(i))
    }
}

impl std::fmt::Debug for Outputs<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.iter().map(|v| (v.dtype.name(), v.shape.to_vec())))
            .finish()
    }
}

/// `x` read as an unsigned `width`-bit integer.
fn unsigned(x: i64, width: u32) -> u64 {
    if width >= 64 {
        x as u64
    } else {
        (x as u64) & ((1u64 << width) - 1)
    }
}

/// An integer binary op at `width` bits on sign-extended operands, wrapped to the width.
fn int_binary(op: IntOp, a: i64, b: i64, width: u32) -> Result<i64, String> {
    let (a, b) = (i128::from(a), i128::from(b));
    let (ua, ub) = (
        i128::from(unsigned(a as i64, width)),
        i128::from(unsigned(b as i64, width)),
    );
    let nonzero = |d: i128| {
        if d == 0 {
            Err("division by zero".to_string())
        } else {
            Ok(d)
        }
    };
    let v = match op {
        IntOp::Add => a + b,
        IntOp::Sub => a - b,
        IntOp::Mul => a.wrapping_mul(b),
        IntOp::DivS => a / nonzero(b)?,
        IntOp::RemS => a % nonzero(b)?,
        IntOp::DivU => ua / nonzero(ub)?,
        IntOp::RemU => ua % nonzero(ub)?,
        IntOp::And => a & b,
        IntOp::Or => a | b,
        IntOp::Xor => a ^ b,
        IntOp::Shl | IntOp::ShrS | IntOp::ShrU => {
            if ub >= i128::from(width) {
                return Err(format!("shift amount {ub} is not below the width {width}"));
            }
            match op {
                IntOp::Shl => a << ub,
                IntOp::ShrS => a >> ub,
                _ => ua >> ub,
            }
        }
        IntOp::MaxS => a.max(b),
        IntOp::MinS => a.min(b),
    };
    Ok(crate::program::wrap(v as i64, width))
}

/// A session handed to the pool thread that runs a program (see [`Session::run`]).
struct SendSession<'a, 'p>(&'a mut Session<'p>);

// SAFETY: `Session::run` moves the session to one pool thread and blocks until that thread is
// done with it, so it is never used from two threads at once.
unsafe impl Send for SendSession<'_, '_> {}
