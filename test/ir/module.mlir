// RUN: dlc-opt %s --split-input-file --allow-unregistered-dialect | FileCheck %s
// RUN: dlc-opt %s --split-input-file --allow-unregistered-dialect --print-generic \
// RUN:   | dlc-opt --split-input-file --allow-unregistered-dialect | FileCheck %s

// A file whose only op is a module is that module; anything else (including nothing) is
// wrapped in an implicit module. Named modules, module attributes and nested modules
// round-trip.

// CHECK:      module {
// CHECK-NEXT: }
// CHECK-EMPTY:
// CHECK-NEXT: // -{{-}}---

// -----

// CHECK-NEXT: module {
// CHECK-NEXT: }
// CHECK-EMPTY:
// CHECK-NEXT: // -{{-}}---
module {
}

// -----

// CHECK-NEXT: module @named attributes {dlc.target = "cpu", dlc.version = 2 : i32} {
// CHECK-NEXT:   func.func private @f()
// CHECK-NEXT: }
// CHECK-EMPTY:
// CHECK-NEXT: // -{{-}}---
module @named attributes {dlc.target = "cpu", dlc.version = 2 : i32} {
  func.func private @f()
}

// -----

// CHECK-NEXT: module @spelled_out {
// CHECK-NEXT: }
// CHECK-EMPTY:
// CHECK-NEXT: // -{{-}}---
builtin.module @spelled_out {
}

// -----

// CHECK-NEXT: module @outer {
// CHECK-NEXT:   module @inner {
// CHECK-NEXT:     module @innermost {
// CHECK-NEXT:       func.func private @g()
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT:   func.func private @h()
// CHECK-NEXT: }
// CHECK-EMPTY:
// CHECK-NEXT: // -{{-}}---
module @outer {
  module @inner {
    module @innermost {
      func.func private @g()
    }
  }
  func.func private @h()
}

// -----

// CHECK-NEXT: module {
// CHECK-NEXT:   func.func private @a()
// CHECK-NEXT:   func.func private @b()
// CHECK-NEXT: }
// CHECK-EMPTY:
// CHECK-NEXT: // -{{-}}---
func.func private @a()
func.func private @b()

// -----

// CHECK-NEXT: module {
// CHECK-NEXT:   module @first {
// CHECK-NEXT:   }
// CHECK-NEXT:   module @second {
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-EMPTY:
// CHECK-NEXT: // -{{-}}---
module @first {
}
module @second {
}

// -----

// CHECK-NEXT: module {
// CHECK-NEXT:   "t.top"() : () -> ()
// CHECK-NEXT:   module @after_an_op {
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-EMPTY:
// CHECK-NEXT: // -{{-}}---
"t.top"() : () -> ()
module @after_an_op {
}

// -----

// CHECK-NEXT: module @generic attributes {dlc.attr} {
// CHECK-NEXT:   func.func private @k()
// CHECK-NEXT: }
// CHECK-NOT:  {{.}}
"builtin.module"() <{sym_name = "generic"}> ({
  "func.func"() <{function_type = () -> (), sym_name = "k", sym_visibility = "private"}> ({
  }) : () -> ()
}) {dlc.attr} : () -> ()
