//! dlc-opt: reads dlc IR, verifies it, and prints it back — the driver every dlc transformation
//! is tested through, with mlir-opt's flags and exit codes ([`dlc_opt::opt_main`]).

fn main() -> std::process::ExitCode {
    dlc_opt::opt_main(&dlc_opt::OptTool::DLC)
}
