// A broadcast add: out[i, j] = a[i, j] + b[j] for an [M, N] matrix and an [N] row vector.
// Rows run in parallel, columns serially; one schedule block per output element.
loop.kernel @broadcast_add(%a: !loop.buffer<?x?xf32, global>, %b: !loop.buffer<?xf32, global>, %out: !loop.buffer<?x?xf32, global>, %m: index, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  loop.for parallel %i = %c0 to %m step %c1 {
    loop.for serial %j = %c0 to %n step %c1 {
      loop.schedule_block "out" (%i0 = %i, %j0 = %j) {
        %x = loop.load %a[%i0, %j0] : !loop.buffer<?x?xf32, global>
        %y = loop.load %b[%j0] : !loop.buffer<?xf32, global>
        %s = arith.addf %x, %y : f32
        loop.store %s, %out[%i0, %j0] : !loop.buffer<?x?xf32, global>
        loop.yield
      }
      loop.yield
    }
    loop.yield
  }
  loop.return
}
