// Uses before definitions are legal in the module's graph region.
"t.use"(%b) : (tensor<2xf32>) -> ()
%b = "t.def"() : () -> tensor<2xf32>
"t.region"() ({
  %x = "t.inner"(%b) : (tensor<2xf32>) -> i32
  %y:3 = "t.multi"(%x, %x) : (i32, i32) -> (i1, i8, i16)
  "t.end"(%y#2) : (i16) -> ()
}) : () -> ()
