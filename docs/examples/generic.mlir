// The generic form, as mlir-opt --mlir-print-op-generic writes it: control flow between blocks,
// block arguments, dense constants and an attribute dictionary.
"func.func"() <{function_type = (i1, i32) -> i32, sym_name = "choose"}> ({
^bb0(%cond: i1, %x: i32):
  %table = "arith.constant"() <{value = dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>}> : () -> tensor<2x2xi32>
  %one = "arith.constant"() <{value = 1 : i32}> {note = "increment"} : () -> i32
  %y = "arith.addi"(%x, %one) : (i32, i32) -> i32
  %r = "arith.select"(%cond, %x, %y) : (i1, i32, i32) -> i32
  "func.return"(%r) : (i32) -> ()
}) : () -> ()
