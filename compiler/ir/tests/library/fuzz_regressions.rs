//! Inputs that once panicked the parser or broke print → parse → print, found by the fuzzer
//! (tools/fuzz) and the property tests (property_roundtrip.rs), kept so the bugs stay fixed.
//!
//! Each test names the bug it guards. Inputs that must be rejected check the error message;
//! inputs that must be accepted check that they round-trip in the custom and generic forms.

use dlc_ir::{parse_source, print_op, verify, Context, DenseValue, PrintOptions, Type};

fn context(allow_unregistered: bool) -> Context {
    let mut ctx = Context::new();
    ctx.allow_unregistered = allow_unregistered;
    ctx
}

/// Parses `src` (unregistered ops allowed), checks it verifies, and checks that printing,
/// parsing the print and printing again gives the same text, in both forms. Returns the custom
/// form.
fn round_trip(src: &str) -> String {
    let mut ctx = context(true);
    let module = parse_source(&mut ctx, src, "input.mlir", 1)
        .unwrap_or_else(|d| panic!("input does not parse: {}", d.message));
    verify(&ctx, module).unwrap_or_else(|d| panic!("input does not verify: {}", d.message));
    let mut custom = String::new();
    for generic in [false, true] {
        let options = PrintOptions {
            generic,
            debuginfo: false,
        };
        let once = print_op(&ctx, module, options);
        let mut ctx2 = context(true);
        let module2 = parse_source(&mut ctx2, &once, "printed.mlir", 1)
            .unwrap_or_else(|d| panic!("printed IR does not parse: {}\n{once}", d.message));
        verify(&ctx2, module2)
            .unwrap_or_else(|d| panic!("printed IR does not verify: {}\n{once}", d.message));
        assert_eq!(
            once,
            print_op(&ctx2, module2, options),
            "generic: {generic}"
        );
        if !generic {
            custom = once;
        }
    }
    custom
}

/// The message of the error `src` must produce.
fn parse_error(src: &str, allow_unregistered: bool) -> String {
    let mut ctx = context(allow_unregistered);
    match parse_source(&mut ctx, src, "input.mlir", 1) {
        Ok(_) => panic!("expected an error for {src:?}"),
        Err(d) => d.message,
    }
}

/// Fuzzer: a one-element hex constant was stored as a list but read back from its print as a
/// splat, so its second print differed from the first.
#[test]
fn one_element_hex_dense_is_a_splat() {
    let out = round_trip(r#""t.op"() {s = [dense<"0x7FC0"> : tensor<1xf16>]} : () -> ()"#);
    assert!(!out.contains("dense<["), "{out}");
}

/// Property test: NaN and infinity elements print as hex bit patterns, which the parser
/// rejected in `array<...>` and `dense<...>`.
#[test]
fn non_finite_float_elements_read_back() {
    let out = round_trip(
        r#""t.op"() {a = array<f16: 0x7E00, 0x7C00>, d = dense<[0x7F800000, 1.0]> : tensor<2xf32>} : () -> ()"#,
    );
    assert!(out.contains("array<f16: 0x7E00, 0x7C00>"), "{out}");
    assert!(out.contains("dense<[0x7F800000, 1.000000e+00]>"), "{out}");
    assert_eq!(
        parse_error(r#""t.op"() {a = array<f16: 0x17C00>} : () -> ()"#, true),
        "hexadecimal float constant out of range for type"
    );
}

/// Property test: generic op names were printed without escapes, so a quote in the name ended
/// the string early.
#[test]
fn op_names_are_escaped() {
    let out = round_trip(r#""test.q\22uote\\"() : () -> ()"#);
    assert!(out.contains(r#""test.q\22uote\\"()"#), "{out}");
}

/// Property test: `i128::MIN` printed as a decimal whose magnitude overflowed `i128` when
/// parsed.
#[test]
fn i128_min_reads_back() {
    round_trip(r#""t.op"() {a = -170141183460469231731687303715884105728 : i128} : () -> ()"#);
    assert_eq!(
        parse_error(
            r#""t.op"() {a = -170141183460469231731687303715884105729 : i128} : () -> ()"#,
            true
        ),
        "integer constant out of range for attribute"
    );
}

/// Property test: an empty entry block was printed without its label, so it read back as no
/// block at all, or the next block read back as the entry.
#[test]
fn empty_entry_blocks_keep_their_label() {
    let out = round_trip(
        "\"t.op\"() ({\n^bb0:\n^bb1(%a: f16):\n  \"t.use\"(%a) : (f16) -> ()\n}) : () -> ()",
    );
    assert!(out.contains("^bb0:\n  ^bb1(%0: f16):"), "{out}");
    let out = round_trip("\"t.op\"() ({\n^bb0:\n}) : () -> ()");
    assert!(out.contains("({\n  ^bb0:\n  })"), "{out}");
}

/// Property test: dense elements wider than 128 bits indexed past the 16-byte buffer that holds
/// one element (a panic on `dense<1> : tensor<2xi200>`).
#[test]
fn wide_integer_dense_elements_do_not_panic() {
    let out = round_trip(
        r#""t.op"() {a = dense<[1, -1]> : tensor<2xi200>, b = dense<-3> : vector<2xi1288>} : () -> ()"#,
    );
    assert!(out.contains("dense<[1, -1]> : tensor<2xi200>"), "{out}");
    assert!(out.contains("dense<-3> : vector<2xi1288>"), "{out}");
}

/// Property test: integer elements were stored with whatever bits lay above their width, so two
/// equal constants could differ byte for byte and print differently.
#[test]
fn dense_integer_elements_are_stored_canonically() {
    let mut ctx = context(true);
    let i1 = ctx.vector_type(&[2], Type::I1);
    let a = ctx.dense_attr(i1, &[DenseValue::Int(2), DenseValue::Int(0)]);
    let b = ctx.dense_attr(i1, &[DenseValue::Int(0), DenseValue::Int(0)]);
    assert_eq!(a, b);
    let i3 = ctx.integer_type(3);
    let t = ctx.tensor_type(&[2], i3);
    let a = ctx.dense_attr(t, &[DenseValue::Int(7), DenseValue::Int(1)]);
    let b = ctx.dense_attr(t, &[DenseValue::Int(-1), DenseValue::Int(1)]);
    assert_eq!(a, b);
}

/// Fuzzer: `!.` (an empty dialect and mnemonic) underflowed while stripping the `<...>` of a
/// dialect type written without a mnemonic (`#.` did the same for attributes), and `#.0e-3`
/// parsed as an attribute of dialect '' that printed as `#<0e-3>`, which does not lex.
#[test]
fn empty_dialect_names_are_rejected() {
    for src in ["#$ =!.", "#$ = #.", "#a = #.0e-3", "!t = !.<>"] {
        for allow_unregistered in [false, true] {
            assert_eq!(
                parse_error(src, allow_unregistered),
                "expected a dialect namespace before '.'",
                "{src}"
            );
        }
    }
    // An empty mnemonic after a real dialect is fine.
    round_trip("\"t.op\"() {a = !t.<x>, b = #t.} : () -> ()");
}

/// Fuzzer: a hex dense string with a multi-byte character was cut into digit pairs in the middle
/// of the character (a panic on `"0x010з"`).
#[test]
fn non_ascii_in_dense_hex_is_an_error() {
    for digits in ["010з", "+F", "0з"] {
        let src = format!(r#""t.op"() {{a = dense<"0x{digits}"> : tensor<2xi8>}} : () -> ()"#);
        assert_eq!(
            parse_error(&src, true),
            "invalid hex digit in dense attribute",
            "{src}"
        );
    }
}

/// Property test: printing a module that has no region (it fails to verify, but diagnostics and
/// `--print-generic`-less dumps still print it) indexed the missing region in its custom printer.
/// Ops that do not match their definition now print in the generic form.
#[test]
fn ops_not_matching_their_definition_print_generically() {
    let src = r#""builtin.module"() {a.b = 1} : () -> () loc(fused[])"#;
    let mut ctx = context(false);
    let module = parse_source(&mut ctx, src, "input.mlir", 1).expect("parses");
    let err = verify(&ctx, module).expect_err("a module needs its region");
    assert_eq!(
        err.message,
        "'builtin.module' op expected 1 region, but found 0"
    );
    let out = print_op(&ctx, module, PrintOptions::default());
    assert_eq!(out, r#""builtin.module"() {a.b = 1 : i64} : () -> ()"#);
}

/// Fuzzer: a dialect body was closed by any closing bracket (`!o<t<><>]` ended at `]`), and the
/// printer wrote `!o.t<><>` for the body `t<><>`, which reads back as `!o.t<>` and a stray `<>`.
/// Brackets now have to match, `->` closes nothing, and the short form is used only when the
/// `<` after the mnemonic closes at the very end.
#[test]
fn dialect_bodies_nest_brackets_like_mlir() {
    assert_eq!(
        parse_error(r#""t.op"(){a=!o<t<><>]}:()->()"#, true),
        "unbalanced '<' in dialect type or attribute"
    );
    let out = round_trip(
        r#""t.op"() {a = !o<t<><>>, b = #o<t<a> <b>>, c = !t.fn<(i32) -> (i1, [x])>} : () -> ()"#,
    );
    assert!(out.contains("a = !o<t<><>>"), "{out}");
    assert!(out.contains("b = #o<t<a> <b>>"), "{out}");
    assert!(out.contains("c = !t.fn<(i32) -> (i1, [x])>"), "{out}");
    // A body that `<...>` cannot hold (its `->` would close nothing) keeps the dotted form.
    let out = round_trip(r#""t.op"(){u=#-.-}:()->()"#);
    assert!(out.contains("u = #-.-"), "{out}");
}

/// Fuzzer: the element count of a dense constant's type overflowed `i64` (a panic on
/// `tensor<3333333333333333332x3xf16>`).
#[test]
fn dense_element_count_overflow_is_an_error() {
    for src in [
        "#a=dense<>:tensor<3333333333333333332x3xf16>",
        r#"#a=dense<"0x0000">:tensor<3333333333333333332x3xf16>"#,
    ] {
        assert_eq!(
            parse_error(src, true),
            "dense attribute type has more elements than fit in 64 bits",
            "{src}"
        );
    }
    // A count that fits, with far too few bytes, reports the size it needs.
    assert_eq!(
        parse_error(
            r#"#a=dense<"0x000000">:tensor<3074457345618258602x3xf16>"#,
            true
        ),
        "elements hex data size is invalid for provided type: 'tensor<3074457345618258602x3xf16>' (3 bytes, the type needs 18446744073709551612)"
    );
}

/// Deeply nested text is an error, not a stack overflow; nesting up to the limit still works.
/// Runs on a thread with the 8 MiB stack a tool's main thread has.
#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let run = || {
        let too_deep = format!(
            "\"t.a\"() {{a = {}{}}} : () -> ()",
            "[".repeat(100_000),
            "]".repeat(100_000)
        );
        let mut ctx = Context::new();
        ctx.allow_unregistered = true;
        let err = parse_source(&mut ctx, &too_deep, "deep.mlir", 1).expect_err("too deep");
        assert!(
            err.message.contains("nesting is deeper than"),
            "{}",
            err.message
        );

        let depth = dlc_ir::parser::MAX_NESTING as usize - 1;
        let ok = "\"t.a\"() ({ ".repeat(depth)
            + "\"t.a\"() : () -> ()"
            + &" }) : () -> ()".repeat(depth);
        let mut ctx = Context::new();
        ctx.allow_unregistered = true;
        let module = parse_source(&mut ctx, &ok, "ok.mlir", 1).expect("within the limit");
        dlc_ir::verify(&ctx, module).expect("valid");
        let printed = dlc_ir::print_op(&ctx, module, dlc_ir::PrintOptions::default());
        assert_eq!(printed.matches("\"t.a\"").count(), depth + 1);
    };
    std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(run)
        .expect("thread")
        .join()
        .expect("no panic");
}

/// Fuzzer: a `ui127` constant overflowed building the 127-bit mask (`1 << 127` is no `i128`).
#[test]
fn ui127_constants_read_back() {
    let out = round_trip(
        r#""t.op"() {a = 170141183460469231731687303715884105727 : ui127, b = dense<[1, 170141183460469231731687303715884105727]> : tensor<2xui127>} : () -> ()"#,
    );
    assert!(
        out.contains("a = 170141183460469231731687303715884105727 : ui127"),
        "{out}"
    );
}

/// Property test: a large `ui1` constant printed as packed hex (eight elements to a byte, as
/// MLIR stores every 1-bit integer type) did not parse back: only `i1` hex was read packed.
#[test]
fn one_bit_hex_constants_of_every_signedness_read_back() {
    for ty in ["i1", "ui1", "si1"] {
        let src = format!(
            r#""t.op"() {{a = dense<"0x01000000000000000000000000000000"> : vector<5x5x5x{ty}>}} : () -> ()"#
        );
        let out = round_trip(&src);
        assert!(
            out.contains(r#"dense<"0x01000000000000000000000000000000">"#),
            "{ty}: {out}"
        );
    }
}
