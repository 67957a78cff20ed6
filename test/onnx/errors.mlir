// Models dlc cannot import end with one error naming the node (or the byte offset), and exit 1.
// RUN: rm -rf %t && python3 %S/Inputs/models.py %t
// RUN: not dlc-import %t/unsupported.onnx 2>&1 | FileCheck %s --check-prefix=OP
// RUN: not dlc-import %t/attribute.onnx 2>&1 | FileCheck %s --check-prefix=ATTR
// RUN: not dlc-import %t/cycle.onnx 2>&1 | FileCheck %s --check-prefix=CYCLE
// RUN: not dlc-import %t/truncated.onnx 2>&1 | FileCheck %s --check-prefix=TRUNC
// RUN: not dlc-import %t/reshape.onnx 2>&1 | FileCheck %s --check-prefix=CONST
// RUN: not dlc-import %t/missing.onnx 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not dlc-run %t/unsupported.onnx 2>&1 | FileCheck %s --check-prefix=OP

// OP: unsupported.onnx: error: node 'unpool' (MaxUnpool, opset 17): operator MaxUnpool is not supported
// ATTR: error: node #0 (unnamed, output 'y') (Relu, opset 17): attribute 'foo' is not supported
// CYCLE: error: node 'first' (Relu, opset 17): input 'b' is produced by a later node (the graph has a cycle or is not topologically sorted)
// TRUNC: error: not a valid ONNX model: {{.*}}(the field at byte offset 2 is malformed or truncated)
// CONST: error: node 'reshape' (Reshape, opset 17): graph input 'shape' must be a constant here
// MISSING: error: cannot read '{{.*}}missing.onnx'
