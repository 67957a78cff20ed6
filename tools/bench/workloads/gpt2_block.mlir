// Workload (i): a GPT-2-style pre-norm decoder block over one sequence, x [S, E]:
//   a = x + proj(attention(heads(ln1(x)))),   y = a + mlp(ln2(a)),
// with q, k, v = linear layers [E, E], heads split by reshape [S, H, D] and transpose
// [H, S, D] (E = H·D), causal softmax(q·kᵀ/√D + mask)·v per head, the heads merged back by
// transpose and reshape, an output projection, and an MLP E → F → E with gelu (tanh). The
// causal mask is built in the graph: -1e9 above the diagonal, 0 elsewhere.
// A template: {S}, {E}, {H}, {D}, {F} and {SCALE} are replaced by tools/bench/src/workloads.rs.
func.func @gpt2_block(%x: tensor<{S}x{E}xf32>, %g1: tensor<{E}xf32>, %be1: tensor<{E}xf32>, %wq: tensor<{E}x{E}xf32>, %bq: tensor<{E}xf32>, %wk: tensor<{E}x{E}xf32>, %bk: tensor<{E}xf32>, %wv: tensor<{E}x{E}xf32>, %bv: tensor<{E}xf32>, %wo: tensor<{E}x{E}xf32>, %bo: tensor<{E}xf32>, %g2: tensor<{E}xf32>, %be2: tensor<{E}xf32>, %w1: tensor<{E}x{F}xf32>, %b1: tensor<{F}xf32>, %w2: tensor<{F}x{E}xf32>, %b2: tensor<{E}xf32>) -> tensor<{S}x{E}xf32> {
  %h = graph.layer_norm %x, %g1, %be1 {axis = 1 : i64, epsilon = 1.0e-05 : f64} : tensor<{S}x{E}xf32>, tensor<{E}xf32>, tensor<{E}xf32> -> tensor<{S}x{E}xf32>
  %q = graph.linear %h, %wq, %bq : tensor<{S}x{E}xf32>, tensor<{E}x{E}xf32>, tensor<{E}xf32> -> tensor<{S}x{E}xf32>
  %k = graph.linear %h, %wk, %bk : tensor<{S}x{E}xf32>, tensor<{E}x{E}xf32>, tensor<{E}xf32> -> tensor<{S}x{E}xf32>
  %v = graph.linear %h, %wv, %bv : tensor<{S}x{E}xf32>, tensor<{E}x{E}xf32>, tensor<{E}xf32> -> tensor<{S}x{E}xf32>
  %q3 = graph.reshape %q {shape = array<i64: {S}, {H}, {D}>} : tensor<{S}x{E}xf32> -> tensor<{S}x{H}x{D}xf32>
  %k3 = graph.reshape %k {shape = array<i64: {S}, {H}, {D}>} : tensor<{S}x{E}xf32> -> tensor<{S}x{H}x{D}xf32>
  %v3 = graph.reshape %v {shape = array<i64: {S}, {H}, {D}>} : tensor<{S}x{E}xf32> -> tensor<{S}x{H}x{D}xf32>
  %qh = graph.transpose %q3 {perm = array<i64: 1, 0, 2>} : tensor<{S}x{H}x{D}xf32> -> tensor<{H}x{S}x{D}xf32>
  %kh = graph.transpose %k3 {perm = array<i64: 1, 0, 2>} : tensor<{S}x{H}x{D}xf32> -> tensor<{H}x{S}x{D}xf32>
  %vh = graph.transpose %v3 {perm = array<i64: 1, 0, 2>} : tensor<{S}x{H}x{D}xf32> -> tensor<{H}x{S}x{D}xf32>
  %row = graph.iota {axis = 0 : i64} : tensor<{S}x{S}xi32>
  %col = graph.iota {axis = 1 : i64} : tensor<{S}x{S}xi32>
  %above = graph.cmp gt, %col, %row : tensor<{S}x{S}xi32>
  %neg = graph.constant dense<-1.0e+09> : tensor<{S}x{S}xf32>
  %zero = graph.constant dense<0.0> : tensor<{S}x{S}xf32>
  %mask = graph.select %above, %neg, %zero : tensor<{S}x{S}xi1>, tensor<{S}x{S}xf32>, tensor<{S}x{S}xf32> -> tensor<{S}x{S}xf32>
  %o = graph.sdpa %qh, %kh, %vh, %mask {scale = {SCALE} : f64} : tensor<{H}x{S}x{D}xf32>, tensor<{H}x{S}x{D}xf32>, tensor<{H}x{S}x{D}xf32>, tensor<{S}x{S}xf32> -> tensor<{H}x{S}x{D}xf32>
  %ot = graph.transpose %o {perm = array<i64: 1, 0, 2>} : tensor<{H}x{S}x{D}xf32> -> tensor<{S}x{H}x{D}xf32>
  %om = graph.reshape %ot {shape = array<i64: {S}, {E}>} : tensor<{S}x{H}x{D}xf32> -> tensor<{S}x{E}xf32>
  %p = graph.linear %om, %wo, %bo : tensor<{S}x{E}xf32>, tensor<{E}x{E}xf32>, tensor<{E}xf32> -> tensor<{S}x{E}xf32>
  %a = graph.add %x, %p : tensor<{S}x{E}xf32>
  %h2 = graph.layer_norm %a, %g2, %be2 {axis = 1 : i64, epsilon = 1.0e-05 : f64} : tensor<{S}x{E}xf32>, tensor<{E}xf32>, tensor<{E}xf32> -> tensor<{S}x{E}xf32>
  %u = graph.linear %h2, %w1, %b1 : tensor<{S}x{E}xf32>, tensor<{E}x{F}xf32>, tensor<{F}xf32> -> tensor<{S}x{F}xf32>
  %g = graph.gelu %u {approximate = "tanh"} : tensor<{S}x{F}xf32>
  %d = graph.linear %g, %w2, %b2 : tensor<{S}x{F}xf32>, tensor<{F}x{E}xf32>, tensor<{E}xf32> -> tensor<{S}x{E}xf32>
  %y = graph.add %a, %d : tensor<{S}x{E}xf32>
  return %y : tensor<{S}x{E}xf32>
}
