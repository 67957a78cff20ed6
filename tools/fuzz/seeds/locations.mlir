#loc0 = loc("file.mlir":3:4)
"t.a"() : () -> () loc(#loc0)
"t.b"() : () -> () loc("name"("f.mlir":1:2))
"t.c"() : () -> () loc(callsite("callee" at "caller.mlir":10:1))
"t.d"() : () -> () loc(fused<"meta">["a.mlir":1:1, unknown, #later])
"t.e"() ({
^bb0(%x: i32 loc("arg.mlir":1:1)):
  "t.f"(%x) : (i32) -> () loc("r.mlir":5:6 to 5:9)
}) : () -> () loc(unknown)
#later = loc("later.mlir":9:9)
