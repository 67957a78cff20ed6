//! downstream-opt: dlc-opt with this crate's pass, on dlc's driver ([`dlc_opt::opt_main`]):
//! `downstream-opt input.mlir --pass-pipeline='builtin.module(func.func(tag-functions))'`.

fn main() -> std::process::ExitCode {
    dlc_opt::opt_main(&dlc_opt::OptTool {
        name: "downstream-opt",
        dialects: |_| {},
        passes: downstream_pass::register,
    })
}
