//! The persistent kernel cache: the object code of compiled kernels on disk, so that a process
//! compiling a kernel it (or another process) compiled before loads the object instead; and,
//! in the same directory, the lowered modules of whole models, so that `dlc-run` can skip
//! dlc's own passes for a model it compiled before.
//!
//! An entry is keyed by a [`Key`], a BLAKE3 hash (LLVM's implementation) of everything the
//! value depends on. For a kernel, `jit.rs` builds it from the kernel's printed IR (its name
//! left out), the facts its launches give, the target triple, CPU and features, the LLVM
//! version, dlc's version and [`CODEGEN_FORMAT`], a hash of this crate's source, and the
//! optimization options; the value is the object file, in a file `<key>.dlco`. For a model,
//! `dlc-run` keys the source text (for an ONNX import, the model file and the import options)
//! and everything its pass pipeline depends on; the value is the lowered module's text, in a file
//! `<key>.dlcm` ([`EntryKind`]). Both kinds have one layout:
//!
//! | bytes | field |
//! |---|---|
//! | 8 | magic: `DLCOBJ1\n` for a kernel, `DLCMOD1\n` for a model |
//! | 32 | the key (an entry under another name is rejected) |
//! | 8 | payload length, little-endian |
//! | 32 | BLAKE3 of the payload |
//! | length | the object file or the module text |
//!
//! Entries are written to a unique temporary file and renamed into place, so a reader sees a
//! whole entry or none, and concurrent processes may write the same entry. A truncated or
//! corrupted entry (any header, length or checksum mismatch) is deleted and reported as such,
//! never loaded; the caller compiles the kernel again and rewrites it. A hit refreshes the
//! entry's modification time; [`KernelCache::evict`] deletes the entries of either kind unused
//! for longest until the cache is under three quarters of its size cap.

use inkwell::llvm_sys::blake3::{
    llvm_blake3_hasher, llvm_blake3_hasher_finalize, llvm_blake3_hasher_init,
    llvm_blake3_hasher_update, LLVM_BLAKE3_OUT_LEN,
};
use std::ffi::OsString;
use std::fmt;
use std::fs;
use std::io::Write;
use std::mem::MaybeUninit;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::SystemTime;

/// Bumped whenever the object code generated for the same IR and options changes in a way a
/// hash of this crate's source does not see (a runtime ABI change, say).
pub const CODEGEN_FORMAT: u32 = 1;

/// `DLC_CACHE`: `0`, `off` or `false` turns the cache off; `1`, `on` or `true` (the default)
/// leaves it on.
pub const CACHE_VAR: &str = "DLC_CACHE";
/// `DLC_CACHE_DIR`: where entries live (default: `$XDG_CACHE_HOME/dlc`, else `~/.cache/dlc`).
pub const CACHE_DIR_VAR: &str = "DLC_CACHE_DIR";
/// `DLC_CACHE_MAX_MB`: the size cap in MiB (default [`DEFAULT_MAX_BYTES`]).
pub const CACHE_MAX_VAR: &str = "DLC_CACHE_MAX_MB";
/// The default size cap: 512 MiB.
pub const DEFAULT_MAX_BYTES: u64 = 512 << 20;

const HEADER_LEN: usize = 8 + 32 + 8 + 32;

/// What an entry holds.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum EntryKind {
    /// A kernel's object file (`<key>.dlco`).
    Kernel,
    /// A model's lowered module, as text (`<key>.dlcm`).
    Model,
}

impl EntryKind {
    const ALL: [EntryKind; 2] = [EntryKind::Kernel, EntryKind::Model];

    fn extension(self) -> &'static str {
        match self {
            EntryKind::Kernel => "dlco",
            EntryKind::Model => "dlcm",
        }
    }

    fn magic(self) -> &'static [u8; 8] {
        match self {
            EntryKind::Kernel => b"DLCOBJ1\n",
            EntryKind::Model => b"DLCMOD1\n",
        }
    }
}

/// A 256-bit cache key.
#[derive(Copy, Clone, PartialEq, Eq, Hash)]
pub struct Key(pub [u8; 32]);

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.iter().try_for_each(|b| write!(f, "{b:02x}"))
    }
}

impl fmt::Debug for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Key({self})")
    }
}

/// Builds a [`Key`] from named fields; each is length-prefixed, so no two field lists hash the
/// same bytes.
pub struct KeyHasher {
    state: Box<llvm_blake3_hasher>,
}

impl KeyHasher {
    /// An empty key.
    pub fn new() -> KeyHasher {
        let mut state = Box::new(MaybeUninit::<llvm_blake3_hasher>::uninit());
        // SAFETY: `llvm_blake3_hasher_init` initialises the whole hasher state it is given.
        let state = unsafe {
            llvm_blake3_hasher_init(state.as_mut_ptr());
            Box::from_raw(Box::into_raw(state).cast::<llvm_blake3_hasher>())
        };
        KeyHasher { state }
    }

    /// Adds the field `name` with value `bytes`.
    pub fn field(&mut self, name: &str, bytes: &[u8]) -> &mut KeyHasher {
        for part in [name.as_bytes(), bytes] {
            self.update(&(part.len() as u64).to_le_bytes());
            self.update(part);
        }
        self
    }

    fn update(&mut self, bytes: &[u8]) {
        // SAFETY: the hasher is initialised; `bytes` is valid for its length.
        unsafe { llvm_blake3_hasher_update(&mut *self.state, bytes.as_ptr().cast(), bytes.len()) };
    }

    /// The key of the fields added so far.
    pub fn finish(&mut self) -> Key {
        let mut out = [0u8; LLVM_BLAKE3_OUT_LEN];
        // SAFETY: the hasher is initialised and `out` holds `LLVM_BLAKE3_OUT_LEN` bytes.
        unsafe { llvm_blake3_hasher_finalize(&mut *self.state, out.as_mut_ptr(), out.len()) };
        Key(out)
    }
}

impl Default for KeyHasher {
    fn default() -> Self {
        KeyHasher::new()
    }
}

/// The BLAKE3 hash of `bytes`.
fn checksum(bytes: &[u8]) -> [u8; 32] {
    let mut h = KeyHasher::new();
    h.update(bytes);
    h.finish().0
}

/// What [`KernelCache::get`] found.
#[derive(Debug)]
pub enum Lookup {
    /// A valid entry: its payload (the object file, or the module text).
    Hit(Vec<u8>),
    /// No entry.
    Miss,
    /// An entry that failed validation (why); it has been deleted.
    Corrupt(String),
}

/// A cache directory and its size cap.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelCache {
    dir: PathBuf,
    max_bytes: u64,
}

impl KernelCache {
    /// A cache in `dir` (created on the first write) capped at [`DEFAULT_MAX_BYTES`].
    pub fn new(dir: impl Into<PathBuf>) -> KernelCache {
        KernelCache {
            dir: dir.into(),
            max_bytes: DEFAULT_MAX_BYTES,
        }
    }

    /// The same cache with a size cap of `max_bytes`.
    pub fn with_max_bytes(mut self, max_bytes: u64) -> KernelCache {
        self.max_bytes = max_bytes;
        self
    }

    /// The cache the environment asks for: `None` when `DLC_CACHE` turns it off or no cache
    /// directory can be named (no `DLC_CACHE_DIR`, `XDG_CACHE_HOME` or `HOME`); an error for
    /// an invalid `DLC_CACHE` or `DLC_CACHE_MAX_MB`.
    pub fn from_env() -> Result<Option<KernelCache>, String> {
        KernelCache::from_vars(|name| std::env::var_os(name))
    }

    /// [`KernelCache::from_env`] over the variables `var` returns.
    fn from_vars(var: impl Fn(&str) -> Option<OsString>) -> Result<Option<KernelCache>, String> {
        let var = |name: &str| var(name).filter(|v| !v.is_empty());
        if let Some(value) = var(CACHE_VAR) {
            match value.to_string_lossy().trim() {
                "0" | "off" | "false" => return Ok(None),
                "1" | "on" | "true" => {}
                other => {
                    return Err(format!(
                        "invalid {CACHE_VAR}='{other}' (expected 0/off/false or 1/on/true)"
                    ))
                }
            }
        }
        let dir = var(CACHE_DIR_VAR)
            .map(PathBuf::from)
            .or_else(|| var("XDG_CACHE_HOME").map(|d| PathBuf::from(d).join("dlc")))
            .or_else(|| var("HOME").map(|d| PathBuf::from(d).join(".cache").join("dlc")));
        let Some(dir) = dir else {
            return Ok(None);
        };
        let mut cache = KernelCache::new(dir);
        if let Some(value) = var(CACHE_MAX_VAR) {
            let text = value.to_string_lossy();
            let mib = text
                .trim()
                .parse::<u64>()
                .ok()
                .and_then(|m| m.checked_mul(1 << 20))
                .ok_or_else(|| format!("invalid {CACHE_MAX_VAR}='{text}' (expected MiB)"))?;
            cache = cache.with_max_bytes(mib);
        }
        Ok(Some(cache))
    }

    /// The cache directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file of the `kind` entry for `key`.
    pub fn entry_path(&self, kind: EntryKind, key: &Key) -> PathBuf {
        self.dir.join(format!("{key}.{}", kind.extension()))
    }

    /// The `kind` entry for `key`, validated; a hit refreshes its age.
    pub fn get(&self, kind: EntryKind, key: &Key) -> Lookup {
        let path = self.entry_path(kind, key);
        let Ok(mut file) = fs::File::open(&path) else {
            return Lookup::Miss;
        };
        let mut bytes = Vec::new();
        if let Err(e) = std::io::Read::read_to_end(&mut file, &mut bytes) {
            return Lookup::Corrupt(format!("{}: {e}", path.display()));
        }
        match validate(kind, key, &bytes) {
            Ok(()) => {
                // Best effort: a read-only cache still serves hits.
                let _ = file.set_modified(SystemTime::now());
                // The payload is the rest of the file: it moves down over the header in the
                // memory it was read into, where a copy would fault in as much again (a
                // model's weights, in its model-cache entry).
                bytes.drain(..HEADER_LEN);
                Lookup::Hit(bytes)
            }
            Err(why) => {
                let _ = fs::remove_file(&path);
                Lookup::Corrupt(format!("{}: {why}", path.display()))
            }
        }
    }

    /// Stores `payload` as the `kind` entry for `key` (atomically: a unique temporary file
    /// renamed into place).
    pub fn put(&self, kind: EntryKind, key: &Key, payload: &[u8]) -> Result<(), String> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let fail = |e: std::io::Error| format!("kernel cache {}: {e}", self.dir.display());
        fs::create_dir_all(&self.dir).map_err(fail)?;
        let temp = self.dir.join(format!(
            ".{key}.{}.{}.tmp",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let written = fs::File::create(&temp).and_then(|mut f| {
            f.write_all(kind.magic())?;
            f.write_all(&key.0)?;
            f.write_all(&(payload.len() as u64).to_le_bytes())?;
            f.write_all(&checksum(payload))?;
            f.write_all(payload)
        });
        let renamed = written.and_then(|()| fs::rename(&temp, self.entry_path(kind, key)));
        if renamed.is_err() {
            let _ = fs::remove_file(&temp);
        }
        renamed.map_err(fail)
    }

    /// Deletes the `kind` entry for `key`, if there is one: for a valid entry whose payload
    /// its user cannot use.
    pub fn remove(&self, kind: EntryKind, key: &Key) {
        // Best effort: another process may have deleted or replaced it first.
        let _ = fs::remove_file(self.entry_path(kind, key));
    }

    /// Deletes the entries unused for longest until the entries take at most three quarters
    /// of the size cap; nothing when they are within the cap. Returns how many were deleted.
    pub fn evict(&self) -> Result<usize, String> {
        let fail = |e: std::io::Error| format!("kernel cache {}: {e}", self.dir.display());
        let mut entries = Vec::new();
        let mut total = 0u64;
        for entry in fs::read_dir(&self.dir).map_err(fail)? {
            let Ok(entry) = entry else { continue };
            let path = entry.path();
            let ours = EntryKind::ALL
                .iter()
                .any(|k| path.extension().is_some_and(|e| e == k.extension()));
            if !ours {
                continue;
            }
            let Ok(meta) = entry.metadata() else { continue };
            total += meta.len();
            let used = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
            entries.push((used, meta.len(), path));
        }
        if total <= self.max_bytes {
            return Ok(0);
        }
        entries.sort();
        let target = self.max_bytes / 4 * 3;
        let mut deleted = 0;
        for (_, len, path) in entries {
            if total <= target {
                break;
            }
            if fs::remove_file(&path).is_ok() {
                deleted += 1;
            }
            // A file another process deleted first no longer counts either.
            total = total.saturating_sub(len);
        }
        Ok(deleted)
    }
}

/// Checks that `bytes` are a valid `kind` entry for `key`, whose payload is then everything
/// after the first [`HEADER_LEN`] bytes; else says why not.
fn validate(kind: EntryKind, key: &Key, bytes: &[u8]) -> Result<(), String> {
    if bytes.len() < HEADER_LEN {
        return Err(format!("truncated entry ({} bytes)", bytes.len()));
    }
    let (header, object) = bytes.split_at(HEADER_LEN);
    if &header[..8] != kind.magic() {
        return Err("not a dlc cache entry (bad magic)".into());
    }
    if header[8..40] != key.0 {
        return Err("the entry belongs to another key".into());
    }
    let len = u64::from_le_bytes(header[40..48].try_into().unwrap_or_default());
    if len != object.len() as u64 {
        let what = if len > object.len() as u64 {
            "truncated entry"
        } else {
            "length mismatch"
        };
        return Err(format!(
            "{what}: the header says {len} bytes of payload, the file has {}",
            object.len()
        ));
    }
    if header[48..80] != checksum(object) {
        return Err("checksum mismatch".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const K: EntryKind = EntryKind::Kernel;

    fn key(text: &str) -> Key {
        KeyHasher::new().field("test", text.as_bytes()).finish()
    }

    #[test]
    fn fields_are_length_prefixed() {
        let a = KeyHasher::new().field("a", b"bc").finish();
        let b = KeyHasher::new().field("ab", b"c").finish();
        assert_ne!(a, b);
        assert_eq!(a, KeyHasher::new().field("a", b"bc").finish());
        assert_eq!(a.to_string().len(), 64);
    }

    #[test]
    fn round_trip_and_every_corruption_is_caught() {
        let dir = tempfile::tempdir().unwrap();
        let cache = KernelCache::new(dir.path());
        let k = key("kernel");
        assert!(matches!(cache.get(K, &k), Lookup::Miss));
        cache.put(K, &k, b"object bytes").unwrap();
        assert!(matches!(cache.get(K, &k), Lookup::Hit(o) if o == b"object bytes"));
        let path = cache.entry_path(K, &k);
        let good = fs::read(&path).unwrap();
        let flip = |i: usize| {
            let mut bad = good.clone();
            bad[i] ^= 1;
            bad
        };
        let cases: Vec<(&str, Vec<u8>)> = vec![
            ("truncated entry", good[..good.len() - 3].to_vec()),
            ("truncated", good[..10].to_vec()),
            ("bad magic", flip(0)),
            ("another key", flip(8)),
            ("the header says 13 bytes", flip(40)),
            ("checksum mismatch", flip(good.len() - 1)),
        ];
        for (why, bytes) in cases {
            fs::write(&path, bytes).unwrap();
            match cache.get(K, &k) {
                Lookup::Corrupt(m) => assert!(m.contains(why), "{why}: {m}"),
                other => panic!("{why}: {other:?}"),
            }
            assert!(!path.exists(), "{why}: the bad entry is deleted");
        }
        // An entry copied under another key's name is rejected too.
        cache.put(K, &k, b"object bytes").unwrap();
        let other = key("other");
        fs::copy(&path, cache.entry_path(K, &other)).unwrap();
        assert!(matches!(cache.get(K, &other), Lookup::Corrupt(m) if m.contains("another key")));
    }

    #[test]
    fn kernel_and_model_entries_are_apart() {
        let dir = tempfile::tempdir().unwrap();
        let cache = KernelCache::new(dir.path());
        let k = key("both");
        cache.put(K, &k, b"object").unwrap();
        assert!(matches!(cache.get(EntryKind::Model, &k), Lookup::Miss));
        cache.put(EntryKind::Model, &k, b"module {}").unwrap();
        assert!(matches!(cache.get(K, &k), Lookup::Hit(o) if o == b"object"));
        assert!(matches!(cache.get(EntryKind::Model, &k), Lookup::Hit(o) if o == b"module {}"));
        // A kernel entry under a model entry's name has the wrong magic.
        let model = cache.entry_path(EntryKind::Model, &k);
        fs::copy(cache.entry_path(K, &k), &model).unwrap();
        assert!(
            matches!(cache.get(EntryKind::Model, &k), Lookup::Corrupt(m) if m.contains("bad magic"))
        );
        cache.remove(K, &k);
        assert!(matches!(cache.get(K, &k), Lookup::Miss));
    }

    #[test]
    fn eviction_keeps_the_recently_used_entries_under_the_cap() {
        let dir = tempfile::tempdir().unwrap();
        let cache = KernelCache::new(dir.path()).with_max_bytes(4 * (HEADER_LEN as u64 + 100));
        let keys: Vec<Key> = (0..6).map(|i| key(&i.to_string())).collect();
        // Kernel and model entries alternate: eviction weighs both kinds alike.
        let kinds = EntryKind::ALL;
        let old = SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000);
        for (i, k) in keys.iter().enumerate() {
            cache.put(kinds[i % 2], k, &[i as u8; 100]).unwrap();
            // Entry i was last used at time i.
            let f = fs::File::options()
                .write(true)
                .open(cache.entry_path(kinds[i % 2], k))
                .unwrap();
            f.set_modified(old + std::time::Duration::from_secs(i as u64))
                .unwrap();
        }
        // A hit makes entry 0 the most recently used.
        assert!(matches!(cache.get(K, &keys[0]), Lookup::Hit(_)));
        assert_eq!(cache.evict().unwrap(), 3);
        let kept: Vec<bool> = keys
            .iter()
            .enumerate()
            .map(|(i, k)| cache.entry_path(kinds[i % 2], k).exists())
            .collect();
        assert_eq!(kept, [true, false, false, false, true, true]);
        assert_eq!(cache.evict().unwrap(), 0, "within the cap: nothing to do");
    }

    #[test]
    fn concurrent_writers_of_one_entry_leave_a_valid_entry() {
        let dir = tempfile::tempdir().unwrap();
        let cache = KernelCache::new(dir.path());
        let k = key("shared");
        let object: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    for _ in 0..20 {
                        cache.put(K, &k, &object).unwrap();
                        match cache.get(K, &k) {
                            Lookup::Hit(o) => assert!(o == object),
                            other => panic!("a reader saw {other:?}"),
                        }
                    }
                });
            }
        });
        let leftovers = fs::read_dir(dir.path()).unwrap().count();
        assert_eq!(leftovers, 1, "no temporary files are left behind");
    }

    #[test]
    fn environment_settings() {
        let from = |vars: &[(&str, &str)]| {
            KernelCache::from_vars(|name| {
                vars.iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, v)| OsString::from(v))
            })
        };
        let home = [("HOME", "/home/u")];
        assert_eq!(
            from(&home),
            Ok(Some(KernelCache::new("/home/u/.cache/dlc")))
        );
        assert_eq!(
            from(&[("HOME", "/home/u"), ("XDG_CACHE_HOME", "/xdg")]),
            Ok(Some(KernelCache::new("/xdg/dlc")))
        );
        assert_eq!(
            from(&[
                ("HOME", "/home/u"),
                (CACHE_DIR_VAR, "/c"),
                (CACHE_MAX_VAR, " 2 ")
            ]),
            Ok(Some(KernelCache::new("/c").with_max_bytes(2 << 20)))
        );
        for off in ["0", "off", "false"] {
            assert_eq!(from(&[("HOME", "/h"), (CACHE_VAR, off)]), Ok(None));
        }
        assert_eq!(from(&[(CACHE_VAR, "1")]), Ok(None), "no directory to use");
        let e = from(&[("HOME", "/h"), (CACHE_VAR, "yes please")]).unwrap_err();
        assert!(e.contains("invalid DLC_CACHE='yes please'"), "{e}");
        let e = from(&[("HOME", "/h"), (CACHE_MAX_VAR, "-1")]).unwrap_err();
        assert!(e.contains("invalid DLC_CACHE_MAX_MB='-1'"), "{e}");
    }
}
