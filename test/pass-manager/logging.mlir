// DLC_LOG turns on logging to stderr (a tracing env filter); each pass runs in a `pass` span,
// logged with its time when it closes. Without DLC_LOG nothing is logged.

// RUN: env DLC_LOG=debug dlc-opt %s -p 'builtin.module(func.func(cse),symbol-dce)' -o /dev/null 2>&1 | FileCheck %s
// RUN: env DLC_LOG=dlc_ir=debug dlc-opt %s -p 'builtin.module(func.func(cse),symbol-dce)' -o /dev/null 2>&1 | FileCheck %s
// CHECK-DAG: DEBUG pass{name="cse"}: {{.*}} close time.busy={{.*}}
// CHECK-DAG: DEBUG pass{name="symbol-dce"}: {{.*}} close time.busy={{.*}}

// RUN: dlc-opt %s -p 'builtin.module(func.func(cse),symbol-dce)' -o /dev/null 2>&1 | count 0
// RUN: env DLC_LOG=info dlc-opt %s -p 'builtin.module(func.func(cse),symbol-dce)' -o /dev/null 2>&1 | count 0

// A filter that does not parse is reported and ignored.
// RUN: env DLC_LOG='[' dlc-opt %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: dlc-opt: warning: ignoring DLC_LOG='[': invalid filter directive

func.func @f() {
  return
}
