// RUN: dlc-opt %s --split-input-file --verify-diagnostics

// Verifier and syntax errors of the loop and math dialects, one per chunk. Ops that the custom
// syntax cannot get wrong are written in generic form.

loop.kernel @index_count(%a: !loop.buffer<4x4xf32, global>, %i: index) {
  // expected-error @+1 {{'loop.load' op expects 2 indices for a rank-2 buffer, found 1}}
  %v = loop.load %a[%i] : !loop.buffer<4x4xf32, global>
  loop.return
}

// -----

loop.kernel @store_type(%a: !loop.buffer<4xf32, global>, %i: index, %x: f64) {
  // expected-error @+1 {{'loop.store' op value type 'f64' does not match the buffer element type 'f32'}}
  "loop.store"(%x, %a, %i) : (f64, !loop.buffer<4xf32, global>, index) -> ()
  loop.return
}

// -----

loop.kernel @load_type(%a: !loop.buffer<4xf32, global>, %i: index) {
  // expected-error @+1 {{'loop.load' op result type 'i32' does not match the buffer element type 'f32'}}
  %v = "loop.load"(%a, %i) : (!loop.buffer<4xf32, global>, index) -> i32
  loop.return
}

// -----

loop.kernel @index_type(%a: !loop.buffer<4xf32, global>, %i: i32) {
  // expected-error @+1 {{'loop.load' op index #0 must be of type index, found 'i32'}}
  %v = "loop.load"(%a, %i) : (!loop.buffer<4xf32, global>, i32) -> f32
  loop.return
}

// -----

loop.kernel @global_alloc() {
  // expected-error @+1 {{'loop.alloc' op cannot allocate a global buffer inside a 'loop.kernel'; global buffers are kernel arguments or host allocations}}
  %b = loop.alloc : !loop.buffer<4xf32, global>
  loop.return
}

// -----

loop.kernel @alloc_sizes(%n: index) {
  // expected-error @+1 {{'loop.alloc' op expects one size operand per dynamic dimension (2), found 1}}
  %b = loop.alloc(%n) : !loop.buffer<?x?xf32, local>
  loop.return
}

// -----

func.func @alloc_outside_kernel() {
  // expected-error @+1 {{'loop.alloc' op allocates a local buffer outside a 'loop.kernel'; host allocations must be global}}
  %b = loop.alloc : !loop.buffer<4xf32, local>
  return
}

// -----

loop.kernel @shared_on_cpu(%n: index) {
  // expected-error @+1 {{'loop.alloc' op shared buffers are only allowed in GPU-bound kernels}}
  %b = loop.alloc : !loop.buffer<4xf32, shared>
  loop.return
}

// -----

func.func private @sink(!loop.buffer<4xf32, local>)

loop.kernel @escape() {
  // expected-error @+1 {{'loop.alloc' op local buffer must not escape the kernel, but is used by 'func.call'}}
  %b = loop.alloc : !loop.buffer<4xf32, local>
  func.call @sink(%b) : (!loop.buffer<4xf32, local>) -> ()
  loop.return
}

// -----

// expected-error @+1 {{'loop.kernel' op argument #0 is a shared buffer; kernel arguments must be global buffers}}
loop.kernel @shared_argument(%a: !loop.buffer<4xf32, shared>) {
  loop.return
}

// -----

loop.kernel @unknown_kind(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'loop.for' op unknown loop kind 'warp.x'}}
  "loop.for"(%c0, %n, %c1) <{kind = "warp.x"}> ({
  ^bb0(%i: index):
    "loop.yield"() : () -> ()
  }) : (index, index, index) -> ()
  loop.return
}

// -----

loop.kernel @unknown_kind_syntax(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{unknown loop kind 'sequential'}}
  loop.for sequential %i = %c0 to %n step %c1 {
  }
  loop.return
}

// -----

loop.kernel @zero_width(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'loop.for' op vectorize width must be positive, found 0}}
  loop.for vectorize(0) %i = %c0 to %n step %c1 {
  }
  loop.return
}

// -----

loop.kernel @negative_factor(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'loop.for' op unroll factor must be positive, found -2}}
  "loop.for"(%c0, %n, %c1) <{kind = "unroll", factor = -2 : i64}> ({
  ^bb0(%i: index):
    "loop.yield"() : () -> ()
  }) : (index, index, index) -> ()
  loop.return
}

// -----

loop.kernel @missing_width(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'loop.for' op vectorize loops require an i64 attribute 'width'}}
  "loop.for"(%c0, %n, %c1) <{kind = "vectorize"}> ({
  ^bb0(%i: index):
    "loop.yield"() : () -> ()
  }) : (index, index, index) -> ()
  loop.return
}

// -----

loop.kernel @width_on_serial(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'loop.for' op 'width' is only allowed on vectorize loops}}
  "loop.for"(%c0, %n, %c1) <{kind = "serial", width = 4 : i64}> ({
  ^bb0(%i: index):
    "loop.yield"() : () -> ()
  }) : (index, index, index) -> ()
  loop.return
}

// -----

loop.kernel @body_arguments(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'loop.for' op body region must have 1 index block argument(s), found 2}}
  "loop.for"(%c0, %n, %c1) <{kind = "serial"}> ({
  ^bb0(%i: index, %j: index):
    "loop.yield"() : () -> ()
  }) : (index, index, index) -> ()
  loop.return
}

// -----

loop.kernel @binding_twice(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  loop.for thread.x %i = %c0 to %n step %c1 {
    loop.for serial %j = %c0 to %n step %c1 {
      // expected-error @+1 {{'loop.for' op GPU binding 'thread.x' appears twice in one loop nest}}
      loop.for thread.x %k = %c0 to %n step %c1 {
      }
    }
  }
  loop.return
}

// -----

loop.kernel @iter_kind_count(%n: index) {
  // expected-error @+1 {{'loop.schedule_block' op has 1 iter values but 2 iter kinds}}
  "loop.schedule_block"(%n) <{name = "b", iter_kinds = ["spatial", "reduce"]}> ({
  ^bb0(%i: index):
    "loop.yield"() : () -> ()
  }, {
  }) : (index) -> ()
  loop.return
}

// -----

loop.kernel @unknown_iter_kind(%n: index) {
  // expected-error @+1 {{'loop.schedule_block' op unknown iter kind 'scan' (expected "spatial" or "reduce")}}
  "loop.schedule_block"(%n) <{name = "b", iter_kinds = ["scan"]}> ({
  ^bb0(%i: index):
    "loop.yield"() : () -> ()
  }, {
  }) : (index) -> ()
  loop.return
}

// -----

loop.kernel @iter_var_count(%n: index) {
  // expected-error @+1 {{'loop.schedule_block' op body region must have 1 index block argument(s), found 0}}
  "loop.schedule_block"(%n) <{name = "b", iter_kinds = ["spatial"]}> ({
    "loop.yield"() : () -> ()
  }, {
  }) : (index) -> ()
  loop.return
}

// -----

loop.kernel @init_without_reduce(%n: index) {
  // expected-error @+1 {{'loop.schedule_block' op has an init region but no reduce iter var}}
  loop.schedule_block "b" (%i = %n) init {
  } {
  }
  loop.return
}

// -----

loop.kernel @bad_reduce_method(%n: index) {
  // expected-error @+1 {{'loop.schedule_block' op 'reduce_method' must be "none", "warp", "block" or "discrete"}}
  loop.schedule_block "b" (%i = %n reduce) attributes {reduce_method = "tree"} {
  }
  loop.return
}

// -----

loop.kernel @cpu_barrier() {
  // expected-error @+1 {{'loop.barrier' op is only allowed in GPU-bound kernels}}
  loop.barrier
  loop.return
}

// -----

loop.kernel @if_condition(%n: index) {
  // expected-error @+1 {{'loop.if' op condition must be i1, found 'index'}}
  "loop.if"(%n) ({
    "loop.yield"() : () -> ()
  }, {
  }) : (index) -> ()
  loop.return
}

// -----

loop.kernel @thread_id_dim() {
  // expected-error @+1 {{'loop.thread_id' op requires attribute 'dim' to be "x", "y" or "z"}}
  %t = "loop.thread_id"() <{dim = "w"}> : () -> index
  loop.return
}

// -----

loop.kernel @block_id_syntax() {
  // expected-error @+1 {{expected dimension x, y or z, found 'w'}}
  %t = loop.block_id w
  loop.return
}

// -----

loop.kernel @reduce_kind(%x: f32) {
  // expected-error @+1 {{'loop.warp_reduce' op requires attribute 'kind' to be one of}}
  %r = loop.warp_reduce %x {kind = "xor"} : f32
  loop.return
}

// -----

loop.kernel @float_and(%x: f32) {
  // expected-error @+1 {{'loop.block_reduce' op kind 'and' needs an integer value}}
  %r = loop.block_reduce %x {kind = "and"} : f32
  loop.return
}

// -----

loop.kernel @vector_element(%a: !loop.buffer<8xf32, global>, %i: index) {
  // expected-error @+1 {{'loop.vload' op expects a 1-D vector of the buffer element type 'f32', found 'vector<4xf16>'}}
  %v = loop.vload %a[%i] : !loop.buffer<8xf32, global> -> vector<4xf16>
  loop.return
}

// -----

loop.kernel @vector_too_wide(%a: !loop.buffer<2xf32, global>, %i: index, %v: vector<4xf32>) {
  // expected-error @+1 {{'loop.vstore' op vector of 4 lanes does not fit the last dimension (2)}}
  loop.vstore %v, %a[%i] : vector<4xf32>, !loop.buffer<2xf32, global>
  loop.return
}

// -----

// expected-error @+1 {{'loop.kernel' op 'grid' must be an array of 3 index integers or "argN" strings}}
loop.kernel @grid_rank(%n: index) attributes {grid = [1 : index, 1 : index]} {
  loop.return
}

// -----

// expected-error @+1 {{'loop.kernel' op 'block' names "arg0", which is not an index argument}}
loop.kernel @block_arg(%a: !loop.buffer<4xf32, global>) attributes {block = ["arg0", 1 : index, 1 : index]} {
  loop.return
}

// -----

// Buffers hold signless integers; `lower` drops a graph type's signedness.
// expected-error @+1 {{invalid buffer element type 'ui8'}}
loop.kernel @element_type(%a: !loop.buffer<4xui8, global>) {
  loop.return
}

// -----

// expected-error @+1 {{unknown memory space 'texture' (expected global, shared or local)}}
loop.kernel @memory_space(%a: !loop.buffer<4xf32, texture>) {
  loop.return
}

// -----

func.func @math_on_integer(%x: i32) -> i32 {
  // expected-error @+1 {{'math.exp' op operand #0 must be floating-point-like, but got 'i32'}}
  %y = math.exp %x : i32
  return %y : i32
}

// -----

func.func @yield_outside() {
  // expected-error @+1 {{'loop.yield' op expects parent op to be one of 'loop.for', 'loop.schedule_block', 'loop.if'}}
  loop.yield
}

// -----

loop.kernel @reduce_outside_gpu(%a: !loop.buffer<4xf32, global>) {
  %c0 = arith.constant 0 : index
  %v = loop.load %a[%c0] : !loop.buffer<4xf32, global>
  // expected-error @+1 {{is only allowed in GPU-bound kernels}}
  %s = loop.warp_reduce %v {kind = "add"} : f32
  loop.return
}

// -----

// Host ops.

func.func @dim_axis(%a: !loop.buffer<?x16xf32, global>) -> index {
  // expected-error @+1 {{'loop.dim' op axis 2 is out of range for a rank-2 buffer}}
  %d = loop.dim %a, 2 : !loop.buffer<?x16xf32, global>
  return %d : index
}

// -----

func.func @dim_operand(%a: index) -> index {
  // expected-error @+1 {{'loop.dim' op expects a !loop.buffer operand, found 'index'}}
  %d = "loop.dim"(%a) <{axis = 0 : i64}> : (index) -> index
  return %d : index
}

// -----

func.func @dim_no_axis(%a: !loop.buffer<4xf32, global>) -> index {
  // expected-error @+1 {{'loop.dim' op requires an i64 attribute 'axis'}}
  %d = "loop.dim"(%a) : (!loop.buffer<4xf32, global>) -> index
  return %d : index
}

// -----

loop.kernel @k(%a: !loop.buffer<4xf32, global>) {
  loop.return
}

loop.kernel @launch_in_kernel(%a: !loop.buffer<4xf32, global>) {
  // expected-error @+1 {{'loop.launch' op is a host op and must not be nested in a 'loop.kernel'}}
  loop.launch @k(%a) : (!loop.buffer<4xf32, global>) -> ()
  loop.return
}

// -----

func.func @not_a_kernel(%a: !loop.buffer<4xf32, global>) {
  return
}

func.func @launch_function(%a: !loop.buffer<4xf32, global>) {
  // expected-error @+1 {{'loop.launch' op 'not_a_kernel' does not reference a 'loop.kernel'}}
  loop.launch @not_a_kernel(%a) : (!loop.buffer<4xf32, global>) -> ()
  return
}

// -----

loop.kernel @k(%a: !loop.buffer<4xf32, global>, %n: index) {
  loop.return
}

func.func @launch_count(%a: !loop.buffer<4xf32, global>) {
  // expected-error @+1 {{'loop.launch' op passes 1 arguments but kernel 'k' takes 2}}
  loop.launch @k(%a) : (!loop.buffer<4xf32, global>) -> ()
  return
}

// -----

loop.kernel @k(%a: !loop.buffer<?x16xf32, global>) {
  loop.return
}

func.func @launch_static_dim(%a: !loop.buffer<4x8xf32, global>) {
  // expected-error @+1 {{'loop.launch' op argument #0 of type '!loop.buffer<4x8xf32, global>' is not compatible with kernel argument type '!loop.buffer<?x16xf32, global>'}}
  loop.launch @k(%a) : (!loop.buffer<4x8xf32, global>) -> ()
  return
}

// -----

// A launch may not pass one buffer for two arguments where one of them is loop.noalias and the
// kernel writes one of them.
loop.kernel @k(%a: !loop.buffer<4xf32, global>, %b: !loop.buffer<4xf32, global> {loop.noalias}) {
  %c0 = arith.constant 0 : index
  %v = loop.load %a[%c0] : !loop.buffer<4xf32, global>
  loop.store %v, %b[%c0] : !loop.buffer<4xf32, global>
  loop.return
}

func.func @launch_noalias_twice(%a: !loop.buffer<4xf32, global>) {
  // expected-error @+1 {{'loop.launch' op arguments #0 and #1 share memory the kernel writes, but argument #1 of kernel 'k' is 'loop.noalias'}}
  loop.launch @k(%a, %a) : (!loop.buffer<4xf32, global>, !loop.buffer<4xf32, global>) -> ()
  return
}

// -----

// Nor two views of one arena whose constant byte ranges overlap.
loop.kernel @k(%a: !loop.buffer<4xf32, global> {loop.noalias}, %b: !loop.buffer<4xf32, global>) {
  %c0 = arith.constant 0 : index
  %v = loop.load %b[%c0] : !loop.buffer<4xf32, global>
  loop.store %v, %a[%c0] : !loop.buffer<4xf32, global>
  loop.return
}

func.func @launch_noalias_views() {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %arena = loop.alloc : !loop.buffer<64xi8, global>
  %v = loop.view %arena[%c0] : !loop.buffer<64xi8, global> -> !loop.buffer<4xf32, global>
  %w = loop.view %arena[%c8] : !loop.buffer<64xi8, global> -> !loop.buffer<4xf32, global>
  // expected-error @+1 {{'loop.launch' op arguments #0 and #1 share memory the kernel writes, but argument #0 of kernel 'k' is 'loop.noalias'}}
  loop.launch @k(%v, %w) : (!loop.buffer<4xf32, global>, !loop.buffer<4xf32, global>) -> ()
  return
}

// -----

// expected-error @+1 {{'loop.kernel' op 'loop.noalias' is only allowed on buffer arguments, but argument #0 is 'index'}}
loop.kernel @noalias_index(%n: index {loop.noalias}) {
  loop.return
}

// -----

// expected-error @+1 {{'loop.kernel' op 'loop.noalias' of argument #0 must be a unit attribute}}
loop.kernel @noalias_value(%a: !loop.buffer<4xf32, global> {loop.noalias = 1 : i64}) {
  loop.return
}

// -----

loop.kernel @k(%a: !loop.buffer<?xf32, global>) {
  loop.return
}

func.func @launch_element(%a: !loop.buffer<4xf16, global>) {
  // expected-error @+1 {{'loop.launch' op argument #0 of type '!loop.buffer<4xf16, global>' is not compatible with kernel argument type '!loop.buffer<?xf32, global>'}}
  loop.launch @k(%a) : (!loop.buffer<4xf16, global>) -> ()
  return
}

// -----

func.func @launch_no_callee(%a: index) {
  // expected-error @+1 {{'loop.launch' op requires a 'callee' symbol reference attribute}}
  "loop.launch"(%a) : (index) -> ()
  return
}

// -----

loop.kernel @constant_in_kernel() {
  // expected-error @+1 {{'loop.constant' op is a host op and must not be nested in a 'loop.kernel'}}
  %c = loop.constant dense<1.0> : !loop.buffer<4xf32, global>
  loop.return
}

// -----

func.func @constant_local() {
  // expected-error @+1 {{'loop.constant' op result must be a global !loop.buffer, found '!loop.buffer<4xf32, local>'}}
  %c = "loop.constant"() <{value = dense<1.0> : tensor<4xf32>}> : () -> !loop.buffer<4xf32, local>
  return
}

// -----

func.func @constant_dynamic() {
  // expected-error @+1 {{'loop.constant' op result buffer must have a static shape}}
  %c = "loop.constant"() <{value = dense<1.0> : tensor<4xf32>}> : () -> !loop.buffer<?xf32, global>
  return
}

// -----

func.func @constant_shape() {
  // expected-error @+1 {{'loop.constant' op value of type 'tensor<2xf32>' does not match the result buffer '!loop.buffer<4xf32, global>'}}
  %c = "loop.constant"() <{value = dense<1.0> : tensor<2xf32>}> : () -> !loop.buffer<4xf32, global>
  return
}

// -----

func.func @constant_value() {
  // expected-error @+1 {{'loop.constant' op requires a dense elements attribute 'value'}}
  %c = "loop.constant"() <{value = 1.0 : f32}> : () -> !loop.buffer<f32, global>
  return
}

// -----

func.func @constant_syntax() {
  // expected-error @+1 {{expected a dense elements attribute 'dense<...>'}}
  %c = loop.constant 1.0 : !loop.buffer<f32, global>
  return
}

// -----

func.func @constant_literal() {
  // expected-error @+1 {{inferred shape of elements literal ([3]) does not match type ([4])}}
  %c = loop.constant dense<[1.0, 2.0, 3.0]> : !loop.buffer<4xf32, global>
  return
}

// -----

loop.kernel @view_in_kernel(%arena: !loop.buffer<64xi8, global>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'loop.view' op is a host op and must not be nested in a 'loop.kernel'}}
  %v = loop.view %arena[%c0] : !loop.buffer<64xi8, global> -> !loop.buffer<4xf32, global>
  loop.return
}

// -----

loop.kernel @reshape_in_kernel(%x: !loop.buffer<16xf32, global>) {
  // expected-error @+1 {{'loop.reshape' op is a host op and must not be nested in a 'loop.kernel'}}
  %r = loop.reshape %x : !loop.buffer<16xf32, global> -> !loop.buffer<4x4xf32, global>
  loop.return
}

// -----

func.func @reshape_count(%x: !loop.buffer<16xf32, global>) {
  // expected-error @+1 {{'loop.reshape' op the source has 16 elements but the result 15}}
  %r = loop.reshape %x : !loop.buffer<16xf32, global> -> !loop.buffer<3x5xf32, global>
  return
}

// -----

func.func @reshape_elem(%x: !loop.buffer<16xf32, global>) {
  // expected-error @+1 {{'loop.reshape' op result element type 'i32' differs from the source's 'f32'}}
  %r = loop.reshape %x : !loop.buffer<16xf32, global> -> !loop.buffer<4x4xi32, global>
  return
}

// -----

func.func @reshape_sizes(%x: !loop.buffer<?xf32, global>, %n: index) {
  // expected-error @+1 {{'loop.reshape' op expects one size operand per dynamic dimension (2), found 1}}
  %r = loop.reshape %x(%n) : !loop.buffer<?xf32, global> -> !loop.buffer<?x?xf32, global>
  return
}

// -----

// A kernel that writes its first argument, launched with a buffer and a reshape of it: they
// share memory, so the argument may not be `loop.noalias`.
loop.kernel @k(%a: !loop.buffer<4xf32, global> {loop.noalias}, %b: !loop.buffer<4xf32, global>) {
  %c0 = arith.constant 0 : index
  %v = loop.load %b[%c0] : !loop.buffer<4xf32, global>
  loop.store %v, %a[%c0] : !loop.buffer<4xf32, global>
  loop.return
}

func.func @launch_noalias_reshape(%x: !loop.buffer<2x2xf32, global>) {
  %a = loop.reshape %x : !loop.buffer<2x2xf32, global> -> !loop.buffer<4xf32, global>
  %b = loop.reshape %a : !loop.buffer<4xf32, global> -> !loop.buffer<4xf32, global>
  // expected-error @+1 {{'loop.launch' op arguments #0 and #1 share memory the kernel writes, but argument #0 of kernel 'k' is 'loop.noalias'}}
  loop.launch @k(%a, %b) : (!loop.buffer<4xf32, global>, !loop.buffer<4xf32, global>) -> ()
  return
}

// -----

func.func @view_arena(%arena: !loop.buffer<16xf32, global>, %o: index) {
  // expected-error @+1 {{'loop.view' op arena must be a 1-D global i8 buffer, found '!loop.buffer<16xf32, global>'}}
  %v = loop.view %arena[%o] : !loop.buffer<16xf32, global> -> !loop.buffer<4xf32, global>
  return
}

// -----

func.func @view_sizes(%arena: !loop.buffer<?xi8, global>, %o: index, %n: index) {
  // expected-error @+1 {{'loop.view' op expects one size operand per dynamic dimension (2), found 1}}
  %v = loop.view %arena[%o](%n) : !loop.buffer<?xi8, global> -> !loop.buffer<?x?xf32, global>
  return
}

// -----

func.func @view_offset(%arena: !loop.buffer<?xi8, global>, %o: i64) {
  // expected-error @+1 {{'loop.view' op byte offset #0 must be of type index, found 'i64'}}
  %v = "loop.view"(%arena, %o) : (!loop.buffer<?xi8, global>, i64) -> !loop.buffer<4xf32, global>
  return
}

// -----

func.func @view_local(%arena: !loop.buffer<?xi8, global>, %o: index) {
  // expected-error @+1 {{'loop.view' op result must be a global !loop.buffer, found '!loop.buffer<4xf32, local>'}}
  %v = loop.view %arena[%o] : !loop.buffer<?xi8, global> -> !loop.buffer<4xf32, local>
  return
}

// -----

func.func @view_operands() {
  // expected-error @+1 {{'loop.view' op expects an arena and a byte offset operand}}
  %v = "loop.view"() : () -> !loop.buffer<4xf32, global>
  return
}

// -----

// expected-error @+1 {{'loop.kernel' op 'index_checks' names argument #0 as indices, which is not an integer buffer}}
loop.kernel @float_indices(%x: !loop.buffer<4xf32, global>, %i: !loop.buffer<3xi64, global>) attributes {index_checks = array<i64: 0, 0, 0>} {
  loop.return
}

// -----

// expected-error @+1 {{'loop.kernel' op 'index_checks' names axis 1 of argument #0, which is not a buffer of that rank}}
loop.kernel @bad_axis(%x: !loop.buffer<4xf32, global>, %i: !loop.buffer<3xi64, global>) attributes {index_checks = array<i64: 1, 0, 1>} {
  loop.return
}

// -----

// expected-error @+1 {{'loop.kernel' op 'index_checks' must be an array<i64> of (indices, data, axis) triples of non-negative integers}}
loop.kernel @not_triples(%x: !loop.buffer<4xf32, global>, %i: !loop.buffer<3xi64, global>) attributes {index_checks = array<i64: 1, 0>} {
  loop.return
}

// -----

loop.kernel @nontemporal_local(%i: index, %v: vector<8xf32>) {
  %b = loop.alloc : !loop.buffer<16xf32, local>
  // expected-error @+1 {{'loop.vstore' op 'nontemporal' stores need a global buffer (local and shared ones live in caches)}}
  loop.vstore %v, %b[%i] {nontemporal} : vector<8xf32>, !loop.buffer<16xf32, local>
  loop.return
}

// -----

loop.kernel @nontemporal_value(%b: !loop.buffer<16xf32, global>, %i: index, %v: vector<8xf32>) {
  // expected-error @+1 {{'loop.vstore' op 'nontemporal' must be a unit attribute}}
  loop.vstore %v, %b[%i] {nontemporal = 1 : i64} : vector<8xf32>, !loop.buffer<16xf32, global>
  loop.return
}

// -----

loop.kernel @prefetch_local(%i: index) {
  %b = loop.alloc : !loop.buffer<16xf32, local>
  // expected-error @+1 {{'loop.prefetch' op prefetches need a global buffer (local and shared ones live in caches)}}
  loop.prefetch %b[%i] : !loop.buffer<16xf32, local>
  loop.return
}

// -----

loop.kernel @prefetch_rank(%b: !loop.buffer<4x16xf32, global>, %i: index) {
  // expected-error @+1 {{'loop.prefetch' op}}
  loop.prefetch %b[%i] : !loop.buffer<4x16xf32, global>
  loop.return
}

// -----

func.func @broadcast_element(%x: f32) -> vector<8xf64> {
  // expected-error @+1 {{'loop.broadcast' op expects a scalar operand and a result of vector<NxT> of its type}}
  %v = loop.broadcast %x : f32 to vector<8xf64>
  return %v : vector<8xf64>
}

// -----

func.func @broadcast_scalar_result(%x: f32) -> f32 {
  // expected-error @+1 {{'loop.broadcast' op expects a scalar operand and a result of vector<NxT> of its type}}
  %v = loop.broadcast %x : f32 to f32
  return %v : f32
}

// -----

func.func @dot4_lanes(%s: vector<8xi32>, %a: vector<64xi8>) -> vector<8xi32> {
  // expected-error @+1 {{'loop.dot4' op expects an accumulator and result of vector<Nxi32> and two operands of vector<4Nxi8> or vector<4xi8>}}
  %d = loop.dot4 %s, %a, %a : vector<8xi32>, vector<64xi8>
  return %d : vector<8xi32>
}

// -----

func.func @dot4_short_group(%s: vector<16xi32>, %a: vector<64xi8>, %q: vector<2xi8>) -> vector<16xi32> {
  // expected-error @+1 {{'loop.dot4' op expects an accumulator and result of vector<Nxi32> and two operands of vector<4Nxi8> or vector<4xi8>}}
  %d = loop.dot4 %s, %q, %a : vector<16xi32>, vector<2xi8>, vector<64xi8>
  return %d : vector<16xi32>
}

// -----

func.func @dot2_bytes(%s: vector<8xi32>, %a: vector<16xi8>) -> vector<8xi32> {
  // expected-error @+1 {{'loop.dot2' op expects an accumulator and result of vector<Nxi32> and two operands of vector<2Nxi16> or vector<2xi16>}}
  %d = loop.dot2 %s, %a, %a : vector<8xi32>, vector<16xi8>
  return %d : vector<8xi32>
}

// -----

func.func @dot2_lanes(%s: vector<8xi32>, %a: vector<32xi16>) -> vector<8xi32> {
  // expected-error @+1 {{'loop.dot2' op expects an accumulator and result of vector<Nxi32> and two operands of vector<2Nxi16> or vector<2xi16>}}
  %d = loop.dot2 %s, %a, %a : vector<8xi32>, vector<32xi16>
  return %d : vector<8xi32>
}

// -----

// Host calls. The condition of loop.call_if is a one-element i1 buffer.

func.func @f(%a: !loop.buffer<?xf32, global>) -> !loop.buffer<?xf32, global> {
  return %a : !loop.buffer<?xf32, global>
}

func.func @call_if_cond(%c: !loop.buffer<2xi1, global>, %a: !loop.buffer<?xf32, global>) {
  // expected-error @+1 {{'loop.call_if' op condition must be a global buffer of one i1 element (every dim 1), found '!loop.buffer<2xi1, global>'}}
  %r = loop.call_if %c then @f else @f (%a) : (!loop.buffer<2xi1, global>, !loop.buffer<?xf32, global>) -> !loop.buffer<?xf32, global>
  return
}

// -----

func.func @f() {
  return
}

func.func @call_if_scalar_cond(%c: i1) {
  // expected-error @+1 {{'loop.call_if' op condition must be a global buffer of one i1 element (every dim 1), found 'i1'}}
  loop.call_if %c then @f else @f () : (i1) -> ()
  return
}

// -----

func.func @f() {
  return
}

func.func @call_if_no_else(%c: !loop.buffer<i1, global>) {
  // expected-error @+1 {{'loop.call_if' op requires a 'else_callee' symbol reference attribute}}
  "loop.call_if"(%c) <{then_callee = @f}> : (!loop.buffer<i1, global>) -> ()
  return
}

// -----

loop.kernel @call_if_in_kernel(%c: !loop.buffer<i1, global>) {
  // expected-error @+1 {{'loop.call_if' op is a host op and must not be nested in a 'loop.kernel'}}
  loop.call_if %c then @f else @f () : (!loop.buffer<i1, global>) -> ()
  loop.return
}

// -----

func.func @f() {
  return
}

func.func @call_if_missing(%c: !loop.buffer<i1, global>) {
  // expected-error @+1 {{'loop.call_if' op else callee 'nowhere' does not reference a 'func.func'}}
  loop.call_if %c then @f else @nowhere () : (!loop.buffer<i1, global>) -> ()
  return
}

// -----

loop.kernel @k() {
  loop.return
}

func.func @call_if_kernel(%c: !loop.buffer<i1, global>) {
  // expected-error @+1 {{'loop.call_if' op then callee 'k' does not reference a 'func.func'}}
  loop.call_if %c then @k else @k () : (!loop.buffer<i1, global>) -> ()
  return
}

// -----

func.func @f(%a: !loop.buffer<?xf32, global>, %n: index) {
  return
}

func.func @call_if_arg_count(%c: !loop.buffer<i1, global>, %a: !loop.buffer<?xf32, global>) {
  // expected-error @+1 {{'loop.call_if' op passes 1 arguments but then callee 'f' takes 2}}
  loop.call_if %c then @f else @f (%a) : (!loop.buffer<i1, global>, !loop.buffer<?xf32, global>) -> ()
  return
}

// -----

// Types must fit: equal but for `?` dims (checked at run time), as for loop.launch.
func.func @f(%a: !loop.buffer<4xf32, global>) {
  return
}

func.func @g(%a: !loop.buffer<5xf32, global>) {
  return
}

func.func @call_if_arg_type(%c: !loop.buffer<i1, global>, %a: !loop.buffer<4xf32, global>) {
  // expected-error @+1 {{'loop.call_if' op argument #0 of type '!loop.buffer<4xf32, global>' does not fit parameter #0 of else callee 'g' ('!loop.buffer<5xf32, global>')}}
  loop.call_if %c then @f else @g (%a) : (!loop.buffer<i1, global>, !loop.buffer<4xf32, global>) -> ()
  return
}

// -----

func.func @f() {
  return
}

func.func @call_if_result_count(%c: !loop.buffer<i1, global>) {
  // expected-error @+1 {{'loop.call_if' op has 1 results but then callee 'f' returns 0}}
  %r = loop.call_if %c then @f else @f () : (!loop.buffer<i1, global>) -> index
  return
}

// -----

func.func @f() -> !loop.buffer<4xf32, global> {
  %a = loop.alloc : !loop.buffer<4xf32, global>
  return %a : !loop.buffer<4xf32, global>
}

func.func @call_if_result_type(%c: !loop.buffer<i1, global>) {
  // expected-error @+1 {{'loop.call_if' op result #0 of type '!loop.buffer<?xi32, global>' does not fit result #0 of then callee 'f' ('!loop.buffer<4xf32, global>')}}
  %r = loop.call_if %c then @f else @f () : (!loop.buffer<i1, global>) -> !loop.buffer<?xi32, global>
  return
}

// -----

// loop.call_loop: a one-element i64 trip count and i1 condition, num_carried in range.

func.func @spin(%i: !loop.buffer<i64, global>, %c: !loop.buffer<i1, global>) -> !loop.buffer<i1, global> {
  return %c : !loop.buffer<i1, global>
}

func.func @call_loop_trip_type(%m: !loop.buffer<i32, global>, %c: !loop.buffer<i1, global>) {
  // expected-error @+1 {{'loop.call_loop' op trip count must be a global buffer of one i64 element (every dim 1), found '!loop.buffer<i32, global>'}}
  loop.call_loop @spin (%m, %c) : (!loop.buffer<i32, global>, !loop.buffer<i1, global>) -> ()
  return
}

// -----

func.func @spin(%i: !loop.buffer<i64, global>, %c: !loop.buffer<i1, global>) -> !loop.buffer<i1, global> {
  return %c : !loop.buffer<i1, global>
}

func.func @call_loop_cond_dims(%m: !loop.buffer<i64, global>, %c: !loop.buffer<?xi1, global>) {
  // expected-error @+1 {{'loop.call_loop' op condition must be a global buffer of one i1 element (every dim 1), found '!loop.buffer<?xi1, global>'}}
  loop.call_loop @spin (%m, %c) : (!loop.buffer<i64, global>, !loop.buffer<?xi1, global>) -> ()
  return
}

// -----

func.func @call_loop_num_carried(%m: !loop.buffer<i64, global>, %c: !loop.buffer<i1, global>, %x: index) {
  // expected-error @+1 {{'loop.call_loop' op num_carried 2 is out of range: the op has 1 operands after the trip count and condition}}
  %r:2 = "loop.call_loop"(%m, %c, %x) <{callee = @b, num_carried = 2 : i64}> : (!loop.buffer<i64, global>, !loop.buffer<i1, global>, index) -> (index, index)
  return
}

// -----

func.func @call_loop_negative_carried(%m: !loop.buffer<i64, global>, %c: !loop.buffer<i1, global>) {
  // expected-error @+1 {{'loop.call_loop' op num_carried -1 is out of range: the op has 0 operands after the trip count and condition}}
  "loop.call_loop"(%m, %c) <{callee = @b, num_carried = -1 : i64}> : (!loop.buffer<i64, global>, !loop.buffer<i1, global>) -> ()
  return
}

// -----

func.func @call_loop_no_num_carried(%m: !loop.buffer<i64, global>, %c: !loop.buffer<i1, global>) {
  // expected-error @+1 {{'loop.call_loop' op requires an integer attribute 'num_carried'}}
  "loop.call_loop"(%m, %c) <{callee = @b}> : (!loop.buffer<i64, global>, !loop.buffer<i1, global>) -> ()
  return
}

// -----

func.func @call_loop_one_operand(%m: !loop.buffer<i64, global>) {
  // expected-error @+1 {{expected the trip count and the condition before the carried values}}
  loop.call_loop @b (%m) : (!loop.buffer<i64, global>) -> ()
  return
}

// -----

func.func @call_loop_carried_result(%m: !loop.buffer<i64, global>, %c: !loop.buffer<i1, global>, %x: !loop.buffer<?xf32, global>) {
  // expected-error @+1 {{'loop.call_loop' op result #0 of type '!loop.buffer<?x4xf32, global>' does not fit the type '!loop.buffer<?xf32, global>' of carried value #0}}
  %r = loop.call_loop @b (%m, %c, %x) : (!loop.buffer<i64, global>, !loop.buffer<i1, global>, !loop.buffer<?xf32, global>) -> !loop.buffer<?x4xf32, global>
  return
}

// -----

func.func @call_loop_scan_rank(%m: !loop.buffer<i64, global>, %c: !loop.buffer<i1, global>) {
  // expected-error @+1 {{'loop.call_loop' op scan output #0 (result #0) must be a global buffer of rank 1 or more, found '!loop.buffer<f32, global>'}}
  %r = loop.call_loop @b (%m, %c) : (!loop.buffer<i64, global>, !loop.buffer<i1, global>) -> !loop.buffer<f32, global>
  return
}

// -----

// The body's signature: (iteration, condition, carried..., captures...) -> (condition,
// carried..., scan elements...).

func.func @call_loop_missing(%m: !loop.buffer<i64, global>, %c: !loop.buffer<i1, global>) {
  // expected-error @+1 {{'loop.call_loop' op loop body 'nowhere' does not reference a 'func.func'}}
  loop.call_loop @nowhere (%m, %c) : (!loop.buffer<i64, global>, !loop.buffer<i1, global>) -> ()
  return
}

// -----

func.func @b(%i: !loop.buffer<i64, global>, %c: !loop.buffer<i1, global>, %x: index) -> (!loop.buffer<i1, global>, index) {
  return %c, %x : !loop.buffer<i1, global>, index
}

func.func @call_loop_arity(%m: !loop.buffer<i64, global>, %c: !loop.buffer<i1, global>, %x: index, %y: index) {
  // expected-error @+1 {{'loop.call_loop' op loop body 'b' takes 3 arguments but the op passes 4 (the iteration number, the condition, 1 carried and 1 captured values)}}
  %r = loop.call_loop @b (%m, %c, %x) captures (%y) : (!loop.buffer<i64, global>, !loop.buffer<i1, global>, index, index) -> index
  return
}

// -----

func.func @b(%i: !loop.buffer<1xi64, global>, %c: !loop.buffer<i1, global>) -> !loop.buffer<i1, global> {
  return %c : !loop.buffer<i1, global>
}

func.func @call_loop_iteration_type(%m: !loop.buffer<i64, global>, %c: !loop.buffer<i1, global>) {
  // expected-error @+1 {{'loop.call_loop' op parameter #0 (the iteration number) of loop body 'b' must be '!loop.buffer<i64, global>', found '!loop.buffer<1xi64, global>'}}
  loop.call_loop @b (%m, %c) : (!loop.buffer<i64, global>, !loop.buffer<i1, global>) -> ()
  return
}

// -----

func.func @b(%i: !loop.buffer<i64, global>, %c: !loop.buffer<i1, global>, %x: !loop.buffer<4xf32, global>) -> (!loop.buffer<i1, global>, !loop.buffer<4xf32, global>) {
  return %c, %x : !loop.buffer<i1, global>, !loop.buffer<4xf32, global>
}

func.func @call_loop_carried_param(%m: !loop.buffer<i64, global>, %c: !loop.buffer<i1, global>, %x: !loop.buffer<3xf32, global>) {
  // expected-error @+1 {{'loop.call_loop' op carried value #0 of type '!loop.buffer<3xf32, global>' does not fit parameter #2 of loop body 'b' ('!loop.buffer<4xf32, global>')}}
  %r = loop.call_loop @b (%m, %c, %x) : (!loop.buffer<i64, global>, !loop.buffer<i1, global>, !loop.buffer<3xf32, global>) -> !loop.buffer<3xf32, global>
  return
}

// -----

func.func @b(%i: !loop.buffer<i64, global>, %c: !loop.buffer<i1, global>, %y: i32) -> !loop.buffer<i1, global> {
  return %c : !loop.buffer<i1, global>
}

func.func @call_loop_capture_param(%m: !loop.buffer<i64, global>, %c: !loop.buffer<i1, global>, %y: index) {
  // expected-error @+1 {{'loop.call_loop' op captured value #0 of type 'index' does not fit parameter #2 of loop body 'b' ('i32')}}
  loop.call_loop @b (%m, %c) captures (%y) : (!loop.buffer<i64, global>, !loop.buffer<i1, global>, index) -> ()
  return
}

// -----

func.func @b(%i: !loop.buffer<i64, global>, %c: !loop.buffer<i1, global>) -> !loop.buffer<i1, global> {
  return %c : !loop.buffer<i1, global>
}

func.func @call_loop_body_results(%m: !loop.buffer<i64, global>, %c: !loop.buffer<i1, global>) {
  // expected-error @+1 {{'loop.call_loop' op loop body 'b' returns 1 results but must return 2: the next condition, then one value per result of the op}}
  %r = loop.call_loop @b (%m, %c) : (!loop.buffer<i64, global>, !loop.buffer<i1, global>) -> !loop.buffer<?xf32, global>
  return
}

// -----

func.func @b(%i: !loop.buffer<i64, global>, %c: !loop.buffer<i1, global>) -> !loop.buffer<1xi1, global> {
  %d = loop.alloc : !loop.buffer<1xi1, global>
  return %d : !loop.buffer<1xi1, global>
}

func.func @call_loop_next_cond(%m: !loop.buffer<i64, global>, %c: !loop.buffer<i1, global>) {
  // expected-error @+1 {{'loop.call_loop' op result #0 (the next condition) of loop body 'b' must be '!loop.buffer<i1, global>', found '!loop.buffer<1xi1, global>'}}
  loop.call_loop @b (%m, %c) : (!loop.buffer<i64, global>, !loop.buffer<i1, global>) -> ()
  return
}

// -----

func.func @b(%i: !loop.buffer<i64, global>, %c: !loop.buffer<i1, global>, %x: index) -> (!loop.buffer<i1, global>, i64) {
  %y = arith.index_cast %x : index to i64
  return %c, %y : !loop.buffer<i1, global>, i64
}

func.func @call_loop_carried_out(%m: !loop.buffer<i64, global>, %c: !loop.buffer<i1, global>, %x: index) {
  // expected-error @+1 {{'loop.call_loop' op result #1 of loop body 'b' ('i64') does not fit the type 'index' of carried value #0}}
  %r = loop.call_loop @b (%m, %c, %x) : (!loop.buffer<i64, global>, !loop.buffer<i1, global>, index) -> index
  return
}

// -----

func.func @b(%i: !loop.buffer<i64, global>, %c: !loop.buffer<i1, global>) -> (!loop.buffer<i1, global>, !loop.buffer<4x?xf32, global>) {
  %c3 = arith.constant 3 : index
  %e = loop.alloc(%c3) : !loop.buffer<4x?xf32, global>
  return %c, %e : !loop.buffer<i1, global>, !loop.buffer<4x?xf32, global>
}

func.func @call_loop_scan_dims(%m: !loop.buffer<i64, global>, %c: !loop.buffer<i1, global>) {
  // expected-error @+1 {{'loop.call_loop' op scan output #0 (result #0) of type '!loop.buffer<?x5x?xf32, global>' is not a stack of result #1 of loop body 'b' ('!loop.buffer<4x?xf32, global>'): it must be a global buffer of that element type with one more leading dim, the other dims equal (or '?' on either side)}}
  %r = loop.call_loop @b (%m, %c) : (!loop.buffer<i64, global>, !loop.buffer<i1, global>) -> !loop.buffer<?x5x?xf32, global>
  return
}

// -----

func.func @b(%i: !loop.buffer<i64, global>, %c: !loop.buffer<i1, global>) -> (!loop.buffer<i1, global>, !loop.buffer<4xf32, global>) {
  %e = loop.alloc : !loop.buffer<4xf32, global>
  return %c, %e : !loop.buffer<i1, global>, !loop.buffer<4xf32, global>
}

func.func @call_loop_scan_rank_of_stack(%m: !loop.buffer<i64, global>, %c: !loop.buffer<i1, global>) {
  // expected-error @+1 {{'loop.call_loop' op scan output #0 (result #0) of type '!loop.buffer<?xf32, global>' is not a stack of result #1 of loop body 'b'}}
  %r = loop.call_loop @b (%m, %c) : (!loop.buffer<i64, global>, !loop.buffer<i1, global>) -> !loop.buffer<?xf32, global>
  return
}

// -----

func.func @b(%i: !loop.buffer<i64, global>, %c: !loop.buffer<i1, global>) -> (!loop.buffer<i1, global>, !loop.buffer<4xf32, global>) {
  %e = loop.alloc : !loop.buffer<4xf32, global>
  return %c, %e : !loop.buffer<i1, global>, !loop.buffer<4xf32, global>
}

func.func @call_loop_scan_element(%m: !loop.buffer<i64, global>, %c: !loop.buffer<i1, global>) {
  // expected-error @+1 {{'loop.call_loop' op scan output #0 (result #0) of type '!loop.buffer<?x4xf16, global>' is not a stack of result #1 of loop body 'b'}}
  %s = loop.call_loop @b (%m, %c) : (!loop.buffer<i64, global>, !loop.buffer<i1, global>) -> !loop.buffer<?x4xf16, global>
  return
}

// -----

func.func @read_size_of_floats(%a: !loop.buffer<f32, global>) -> index {
  // expected-error @+1 {{'loop.read_size' op operand must be a global buffer of one i8, i16, i32 or i64 element (every dim 1), found '!loop.buffer<f32, global>'}}
  %n = loop.read_size %a : !loop.buffer<f32, global>
  return %n : index
}

// -----

func.func @read_size_of_i1(%a: !loop.buffer<1xi1, global>) -> index {
  // expected-error @+1 {{'loop.read_size' op operand must be a global buffer of one i8, i16, i32 or i64 element (every dim 1), found '!loop.buffer<1xi1, global>'}}
  %n = loop.read_size %a : !loop.buffer<1xi1, global>
  return %n : index
}

// -----

func.func @read_size_of_two_elements(%a: !loop.buffer<1x2xi64, global>) -> index {
  // expected-error @+1 {{'loop.read_size' op operand must be a global buffer of one i8, i16, i32 or i64 element (every dim 1), found '!loop.buffer<1x2xi64, global>'}}
  %n = loop.read_size %a : !loop.buffer<1x2xi64, global>
  return %n : index
}

// -----

func.func @read_size_of_dynamic_dim(%a: !loop.buffer<?xi64, global>) -> index {
  // expected-error @+1 {{'loop.read_size' op operand must be a global buffer of one i8, i16, i32 or i64 element (every dim 1), found '!loop.buffer<?xi64, global>'}}
  %n = loop.read_size %a : !loop.buffer<?xi64, global>
  return %n : index
}

// -----

loop.kernel @read_size_in_kernel(%a: !loop.buffer<i64, global>) {
  // expected-error @+1 {{'loop.read_size' op is a host op and must not be nested in a 'loop.kernel'}}
  %n = loop.read_size %a : !loop.buffer<i64, global>
  loop.return
}

// -----

func.func @read_size_result_type(%a: !loop.buffer<i64, global>) -> i64 {
  // expected-error @+1 {{'loop.read_size' op result must be of type index}}
  %n = "loop.read_size"(%a) : (!loop.buffer<i64, global>) -> i64
  return %n : i64
}

// -----

func.func @check_of_an_index(%n: index) {
  // expected-error @+1 {{'loop.check' op operand must be an i1 condition, found 'index'}}
  "loop.check"(%n) <{message = "positive"}> : (index) -> ()
  return
}

// -----

func.func @check_without_message(%c: i1) {
  // expected-error @+1 {{'loop.check' op requires a string attribute 'message'}}
  "loop.check"(%c) : (i1) -> ()
  return
}

// -----

loop.kernel @check_in_a_kernel(%c: i1) {
  // expected-error @+1 {{'loop.check' op is a host op and must not be nested in a 'loop.kernel'}}
  loop.check %c, "never"
  loop.return
}

// -----

loop.kernel @padding_type(%a: !loop.buffer<8xf32, global>, %i: index) {
  %z = arith.constant 0 : i32
  // expected-error @+1 {{'loop.load_padded' op padding type 'i32' does not match the buffer element type 'f32'}}
  %x = "loop.load_padded"(%a, %i, %z) : (!loop.buffer<8xf32, global>, index, i32) -> f32
  loop.return
}

// -----

loop.kernel @padded_no_padding(%a: !loop.buffer<4x8xf32, global>, %i: index) {
  // expected-error @+1 {{'loop.load_padded' op expects 2 indices for a rank-2 buffer and a padding value, found 2 operands after the buffer}}
  %x = "loop.load_padded"(%a, %i, %i) : (!loop.buffer<4x8xf32, global>, index, index) -> f32
  loop.return
}

// -----

loop.kernel @padded_vector_element(%a: !loop.buffer<8xf32, global>, %i: index) {
  %z = arith.constant 0.000000e+00 : f32
  // expected-error @+1 {{'loop.vload_padded' op expects a 1-D vector of the buffer element type 'f32', found 'vector<4xf16>'}}
  %v = loop.vload_padded %a[%i], %z : !loop.buffer<8xf32, global> -> vector<4xf16>
  loop.return
}

// -----

loop.kernel @padded_missing_comma(%a: !loop.buffer<8xf32, global>, %i: index) {
  // expected-error @+1 {{expected ',' and a padding value}}
  %x = loop.load_padded %a[%i] : !loop.buffer<8xf32, global>
  loop.return
}
