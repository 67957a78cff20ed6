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
//! runs; host arithmetic, sizes, views and launch arguments are checked as they execute, and so
//! is a size `loop.read_size` reads out of a buffer a kernel wrote (negative, or past
//! `i64::MAX`, is an error naming it). All failures are [`RuntimeError`]s, never panics or
//! out-of-bounds kernels.
//!
//! **Calls.** Each `loop.call_if` and `loop.call_loop` site gets a session of its own for each
//! host function it calls, made on first use and kept, so steady-state runs allocate nothing
//! there either; it runs on its caller's thread (a pool worker, or the thread that called
//! [`Session::run_views`] for a program without parallel loops). A callee's arguments are the
//! caller's buffers and dims as they are, bound as a run binds tensors: checked against the
//! callee's signature (an error naming the call), and copied when the callee may write or
//! return them, so a callee never writes its caller's memory. Poison mode and profiling pass
//! down to the callees. A `loop.call_if` result is the callee's output memory, valid until that site runs the
//! callee again (a result that may be one of the callee's constants and that the caller writes
//! is copied first; see [`HostProgram`]). A `loop.call_loop` site owns the memory of its loop:
//! the carried values (copied in from the initial values, then from the body's outputs after
//! each iteration, so the next iteration never writes what it reads), the iteration number and
//! condition passed to the body, and the scan outputs, which grow geometrically and keep their
//! contents. The runtime writes every byte of that memory before it is read, so poison mode
//! leaves it alone; the callees' allocations are poisoned like the caller's.

use crate::error::RuntimeError;
use crate::program::{
    wrap, Call, CallArg, CallIf, CallLoop, CheckedIndices, HostProgram, Instr, LaunchArg, Param,
    Size,
};
use crate::tensor::{byte_size, AlignedBytes, Tensor, TensorView, ALIGN};
use dlc_arith::fold::eval_cmpi;
use dlc_arith::IntBinary;
use dlc_ir::Location;
use dlc_tensor::{unravel, DType};
use std::sync::atomic::Ordering;

/// A buffer value during a run: where its bytes are and how many there are.
#[derive(Copy, Clone)]
struct Buf {
    ptr: *mut u8,
    bytes: usize,
}

impl Buf {
    /// The bytes, read-only.
    ///
    /// # Safety
    /// `ptr` must be valid for reads of `bytes` bytes (or `bytes` 0) while the slice lives,
    /// and nothing may write them meanwhile.
    unsafe fn slice<'a>(self) -> &'a [u8] {
        if self.bytes == 0 || self.ptr.is_null() {
            return &[];
        }
        // SAFETY: the caller's contract.
        unsafe { std::slice::from_raw_parts(self.ptr.cast_const(), self.bytes) }
    }
}

/// One argument of a run or a call: a buffer with its dims, or an integer.
#[derive(Copy, Clone)]
enum Arg<'a> {
    Buffer(Buf, &'a [usize]),
    Scalar(i64),
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
    /// Per call of the program (index into its calls): what the call site keeps between runs.
    sites: Vec<Site<'p>>,
    allocations: usize,
    poison: bool,
    ran: bool,
    /// Per launch (index into the program's launches): total time and count, when profiling.
    profile: Option<Vec<(std::time::Duration, u32)>>,
}

/// What one call site keeps between runs.
enum Site<'p> {
    If(IfSite<'p>),
    Loop(Box<LoopSite<'p>>),
}

/// The memory of a `loop.call_if` site.
struct IfSite<'p> {
    /// The sessions of the then and else callees, made on first use.
    branches: [Option<Box<Session<'p>>>; 2],
    /// Per result: the site's copy of it, for results marked to be copied.
    copies: Vec<Option<AlignedBytes>>,
}

/// The memory of a `loop.call_loop` site.
struct LoopSite<'p> {
    /// The session of the body, made on first use.
    body: Option<Box<Session<'p>>>,
    /// The iteration number (8 bytes) and condition (1 byte) passed to the body.
    iteration: Option<AlignedBytes>,
    cond: Option<AlignedBytes>,
    /// Per carried value: its current value.
    carried: Vec<Owned>,
    /// Per scan output: the elements so far, and the dims of one.
    scans: Vec<Owned>,
}

/// Memory a call site owns for one value: `mem` holds at least `bytes` bytes, the value's, and
/// `dims` are its dims (for a scan output, those of one element).
struct Owned {
    mem: Option<AlignedBytes>,
    bytes: usize,
    dims: Vec<usize>,
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
        let sites = program
            .calls
            .iter()
            .map(|call| match call {
                Call::If(c) => Site::If(IfSite {
                    branches: [None, None],
                    copies: c.results.iter().map(|_| None).collect(),
                }),
                Call::Loop(c) => {
                    let rank = |slot: u32| program.buf_rank[slot as usize] as usize;
                    let n = c.carried.len();
                    Site::Loop(Box::new(LoopSite {
                        body: None,
                        iteration: None,
                        cond: None,
                        carried: c.carried.iter().map(|&b| Owned::new(rank(b))).collect(),
                        scans: c.results[n..]
                            .iter()
                            .map(|r| Owned::new(rank(r.slot).saturating_sub(1)))
                            .collect(),
                    }))
                }
            })
            .collect();
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
            sites,
            allocations: 0,
            poison: false,
            ran: false,
            profile: None,
        }
    }

    /// When on, every allocation is filled with `0xFF` bytes before each run (see the module
    /// docs), the callees' included; off by default.
    pub fn set_poison(&mut self, poison: bool) {
        self.poison = poison;
        for callee in self.callee_sessions_mut() {
            callee.set_poison(poison);
        }
    }

    /// When on, each launch is timed (wall clock around the kernel call), the callees'
    /// included, and the times add up until [`Session::kernel_times`] reads them; turning it
    /// on again starts from zero.
    pub fn set_profile(&mut self, on: bool) {
        self.profile = on.then(|| vec![Default::default(); self.program.launches.len()]);
        for callee in self.callee_sessions_mut() {
            callee.set_profile(on);
        }
    }

    /// The time of each launch site in program order, summed over the runs since profiling
    /// was turned on (empty when it is off); then those of each callee that has run, by call
    /// site in program order (a `loop.call_if`'s then callee before its else callee).
    pub fn kernel_times(&self) -> Vec<KernelTime> {
        let Some(profile) = &self.profile else {
            return Vec::new();
        };
        let own = self
            .program
            .launches
            .iter()
            .zip(profile)
            .map(|(launch, &(total, launches))| KernelTime {
                name: launch.name.clone(),
                total,
                launches,
            });
        own.chain(self.callee_sessions().flat_map(Session::kernel_times))
            .collect()
    }

    /// How many allocations (arena slots, input copies and the memory call sites own, the
    /// callees' included) this session has made so far: a run that reuses all its memory
    /// leaves it unchanged.
    pub fn allocation_count(&self) -> usize {
        self.allocations
            + self
                .callee_sessions()
                .map(Session::allocation_count)
                .sum::<usize>()
    }

    /// The bytes currently held for the program's buffers: its `loop.alloc` slots and the
    /// memory its call sites own (carried values, scan outputs, copied results), with those of
    /// the callees' sessions.
    pub fn arena_bytes(&self) -> usize {
        let len = |m: &Option<AlignedBytes>| m.as_ref().map_or(0, AlignedBytes::len);
        let sites: usize = self
            .sites
            .iter()
            .map(|site| match site {
                Site::If(s) => s.copies.iter().map(len).sum::<usize>(),
                Site::Loop(s) => s.carried.iter().chain(&s.scans).map(|o| len(&o.mem)).sum(),
            })
            .sum();
        self.allocs.iter().map(len).sum::<usize>()
            + sites
            + self
                .callee_sessions()
                .map(Session::arena_bytes)
                .sum::<usize>()
    }

    /// The sessions of the callees that have run.
    fn callee_sessions(&self) -> impl Iterator<Item = &Session<'p>> + '_ {
        self.sites.iter().flat_map(|site| {
            let sessions: &[Option<Box<Session<'p>>>] = match site {
                Site::If(s) => &s.branches,
                Site::Loop(s) => std::slice::from_ref(&s.body),
            };
            sessions.iter().flatten().map(|s| &**s)
        })
    }

    fn callee_sessions_mut(&mut self) -> impl Iterator<Item = &mut Session<'p>> + '_ {
        self.sites.iter_mut().flat_map(|site| {
            let sessions: &mut [Option<Box<Session<'p>>>] = match site {
                Site::If(s) => &mut s.branches,
                Site::Loop(s) => std::slice::from_mut(&mut s.body),
            };
            sessions.iter_mut().flatten().map(|s| &mut **s)
        })
    }

    /// Runs the program on `inputs`, returning its outputs (borrowed until the next run).
    pub fn run(&mut self, inputs: &[&Tensor]) -> Result<Outputs<'_>, RuntimeError> {
        let views: Vec<TensorView<'_>> = inputs.iter().map(|t| t.view()).collect();
        self.run_views(&views)
    }

    /// Runs the program on borrowed inputs, read in place: memory of the caller's (a numpy
    /// array's), not copied into a [`Tensor`] first. Only an input the program may write or
    /// return is copied, as with [`Session::run`]. Compiled code assumes an input's elements
    /// are aligned (an address that is a multiple of the element size; the code generator
    /// assumes more only of the runtime's own buffers), so an input that is not (and is not
    /// empty) is an error, as is one whose byte count is not its shape's, or an `i1` one with a
    /// byte other than 0 or 1 (as [`Tensor::from_bytes`] refuses).
    pub fn run_views(&mut self, inputs: &[TensorView<'_>]) -> Result<Outputs<'_>, RuntimeError> {
        let done = self.execute(inputs);
        if let Some(runs) = &self.program.runs {
            runs.fetch_add(1, Ordering::Release);
        }
        done?;
        Ok(Outputs { session: self })
    }

    /// [`Session::run_views`]'s work: checks and binds `inputs` and runs the program.
    fn execute(&mut self, inputs: &[TensorView<'_>]) -> Result<(), RuntimeError> {
        self.ran = false;
        crate::pool::num_threads()?;
        let signature = &self.program.signature;
        signature.check_count(inputs.len())?;
        for (i, t) in inputs.iter().enumerate() {
            signature.check_dtype(i, t.dtype)?;
            let expected = byte_size(t.shape, t.dtype)?;
            if t.bytes.len() != expected {
                return Err(RuntimeError::Tensor(format!(
                    "input {i}: {} bytes for shape {:?} of {} ({expected} expected)",
                    t.bytes.len(),
                    t.shape,
                    t.dtype
                )));
            }
            if t.dtype == DType::I1 && t.bytes.iter().any(|&b| b > 1) {
                return Err(RuntimeError::Tensor(format!(
                    "input {i}: i1 elements must be 0 or 1"
                )));
            }
            if !t.is_aligned() {
                return Err(RuntimeError::Tensor(format!(
                    "input {i}: its memory does not start at a multiple of {} bytes (the size \
                     of its {} elements)",
                    t.alignment(),
                    t.dtype
                )));
            }
        }
        self.bind(inputs.iter().map(|t| {
            let buf = Buf {
                // Written only when the parameter is bound to a private copy (`bind`).
                ptr: t.bytes.as_ptr().cast_mut(),
                bytes: t.bytes.len(),
            };
            Arg::Buffer(buf, t.shape)
        }))?;
        if !self.program.parallel {
            // No kernel reaches the pool: handing the run to a pool thread would only add a
            // cross-thread wake-up (most of a small model's call).
            self.exec_all()?;
            self.ran = true;
            return Ok(());
        }
        // One pool thread runs the closure while this thread waits in `run_in_pool`.
        crate::pool::run_in_pool(|| self.exec_all())?;
        self.ran = true;
        Ok(())
    }

    /// Runs every instruction of the program, on the current thread.
    fn exec_all(&mut self) -> Result<(), RuntimeError> {
        let program = self.program;
        program
            .instrs
            .iter()
            .zip(&program.locs)
            .try_for_each(|(instr, loc)| self.exec(instr, *loc))
    }

    /// Runs the program as the callee `callee` of the `op` at `loc`, on `args` (the caller's
    /// memory, which it only reads), on the current thread: the caller's run is already on the
    /// pool. A bad argument is an error at `loc` naming the call.
    fn run_call<'a>(
        &mut self,
        (op, callee): (&str, &str),
        loc: Location,
        args: impl Iterator<Item = Arg<'a>>,
    ) -> Result<(), RuntimeError> {
        self.ran = false;
        self.bind(args).map_err(|e| RuntimeError::Op {
            location: loc,
            message: format!("'{op}' of '@{callee}': {e}"),
        })?;
        self.exec_all()?;
        self.ran = true;
        Ok(())
    }

    /// Output `k` of the last run: its memory and dims.
    fn output(&self, k: usize) -> Option<(Buf, &[usize])> {
        let slot = *self.program.output_slots.get(k)? as usize;
        let at = self.program.buf_dims_at[slot] as usize;
        let rank = self.program.buf_rank[slot] as usize;
        Some((self.bufs[slot], &self.dims[at..at + rank]))
    }

    /// The outputs of the last successful run (none before one).
    pub fn outputs(&self) -> Outputs<'_> {
        Outputs { session: self }
    }

    /// The address each input was read from in the last run: the caller's memory, or the
    /// session's copy of an input the program may write or return (`None` for an input passed
    /// as a scalar). What shows that [`Session::run_views`] reads its inputs in place.
    pub fn input_addresses(&self) -> Vec<Option<usize>> {
        let program = self.program;
        (program.params.iter())
            .map(|param| match *param {
                Param::Buffer { slot, .. } => Some(self.bufs[slot as usize].ptr as usize),
                Param::Scalar { .. } => None,
            })
            .collect()
    }

    /// Checks the shape of each argument (one per parameter; element types are checked by the
    /// caller) against the signature and binds it to its parameter's slot, copying the buffers
    /// the program may write or return.
    fn bind<'a>(&mut self, args: impl Iterator<Item = Arg<'a>>) -> Result<(), RuntimeError> {
        let program = self.program;
        let signature = &program.signature;
        self.seen.fill(None);
        let mut count = 0;
        for (i, arg) in args.enumerate() {
            count += 1;
            let Some(&param) = program.params.get(i) else {
                continue;
            };
            match (param, arg) {
                (Param::Scalar { slot, .. }, Arg::Scalar(v)) => self.scalars[slot as usize] = v,
                (Param::Scalar { slot, .. }, Arg::Buffer(buf, dims)) => {
                    signature.check_shape(i, dims, &mut self.seen)?;
                    let n = signature.inputs[i].dtype.size_bytes();
                    // SAFETY: an argument buffer is live memory of the caller's, only read here.
                    let bytes = unsafe { buf.slice() };
                    let bytes = bytes.get(..n).ok_or_else(|| {
                        RuntimeError::Tensor(format!("input {i}: expected {n} bytes"))
                    })?;
                    self.scalars[slot as usize] = read_int(bytes);
                }
                (Param::Buffer { slot, copy }, Arg::Buffer(buf, dims)) => {
                    signature.check_shape(i, dims, &mut self.seen)?;
                    let ptr = if copy {
                        let mine =
                            reserve(&mut self.input_copies[i], buf.bytes, &mut self.allocations)
                                .map_err(|e| {
                                    RuntimeError::Tensor(format!("the copy of input {i}: {e}"))
                                })?;
                        // SAFETY: an argument buffer is live memory of the caller's, only read
                        // here, and never this session's own copy.
                        mine.as_mut_slice()[..buf.bytes].copy_from_slice(unsafe { buf.slice() });
                        mine.as_mut_ptr()
                    } else {
                        // Only read by the program (checked at compile time), never written.
                        buf.ptr
                    };
                    self.bufs[slot as usize] = Buf {
                        ptr,
                        bytes: buf.bytes,
                    };
                    let at = program.buf_dims_at[slot as usize] as usize;
                    self.dims[at..at + dims.len()].copy_from_slice(dims);
                }
                (Param::Buffer { .. }, Arg::Scalar(_)) => {
                    return Err(RuntimeError::Tensor(format!(
                        "input {i}: expected a buffer, got an integer"
                    )))
                }
            }
        }
        signature.check_count(count)
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
                let (x, y) = (i128::from(s[*a as usize]), i128::from(s[*b as usize]));
                let r = eval_cmpi(*pred, x, y, *width);
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
            Instr::ReadSize { dst, buf } => {
                let dtype = self.program.buf_dtype[*buf as usize];
                s[*dst as usize] = read_size(self.bufs[*buf as usize], dtype).map_err(fail)?;
            }
            Instr::Check { cond, message } => {
                if s[*cond as usize] == 0 {
                    return Err(fail(message.to_string()));
                }
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
            Instr::Call(i) => {
                let i = *i as usize;
                match &self.program.calls[i] {
                    Call::If(call) => self.call_if(i, call, loc)?,
                    Call::Loop(call) => self.call_loop(i, call, loc)?,
                }
            }
        }
        Ok(())
    }

    /// Runs `loop.call_if` number `site` (`call`, at `loc`).
    fn call_if(
        &mut self,
        site: usize,
        call: &'p CallIf,
        loc: Location,
    ) -> Result<(), RuntimeError> {
        const OP: &str = "loop.call_if";
        let fail = |message: String| RuntimeError::Op {
            location: loc,
            message: format!("'{OP}': {message}"),
        };
        let taken = read_flag(self.bufs[call.cond as usize])
            .map_err(|m| fail(format!("the condition {m}")))?;
        let branch = usize::from(!taken);
        let callee = &call.branches[branch];
        let (poison, profile) = (self.poison, self.profile.is_some());
        let program = self.program;
        let Some(Site::If(state)) = self.sites.get_mut(site) else {
            return Err(fail("the session does not fit the program".into()));
        };
        let session = state.branches[branch]
            .get_or_insert_with(|| callee_session(&callee.program, poison, profile));
        let (bufs, dims, scalars) = (&self.bufs, &self.dims, &self.scalars);
        let args = call
            .args
            .iter()
            .map(|&a| caller_arg(program, bufs, dims, scalars, a));
        session.run_call((OP, &callee.name), loc, args)?;
        for (k, result) in call.results.iter().enumerate() {
            let bad = |m: String| fail(format!("result #{k} of '@{}': {m}", callee.name));
            let (mut buf, out_dims) = session.output(k).ok_or_else(|| bad("missing".into()))?;
            check_declared(&result.declared, out_dims).map_err(bad)?;
            if result.copy {
                let mine = reserve(&mut state.copies[k], buf.bytes, &mut self.allocations)
                    .map_err(|e| bad(e.to_string()))?;
                // SAFETY: the callee's output is live memory of its session or program, only
                // read here; the copy is this site's own.
                mine.as_mut_slice()[..buf.bytes].copy_from_slice(unsafe { buf.slice() });
                buf.ptr = mine.as_mut_ptr();
            }
            let slot = result.slot as usize;
            let at = program.buf_dims_at[slot] as usize;
            self.dims[at..at + out_dims.len()].copy_from_slice(out_dims);
            self.bufs[slot] = buf;
        }
        Ok(())
    }

    /// Runs `loop.call_loop` number `site` (`call`, at `loc`).
    fn call_loop(
        &mut self,
        site: usize,
        call: &'p CallLoop,
        loc: Location,
    ) -> Result<(), RuntimeError> {
        const OP: &str = "loop.call_loop";
        let name = call.body.name.as_str();
        let fail = |message: String| RuntimeError::Op {
            location: loc,
            message: format!("'{OP}' of '@{name}': {message}"),
        };
        let trips = read_trip_count(self.bufs[call.max_trip as usize])
            .map_err(|m| fail(format!("the trip count {m}")))?;
        let mut cond = read_flag(self.bufs[call.cond as usize])
            .map_err(|m| fail(format!("the condition {m}")))?;
        let (poison, profile) = (self.poison, self.profile.is_some());
        let program = self.program;
        let n = call.carried.len();
        let Some(Site::Loop(state)) = self.sites.get_mut(site) else {
            return Err(fail("the session does not fit the program".into()));
        };
        let state = &mut **state;
        for (k, &b) in call.carried.iter().enumerate() {
            let (at, rank) = (
                program.buf_dims_at[b as usize] as usize,
                program.buf_rank[b as usize] as usize,
            );
            // SAFETY: a buffer of the caller's, live and only read here; never this site's own
            // memory, which no value defined before the call can be.
            let bytes = unsafe { self.bufs[b as usize].slice() };
            state.carried[k]
                .set(bytes, &self.dims[at..at + rank], &mut self.allocations)
                .map_err(|e| fail(format!("carried value #{k}: {e}")))?;
        }
        for (scan, result) in state.scans.iter_mut().zip(&call.results[n..]) {
            scan.bytes = 0;
            // The dims of an empty scan's elements: the static ones, `?` ones 0.
            for (d, declared) in scan.dims.iter_mut().zip(result.declared.iter().skip(1)) {
                *d = declared.unwrap_or(0);
            }
            scan.reserve(&mut self.allocations)
                .map_err(|e| fail(format!("a scan output: {e}")))?;
        }
        let iteration = small_buffer(&mut state.iteration, 8, &mut self.allocations)
            .map_err(|e| fail(format!("the iteration number: {e}")))?;
        let flag = small_buffer(&mut state.cond, 1, &mut self.allocations)
            .map_err(|e| fail(format!("the condition: {e}")))?;
        let mut i = 0i64;
        while i < trips && cond {
            iteration.copy_from_slice(&i.to_le_bytes());
            flag[0] = 1;
            let session = state
                .body
                .get_or_insert_with(|| callee_session(&call.body.program, poison, profile));
            let fixed = [
                Arg::Buffer(raw(iteration), &[]),
                Arg::Buffer(raw(flag), &[]),
            ];
            let carried = state.carried.iter().map(|o| Arg::Buffer(o.buf(), &o.dims));
            let (bufs, dims, scalars) = (&self.bufs, &self.dims, &self.scalars);
            let captures = call
                .captures
                .iter()
                .map(|&a| caller_arg(program, bufs, dims, scalars, a));
            session.run_call(
                (OP, name),
                loc,
                fixed.into_iter().chain(carried).chain(captures),
            )?;
            let out = |k: usize| {
                session
                    .output(k)
                    .ok_or_else(|| fail(format!("the body returned no result #{k}")))
            };
            cond = read_flag(out(0)?.0)
                .map_err(|m| fail(format!("the condition the body returned {m}")))?;
            for (k, carried) in state.carried.iter_mut().enumerate() {
                let (buf, dims) = out(1 + k)?;
                // SAFETY: the body's output is live memory of its session or program, never
                // this site's (the body copies the inputs it returns), only read here.
                let bytes = unsafe { buf.slice() };
                carried
                    .set(bytes, dims, &mut self.allocations)
                    .map_err(|e| fail(format!("carried value #{k}: {e}")))?;
            }
            for (s, scan) in state.scans.iter_mut().enumerate() {
                let (buf, dims) = out(1 + n + s)?;
                if i == 0 {
                    scan.set_dims(dims)
                        .map_err(|e| fail(format!("scan output #{s}: {e}")))?;
                } else if scan.dims != dims {
                    return Err(fail(format!(
                        "scan output #{s}: iteration {i} returned an element of shape {dims:?}, but the earlier ones have shape {:?}",
                        scan.dims
                    )));
                }
                // SAFETY: as for the carried values.
                let bytes = unsafe { buf.slice() };
                scan.append(bytes, &mut self.allocations)
                    .map_err(|e| fail(format!("scan output #{s}: {e}")))?;
            }
            i += 1;
        }
        let trips_run = usize::try_from(i).unwrap_or_default();
        for (k, result) in call.results.iter().enumerate() {
            let slot = result.slot as usize;
            let at = program.buf_dims_at[slot] as usize;
            let rank = program.buf_rank[slot] as usize;
            let out = &mut self.dims[at..at + rank];
            let owned = if k < n {
                let owned = &state.carried[k];
                out.copy_from_slice(&owned.dims);
                owned
            } else {
                let owned = &state.scans[k - n];
                out[0] = trips_run;
                out[1..].copy_from_slice(&owned.dims);
                owned
            };
            check_declared(&result.declared, out).map_err(|m| fail(format!("result #{k}: {m}")))?;
            self.bufs[slot] = owned.buf();
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
        unsafe { (launch.kernel.get())(self.words.as_ptr()) };
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

/// A fresh session for a callee, with the caller's poison and profiling settings.
fn callee_session(program: &HostProgram, poison: bool, profile: bool) -> Box<Session<'_>> {
    let mut session = Box::new(Session::new(program));
    session.poison = poison;
    if profile {
        session.set_profile(true);
    }
    session
}

/// The caller's `arg` (a slot of `program` in the tables `bufs`, `dims`, `scalars`) as an
/// argument of a call.
fn caller_arg<'a>(
    program: &HostProgram,
    bufs: &[Buf],
    dims: &'a [usize],
    scalars: &[i64],
    arg: CallArg,
) -> Arg<'a> {
    match arg {
        CallArg::Buffer(b) => {
            let at = program.buf_dims_at[b as usize] as usize;
            let rank = program.buf_rank[b as usize] as usize;
            Arg::Buffer(bufs[b as usize], &dims[at..at + rank])
        }
        CallArg::Scalar(s) => Arg::Scalar(scalars[s as usize]),
    }
}

/// The one `i1` element of `buf` (nonzero is true); an error ending "must hold ..." if it
/// does not hold exactly one.
fn read_flag(buf: Buf) -> Result<bool, String> {
    // SAFETY: a live buffer of the session's, only read here.
    match unsafe { buf.slice() } {
        [b] => Ok(*b != 0),
        bytes => Err(format!(
            "must hold one i1 element, but holds {}",
            bytes.len()
        )),
    }
}

/// The one 8-byte integer element of `buf`; an error ending "must hold ..." if it does not
/// hold exactly one.
fn read_trip_count(buf: Buf) -> Result<i64, String> {
    // SAFETY: a live buffer of the session's, only read here.
    let bytes = unsafe { buf.slice() };
    match <[u8; 8]>::try_from(bytes) {
        Ok(raw) => Ok(i64::from_le_bytes(raw)),
        Err(_) => Err(format!(
            "must hold one i64 element, but holds {} bytes",
            bytes.len()
        )),
    }
}

/// The one integer element of `buf`, of `dtype`, as a size: sign-extended (zero-extended for
/// an unsigned dtype), and an error naming it when it is negative or past `i64::MAX`.
fn read_size(buf: Buf, dtype: DType) -> Result<i64, String> {
    // SAFETY: a live buffer of the session's, only read here.
    let bytes = unsafe { buf.slice() };
    let width = dtype
        .int_width()
        .filter(|_| bytes.len() == dtype.size_bytes());
    let Some(width) = width else {
        return Err(format!(
            "expected one integer element, but the {} buffer holds {} bytes",
            dtype.name(),
            bytes.len()
        ));
    };
    let mut raw = [0u8; 8];
    raw[..bytes.len()].copy_from_slice(bytes);
    let bits = u64::from_le_bytes(raw);
    let value = if dtype.is_unsigned() {
        i128::from(bits)
    } else {
        i128::from(wrap(bits as i64, width))
    };
    if value < 0 {
        return Err(format!("a size read from memory is negative: {value}"));
    }
    i64::try_from(value).map_err(|_| format!("a size read from memory is too large: {value}"))
}

/// Checks `dims` against the static dims of a result type.
fn check_declared(declared: &[Option<usize>], dims: &[usize]) -> Result<(), String> {
    let fits = declared.len() == dims.len()
        && declared
            .iter()
            .zip(dims)
            .all(|(d, &n)| d.is_none_or(|d| d == n));
    if fits {
        Ok(())
    } else {
        Err(format!(
            "shape {dims:?} does not fit the result type's static dims"
        ))
    }
}

/// The first `bytes` bytes of the allocation in `slot`, allocated on first use.
fn small_buffer<'a>(
    slot: &'a mut Option<AlignedBytes>,
    bytes: usize,
    count: &mut usize,
) -> Result<&'a mut [u8], RuntimeError> {
    let buf = reserve(slot, bytes, count)?;
    Ok(&mut buf.as_mut_slice()[..bytes])
}

/// `bytes` as a buffer value.
fn raw(bytes: &mut [u8]) -> Buf {
    Buf {
        ptr: bytes.as_mut_ptr(),
        bytes: bytes.len(),
    }
}

impl Owned {
    /// Nothing yet, for a value of rank `rank`.
    fn new(rank: usize) -> Owned {
        Owned {
            mem: None,
            bytes: 0,
            dims: vec![0; rank],
        }
    }

    /// The value as a buffer (null before any memory is held).
    fn buf(&self) -> Buf {
        Buf {
            ptr: self
                .mem
                .as_ref()
                .map_or(std::ptr::null_mut(), |m| m.as_ptr().cast_mut()),
            bytes: self.bytes,
        }
    }

    /// Sets `dims` (of the same rank).
    fn set_dims(&mut self, dims: &[usize]) -> Result<(), RuntimeError> {
        if dims.len() != self.dims.len() {
            return Err(RuntimeError::Tensor(format!(
                "expected rank {}, got shape {dims:?}",
                self.dims.len()
            )));
        }
        self.dims.copy_from_slice(dims);
        Ok(())
    }

    /// Holds a copy of `src`, of dims `dims` (allocating only when it is larger than any value
    /// held before; `src` must not be this memory).
    fn set(&mut self, src: &[u8], dims: &[usize], count: &mut usize) -> Result<(), RuntimeError> {
        self.set_dims(dims)?;
        let mem = reserve(&mut self.mem, src.len(), count)?;
        mem.as_mut_slice()[..src.len()].copy_from_slice(src);
        self.bytes = src.len();
        Ok(())
    }

    /// Makes sure some memory is held, so the value has a real address even when empty.
    fn reserve(&mut self, count: &mut usize) -> Result<(), RuntimeError> {
        reserve(&mut self.mem, 0, count).map(|_| ())
    }

    /// Appends `src` after the bytes held, growing the memory geometrically (at least
    /// doubling, or exactly what is needed when doubling cannot be had) and keeping its bytes.
    fn append(&mut self, src: &[u8], count: &mut usize) -> Result<(), RuntimeError> {
        const LIMIT: usize = isize::MAX as usize - ALIGN;
        let needed = self
            .bytes
            .checked_add(src.len())
            .filter(|&n| n <= LIMIT)
            .ok_or_else(|| {
                RuntimeError::Tensor(format!(
                    "{} bytes after {} are more than memory can hold",
                    src.len(),
                    self.bytes
                ))
            })?;
        let capacity = self.mem.as_ref().map_or(0, AlignedBytes::len);
        if self.mem.is_none() || needed > capacity {
            let doubled = capacity.saturating_mul(2).clamp(needed, LIMIT);
            let mut grown =
                AlignedBytes::zeroed(doubled).or_else(|_| AlignedBytes::zeroed(needed))?;
            if let Some(old) = &self.mem {
                grown.as_mut_slice()[..self.bytes].copy_from_slice(&old.as_slice()[..self.bytes]);
            }
            self.mem = Some(grown);
            *count += 1;
        }
        let mem = self
            .mem
            .as_mut()
            .ok_or(RuntimeError::OutOfMemory { bytes: needed })?;
        mem.as_mut_slice()[self.bytes..needed].copy_from_slice(src);
        self.bytes = needed;
        Ok(())
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
        // SAFETY: after a successful run, an output slot points into memory the session, its
        // call sites, its callees' sessions or the programs own (an allocation, a private
        // input copy, a loop's memory or a constant; never a caller's tensor), valid for
        // `bytes` bytes and not written until the next run, which needs `&mut` access to the
        // session this borrows.
        let bytes = unsafe { buf.slice() };
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

/// An integer binary op at `width` bits on sign-extended operands, wrapped to the width
/// (dlc_arith's one definition of integer arithmetic).
fn int_binary(op: IntBinary, a: i64, b: i64, width: u32) -> Result<i64, String> {
    let v = op.eval(i128::from(a), i128::from(b), width)?;
    Ok(crate::program::wrap(v as i64, width))
}

// SAFETY: a session's raw pointers (`Buf`) point to memory it owns (its allocations, input
// copies, call sites and callees' sessions), to the program's constants, or to a caller's
// inputs lent for the length of one run; nothing in it belongs to the thread that made it. Every
// run takes `&mut self`, so one thread at a time uses it: moving it to another thread (the pool
// thread that runs it, a caller that hands it across while Python's GIL is released) is sound.
// The program it borrows is shared between threads, hence `Sync` (checked below).
unsafe impl Send for Session<'_> {}

const _: fn() = || {
    fn shared<T: Sync>() {}
    shared::<HostProgram>();
};

#[cfg(test)]
mod tests {
    use super::{raw, read_size, Owned};
    use crate::RuntimeError;
    use dlc_tensor::DType;

    /// `loop.read_size` reads signed elements sign-extended and unsigned ones zero-extended,
    /// and refuses what is not a size, or a buffer that does not hold one element.
    #[test]
    fn sizes_read_from_memory() {
        let cases: [(DType, &[u8], Result<i64, &str>); 8] = [
            (DType::I8, &[0x7F], Ok(127)),
            (
                DType::I8,
                &[0xFD],
                Err("a size read from memory is negative: -3"),
            ),
            (DType::U8, &[0xFD], Ok(253)),
            (DType::I16, &[0x34, 0x12], Ok(0x1234)),
            (
                DType::I32,
                &[0, 0, 0, 0x80],
                Err("a size read from memory is negative: -2147483648"),
            ),
            (
                DType::U64,
                &[0xFF; 8],
                Err("a size read from memory is too large: 18446744073709551615"),
            ),
            (
                DType::I64,
                &[0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F],
                Ok(i64::MAX),
            ),
            (
                DType::I64,
                &[1, 0, 0, 0],
                Err("expected one integer element, but the i64 buffer holds 4 bytes"),
            ),
        ];
        for (dtype, bytes, want) in cases {
            let mut bytes = bytes.to_vec();
            let got = read_size(raw(&mut bytes), dtype);
            assert_eq!(got, want.map_err(str::to_string), "{dtype:?} {bytes:?}");
        }
        let mut float = 1.0f32.to_le_bytes();
        assert!(read_size(raw(&mut float), DType::F32).is_err());
    }

    /// A scan output that cannot grow is an error, not an abort: sizes past the address space
    /// are refused before allocating, and an allocation the system refuses is reported.
    #[test]
    fn scan_growth_that_cannot_be_had_is_an_error() {
        let mut count = 0;
        let mut scan = Owned::new(1);
        scan.append(&[1, 2, 3, 4], &mut count).unwrap();
        scan.append(&[5, 6, 7, 8], &mut count).unwrap();
        let held = scan.mem.as_ref().map(|m| m.as_slice()[..8].to_vec());
        assert_eq!(held.as_deref(), Some(&[1, 2, 3, 4, 5, 6, 7, 8][..]));
        assert_eq!(scan.bytes, 8);

        let mut huge = Owned::new(1);
        huge.bytes = usize::MAX - 2;
        let e = huge.append(&[0; 4], &mut count).unwrap_err();
        assert!(e.to_string().contains("more than memory can hold"), "{e}");

        // 2^62 bytes is a valid layout, but no system has that much address space.
        let mut huge = Owned::new(1);
        huge.bytes = 1 << 62;
        let e = huge.append(&[0; 4], &mut count).unwrap_err();
        assert!(matches!(e, RuntimeError::OutOfMemory { .. }), "{e}");
    }
}
