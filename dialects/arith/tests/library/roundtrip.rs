//! Round trips of every arith op through the custom and generic forms.
//!
//! The expected generic text is what `mlir-opt-22 --allow-unregistered-dialect
//! --mlir-print-op-generic` prints for [`EVERY_OP`], byte for byte. The expected custom text is
//! what mlir-opt-22 prints too, except for the names of `arith.constant` results: mlir-opt names
//! them from their value (`%c42_i32`, `%true`, `%cst`) and leaves them out of the `%N`
//! numbering, which the dlc printer has no hook for yet.

use crate::common;

use common::{context, custom, generic, parse};

/// Every op in its custom form, with each flag and attribute-dictionary variant.
const EVERY_OP: &str = r##""test.region"() ({
^bb0(%a: i32, %b: i32, %x: f32, %y: f32, %c: i1, %i: index, %h: f16, %vm: vector<4xi1>, %v: vector<4xi32>, %t: tensor<?xf64>):
  %c42 = arith.constant 42 : i32
  %true = arith.constant true
  %f = arith.constant 1.5 : f32
  %dense = arith.constant dense<[1, 2]> : tensor<2xi32>
  %idx = arith.constant 7 : index
  %neg = arith.constant -1 : i64
  %splat = arith.constant dense<3> : vector<4xi32>
  %named = arith.constant {tag = "k"} 0.0 : f64
  %0 = arith.addi %a, %b : i32
  %1 = arith.addi %a, %c42 overflow<nsw> : i32
  %2 = arith.subi %a, %b overflow<nuw> : i32
  %3 = arith.muli %a, %b overflow<nuw, nsw> : i32
  %4 = arith.divsi %a, %b : i32
  %5 = arith.divui %a, %b : i32
  %6 = arith.remsi %a, %b : i32
  %7 = arith.remui %a, %b : i32
  %8 = arith.andi %a, %b : i32
  %9 = arith.ori %a, %b : i32
  %10 = arith.xori %a, %b : i32
  %11 = arith.shli %a, %b overflow<nsw> : i32
  %12 = arith.shrsi %a, %b : i32
  %13 = arith.shrui %a, %b : i32
  %14 = arith.maxsi %a, %b : i32
  %15 = arith.minsi %a, %b : i32
  %16 = arith.cmpi slt, %a, %b : i32
  %17 = arith.cmpi "uge", %i, %idx : index
  %18 = arith.addf %x, %y : f32
  %19 = arith.subf %x, %f fastmath<fast> : f32
  %20 = arith.mulf %x, %y fastmath<nnan,ninf> : f32
  %21 = arith.divf %x, %y fastmath<none> : f32
  %22 = arith.negf %x fastmath<nsz> : f32
  %23 = arith.maximumf %x, %y : f32
  %24 = arith.minimumf %x, %y : f32
  %25 = arith.cmpf olt, %x, %y : f32
  %26 = arith.cmpf uno, %x, %y fastmath<nnan> : f32
  %27 = arith.select %c, %a, %b : i32
  %28 = arith.select %vm, %v, %splat : vector<4xi1>, vector<4xi32>
  %29 = arith.index_cast %a : i32 to index
  %30 = arith.extsi %a : i32 to i64
  %31 = arith.extui %c : i1 to i32
  %32 = arith.trunci %a overflow<nuw> : i32 to i16
  %33 = arith.sitofp %a : i32 to f32
  %34 = arith.fptosi %x : f32 to i32
  %35 = arith.extf %h : f16 to f32
  %36 = arith.truncf %x fastmath<contract> : f32 to f16
  %37 = arith.bitcast %a : i32 to f32
  %38 = arith.addi %v, %v : vector<4xi32>
  %39 = arith.cmpi ne, %v, %splat : vector<4xi32>
  %40 = arith.addf %t, %t : tensor<?xf64>
  %41 = arith.cmpf oge, %t, %t : tensor<?xf64>
  %42 = arith.sitofp %v : vector<4xi32> to vector<4xf32>
  %43 = arith.addi %a, %b {note = 1 : i32} : i32
  %44 = arith.muli %a, %b overflow<nsw> {note} : i32
  %45 = arith.cmpi eq, %a, %b {note} : i32
  %46 = arith.negf %x {note} : f32
  %47 = arith.select %c, %x, %y {note} : f32
  %48 = arith.extui %a {note} : i32 to i64
  "test.end"() : () -> ()
}) : () -> ()
"##;

const EVERY_OP_CUSTOM: &str = r##"module {
  "test.region"() ({
  ^bb0(%arg0: i32, %arg1: i32, %arg2: f32, %arg3: f32, %arg4: i1, %arg5: index, %arg6: f16, %arg7: vector<4xi1>, %arg8: vector<4xi32>, %arg9: tensor<?xf64>):
    %c42_i32 = arith.constant 42 : i32
    %true = arith.constant true
    %cst = arith.constant 1.500000e+00 : f32
    %cst_0 = arith.constant dense<[1, 2]> : tensor<2xi32>
    %c7 = arith.constant 7 : index
    %c-1_i64 = arith.constant -1 : i64
    %cst_1 = arith.constant dense<3> : vector<4xi32>
    %cst_2 = arith.constant {tag = "k"} 0.000000e+00 : f64
    %0 = arith.addi %arg0, %arg1 : i32
    %1 = arith.addi %arg0, %c42_i32 overflow<nsw> : i32
    %2 = arith.subi %arg0, %arg1 overflow<nuw> : i32
    %3 = arith.muli %arg0, %arg1 overflow<nsw, nuw> : i32
    %4 = arith.divsi %arg0, %arg1 : i32
    %5 = arith.divui %arg0, %arg1 : i32
    %6 = arith.remsi %arg0, %arg1 : i32
    %7 = arith.remui %arg0, %arg1 : i32
    %8 = arith.andi %arg0, %arg1 : i32
    %9 = arith.ori %arg0, %arg1 : i32
    %10 = arith.xori %arg0, %arg1 : i32
    %11 = arith.shli %arg0, %arg1 overflow<nsw> : i32
    %12 = arith.shrsi %arg0, %arg1 : i32
    %13 = arith.shrui %arg0, %arg1 : i32
    %14 = arith.maxsi %arg0, %arg1 : i32
    %15 = arith.minsi %arg0, %arg1 : i32
    %16 = arith.cmpi slt, %arg0, %arg1 : i32
    %17 = arith.cmpi uge, %arg5, %c7 : index
    %18 = arith.addf %arg2, %arg3 : f32
    %19 = arith.subf %arg2, %cst fastmath<fast> : f32
    %20 = arith.mulf %arg2, %arg3 fastmath<nnan,ninf> : f32
    %21 = arith.divf %arg2, %arg3 : f32
    %22 = arith.negf %arg2 fastmath<nsz> : f32
    %23 = arith.maximumf %arg2, %arg3 : f32
    %24 = arith.minimumf %arg2, %arg3 : f32
    %25 = arith.cmpf olt, %arg2, %arg3 : f32
    %26 = arith.cmpf uno, %arg2, %arg3 fastmath<nnan> : f32
    %27 = arith.select %arg4, %arg0, %arg1 : i32
    %28 = arith.select %arg7, %arg8, %cst_1 : vector<4xi1>, vector<4xi32>
    %29 = arith.index_cast %arg0 : i32 to index
    %30 = arith.extsi %arg0 : i32 to i64
    %31 = arith.extui %arg4 : i1 to i32
    %32 = arith.trunci %arg0 overflow<nuw> : i32 to i16
    %33 = arith.sitofp %arg0 : i32 to f32
    %34 = arith.fptosi %arg2 : f32 to i32
    %35 = arith.extf %arg6 : f16 to f32
    %36 = arith.truncf %arg2 fastmath<contract> : f32 to f16
    %37 = arith.bitcast %arg0 : i32 to f32
    %38 = arith.addi %arg8, %arg8 : vector<4xi32>
    %39 = arith.cmpi ne, %arg8, %cst_1 : vector<4xi32>
    %40 = arith.addf %arg9, %arg9 : tensor<?xf64>
    %41 = arith.cmpf oge, %arg9, %arg9 : tensor<?xf64>
    %42 = arith.sitofp %arg8 : vector<4xi32> to vector<4xf32>
    %43 = arith.addi %arg0, %arg1 {note = 1 : i32} : i32
    %44 = arith.muli %arg0, %arg1 overflow<nsw> {note} : i32
    %45 = arith.cmpi eq, %arg0, %arg1 {note} : i32
    %46 = arith.negf %arg2 {note} : f32
    %47 = arith.select %arg4, %arg2, %arg3 {note} : f32
    %48 = arith.extui %arg0 {note} : i32 to i64
    "test.end"() : () -> ()
  }) : () -> ()
}"##;

/// `mlir-opt-22 --allow-unregistered-dialect --mlir-print-op-generic` of [`EVERY_OP`].
const EVERY_OP_GENERIC: &str = r##""builtin.module"() ({
  "test.region"() ({
  ^bb0(%arg0: i32, %arg1: i32, %arg2: f32, %arg3: f32, %arg4: i1, %arg5: index, %arg6: f16, %arg7: vector<4xi1>, %arg8: vector<4xi32>, %arg9: tensor<?xf64>):
    %0 = "arith.constant"() <{value = 42 : i32}> : () -> i32
    %1 = "arith.constant"() <{value = true}> : () -> i1
    %2 = "arith.constant"() <{value = 1.500000e+00 : f32}> : () -> f32
    %3 = "arith.constant"() <{value = dense<[1, 2]> : tensor<2xi32>}> : () -> tensor<2xi32>
    %4 = "arith.constant"() <{value = 7 : index}> : () -> index
    %5 = "arith.constant"() <{value = -1 : i64}> : () -> i64
    %6 = "arith.constant"() <{value = dense<3> : vector<4xi32>}> : () -> vector<4xi32>
    %7 = "arith.constant"() <{value = 0.000000e+00 : f64}> {tag = "k"} : () -> f64
    %8 = "arith.addi"(%arg0, %arg1) <{overflowFlags = #arith.overflow<none>}> : (i32, i32) -> i32
    %9 = "arith.addi"(%arg0, %0) <{overflowFlags = #arith.overflow<nsw>}> : (i32, i32) -> i32
    %10 = "arith.subi"(%arg0, %arg1) <{overflowFlags = #arith.overflow<nuw>}> : (i32, i32) -> i32
    %11 = "arith.muli"(%arg0, %arg1) <{overflowFlags = #arith.overflow<nsw, nuw>}> : (i32, i32) -> i32
    %12 = "arith.divsi"(%arg0, %arg1) : (i32, i32) -> i32
    %13 = "arith.divui"(%arg0, %arg1) : (i32, i32) -> i32
    %14 = "arith.remsi"(%arg0, %arg1) : (i32, i32) -> i32
    %15 = "arith.remui"(%arg0, %arg1) : (i32, i32) -> i32
    %16 = "arith.andi"(%arg0, %arg1) : (i32, i32) -> i32
    %17 = "arith.ori"(%arg0, %arg1) : (i32, i32) -> i32
    %18 = "arith.xori"(%arg0, %arg1) : (i32, i32) -> i32
    %19 = "arith.shli"(%arg0, %arg1) <{overflowFlags = #arith.overflow<nsw>}> : (i32, i32) -> i32
    %20 = "arith.shrsi"(%arg0, %arg1) : (i32, i32) -> i32
    %21 = "arith.shrui"(%arg0, %arg1) : (i32, i32) -> i32
    %22 = "arith.maxsi"(%arg0, %arg1) : (i32, i32) -> i32
    %23 = "arith.minsi"(%arg0, %arg1) : (i32, i32) -> i32
    %24 = "arith.cmpi"(%arg0, %arg1) <{predicate = 2 : i64}> : (i32, i32) -> i1
    %25 = "arith.cmpi"(%arg5, %4) <{predicate = 9 : i64}> : (index, index) -> i1
    %26 = "arith.addf"(%arg2, %arg3) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
    %27 = "arith.subf"(%arg2, %2) <{fastmath = #arith.fastmath<fast>}> : (f32, f32) -> f32
    %28 = "arith.mulf"(%arg2, %arg3) <{fastmath = #arith.fastmath<nnan,ninf>}> : (f32, f32) -> f32
    %29 = "arith.divf"(%arg2, %arg3) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
    %30 = "arith.negf"(%arg2) <{fastmath = #arith.fastmath<nsz>}> : (f32) -> f32
    %31 = "arith.maximumf"(%arg2, %arg3) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
    %32 = "arith.minimumf"(%arg2, %arg3) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
    %33 = "arith.cmpf"(%arg2, %arg3) <{fastmath = #arith.fastmath<none>, predicate = 4 : i64}> : (f32, f32) -> i1
    %34 = "arith.cmpf"(%arg2, %arg3) <{fastmath = #arith.fastmath<nnan>, predicate = 14 : i64}> : (f32, f32) -> i1
    %35 = "arith.select"(%arg4, %arg0, %arg1) : (i1, i32, i32) -> i32
    %36 = "arith.select"(%arg7, %arg8, %6) : (vector<4xi1>, vector<4xi32>, vector<4xi32>) -> vector<4xi32>
    %37 = "arith.index_cast"(%arg0) : (i32) -> index
    %38 = "arith.extsi"(%arg0) : (i32) -> i64
    %39 = "arith.extui"(%arg4) : (i1) -> i32
    %40 = "arith.trunci"(%arg0) <{overflowFlags = #arith.overflow<nuw>}> : (i32) -> i16
    %41 = "arith.sitofp"(%arg0) : (i32) -> f32
    %42 = "arith.fptosi"(%arg2) : (f32) -> i32
    %43 = "arith.extf"(%arg6) : (f16) -> f32
    %44 = "arith.truncf"(%arg2) <{fastmath = #arith.fastmath<contract>}> : (f32) -> f16
    %45 = "arith.bitcast"(%arg0) : (i32) -> f32
    %46 = "arith.addi"(%arg8, %arg8) <{overflowFlags = #arith.overflow<none>}> : (vector<4xi32>, vector<4xi32>) -> vector<4xi32>
    %47 = "arith.cmpi"(%arg8, %6) <{predicate = 1 : i64}> : (vector<4xi32>, vector<4xi32>) -> vector<4xi1>
    %48 = "arith.addf"(%arg9, %arg9) <{fastmath = #arith.fastmath<none>}> : (tensor<?xf64>, tensor<?xf64>) -> tensor<?xf64>
    %49 = "arith.cmpf"(%arg9, %arg9) <{fastmath = #arith.fastmath<none>, predicate = 3 : i64}> : (tensor<?xf64>, tensor<?xf64>) -> tensor<?xi1>
    %50 = "arith.sitofp"(%arg8) : (vector<4xi32>) -> vector<4xf32>
    %51 = "arith.addi"(%arg0, %arg1) <{overflowFlags = #arith.overflow<none>}> {note = 1 : i32} : (i32, i32) -> i32
    %52 = "arith.muli"(%arg0, %arg1) <{overflowFlags = #arith.overflow<nsw>}> {note} : (i32, i32) -> i32
    %53 = "arith.cmpi"(%arg0, %arg1) <{predicate = 0 : i64}> {note} : (i32, i32) -> i1
    %54 = "arith.negf"(%arg2) <{fastmath = #arith.fastmath<none>}> {note} : (f32) -> f32
    %55 = "arith.select"(%arg4, %arg2, %arg3) {note} : (i1, f32, f32) -> f32
    %56 = "arith.extui"(%arg0) {note} : (i32) -> i64
    "test.end"() : () -> ()
  }) : () -> ()
}) : () -> ()"##;

#[test]
fn custom_form_prints_like_mlir_opt() {
    let mut ctx = context();
    let module = parse(&mut ctx, EVERY_OP);
    assert_eq!(custom(&ctx, module), EVERY_OP_CUSTOM);
}

#[test]
fn generic_form_is_byte_identical_to_mlir_opt() {
    let mut ctx = context();
    let module = parse(&mut ctx, EVERY_OP);
    assert_eq!(generic(&ctx, module), EVERY_OP_GENERIC);
}

#[test]
fn mlir_opt_generic_output_reads_back() {
    // Includes `fastmath = #arith.fastmath<none>` on cmpf/negf and `overflowFlags =
    // #arith.overflow<none>` on addi/trunci, as mlir-opt writes them.
    let mut ctx = context();
    let module = parse(&mut ctx, EVERY_OP_GENERIC);
    assert_eq!(generic(&ctx, module), EVERY_OP_GENERIC);
    assert_eq!(custom(&ctx, module), EVERY_OP_CUSTOM);
}

#[test]
fn custom_output_reads_back_unchanged() {
    let mut ctx = context();
    let module = parse(&mut ctx, EVERY_OP_CUSTOM);
    assert_eq!(custom(&ctx, module), EVERY_OP_CUSTOM);
}

/// Top-level constants of every kind, and flag attributes outside their ops.
const CONSTANTS: &str = r##"%0 = arith.constant {x = #arith.overflow<nuw,nsw>, y = #arith.fastmath<nnan, fast>, z = #arith.fastmath<none>, w = #arith.overflow<none>} 3 : i32
%1 = arith.constant 0x7FC00000 : f32
%2 = arith.constant -0.0 : f64
%3 = arith.constant 170141183460469231731687303715884105727 : i128
%4 = arith.constant 123456789 : i33
%5 = arith.constant dense<[true, false]> : vector<2xi1>
%6 = arith.constant dense<[[1.5, 2.0], [0.0, -1.0]]> : tensor<2x2xf32>
%7 = arith.constant dense<0> : tensor<4x4xindex>
%8 = arith.constant 42
%9 = arith.constant 2.5
%10 = arith.cmpi sge, %7, %7 : tensor<4x4xindex>
%11 = arith.constant 0xFF800000 : f32
%12 = arith.constant 255 : i8
"##;

const CONSTANTS_CUSTOM: &str = r##"module {
  %c3_i32 = arith.constant {w = #arith.overflow<none>, x = #arith.overflow<nsw, nuw>, y = #arith.fastmath<fast>, z = #arith.fastmath<none>} 3 : i32
  %cst = arith.constant 0x7FC00000 : f32
  %cst_0 = arith.constant -0.000000e+00 : f64
  %c170141183460469231731687303715884105727_i128 = arith.constant 170141183460469231731687303715884105727 : i128
  %c123456789_i33 = arith.constant 123456789 : i33
  %cst_1 = arith.constant dense<[true, false]> : vector<2xi1>
  %cst_2 = arith.constant dense<[[1.500000e+00, 2.000000e+00], [0.000000e+00, -1.000000e+00]]> : tensor<2x2xf32>
  %cst_3 = arith.constant dense<0> : tensor<4x4xindex>
  %c42_i64 = arith.constant 42 : i64
  %cst_4 = arith.constant 2.500000e+00 : f64
  %0 = arith.cmpi sge, %cst_3, %cst_3 : tensor<4x4xindex>
  %cst_5 = arith.constant 0xFF800000 : f32
  %c-1_i8 = arith.constant -1 : i8
}"##;

/// `mlir-opt-22 --mlir-print-op-generic` of [`CONSTANTS`].
const CONSTANTS_GENERIC: &str = r##""builtin.module"() ({
  %0 = "arith.constant"() <{value = 3 : i32}> {w = #arith.overflow<none>, x = #arith.overflow<nsw, nuw>, y = #arith.fastmath<fast>, z = #arith.fastmath<none>} : () -> i32
  %1 = "arith.constant"() <{value = 0x7FC00000 : f32}> : () -> f32
  %2 = "arith.constant"() <{value = -0.000000e+00 : f64}> : () -> f64
  %3 = "arith.constant"() <{value = 170141183460469231731687303715884105727 : i128}> : () -> i128
  %4 = "arith.constant"() <{value = 123456789 : i33}> : () -> i33
  %5 = "arith.constant"() <{value = dense<[true, false]> : vector<2xi1>}> : () -> vector<2xi1>
  %6 = "arith.constant"() <{value = dense<[[1.500000e+00, 2.000000e+00], [0.000000e+00, -1.000000e+00]]> : tensor<2x2xf32>}> : () -> tensor<2x2xf32>
  %7 = "arith.constant"() <{value = dense<0> : tensor<4x4xindex>}> : () -> tensor<4x4xindex>
  %8 = "arith.constant"() <{value = 42 : i64}> : () -> i64
  %9 = "arith.constant"() <{value = 2.500000e+00 : f64}> : () -> f64
  %10 = "arith.cmpi"(%7, %7) <{predicate = 5 : i64}> : (tensor<4x4xindex>, tensor<4x4xindex>) -> tensor<4x4xi1>
  %11 = "arith.constant"() <{value = 0xFF800000 : f32}> : () -> f32
  %12 = "arith.constant"() <{value = -1 : i8}> : () -> i8
}) : () -> ()"##;

#[test]
fn constants_and_flag_attributes_print_like_mlir_opt() {
    let mut ctx = context();
    let module = parse(&mut ctx, CONSTANTS);
    assert_eq!(custom(&ctx, module), CONSTANTS_CUSTOM);
    assert_eq!(generic(&ctx, module), CONSTANTS_GENERIC);
    let mut ctx = context();
    let module = parse(&mut ctx, CONSTANTS_GENERIC);
    assert_eq!(custom(&ctx, module), CONSTANTS_CUSTOM);
}

#[test]
fn top_level_ops_get_an_implicit_module() {
    let mut ctx = context();
    let module = parse(
        &mut ctx,
        "%0 = arith.constant 42 : i32\n%1 = arith.addi %0, %0 : i32\n",
    );
    assert_eq!(
        custom(&ctx, module),
        "module {\n  %c42_i32 = arith.constant 42 : i32\n  %0 = arith.addi %c42_i32, %c42_i32 : i32\n}"
    );
}

/// The first error parsing `src`, as `line:col: message`.
fn parse_error(src: &str) -> String {
    let mut ctx = context();
    let err = dlc_ir::parse_source(&mut ctx, src, "bad.mlir", 1).expect_err("should not parse");
    match ctx.file_position(err.location) {
        Some((_, line, col)) => format!("{line}:{col}: {}", err.message),
        None => err.message,
    }
}

#[test]
fn custom_syntax_errors_point_at_the_problem() {
    let arg = "\"test.region\"() ({\n^bb0(%a: i32, %f: f32):\n";
    let cases = [
        (
            "  %0 = arith.cmpi foo, %a, %a : i32",
            "3:19: expected string or keyword containing one of the following enum values for attribute 'predicate' [eq, ne, slt, sle, sgt, sge, ult, ule, ugt, uge]",
        ),
        (
            "  %0 = arith.cmpf olt %f, %f : f32",
            "3:22: expected ','",
        ),
        (
            "  %0 = arith.addi %a, %a overflow<foo> : i32",
            "3:35: expected integer overflow flags to be one of: none, nsw, nuw",
        ),
        (
            "  %0 = arith.addf %f, %f fastmath<nnan ninf> : f32",
            "3:39: expected '>'",
        ),
        ("  %0 = arith.extsi %a : i32 i64", "3:29: expected 'to'"),
        ("  %0 = arith.select %a, %a : i32", "3:21: expected 3 operands"),
        (
            "  %0 = arith.constant unit",
            "3:23: invalid kind of attribute specified",
        ),
        (
            "  %0 = arith.divsi %a, %a overflow<nsw> : i32",
            "3:26: expected ':'",
        ),
        (
            "  %0 = arith.addi %a, %f : i32",
            "3:23: use of value '%f' expects different type than prior uses: 'i32' vs 'f32'",
        ),
    ];
    let mut wrong = Vec::new();
    for (line, want) in cases {
        let src = format!("{arg}{line}\n}}) : () -> ()\n");
        let got = parse_error(&src);
        if got != want {
            wrong.push(format!("{line}\n  got:  {got}\n  want: {want}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert_eq!(
        parse_error("%0 = arith.constant {x = #arith.foo<1>} 1 : i32"),
        "1:36: unknown attribute `foo` in dialect `arith`"
    );
}
