//! Tensors: the values a host program takes and returns, as the compiled code sees them.
//!
//! A [`Tensor`] is a dtype, a shape and row-major bytes in a 64-byte aligned allocation (what
//! the kernel ABI promises compiled code, so vector loads of the first element are aligned).
//! Elements are stored little-endian at their natural size: `i1` as one byte 0/1, `index` as an
//! i64, `f16`/`bf16` as their 16-bit patterns: the byte form of `dlc_tensor`'s [`Literal`]s
//! (the host values of constants and the interpreters), so the conversions to and from them
//! ([`Tensor::from_literal`], [`Tensor::to_literal`]) are exact, and a compiled run can be
//! compared with an interpreted one.

use crate::error::RuntimeError;
use dlc_ir::FloatKind;
use dlc_tensor::{DType, Literal};
use std::alloc::Layout;
use std::ptr::NonNull;

/// The alignment of every tensor and arena allocation.
pub const ALIGN: usize = 64;

/// The byte size of a `shape` tensor of `dtype`, or an error if it overflows.
pub fn byte_size(shape: &[usize], dtype: DType) -> Result<usize, RuntimeError> {
    shape
        .iter()
        .try_fold(dtype.size_bytes(), |n, &d| n.checked_mul(d))
        .filter(|&n| n <= isize::MAX as usize - ALIGN)
        .ok_or_else(|| {
            RuntimeError::Tensor(format!("a {dtype} tensor of shape {shape:?} is too large"))
        })
}

/// An owned, zero-initialised, 64-byte aligned byte allocation.
///
/// One of at least [`MAPPED_FROM`] bytes is mapped from the kernel directly, at a huge-page
/// boundary: its pages are zero when first touched, so nothing writes them at allocation (the
/// allocator writes zeros over an aligned allocation at once) and pages a run never touches are
/// never faulted; one of at least [`HUGE_PAGES_FROM`] bytes is also advised to use huge pages
/// (`MADV_HUGEPAGE`), one fault per 2 MiB. A warm `dlc-run` of ppocr_det faulted 11.9 k pages
/// instead of 18.7 k ("AMD EPYC", `perf stat -e page-faults`); advised from 2 MiB, its warm
/// first result was 3-9% slower in three back-to-back comparisons (each fault zeroes 2 MiB).
pub(crate) struct AlignedBytes {
    ptr: NonNull<u8>,
    len: usize,
}

/// Allocations of at least this many bytes are mapped ([`AlignedBytes`]): one huge page.
#[cfg(target_os = "linux")]
const MAPPED_FROM: usize = 1 << 21;

/// Mapped allocations of at least this many bytes are advised to use huge pages.
#[cfg(target_os = "linux")]
const HUGE_PAGES_FROM: usize = 1 << 24;

// SAFETY: `AlignedBytes` owns its allocation exclusively, like a `Box<[u8]>`.
unsafe impl Send for AlignedBytes {}
// SAFETY: shared access only reads through `&self`, like a `Box<[u8]>`.
unsafe impl Sync for AlignedBytes {}

impl AlignedBytes {
    /// `len` zero bytes (at least one allocation unit, so the pointer is always real).
    pub(crate) fn zeroed(len: usize) -> Result<Self, RuntimeError> {
        #[cfg(target_os = "linux")]
        if len >= MAPPED_FROM {
            return Self::mapped(len);
        }
        let layout = Self::layout(len)?;
        // SAFETY: the layout has a non-zero size (at least ALIGN bytes).
        let raw = unsafe { std::alloc::alloc_zeroed(layout) };
        let ptr = NonNull::new(raw).ok_or(RuntimeError::OutOfMemory { bytes: len })?;
        Ok(AlignedBytes { ptr, len })
    }

    /// A copy of `src`. A heap allocation is not zeroed first (the copy writes all of it but
    /// the alignment padding after `src`, which is zeroed); a mapped one is zero already.
    pub(crate) fn copied(src: &[u8]) -> Result<Self, RuntimeError> {
        #[cfg(target_os = "linux")]
        if src.len() >= MAPPED_FROM {
            let mut bytes = Self::mapped(src.len())?;
            bytes.as_mut_slice().copy_from_slice(src);
            return Ok(bytes);
        }
        let layout = Self::layout(src.len())?;
        // SAFETY: the layout has a non-zero size (at least ALIGN bytes).
        let raw = unsafe { std::alloc::alloc(layout) };
        let ptr = NonNull::new(raw).ok_or(RuntimeError::OutOfMemory { bytes: src.len() })?;
        // SAFETY: the allocation holds `layout.size() >= src.len()` bytes, and `src` cannot
        // overlap memory just allocated; both writes stay inside it.
        unsafe {
            std::ptr::copy_nonoverlapping(src.as_ptr(), raw, src.len());
            std::ptr::write_bytes(raw.add(src.len()), 0, layout.size() - src.len());
        }
        Ok(AlignedBytes {
            ptr,
            len: src.len(),
        })
    }

    /// `len` zero bytes mapped at a huge-page boundary, `len` rounded up to whole huge pages.
    #[cfg(target_os = "linux")]
    fn mapped(len: usize) -> Result<Self, RuntimeError> {
        let oom = RuntimeError::OutOfMemory { bytes: len };
        let size = len
            .checked_next_multiple_of(MAPPED_FROM)
            .filter(|&s| s <= isize::MAX as usize - MAPPED_FROM)
            .ok_or(RuntimeError::OutOfMemory { bytes: len })?;
        // One huge page more than needed, so an aligned start lies inside; the ends are
        // unmapped again.
        let total = size + MAPPED_FROM;
        // SAFETY: an anonymous private mapping at an address the kernel picks touches no
        // existing memory; the result is checked before use.
        let raw = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                total,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if raw == libc::MAP_FAILED {
            return Err(oom);
        }
        let base = raw as usize;
        let start = base.next_multiple_of(MAPPED_FROM);
        // SAFETY: both ranges lie inside the mapping just made and hold nothing yet; `start`
        // and `start + size` are page-aligned, and so the ranges' ends. Unmapping an empty
        // range is skipped. The advice is a hint; its failure changes nothing.
        unsafe {
            if start > base {
                libc::munmap(raw, start - base);
            }
            let end = start + size;
            if base + total > end {
                libc::munmap(end as *mut libc::c_void, base + total - end);
            }
            if size >= HUGE_PAGES_FROM {
                libc::madvise(start as *mut libc::c_void, size, libc::MADV_HUGEPAGE);
            }
        }
        let ptr = NonNull::new(start as *mut u8).ok_or(oom)?;
        Ok(AlignedBytes { ptr, len })
    }

    fn layout(len: usize) -> Result<Layout, RuntimeError> {
        Layout::from_size_align(len.max(1).next_multiple_of(ALIGN), ALIGN)
            .map_err(|_| RuntimeError::OutOfMemory { bytes: len })
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    pub(crate) fn as_ptr(&self) -> *const u8 {
        self.ptr.as_ptr()
    }

    pub(crate) fn as_mut_ptr(&mut self) -> *mut u8 {
        self.ptr.as_ptr()
    }

    pub(crate) fn as_slice(&self) -> &[u8] {
        // SAFETY: `ptr` is valid for `len` initialised bytes for the life of `self`.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }

    pub(crate) fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: as in `as_slice`, and `&mut self` makes the access exclusive.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl Drop for AlignedBytes {
    fn drop(&mut self) {
        #[cfg(target_os = "linux")]
        if self.len >= MAPPED_FROM {
            let size = self.len.next_multiple_of(MAPPED_FROM);
            // SAFETY: `mapped` mapped exactly `size` bytes at `ptr`, which nothing uses after
            // the drop.
            unsafe { libc::munmap(self.ptr.as_ptr().cast(), size) };
            return;
        }
        // The layout was valid when allocating, so it is valid now.
        if let Ok(layout) = Self::layout(self.len) {
            // SAFETY: allocated by `alloc_zeroed` or `alloc` with this same layout.
            unsafe { std::alloc::dealloc(self.ptr.as_ptr(), layout) };
        }
    }
}

/// A dense row-major tensor in host memory, 64-byte aligned.
pub struct Tensor {
    dtype: DType,
    shape: Vec<usize>,
    data: AlignedBytes,
}

impl std::fmt::Debug for Tensor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tensor")
            .field("dtype", &self.dtype)
            .field("shape", &self.shape)
            .finish_non_exhaustive()
    }
}

impl Clone for Tensor {
    fn clone(&self) -> Self {
        let data = AlignedBytes::copied(self.data.as_slice())
            .unwrap_or_else(|_| std::alloc::handle_alloc_error(Layout::new::<u8>()));
        Tensor {
            dtype: self.dtype,
            shape: self.shape.clone(),
            data,
        }
    }
}

impl PartialEq for Tensor {
    /// Bitwise equality: same dtype, shape and bytes (so NaNs with equal bits are equal).
    fn eq(&self, other: &Self) -> bool {
        self.dtype == other.dtype && self.shape == other.shape && self.bytes() == other.bytes()
    }
}

impl Tensor {
    /// A tensor of zeros (`false` for `i1`).
    pub fn zeros(dtype: DType, shape: &[usize]) -> Result<Tensor, RuntimeError> {
        let len = byte_size(shape, dtype)?;
        Ok(Tensor {
            dtype,
            shape: shape.to_vec(),
            data: AlignedBytes::zeroed(len)?,
        })
    }

    /// A tensor from its row-major little-endian bytes. The length must match the shape, and
    /// `i1` bytes must be 0 or 1.
    pub fn from_bytes(dtype: DType, shape: &[usize], bytes: &[u8]) -> Result<Tensor, RuntimeError> {
        let len = byte_size(shape, dtype)?;
        if bytes.len() != len {
            return Err(RuntimeError::Tensor(format!(
                "a {dtype} tensor of shape {shape:?} takes {len} bytes, got {}",
                bytes.len()
            )));
        }
        if dtype == DType::I1 && bytes.iter().any(|&b| b > 1) {
            return Err(RuntimeError::Tensor("i1 elements must be 0 or 1".into()));
        }
        Ok(Tensor {
            dtype,
            shape: shape.to_vec(),
            data: AlignedBytes::copied(bytes)?,
        })
    }

    /// An `f32` tensor from values.
    pub fn from_f32(shape: &[usize], values: &[f32]) -> Result<Tensor, RuntimeError> {
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        Tensor::from_bytes(DType::F32, shape, &bytes)
    }

    /// A tensor holding `t`'s elements, in their little-endian byte form.
    pub fn from_literal(t: &Literal) -> Result<Tensor, RuntimeError> {
        Tensor::from_bytes(t.dtype(), t.shape(), &t.to_le_bytes())
    }

    /// The element type.
    pub fn dtype(&self) -> DType {
        self.dtype
    }

    /// The shape.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The number of elements.
    pub fn numel(&self) -> usize {
        self.shape.iter().product()
    }

    /// The row-major little-endian bytes.
    pub fn bytes(&self) -> &[u8] {
        self.data.as_slice()
    }

    /// The bytes, writable. Writing anything but 0 or 1 into an `i1` tensor is the caller's
    /// error (kernels read it as true).
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        self.data.as_mut_slice()
    }

    /// The address of the first element (64-byte aligned).
    pub fn as_ptr(&self) -> *const u8 {
        self.data.as_ptr()
    }

    /// A view of the whole tensor.
    pub fn view(&self) -> TensorView<'_> {
        TensorView {
            dtype: self.dtype,
            shape: &self.shape,
            bytes: self.bytes(),
        }
    }

    /// The elements as a [`Literal`], the interpreters' value.
    pub fn to_literal(&self) -> Literal {
        Literal::from_le_bytes(self.dtype, &self.shape, self.bytes())
            .unwrap_or_else(|e| unreachable!("a tensor's bytes fill its shape: {e}"))
    }

    /// The elements widened to `f64` (floats only), e.g. to compare with a tolerance.
    pub fn to_f64_vec(&self) -> Option<Vec<f64>> {
        self.view().to_f64_vec()
    }
}

/// A borrowed tensor: what a session returns as an output (valid until its next run).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct TensorView<'a> {
    /// The element type.
    pub dtype: DType,
    /// The shape.
    pub shape: &'a [usize],
    /// The row-major little-endian bytes.
    pub bytes: &'a [u8],
}

impl TensorView<'_> {
    /// The alignment compiled code assumes of an input read in place: its element size (see
    /// `Session::run_views`).
    pub fn alignment(&self) -> usize {
        self.dtype.size_bytes().max(1)
    }

    /// Whether compiled code may read these bytes in place: they are empty, or start at a
    /// multiple of [`TensorView::alignment`].
    pub fn is_aligned(&self) -> bool {
        self.bytes.is_empty() || self.bytes.as_ptr().align_offset(self.alignment()) == 0
    }

    /// An owned copy.
    pub fn to_tensor(&self) -> Result<Tensor, RuntimeError> {
        let mut t = Tensor::zeros(self.dtype, self.shape)?;
        t.bytes_mut().copy_from_slice(self.bytes);
        Ok(t)
    }

    /// The elements as a [`Literal`], the interpreters' value; an error if the bytes do not fill
    /// the shape.
    pub fn to_literal(&self) -> Result<Literal, RuntimeError> {
        Literal::from_le_bytes(self.dtype, self.shape, self.bytes).map_err(RuntimeError::Tensor)
    }

    /// The elements widened to `f64` (floats only).
    pub fn to_f64_vec(&self) -> Option<Vec<f64>> {
        let kind = self.dtype.float_kind()?;
        Some(
            self.bytes
                .chunks_exact(self.dtype.size_bytes())
                .map(|c| kind.from_bits(le_bits(c)))
                .collect(),
        )
    }
}

/// The little-endian bits of one element.
fn le_bits(bytes: &[u8]) -> u64 {
    let mut raw = [0u8; 8];
    raw[..bytes.len()].copy_from_slice(bytes);
    u64::from_le_bytes(raw)
}

/// The `f16` bit pattern nearest to `x` (round to nearest even; NaN stays NaN).
pub fn f32_to_f16_bits(x: f32) -> u16 {
    FloatKind::F16.to_bits(f64::from(x)) as u16
}

/// The value of an `f16` bit pattern (exact).
pub fn f16_bits_to_f32(bits: u16) -> f32 {
    FloatKind::F16.from_bits(u64::from(bits)) as f32
}

/// The `bf16` bit pattern nearest to `x` (round to nearest even; NaN stays NaN).
pub fn f32_to_bf16_bits(x: f32) -> u16 {
    FloatKind::BF16.to_bits(f64::from(x)) as u16
}

/// The value of a `bf16` bit pattern (exact).
pub fn bf16_bits_to_f32(bits: u16) -> f32 {
    FloatKind::BF16.from_bits(u64::from(bits)) as f32
}
