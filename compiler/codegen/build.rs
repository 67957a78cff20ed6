//! Hashes this crate's source into `DLC_CODEGEN_SOURCE_HASH`, part of the kernel cache's key:
//! a build whose code generator changed never loads objects an older one wrote.

use std::hash::{DefaultHasher, Hasher};
use std::path::Path;

fn main() {
    println!("cargo:rerun-if-changed=src");
    let mut files = Vec::new();
    collect(Path::new("src"), &mut files);
    files.sort();
    let mut hasher = DefaultHasher::new();
    for file in files {
        hasher.write(file.to_string_lossy().as_bytes());
        hasher.write(&std::fs::read(&file).unwrap_or_default());
    }
    println!(
        "cargo:rustc-env=DLC_CODEGEN_SOURCE_HASH={:016x}",
        hasher.finish()
    );
}

fn collect(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out);
        } else {
            out.push(path);
        }
    }
}
