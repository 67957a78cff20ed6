//! Slot-ABI entries run through MLIR's own lowering and ExecutionEngine, called exactly as the
//! dlc runtime calls kernels: one array of 8-byte slots (`dlc_runtime::abi`).

use dlc_ir::{parse_source, Context};
use dlc_mlir::{mlir_context, ExportOptions};
use std::path::{Path, PathBuf};

/// The runtime's kernel entry type.
type KernelFn = unsafe extern "C" fn(*const u64);

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Exports `example`, lowers it, JIT-compiles it and calls `<kernel>_slots` on `slots`.
fn run_example(example: &str, kernel: &str, slots: &[u64]) {
    let mut ctx = Context::new();
    dlc_dialects::register_all_dialects(&mut ctx);
    let text = std::fs::read_to_string(repo_root().join("docs/examples").join(example))
        .expect("example exists");
    let module = parse_source(&mut ctx, &text, example, 1).expect("parses");
    let mlir = mlir_context();
    let options = ExportOptions { slot_entries: true };
    let engine = super::engine(&ctx, module, &mlir, &options);
    let entry = engine.lookup(&format!("{kernel}_slots"));
    assert!(!entry.is_null(), "no symbol {kernel}_slots");
    // SAFETY: `<kernel>_slots` is the `void (ptr)` function slots.rs builds; the slot array
    // holds a data pointer and every dim per buffer argument and one word per scalar, in the
    // kernel's argument order, and the buffers it points to outlive the call.
    unsafe {
        let f: KernelFn = std::mem::transmute::<*mut (), KernelFn>(entry);
        f(slots.as_ptr());
    }
}

#[test]
fn broadcast_add_runs_through_its_slot_entry() {
    let (m, n) = (3usize, 5usize);
    let a: Vec<f32> = (0..m * n).map(|i| i as f32).collect();
    let b: Vec<f32> = (0..n).map(|j| 100.0 * j as f32).collect();
    let mut out = vec![0f32; m * n];
    let slots = [
        a.as_ptr() as u64,
        m as u64,
        n as u64,
        b.as_ptr() as u64,
        n as u64,
        out.as_mut_ptr() as u64,
        m as u64,
        n as u64,
        m as u64,
        n as u64,
    ];
    run_example("loop_broadcast_add.mlir", "broadcast_add", &slots);
    for i in 0..m {
        for j in 0..n {
            assert_eq!(out[i * n + j], a[i * n + j] + b[j], "out[{i}, {j}]");
        }
    }
}

#[test]
fn row_softmax_runs_through_its_slot_entry() {
    let rows = 4usize;
    let x: Vec<f32> = (0..rows * 128)
        .map(|i| ((i * 37) % 19) as f32 * 0.25 - 2.0)
        .collect();
    let mut y = vec![0f32; rows * 128];
    let slots = [
        x.as_ptr() as u64,
        rows as u64,
        128,
        y.as_mut_ptr() as u64,
        rows as u64,
        128,
        rows as u64,
    ];
    run_example("loop_row_softmax.mlir", "row_softmax", &slots);
    for r in 0..rows {
        let row = &x[r * 128..(r + 1) * 128];
        let max = row.iter().cloned().fold(f32::NEG_INFINITY, f32::max);
        let sum: f32 = row.iter().map(|v| (v - max).exp()).sum();
        for k in 0..128 {
            let want = (row[k] - max).exp() / sum;
            let got = y[r * 128 + k];
            assert!(
                (got - want).abs() <= 1e-6,
                "y[{r}, {k}] = {got}, want {want}"
            );
        }
    }
}
