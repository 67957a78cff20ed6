// `loop.noalias` is LLVM's promise: memory the kernel only reads may be passed for two
// arguments, marked or not (cse merging two equal constants does that); the verifier accepts it.
// RUN: dlc-opt %s | FileCheck %s

// CHECK-LABEL: func.func @same_input_twice
// CHECK: loop.launch @sum2(%arg0, %arg0, %{{.*}})
loop.kernel @sum2(%a: !loop.buffer<4xf32, global> {loop.noalias}, %b: !loop.buffer<4xf32, global> {loop.noalias}, %o: !loop.buffer<4xf32, global> {loop.noalias}) {
  %c0 = arith.constant 0 : index
  %x = loop.load %a[%c0] : !loop.buffer<4xf32, global>
  %y = loop.load %b[%c0] : !loop.buffer<4xf32, global>
  %s = arith.addf %x, %y : f32
  loop.store %s, %o[%c0] : !loop.buffer<4xf32, global>
  loop.return
}

func.func @same_input_twice(%a: !loop.buffer<4xf32, global>) -> !loop.buffer<4xf32, global> {
  %o = loop.alloc : !loop.buffer<4xf32, global>
  loop.launch @sum2(%a, %a, %o) : (!loop.buffer<4xf32, global>, !loop.buffer<4xf32, global>, !loop.buffer<4xf32, global>) -> ()
  return %o : !loop.buffer<4xf32, global>
}
