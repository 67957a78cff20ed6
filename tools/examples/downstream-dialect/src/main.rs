//! act-opt: dlc-opt with the `act` dialect and its `lower-act` pass, on dlc's driver
//! ([`dlc_opt::opt_main`]): `act-opt input.mlir --pipeline=lower-act,canonicalize`.

fn main() -> std::process::ExitCode {
    dlc_opt::opt_main(&dlc_opt::OptTool {
        name: "act-opt",
        dialects: |ctx| ctx.register_dialect(downstream_dialect::dialect()),
        passes: downstream_dialect::register,
    })
}
