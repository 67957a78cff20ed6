"t.func"() ({
^bb0(%arg0: i1, %arg1: index):
  "t.cond_br"(%arg0, %arg1)[^bb1, ^bb3] : (i1, index) -> ()
^bb1:
  %0 = "t.def"(%arg1) : (index) -> i64
  "t.br"(%0)[^bb4] : (i64) -> ()
^bb2:
  "t.use"(%late) : (i64) -> ()
  "t.br"(%late)[^bb4] : (i64) -> ()
^bb3:
  %late = "t.def"() : () -> i64
  "t.br"()[^bb2] : () -> ()
^bb4(%2: i64):
  "t.ret"(%2) : (i64) -> ()
}) {sym_name = "cfg"} : () -> ()
