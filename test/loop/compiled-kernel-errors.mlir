// RUN: dlc-opt %s --split-input-file --verify-diagnostics

// The verifier's rules for `loop.compiled_kernel`, and for launching one.

// expected-error @+1 {{'loop.compiled_kernel' op 'content' must be a string of 64 hex digits}}
"loop.compiled_kernel"() <{content = "0123", function_type = (!loop.buffer<4xf32, global>) -> (), sym_name = "k", written = array<i64: 0>}> : () -> ()

// -----

// expected-error @+1 {{'loop.compiled_kernel' op 'written' must list buffer arguments in increasing order}}
"loop.compiled_kernel"() <{content = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff", function_type = (!loop.buffer<4xf32, global>, index) -> (), sym_name = "k", written = array<i64: 1>}> : () -> ()

// -----

// expected-error @+1 {{'loop.compiled_kernel' op 'written' must list buffer arguments in increasing order}}
"loop.compiled_kernel"() <{content = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff", function_type = (!loop.buffer<4xf32, global>) -> (), sym_name = "k", written = array<i64: 0, 0>}> : () -> ()

// -----

// expected-error @+1 {{'loop.compiled_kernel' op requires attribute 'written' holding an array<i64> of argument numbers}}
"loop.compiled_kernel"() <{content = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff", function_type = (!loop.buffer<4xf32, global>) -> (), sym_name = "k"}> : () -> ()

// -----

// expected-error @+1 {{'loop.compiled_kernel' op kernels return no values}}
"loop.compiled_kernel"() <{content = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff", function_type = (!loop.buffer<4xf32, global>) -> index, sym_name = "k", written = array<i64>}> : () -> ()

// -----

// A compiled kernel that writes its `loop.noalias` argument cannot get the same buffer twice.
"loop.compiled_kernel"() <{arg_attrs = [{loop.noalias}, {}], content = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff", function_type = (!loop.buffer<4xf32, global>, !loop.buffer<4xf32, global>) -> (), sym_name = "k", written = array<i64: 0>}> : () -> ()

func.func @twice(%a: !loop.buffer<4xf32, global>) {
  // expected-error @+1 {{'loop.launch' op arguments #0 and #1 share memory the kernel writes, but argument #0 of kernel 'k' is 'loop.noalias'}}
  loop.launch @k(%a, %a) : (!loop.buffer<4xf32, global>, !loop.buffer<4xf32, global>) -> ()
  return
}

// -----

// Elements held outside the IR parse, and do not verify until they are put back.
func.func @outside() -> !loop.buffer<2xf32, global> {
  // expected-error @+1 {{'loop.constant' op requires a dense elements attribute 'value'}}
  %c = loop.constant dense_resource<dlc_blob_0> : tensor<2xf32> : !loop.buffer<2xf32, global>
  return %c : !loop.buffer<2xf32, global>
}
