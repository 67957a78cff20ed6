// A scalar kernel in the func and arith dialects: clamp(a * x + b, lo, hi) with an integer
// index computation alongside. Run: dlc-opt docs/examples/arith.mlir
func.func @axpb_clamp(%a: f32, %x: f32, %b: f32, %lo: f32, %hi: f32) -> f32 {
  %ax = arith.mulf %a, %x : f32
  %y = arith.addf %ax, %b : f32
  %low = arith.maximumf %y, %lo : f32
  %r = arith.minimumf %low, %hi : f32
  return %r : f32
}

func.func @row_offset(%row: index, %cols: index, %col: i32) -> index {
  %base = arith.muli %row, %cols : index
  %c = arith.index_cast %col : i32 to index
  %off = arith.addi %base, %c : index
  %zero = arith.constant 0 : index
  %neg = arith.cmpi slt, %off, %zero : index
  %safe = arith.select %neg, %zero, %off : index
  return %safe : index
}

func.func @caller(%x: f32) -> f32 {
  %one = arith.constant 1.000000e+00 : f32
  %r = call @axpb_clamp(%one, %x, %one, %x, %x) : (f32, f32, f32, f32, f32) -> f32
  return %r : f32
}
