//! Fuzzes the text format: arbitrary bytes go through the parser, and whatever parses must
//! verify or be rejected with a diagnostic, print in every form, and survive print → parse →
//! print unchanged.
//!
//! The parser is the one part of dlc that reads untrusted input (any `.mlir` file a user hands
//! dlc-opt), so no input may panic it, and the printer's promise that its output parses back to
//! the same text is what lets every lit test compare printed IR.

#![no_main]

use dlc_ir::{parse_source, print_op, verify, Context, PrintOptions};
use libfuzzer_sys::fuzz_target;

/// The forms the printer must round-trip: custom syntax, generic, and generic with locations.
const FORMS: [PrintOptions; 3] = [
    PrintOptions {
        generic: false,
        debuginfo: false,
    },
    PrintOptions {
        generic: true,
        debuginfo: false,
    },
    PrintOptions {
        generic: true,
        debuginfo: true,
    },
];

fuzz_target!(|data: &[u8]| {
    let Ok(src) = std::str::from_utf8(data) else {
        return;
    };
    for allow_unregistered in [false, true] {
        check(src, allow_unregistered);
    }
});

fn context(allow_unregistered: bool) -> Context {
    let mut ctx = Context::new();
    ctx.allow_unregistered = allow_unregistered;
    dlc_dialects::register_all_dialects(&mut ctx);
    ctx
}

fn check(src: &str, allow_unregistered: bool) {
    let mut ctx = context(allow_unregistered);
    let Ok(module) = parse_source(&mut ctx, src, "fuzz.mlir", 1) else {
        return;
    };
    let verified = verify(&ctx, module).is_ok();
    for options in FORMS {
        let once = print_op(&ctx, module, options);
        // Only verified IR promises to print back to itself (as in MLIR); invalid IR must
        // still print without panicking.
        if !verified {
            continue;
        }
        let mut ctx2 = context(allow_unregistered);
        let module2 = match parse_source(&mut ctx2, &once, "printed.mlir", 1) {
            Ok(m) => m,
            Err(d) => panic!(
                "printed IR does not parse ({options:?}): {}\n--- input\n{src}\n--- printed\n{once}",
                d.message
            ),
        };
        if let Err(d) = verify(&ctx2, module2) {
            panic!(
                "printed IR does not verify ({options:?}): {}\n--- input\n{src}\n--- printed\n{once}",
                d.message
            );
        }
        let twice = print_op(&ctx2, module2, options);
        assert_eq!(
            once, twice,
            "print → parse → print changed the text ({options:?})\n--- input\n{src}"
        );
    }
}
