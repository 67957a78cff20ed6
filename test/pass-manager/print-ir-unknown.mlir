// A pass name after --print-ir-before/after that no pass has is an error, not silence.
// RUN: not dlc-opt %s --cse --print-ir-after=csx 2>&1 | FileCheck %s
// RUN: not dlc-opt %s --cse --print-ir-before=cse,nope 2>&1 | FileCheck %s --check-prefix=BEFORE
// CHECK: dlc-opt: error: --print-ir-after: unknown pass 'csx' (see --list-passes)
// BEFORE: dlc-opt: error: --print-ir-before: unknown pass 'nope'

func.func @f() {
  return
}
