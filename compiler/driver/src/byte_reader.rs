//! Reading the little-endian, length-prefixed payloads of the cache entries `dlc-run` writes
//! (`import_plan.rs`, `model_entry.rs`): every read is bounds-checked, so a damaged entry is
//! an error and never a panic.

/// Reads a payload front to back.
pub(crate) struct Reader<'a>(pub &'a [u8]);

impl<'a> Reader<'a> {
    /// The next `n` bytes.
    pub fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if n > self.0.len() {
            return None;
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(head)
    }

    pub fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }

    pub fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }

    /// A `u32` byte count, then that many bytes of UTF-8.
    pub fn string(&mut self) -> Option<String> {
        let n = self.u32()? as usize;
        String::from_utf8(self.take(n)?.to_vec()).ok()
    }

    /// A `u32` count, then that many strings.
    pub fn strings(&mut self) -> Option<Vec<String>> {
        (0..self.u32()?).map(|_| self.string()).collect()
    }

    /// Whether every byte has been read.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}
