// --list-passes: every pass with the first sentence of its doc, its options with type, help and
// default, then the named pipelines.
// RUN: dlc-opt --list-passes | FileCheck %s

// CHECK:      Passes:
// CHECK:        --canonicalize{{ +}}Simplifies the IR to its canonical form:
// CHECK-NEXT:       top-down=<bool>{{ +}}Visit ops in program order {{.*}}(default: true)
// CHECK-NEXT:       max-iterations=<int>{{ +}}{{.*}}(default: 10)
// CHECK:        --cse{{ +}}Eliminates common subexpressions
// CHECK:        --strip-debuginfo{{ +}}Replaces every location in the op with `loc(unknown)`.
// CHECK:        --test-pass-failure{{ +}}Test pass that fails on every op it runs on.
// CHECK-NEXT:       fail=<bool>
// CHECK:      Pipelines:
