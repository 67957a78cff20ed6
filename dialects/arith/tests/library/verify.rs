//! Verifier messages, checked against mlir-opt-22's.
//!
//! Each case is one op in a region whose block arguments provide values of many types; the
//! expected messages are what `mlir-opt-22 --allow-unregistered-dialect` reports for the same
//! op, except in [`dlc_only_attribute_checks`], where mlir-opt rejects the op while parsing
//! ("invalid properties") and dlc reports it from the verifier.

use crate::common;

use common::context;
use dlc_ir::{parse_source, verify};

const ARGS: &str = "%a: i32, %b: i64, %f: f32, %v: vector<4xi32>, %t: tensor<?xi32>, \
    %vf: vector<4xf32>, %i: index, %c: i1, %t4: tensor<4xi32>, %vc: vector<4xi1>, \
    %vc2: vector<2xi1>";

/// The verifier's message for `op` placed in a region with [`ARGS`], or "OK".
fn verify_message(op: &str) -> String {
    let src = format!(
        "\"test.region\"() ({{\n^bb0({ARGS}):\n  {op}\n  \"test.end\"() : () -> ()\n}}) : () -> ()\n"
    );
    let mut ctx = context();
    let module = parse_source(&mut ctx, &src, "v.mlir", 1)
        .unwrap_or_else(|d| panic!("{op}: parse error: {}", d.message));
    match verify(&ctx, module) {
        Ok(()) => "OK".to_string(),
        Err(d) => d.message,
    }
}

fn check(cases: &[(&str, &str)]) {
    let wrong: Vec<String> = cases
        .iter()
        .filter_map(|(op, want)| {
            let got = verify_message(op);
            (got != *want).then(|| format!("{op}\n  got:  {got}\n  want: {want}"))
        })
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn messages_match_mlir_opt() {
    check(&[
        (
            r#"%0 = "arith.addi"(%f, %f) : (f32, f32) -> f32"#,
            r#"'arith.addi' op operand #0 must be signless-integer-like, but got 'f32'"#,
        ),
        (
            r#"%0 = "arith.addi"(%a, %a) : (i32, i32) -> i64"#,
            r#"'arith.addi' op requires the same type for all operands and results"#,
        ),
        (
            r#"%0 = "arith.addf"(%i, %i) : (index, index) -> index"#,
            r#"'arith.addf' op operand #0 must be floating-point-like, but got 'index'"#,
        ),
        (
            r#"%0 = "arith.negf"(%a) : (i32) -> i32"#,
            r#"'arith.negf' op operand #0 must be floating-point-like, but got 'i32'"#,
        ),
        (
            r#"%0 = "arith.maxsi"(%vf, %vf) : (vector<4xf32>, vector<4xf32>) -> vector<4xf32>"#,
            r#"'arith.maxsi' op operand #0 must be signless-integer-like, but got 'vector<4xf32>'"#,
        ),
        (
            r#"%0 = "arith.extsi"(%a) : (i32) -> i8"#,
            r#"'arith.extsi' op operand type 'i32' and result type 'i8' are cast incompatible"#,
        ),
        (
            r#"%0 = "arith.extui"(%a) : (i32) -> i32"#,
            r#"'arith.extui' op operand type 'i32' and result type 'i32' are cast incompatible"#,
        ),
        (
            r#"%0 = "arith.trunci"(%a) : (i32) -> i64"#,
            r#"'arith.trunci' op operand type 'i32' and result type 'i64' are cast incompatible"#,
        ),
        (
            r#"%0 = "arith.extf"(%f) : (f32) -> f16"#,
            r#"'arith.extf' op operand type 'f32' and result type 'f16' are cast incompatible"#,
        ),
        (
            r#"%0 = "arith.truncf"(%f) : (f32) -> f64"#,
            r#"'arith.truncf' op operand type 'f32' and result type 'f64' are cast incompatible"#,
        ),
        (
            r#"%0 = "arith.bitcast"(%a) : (i32) -> f64"#,
            r#"'arith.bitcast' op operand type 'i32' and result type 'f64' are cast incompatible"#,
        ),
        (
            r#"%0 = "arith.bitcast"(%i) : (index) -> i64"#,
            r#"'arith.bitcast' op operand #0 must be signless-integer-or-float-like or memref of signless-integer or float, but got 'index'"#,
        ),
        (
            r#"%0 = "arith.index_cast"(%a) : (i32) -> i64"#,
            r#"'arith.index_cast' op operand type 'i32' and result type 'i64' are cast incompatible"#,
        ),
        (
            r#"%0 = "arith.index_cast"(%i) : (index) -> index"#,
            r#"'arith.index_cast' op operand type 'index' and result type 'index' are cast incompatible"#,
        ),
        (
            r#"%0 = "arith.index_cast"(%f) : (f32) -> index"#,
            r#"'arith.index_cast' op operand #0 must be signless-integer-like or memref of signless-integer, but got 'f32'"#,
        ),
        (
            r#"%0 = "arith.sitofp"(%a) : (i32) -> i64"#,
            r#"'arith.sitofp' op result #0 must be floating-point-like, but got 'i64'"#,
        ),
        (
            r#"%0 = "arith.sitofp"(%i) : (index) -> f32"#,
            r#"'arith.sitofp' op operand #0 must be signless-fixed-width-integer-like, but got 'index'"#,
        ),
        (
            r#"%0 = "arith.fptosi"(%f) : (f32) -> index"#,
            r#"'arith.fptosi' op result #0 must be signless-fixed-width-integer-like, but got 'index'"#,
        ),
        (
            r#"%0 = "arith.extsi"(%f) : (f32) -> i64"#,
            r#"'arith.extsi' op operand #0 must be signless-fixed-width-integer-like, but got 'f32'"#,
        ),
        (
            r#"%0 = "arith.extsi"(%v) : (vector<4xi32>) -> vector<2xi64>"#,
            r#"'arith.extsi' op requires the same shape for all operands and results"#,
        ),
        (
            r#"%0 = "arith.extsi"(%a) : (i32) -> vector<2xi64>"#,
            r#"'arith.extsi' op requires the same shape for all operands and results"#,
        ),
        (
            r#"%0 = "arith.extsi"(%t4) : (tensor<4xi32>) -> tensor<?xi64>"#,
            r#"'arith.extsi' op failed to verify that input and output have the same tensor dimensions"#,
        ),
        (
            r#"%0 = "arith.extsi"(%v) : (vector<4xi32>) -> tensor<4xi64>"#,
            r#"'arith.extsi' op failed to verify that input and output have the same tensor dimensions"#,
        ),
        (
            r#"%0 = "arith.extsi"(%v) : (vector<4xi32>) -> vector<4xi16>"#,
            r#"'arith.extsi' op operand type 'vector<4xi32>' and result type 'vector<4xi16>' are cast incompatible"#,
        ),
        (
            r#"%0 = "arith.cmpi"(%a, %a) : (i32, i32) -> i1"#,
            r#"'arith.cmpi' op requires attribute 'predicate'"#,
        ),
        (
            r#"%0 = "arith.cmpi"(%a, %a) <{predicate = 1 : i64}> : (i32, i32) -> i32"#,
            r#"'arith.cmpi' op result #0 must be bool-like, but got 'i32'"#,
        ),
        (
            r#"%0 = "arith.cmpi"(%a, %b) <{predicate = 1 : i64}> : (i32, i64) -> i1"#,
            r#"'arith.cmpi' op requires all operands to have the same type"#,
        ),
        (
            r#"%0 = "arith.cmpi"(%f, %f) <{predicate = 1 : i64}> : (f32, f32) -> i1"#,
            r#"'arith.cmpi' op operand #0 must be signless-integer-like, but got 'f32'"#,
        ),
        (
            r#"%0 = "arith.cmpi"(%v, %v) <{predicate = 1 : i64}> : (vector<4xi32>, vector<4xi32>) -> i1"#,
            r#"'arith.cmpi' op failed to verify that result type has i1 element type and same shape as operands"#,
        ),
        (
            r#"%0 = "arith.cmpi"(%v, %v) <{predicate = 1 : i64}> : (vector<4xi32>, vector<4xi32>) -> vector<2xi1>"#,
            r#"'arith.cmpi' op failed to verify that result type has i1 element type and same shape as operands"#,
        ),
        (
            r#"%0 = "arith.cmpf"(%a, %a) <{predicate = 1 : i64}> : (i32, i32) -> i1"#,
            r#"'arith.cmpf' op operand #0 must be floating-point-like, but got 'i32'"#,
        ),
        (
            r#"%0 = "arith.select"(%a, %a, %a) : (i32, i32, i32) -> i32"#,
            r#"'arith.select' op operand #0 must be bool-like, but got 'i32'"#,
        ),
        (
            r#"%0 = "arith.select"(%c, %a, %b) : (i1, i32, i64) -> i32"#,
            r#"'arith.select' op failed to verify that all of {true_value, false_value, result} have same type"#,
        ),
        (
            r#"%0 = "arith.select"(%vc2, %v, %v) : (vector<2xi1>, vector<4xi32>, vector<4xi32>) -> vector<4xi32>"#,
            r#"'arith.select' op failed to verify that condition is signless i1 or has matching shape"#,
        ),
        (
            r#"%0 = "arith.select"(%vc, %t4, %t4) : (vector<4xi1>, tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>"#,
            r#"'arith.select' op all non-scalar operands/results must have the same shape and base type"#,
        ),
        (
            r#"%0 = "arith.constant"() : () -> i32"#,
            r#"'arith.constant' op requires attribute 'value'"#,
        ),
        (
            r#"%0 = "arith.constant"() <{value = 1 : i64}> : () -> i32"#,
            r#"'arith.constant' op failed to verify that all of {value, result} have same type"#,
        ),
        (
            r#"%0 = "arith.constant"() <{value = 1 : i32}> : () -> tensor<i32>"#,
            r#"'arith.constant' op failed to verify that all of {value, result} have same type"#,
        ),
        (
            r#"%0 = "arith.constant"() <{value = dense<1> : tensor<2xi32>}> : () -> tensor<3xi32>"#,
            r#"'arith.constant' op failed to verify that all of {value, result} have same type"#,
        ),
    ]);
}

#[test]
fn dlc_only_attribute_checks() {
    check(&[
        (
            r#"%0 = "arith.cmpi"(%a, %a) <{predicate = 10 : i64}> : (i32, i32) -> i1"#,
            "'arith.cmpi' op attribute 'predicate' failed to satisfy constraint: allowed 64-bit signless integer cases: 0, 1, 2, 3, 4, 5, 6, 7, 8, 9",
        ),
        (
            r#"%0 = "arith.cmpf"(%f, %f) <{predicate = "olt"}> : (f32, f32) -> i1"#,
            "'arith.cmpf' op attribute 'predicate' failed to satisfy constraint: allowed 64-bit signless integer cases: 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15",
        ),
        (
            r#"%0 = "arith.addi"(%a, %a) <{overflowFlags = 1 : i32}> : (i32, i32) -> i32"#,
            "'arith.addi' op attribute 'overflowFlags' failed to satisfy constraint: Integer overflow arith flags",
        ),
        (
            r#"%0 = "arith.mulf"(%f, %f) <{fastmath = #arith.overflow<nsw>}> : (f32, f32) -> f32"#,
            "'arith.mulf' op attribute 'fastmath' failed to satisfy constraint: Floating point fast math flags",
        ),
        (
            r#"%0 = "arith.constant"() <{value = [1]}> : () -> i32"#,
            "'arith.constant' op value must be an integer, float, or elements attribute",
        ),
    ]);
}

#[test]
fn valid_ops_verify() {
    check(&[
        (
            r#"%0 = "arith.andi"(%v, %v) : (vector<4xi32>, vector<4xi32>) -> vector<4xi32>"#,
            "OK",
        ),
        (
            r#"%0 = "arith.addi"(%t, %t) : (tensor<?xi32>, tensor<?xi32>) -> tensor<?xi32>"#,
            "OK",
        ),
        (r#"%0 = "arith.bitcast"(%f) : (f32) -> f32"#, "OK"),
        (
            r#"%0 = "arith.bitcast"(%v) : (vector<4xi32>) -> vector<4xf32>"#,
            "OK",
        ),
        (
            r#"%0 = "arith.index_cast"(%t) : (tensor<?xi32>) -> tensor<?xindex>"#,
            "OK",
        ),
        (r#"%0 = "arith.truncf"(%f) : (f32) -> bf16"#, "OK"),
        (
            r#"%0 = "arith.select"(%c, %v, %v) : (i1, vector<4xi32>, vector<4xi32>) -> vector<4xi32>"#,
            "OK",
        ),
        (
            r#"%0 = "arith.cmpi"(%t, %t) <{predicate = 9 : i64}> : (tensor<?xi32>, tensor<?xi32>) -> tensor<?xi1>"#,
            "OK",
        ),
        // Flags MLIR keeps as default-valued properties may be absent.
        (r#"%0 = "arith.addf"(%f, %f) : (f32, f32) -> f32"#, "OK"),
        (r#"%0 = "arith.shli"(%a, %a) : (i32, i32) -> i32"#, "OK"),
    ]);
}
