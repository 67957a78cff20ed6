// dense_resource attributes and the file metadata block holding their blobs.
func.func @f() -> tensor<2xi32> {
  %0 = arith.constant dense_resource<blob1> : tensor<2xi32>
  // A resource without a blob prints, and adds nothing to the block.
  %1 = arith.constant dense_resource<"no blob"> : tensor<2xi32>
  "t.op"() {a = dense_resource<blob1> : tensor<2xi32>, b = dense_resource<unused2> : tensor<1xf32>, c = dense_resource<"a b"> : tensor<1xi8>} : () -> ()
  return %0 : tensor<2xi32>
}
{-#
  dialect_resources: {
    builtin: {
      blob1: "0x040000000100000002000000",
      unused: "0x0400000001000000",
      unused2: "0x0400000001000000",
      "a b": "0x0100000007"
    }
  }
#-}
