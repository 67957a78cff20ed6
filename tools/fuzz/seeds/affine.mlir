// affine_map and affine_set attributes, inline, as layouts and under an alias.
"t.op"() {a = affine_map<(d0, d1)[s0] -> (d1 * 2, d0 - s0, -d0, d0 floordiv 2 + 1, (d0 + 1) * 3, d0 mod 4, s0 + d0, 4 + d0, d0 - d1 * 2, d0 ceildiv s0, (d0 floordiv 2) * 3)>} : () -> ()
"t.op"() {b = affine_map<(i, j) -> (j, i)>, c = affine_set<(d0)[s0] : (d0 - s0 >= 0, d0 == 0, d0 <= 10, d0 >= s0)>, d = affine_map<() -> (0)>, e = affine_map<()[s0] -> (s0)>} : () -> ()
"t.op"() : () -> (memref<?xf32, affine_map<(d0) -> (d0 + 1)>>, memref<4xf32, affine_map<(d0) -> (d0)>>, memref<4x4xf32, affine_map<(d0, d1) -> (d1, d0)>, 1>)
"t.op"() {z = affine_map<(d0, d1) -> (d1, d0)>, y = [affine_map<(d0) -> (d0 - 1)>]} : () -> ()
"t.op"() {q = affine_map<(d0) -> (d0 * -1 + 3, d0 * 1, d0 * 0, 2 * 3, 7 floordiv 2, -7 mod 3, d0 floordiv 1, d0 * -3 + d0, (d0 + 2) + 3, d0 + 2 + 3)>} : () -> ()

// An alias defined in the input is resolved and renamed.
#m = affine_map<(d0, d1) -> (d0 + d1 * 4)>
func.func @f(%a: memref<4x4xf32, #m>, %b: memref<?xf32, affine_map<(d0)[s0] -> (d0 * s0 + 3)>>) -> memref<4x4xf32, #m> {
  "t.op"() {s = affine_set<(d0, d1)[s0] : (d0 * 2 - d1 >= 0, -d0 + s0 == 0)>, m = affine_map<(d0)[s0] -> ((d0 floordiv 4) mod 8, d0 - (d0 + 1), -(d0 + 2), d0 * (2 + 3), (d0 + 1) floordiv s0)>} : () -> ()
  return %a : memref<4x4xf32, #m>
}
