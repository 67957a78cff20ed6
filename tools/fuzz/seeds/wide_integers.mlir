// Integers past 128 bits and the literal forms around them: wide decimal and hex constants,
// signed and unsigned wide types, dense constants of them, negative hex and `-0`.
func.func @wide() -> (i256, i200, tensor<2xi256>) {
  %0 = arith.constant 57896044618658097711785492504343953926634992332820282019728792003956564819967 : i256
  %1 = arith.constant 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF : i200
  %2 = arith.constant dense<[340282366920938463463374607431768211456, -5]> : tensor<2xi256>
  "t.op"() {a = 115792089237316195423570985008687907853269984665640564039457584007913129639935 : ui256, b = -0x5 : i8, c = dense<-0x1> : tensor<2xi1>, d = array<i8: -0x5>} : () -> ()
  return %0, %1, %2 : i256, i200, tensor<2xi256>
}
