//! Folder tables: constant evaluation with MLIR's semantics (wrap-around, no folding of UB),
//! algebraic identities, and materialization of folded constants.
//!
//! Each case is a few top-level ops; the last one is folded with `Context::fold`. The outcome
//! is written as the folded constant's text (`12 : i32`), the source name of the value the op
//! folds to (`%x`), or `no fold`. Opaque values come from the unregistered `test.val` op.

use crate::common;

use common::{body_ops, context, custom, parse};
use dlc_ir::{FoldResult, InsertPoint, Location, Printer};

/// Folds the last op of `src` and describes the outcome.
fn fold(src: &str) -> String {
    let mut ctx = context();
    let module = parse(&mut ctx, src);
    let ops = body_ops(&ctx, module);
    // Source names of the ops' results, in op order (every op here has one result).
    let names: Vec<&str> = src
        .lines()
        .filter_map(|l| l.trim().split_once(" = ").map(|(n, _)| n))
        .collect();
    assert_eq!(names.len(), ops.len(), "one named result per op:\n{src}");
    let last = *ops.last().expect("an op to fold");
    match ctx.fold(last).as_deref() {
        None => "no fold".to_string(),
        Some([FoldResult::Constant(attr)]) => Printer::new(&ctx).attr_to_string(*attr),
        Some([FoldResult::Value(v)]) => {
            let def = ctx.defining_op(*v).expect("folded to an op result");
            let i = ops.iter().position(|o| *o == def).expect("a top-level op");
            names[i].to_string()
        }
        // Updated in place (only `cmpi` does this): its predicate and operands now.
        Some([]) => {
            let pred = dlc_arith::CmpIOp(last)
                .cmp_predicate(&ctx)
                .map_or("?", |p| p.keyword());
            let operands: Vec<&str> = ctx
                .operands(last)
                .iter()
                .map(|v| {
                    let def = ctx.defining_op(*v).expect("an op result");
                    names[ops.iter().position(|o| *o == def).expect("a top-level op")]
                })
                .collect();
            format!("in place: {pred} {}", operands.join(", "))
        }
        Some(other) => panic!("unexpected fold result {other:?}"),
    }
}

/// `%r = arith.<op> <lhs>, <rhs> : <ty>` where a constant operand is written as its literal and
/// `x`/`y` stand for opaque values.
fn binary(op: &str, ty: &str, lhs: &str, rhs: &str) -> String {
    let mut src = String::new();
    let mut name = |operand: &str, tag: &str| -> String {
        if operand == "x" || operand == "y" {
            src.push_str(&format!("%{operand} = \"test.val\"() : () -> {ty}\n"));
            format!("%{operand}")
        } else {
            src.push_str(&format!("%{tag} = arith.constant {operand} : {ty}\n"));
            format!("%{tag}")
        }
    };
    let l = name(lhs, "lhs");
    let r = if rhs == lhs && (rhs == "x" || rhs == "y") {
        l.clone()
    } else {
        name(rhs, "rhs")
    };
    src.push_str(&format!("%r = arith.{op} {l}, {r} : {ty}\n"));
    src
}

fn check(cases: &[(&str, &str, &str, &str, &str)]) {
    let wrong: Vec<String> = cases
        .iter()
        .filter_map(|(op, ty, lhs, rhs, want)| {
            let got = fold(&binary(op, ty, lhs, rhs));
            (got != *want).then(|| format!("{op} {lhs}, {rhs} : {ty}: got {got}, want {want}"))
        })
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

fn check_sources(cases: &[(&str, &str)]) {
    let wrong: Vec<String> = cases
        .iter()
        .filter_map(|(src, want)| {
            let got = fold(src);
            (got != *want).then(|| format!("{src}  got {got}, want {want}"))
        })
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn integer_constants_wrap_like_apint() {
    check(&[
        ("addi", "i32", "7", "5", "12 : i32"),
        ("addi", "i8", "127", "1", "-128 : i8"),
        (
            "addi",
            "i64",
            "9223372036854775807",
            "1",
            "-9223372036854775808 : i64",
        ),
        (
            "addi",
            "index",
            "9223372036854775807",
            "1",
            "-9223372036854775808 : index",
        ),
        ("addi", "i1", "true", "true", "false"),
        ("subi", "i8", "-128", "1", "127 : i8"),
        ("muli", "i32", "65536", "65536", "0 : i32"),
        ("muli", "i16", "300", "300", "24464 : i16"),
        (
            "muli",
            "i128",
            "170141183460469231731687303715884105727",
            "2",
            "-2 : i128",
        ),
        ("andi", "i32", "12", "10", "8 : i32"),
        ("ori", "i32", "12", "10", "14 : i32"),
        ("xori", "i32", "12", "10", "6 : i32"),
        ("maxsi", "i8", "-1", "1", "1 : i8"),
        ("minsi", "i8", "-1", "1", "-1 : i8"),
        // In i1, false is the signed maximum and true the minimum: the right-hand operand
        // absorbs (`maxsi x, MAX` is MAX), and MLIR returns the operand itself.
        ("maxsi", "i1", "true", "false", "%rhs"),
        ("minsi", "i1", "true", "false", "%lhs"),
        ("addi", "i33", "4294967296", "4294967296", "0 : i33"),
        ("addi", "i256", "1", "2", "no fold"),
    ]);
}

#[test]
fn division_leaves_undefined_behaviour_alone() {
    check(&[
        ("divsi", "i32", "7", "-2", "-3 : i32"),
        ("divsi", "i32", "-7", "2", "-3 : i32"),
        ("divsi", "i8", "-128", "2", "-64 : i8"),
        ("divsi", "i32", "7", "0", "no fold"),
        ("divsi", "i64", "-9223372036854775808", "-1", "no fold"),
        ("divsi", "i32", "-2147483648", "-1", "no fold"),
        ("divsi", "i1", "true", "true", "%lhs"),
        ("divui", "i8", "-1", "2", "127 : i8"),
        ("divui", "i32", "7", "0", "no fold"),
        ("divui", "i64", "-1", "-1", "1 : i64"),
        ("remsi", "i32", "-7", "2", "-1 : i32"),
        ("remsi", "i32", "7", "-2", "1 : i32"),
        ("remsi", "i64", "-9223372036854775808", "-1", "0 : i64"),
        ("remsi", "i32", "7", "0", "no fold"),
        ("remui", "i8", "-1", "10", "5 : i8"),
        ("remui", "i32", "7", "0", "no fold"),
        ("divsi", "index", "-9223372036854775808", "-1", "no fold"),
    ]);
}

#[test]
fn shifts_by_the_width_or_more_are_poison() {
    check(&[
        ("shli", "i8", "1", "7", "-128 : i8"),
        ("shli", "i8", "1", "8", "no fold"),
        ("shli", "i8", "1", "-1", "no fold"),
        ("shrsi", "i8", "-128", "7", "-1 : i8"),
        ("shrui", "i8", "-128", "7", "1 : i8"),
        ("shrui", "i32", "-1", "31", "1 : i32"),
        ("shrsi", "i64", "1", "64", "no fold"),
        (
            "shli",
            "i128",
            "1",
            "127",
            "-170141183460469231731687303715884105728 : i128",
        ),
    ]);
}

#[test]
fn integer_comparisons() {
    let cases = [
        ("slt", "-1", "1", "true"),
        ("ult", "-1", "1", "false"),
        ("sge", "5", "5", "true"),
        ("ugt", "-128", "127", "true"),
        ("ne", "3", "3", "false"),
        ("eq", "-1", "255", "true"),
    ];
    for (pred, a, b, want) in cases {
        let src = format!(
            "%a = arith.constant {a} : i8\n%b = arith.constant {b} : i8\n%r = arith.cmpi {pred}, %a, %b : i8\n"
        );
        assert_eq!(fold(&src), want, "cmpi {pred} {a}, {b}");
    }
}

#[test]
fn integer_identities() {
    check(&[
        ("addi", "i32", "x", "0", "%x"),
        ("addi", "i32", "0", "x", "%x"),
        ("addi", "i32", "x", "1", "no fold"),
        ("subi", "i32", "x", "0", "%x"),
        ("subi", "i32", "x", "x", "0 : i32"),
        ("subi", "i32", "0", "x", "no fold"),
        ("muli", "i32", "x", "1", "%x"),
        ("muli", "i32", "1", "x", "%x"),
        ("muli", "i32", "x", "0", "%rhs"),
        ("divsi", "i32", "x", "1", "%x"),
        ("divui", "i32", "x", "1", "%x"),
        ("divsi", "i32", "x", "0", "no fold"),
        ("remsi", "i32", "x", "1", "0 : i32"),
        ("remui", "i32", "x", "1", "0 : i32"),
        ("andi", "i32", "x", "x", "%x"),
        ("andi", "i32", "x", "0", "%rhs"),
        ("andi", "i32", "x", "-1", "%x"),
        ("andi", "i1", "x", "true", "%x"),
        ("ori", "i32", "x", "0", "%x"),
        ("ori", "i32", "x", "-1", "%rhs"),
        ("ori", "i32", "x", "x", "%x"),
        ("xori", "i32", "x", "x", "0 : i32"),
        ("xori", "i32", "0", "x", "%x"),
        ("shli", "i32", "x", "0", "%x"),
        ("shrsi", "i32", "x", "0", "%x"),
        ("maxsi", "i32", "x", "x", "%x"),
        ("maxsi", "i8", "x", "127", "%rhs"),
        ("maxsi", "i8", "x", "-128", "%x"),
        ("minsi", "i8", "x", "-128", "%rhs"),
        ("minsi", "i8", "x", "127", "%x"),
    ]);
    check_sources(&[
        (
            "%a = \"test.val\"() : () -> i32\n%b = \"test.val\"() : () -> i32\n%d = arith.subi %a, %b : i32\n%r = arith.addi %d, %b : i32",
            "%a",
        ),
        (
            "%a = \"test.val\"() : () -> i32\n%b = \"test.val\"() : () -> i32\n%s = arith.addi %a, %b : i32\n%r = arith.subi %s, %a : i32",
            "%b",
        ),
        (
            "%a = \"test.val\"() : () -> i32\n%b = \"test.val\"() : () -> i32\n%s = arith.xori %a, %b : i32\n%r = arith.xori %b, %s : i32",
            "%a",
        ),
        (
            "%x = \"test.val\"() : () -> i32\n%r = arith.cmpi sle, %x, %x : i32",
            "true",
        ),
        (
            "%x = \"test.val\"() : () -> i32\n%r = arith.cmpi ult, %x, %x : i32",
            "false",
        ),
        (
            "%x = \"test.val\"() : () -> vector<4xi32>\n%r = arith.cmpi eq, %x, %x : vector<4xi32>",
            "dense<true> : vector<4xi1>",
        ),
        (
            "%x = \"test.val\"() : () -> vector<4xi32>\n%r = arith.subi %x, %x : vector<4xi32>",
            "dense<0> : vector<4xi32>",
        ),
        // No constant can stand for a dynamically shaped result.
        (
            "%x = \"test.val\"() : () -> tensor<?xi32>\n%r = arith.subi %x, %x : tensor<?xi32>",
            "no fold",
        ),
        // A constant on the left of a comparison moves right, the predicate mirrored.
        (
            "%c = arith.constant 4 : i32\n%x = \"test.val\"() : () -> i32\n%r = arith.cmpi slt, %c, %x : i32",
            "in place: sgt %x, %c",
        ),
        (
            "%c = arith.constant 4 : i32\n%x = \"test.val\"() : () -> i32\n%r = arith.cmpi eq, %c, %x : i32",
            "in place: eq %x, %c",
        ),
        // x & ~x is 0 and x | ~x is all ones (the `not`'s constant); (x & y) & y is x & y.
        (
            "%x = \"test.val\"() : () -> i32\n%m = arith.constant -1 : i32\n%n = arith.xori %x, %m : i32\n%r = arith.andi %n, %x : i32",
            "0 : i32",
        ),
        (
            "%x = \"test.val\"() : () -> i32\n%m = arith.constant -1 : i32\n%n = arith.xori %x, %m : i32\n%r = arith.ori %x, %n : i32",
            "%m",
        ),
        (
            "%x = \"test.val\"() : () -> i32\n%y = \"test.val\"() : () -> i32\n%a = arith.andi %x, %y : i32\n%r = arith.andi %y, %a : i32",
            "%a",
        ),
        // select (cmpi eq, a, b), a, b is b; with ne it is a.
        (
            "%a = \"test.val\"() : () -> i32\n%b = \"test.val\"() : () -> i32\n%c = arith.cmpi eq, %a, %b : i32\n%r = arith.select %c, %a, %b : i32",
            "%b",
        ),
        (
            "%a = \"test.val\"() : () -> i32\n%b = \"test.val\"() : () -> i32\n%c = arith.cmpi ne, %b, %a : i32\n%r = arith.select %c, %a, %b : i32",
            "%a",
        ),
    ]);
}

#[test]
fn dense_constants_fold_elementwise() {
    check(&[
        (
            "addi",
            "tensor<2xi32>",
            "dense<[1, 2]>",
            "dense<3>",
            "dense<[4, 5]> : tensor<2xi32>",
        ),
        (
            "addi",
            "vector<4xi32>",
            "dense<1>",
            "dense<1>",
            "dense<2> : vector<4xi32>",
        ),
        (
            "addi",
            "tensor<2xi32>",
            "dense<[1, 2]>",
            "dense<[2, 1]>",
            "dense<3> : tensor<2xi32>",
        ),
        (
            "divsi",
            "tensor<2xi32>",
            "dense<[1, 2]>",
            "dense<[1, 0]>",
            "no fold",
        ),
        (
            "muli",
            "vector<2xi8>",
            "dense<[16, 2]>",
            "dense<16>",
            "dense<[0, 32]> : vector<2xi8>",
        ),
        ("muli", "tensor<2xi32>", "x", "dense<1>", "%x"),
        (
            "mulf",
            "tensor<2xf32>",
            "dense<[1.5, -2.0]>",
            "dense<2.0>",
            "dense<[3.000000e+00, -4.000000e+00]> : tensor<2xf32>",
        ),
        ("addf", "vector<2xf32>", "x", "dense<-0.0>", "%x"),
    ]);
    check_sources(&[(
        "%a = arith.constant dense<[1, 5]> : vector<2xi32>\n%b = arith.constant dense<[3, 3]> : vector<2xi32>\n%r = arith.cmpi slt, %a, %b : vector<2xi32>",
        "dense<[true, false]> : vector<2xi1>",
    )]);
}

#[test]
fn float_constants_follow_ieee() {
    check(&[
        ("addf", "f32", "1.5", "2.25", "3.750000e+00 : f32"),
        ("subf", "f64", "1.0", "2.5", "-1.500000e+00 : f64"),
        ("mulf", "f16", "2.0", "3.0", "6.000000e+00 : f16"),
        ("mulf", "bf16", "-2.0", "0.25", "-5.000000e-01 : bf16"),
        ("divf", "f32", "1.0", "0.0", "0x7F800000 : f32"),
        ("divf", "f32", "0.0", "0.0", "0x7FC00000 : f32"),
        (
            "subf",
            "f32",
            "0x7F800000",
            "0x7F800000",
            "0x7FC00000 : f32",
        ),
        ("addf", "f32", "0x7FC00001", "0.0", "0x7FC00001 : f32"),
        ("addf", "f16", "65504.0", "65504.0", "0x7C00 : f16"),
        ("maximumf", "f32", "-0.0", "0.0", "0.000000e+00 : f32"),
        ("minimumf", "f32", "-0.0", "0.0", "-0.000000e+00 : f32"),
        ("maximumf", "f32", "0x7FC00000", "1.0", "0x7FC00000 : f32"),
        (
            "minimumf",
            "f64",
            "1.0",
            "0x7FF8000000000000",
            "0x7FF8000000000000 : f64",
        ),
        ("maximumf", "f32", "-3.0", "2.0", "2.000000e+00 : f32"),
    ]);
    let cmps = [
        ("olt", "1.0", "2.0", "true"),
        ("olt", "0x7FC00000", "1.0", "false"),
        ("ult", "0x7FC00000", "1.0", "true"),
        ("oeq", "-0.0", "0.0", "true"),
        ("one", "1.0", "1.0", "false"),
        ("uno", "1.0", "2.0", "false"),
        ("ord", "1.0", "2.0", "true"),
        ("true", "0x7FC00000", "0x7FC00000", "true"),
        ("false", "1.0", "1.0", "false"),
        ("une", "0x7FC00000", "0x7FC00000", "true"),
    ];
    for (pred, a, b, want) in cmps {
        let src = format!(
            "%a = arith.constant {a} : f32\n%b = arith.constant {b} : f32\n%r = arith.cmpf {pred}, %a, %b : f32\n"
        );
        assert_eq!(fold(&src), want, "cmpf {pred} {a}, {b}");
    }
}

#[test]
fn float_identities() {
    check(&[
        ("addf", "f32", "x", "-0.0", "%x"),
        ("addf", "f32", "-0.0", "x", "%x"),
        // x + 0.0 turns -0.0 into +0.0: not an identity.
        ("addf", "f32", "x", "0.0", "no fold"),
        ("subf", "f32", "x", "0.0", "%x"),
        ("subf", "f32", "x", "-0.0", "no fold"),
        ("mulf", "f32", "x", "1.0", "%x"),
        // x * 0.0 is NaN for infinities and -0.0 for negatives.
        ("mulf", "f32", "x", "0.0", "no fold"),
        ("divf", "f32", "x", "1.0", "%x"),
        ("maximumf", "f32", "x", "x", "%x"),
        ("maximumf", "f32", "x", "0xFF800000", "%x"),
        ("minimumf", "f32", "x", "0x7F800000", "%x"),
        ("minimumf", "f32", "x", "0xFF800000", "no fold"),
    ]);
    check_sources(&[
        ("%a = arith.constant 1.5 : f32\n%r = arith.negf %a : f32", "-1.500000e+00 : f32"),
        ("%a = arith.constant 0x7FC00000 : f32\n%r = arith.negf %a : f32", "0xFFC00000 : f32"),
        (
            "%x = \"test.val\"() : () -> f32\n%n = arith.negf %x : f32\n%r = arith.negf %n : f32",
            "%x",
        ),
        (
            "%x = \"test.val\"() : () -> f32\n%nan = arith.constant 0x7FC00000 : f32\n%r = arith.cmpf oeq, %x, %nan : f32",
            "false",
        ),
        (
            "%x = \"test.val\"() : () -> vector<2xf32>\n%nan = arith.constant dense<\"0x0000C07F\"> : vector<2xf32>\n%r = arith.cmpf uno, %nan, %x : vector<2xf32>",
            "dense<true> : vector<2xi1>",
        ),
        (
            "%x = \"test.val\"() : () -> f32\n%r = arith.cmpf oeq, %x, %x : f32",
            "no fold",
        ),
    ]);
}

#[test]
fn select_folds() {
    let opaque = "%x = \"test.val\"() : () -> i32\n%y = \"test.val\"() : () -> i32\n";
    check_sources(&[
        (&format!("{opaque}%c = arith.constant true\n%r = arith.select %c, %x, %y : i32"), "%x"),
        (&format!("{opaque}%c = arith.constant false\n%r = arith.select %c, %x, %y : i32"), "%y"),
        (
            &format!("{opaque}%c = \"test.val\"() : () -> i1\n%r = arith.select %c, %x, %x : i32"),
            "%x",
        ),
        (
            &format!("{opaque}%c = \"test.val\"() : () -> i1\n%r = arith.select %c, %x, %y : i32"),
            "no fold",
        ),
        (
            "%c = \"test.val\"() : () -> i1\n%t = arith.constant true\n%f = arith.constant false\n%r = arith.select %c, %t, %f : i1",
            "%c",
        ),
        (
            "%m = arith.constant dense<true> : vector<2xi1>\n%a = \"test.val\"() : () -> vector<2xf32>\n%b = \"test.val\"() : () -> vector<2xf32>\n%r = arith.select %m, %a, %b : vector<2xi1>, vector<2xf32>",
            "%a",
        ),
        (
            "%m = arith.constant dense<[true, false]> : vector<2xi1>\n%a = arith.constant dense<[1, 2]> : vector<2xi32>\n%b = arith.constant dense<[3, 4]> : vector<2xi32>\n%r = arith.select %m, %a, %b : vector<2xi1>, vector<2xi32>",
            "dense<[1, 4]> : vector<2xi32>",
        ),
    ]);
}

/// `%r = arith.<cast> <value> : <from> to <to>` on a constant, or on `%x` for "x".
fn cast(op: &str, value: &str, from: &str, to: &str) -> String {
    let def = if value == "x" {
        format!("%x = \"test.val\"() : () -> {from}\n")
    } else {
        format!("%x = arith.constant {value} : {from}\n")
    };
    format!("{def}%r = arith.{op} %x : {from} to {to}\n")
}

#[test]
fn casts_fold_constants() {
    let cases = [
        ("index_cast", "-1", "i32", "index", "-1 : index"),
        ("index_cast", "4294967296", "index", "i32", "0 : i32"),
        ("index_cast", "255", "i8", "index", "-1 : index"),
        ("extsi", "-1", "i8", "i32", "-1 : i32"),
        ("extui", "-1", "i8", "i32", "255 : i32"),
        ("extsi", "true", "i1", "i8", "-1 : i8"),
        ("extui", "true", "i1", "i8", "1 : i8"),
        ("extui", "-1", "i64", "i128", "18446744073709551615 : i128"),
        ("trunci", "257", "i32", "i8", "1 : i8"),
        ("trunci", "3", "i32", "i1", "true"),
        ("sitofp", "-3", "i32", "f32", "-3.000000e+00 : f32"),
        ("sitofp", "true", "i1", "f32", "-1.000000e+00 : f32"),
        ("sitofp", "1024", "i32", "f16", "1.024000e+03 : f16"),
        ("sitofp", "2049", "i32", "f16", "2.048000e+03 : f16"),
        ("sitofp", "100000", "i32", "f16", "0x7C00 : f16"),
        ("fptosi", "-3.75", "f32", "i32", "-3 : i32"),
        ("fptosi", "300.0", "f32", "i8", "no fold"),
        ("fptosi", "-128.5", "f32", "i8", "-128 : i8"),
        ("fptosi", "0x7FC00000", "f32", "i32", "no fold"),
        ("fptosi", "0xFF800000", "f32", "i64", "no fold"),
        ("fptosi", "-1.0", "f32", "i1", "true"),
        ("fptosi", "1.0", "f32", "i1", "no fold"),
        ("extf", "0.5", "f16", "f32", "5.000000e-01 : f32"),
        ("extf", "-2.5", "bf16", "f64", "-2.500000e+00 : f64"),
        ("truncf", "0.5", "f64", "f32", "5.000000e-01 : f32"),
        ("truncf", "0.1", "f64", "f32", "no fold"),
        ("truncf", "1.0e10", "f32", "f16", "no fold"),
        (
            "truncf",
            "0x7FF0000000000000",
            "f64",
            "f32",
            "0x7F800000 : f32",
        ),
        ("truncf", "0x7FC00000", "f32", "f16", "0x7E00 : f16"),
        ("truncf", "0x7FC00001", "f32", "bf16", "no fold"),
        ("extf", "0x7FC1", "bf16", "f32", "0x7FC10000 : f32"),
        ("bitcast", "1065353216", "i32", "f32", "1.000000e+00 : f32"),
        ("bitcast", "1.0", "f32", "i32", "1065353216 : i32"),
        (
            "bitcast",
            "-1.0",
            "f64",
            "i64",
            "-4616189618054758400 : i64",
        ),
        ("bitcast", "15360", "i16", "f16", "1.000000e+00 : f16"),
        ("bitcast", "1.0", "bf16", "f16", "1.875000e+00 : f16"),
        ("bitcast", "32256", "i16", "f16", "0x7E00 : f16"),
        ("index_cast", "x", "i32", "index", "no fold"),
    ];
    let wrong: Vec<String> = cases
        .iter()
        .filter_map(|(op, v, from, to, want)| {
            let got = fold(&cast(op, v, from, to));
            (got != *want).then(|| format!("{op} {v} : {from} to {to}: got {got}, want {want}"))
        })
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn cast_pairs_cancel() {
    check_sources(&[
        (
            "%x = \"test.val\"() : () -> i8\n%e = arith.extsi %x : i8 to i32\n%r = arith.trunci %e : i32 to i8",
            "%x",
        ),
        (
            "%x = \"test.val\"() : () -> i8\n%e = arith.extui %x : i8 to i32\n%r = arith.trunci %e : i32 to i8",
            "%x",
        ),
        (
            "%x = \"test.val\"() : () -> i8\n%e = arith.extui %x : i8 to i32\n%r = arith.trunci %e : i32 to i16",
            "no fold",
        ),
        (
            "%x = \"test.val\"() : () -> f16\n%e = arith.extf %x : f16 to f32\n%r = arith.truncf %e : f32 to f16",
            "%x",
        ),
        (
            "%x = \"test.val\"() : () -> i32\n%b = arith.bitcast %x : i32 to f32\n%r = arith.bitcast %b : f32 to i32",
            "%x",
        ),
        ("%x = \"test.val\"() : () -> f32\n%r = arith.bitcast %x : f32 to f32", "%x"),
    ]);
}

#[test]
fn folded_constants_materialize_as_arith_constant() {
    let mut ctx = context();
    let module = parse(
        &mut ctx,
        "%a = arith.constant 40 : i32\n%b = arith.constant 2 : i32\n%r = arith.addi %a, %b : i32\n\"test.use\"(%r) : (i32) -> ()\n",
    );
    let ops = body_ops(&ctx, module);
    let add = ops[2];
    let folded = ctx.fold(add).expect("folds");
    let [FoldResult::Constant(value)] = folded[..] else {
        panic!("expected a constant, got {folded:?}");
    };
    let ty = ctx.value_type(ctx.result(add, 0));
    let spec = ctx
        .materialize_constant(add, value, ty, Location::Unknown)
        .expect("arith materializes its constants");
    let constant = ctx.build(InsertPoint::Before(add), spec);
    let new = ctx.result(constant, 0);
    ctx.replace_op(add, &[new]);
    dlc_ir::verify(&ctx, module).expect("still valid");
    assert_eq!(
        custom(&ctx, module),
        "module {\n  %c40_i32 = arith.constant 40 : i32\n  %c2_i32 = arith.constant 2 : i32\n  %c42_i32 = arith.constant 42 : i32\n  \"test.use\"(%c42_i32) : (i32) -> ()\n}"
    );
    // A constant of another type is refused rather than built with a wrong type.
    let wrong = ctx.integer_attr(1, dlc_ir::Type::I64);
    assert!(ctx
        .materialize_constant(constant, wrong, ty, Location::Unknown)
        .is_none());
}
