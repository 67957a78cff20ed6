// A pipeline that fails outside any pass (here: a nested pipeline on an op that is not isolated
// from above) gets a reproducer of the module before the pipeline, with the whole pipeline and
// the flags the input needs.

// RUN: not dlc-opt %s --allow-unregistered-dialect -p 'builtin.module(test.region(cse))' --crash-reproducer=%t.repro.mlir 2>&1 | FileCheck %s --check-prefix=FAIL
// RUN: FileCheck %s --check-prefix=REPRO < %t.repro.mlir
// RUN: not dlc-opt %t.repro.mlir --run-reproducer 2>&1 | FileCheck %s --check-prefix=REPLAY

// A failing pass that is not the first: the configuration runs just that pass, with its options.
// RUN: not dlc-opt %s --allow-unregistered-dialect --pipeline='strip-debuginfo,test-pass-failure{fail=true}' --crash-reproducer=%t.repro2.mlir 2>&1 | FileCheck %s --check-prefix=PASS-FAIL
// RUN: FileCheck %s --check-prefix=REPRO2 < %t.repro2.mlir
// RUN: not dlc-opt %t.repro2.mlir --run-reproducer 2>&1 | FileCheck %s --check-prefix=PASS-FAIL

// A file without a configuration line cannot be replayed.
// RUN: not dlc-opt %s --run-reproducer 2>&1 | FileCheck %s --check-prefix=NO-CONFIG

// FAIL: error: a nested pipeline cannot run on 'test.region': it is not isolated from above
// FAIL: note: pipeline failed while executing the pipeline: reproducer generated at
// REPLAY: error: a nested pipeline cannot run on 'test.region': it is not isolated from above

// REPRO:      // dlc crash reproducer: the pipeline failed.
// REPRO:      // configuration: --pass-pipeline='builtin.module(test.region(cse))' --verify-each=true --allow-unregistered-dialect
// REPRO:      module {
// REPRO-NEXT:   "test.region"() ({

// PASS-FAIL: error: test-pass-failure failed, as it always does
// REPRO2: // configuration: --pass-pipeline='builtin.module(test-pass-failure{fail=true})' --verify-each=true --allow-unregistered-dialect
// REPRO2: "test.region"() ({
// REPRO2: loc(unknown)

// NO-CONFIG: dlc-opt: --run-reproducer: '{{.*}}reproducer-pipeline.mlir' has no '// configuration:' line

"test.region"() ({
  "test.op"() : () -> ()
}) : () -> ()
