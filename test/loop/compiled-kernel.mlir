// RUN: dlc-opt %s | dlc-opt | FileCheck %s
// RUN: dlc-opt %s --print-generic | mlir-opt --allow-unregistered-dialect | dlc-opt | FileCheck %s
// RUN: dlc-opt %s --pipeline=simplify,cpu-default | FileCheck %s
// RUN: not dlc-run %s --no-cache 2>&1 | FileCheck %s --check-prefix=NOCODE

// `loop.compiled_kernel` stands for a kernel compiled and left out (a model-cache entry holds
// kernels so): host functions launch it as they launch a `loop.kernel`, passes leave it alone,
// and only a code generator that finds its object by `content` runs it.

// CHECK: "loop.compiled_kernel"() <{arg_attrs = [{loop.noalias}, {loop.noalias}], content = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff", function_type = (!loop.buffer<4xf32, global>, !loop.buffer<4xf32, global>) -> (), sym_name = "scale", written = array<i64: 1>}> {index_checks = array<i64>} : () -> ()
"loop.compiled_kernel"() <{arg_attrs = [{loop.noalias}, {loop.noalias}], content = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff", function_type = (!loop.buffer<4xf32, global>, !loop.buffer<4xf32, global>) -> (), sym_name = "scale", written = array<i64: 1>}> {index_checks = array<i64>} : () -> ()

// CHECK-LABEL: func.func @main
// CHECK: loop.launch @scale(%arg0, %[[Y:.*]])
func.func @main(%x: !loop.buffer<4xf32, global>) -> !loop.buffer<4xf32, global> {
  %y = loop.alloc : !loop.buffer<4xf32, global>
  loop.launch @scale(%x, %y) : (!loop.buffer<4xf32, global>, !loop.buffer<4xf32, global>) -> ()
  return %y : !loop.buffer<4xf32, global>
}

// NOCODE: error: the kernel cache holds no object for compiled kernel '@scale' (content 00112233
