module @m attributes {dlc.version = 1 : i64} {
  func.func private @decl(i32, tensor<?xf32>) -> (i32, f32)
  func.func @f(%arg0: i32 {llvm.noalias}, %arg1: vector<4xf32>) -> (i32 {dlc.out}) attributes {k} {
    %t = "t.t"() : () -> tensor<?xf32>
    %0:2 = call @decl(%arg0, %t) : (i32, tensor<?xf32>) -> (i32, f32)
    return %0#0 : i32
  }
  func.func nested @g() -> ((i32) -> i32) {
    %0 = "t.fn"() : () -> ((i32) -> i32)
    func.return %0 : (i32) -> i32
  }
}
