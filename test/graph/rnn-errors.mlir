// RUN: dlc-opt %s --split-input-file --verify-diagnostics

// The verifier of `graph.rnn`, one error per chunk.

func.func @unknown_cell(%xp: tensor<5x2x4xf32>, %r: tensor<1x4x4xf32>, %rb: tensor<1x4xf32>, %h0: tensor<1x2x4xf32>) {
  // expected-error @+1 {{'graph.rnn' op attribute 'cell' must be "lstm", "gru" or "rnn", but got "elman"}}
  %y, %h = graph.rnn %xp, %r, %rb, %h0 {cell = "elman"} : (tensor<5x2x4xf32>, tensor<1x4x4xf32>, tensor<1x4xf32>, tensor<1x2x4xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>)
  return
}

// -----

func.func @bad_direction(%xp: tensor<5x2x4xf32>, %r: tensor<1x4x4xf32>, %rb: tensor<1x4xf32>, %h0: tensor<1x2x4xf32>) {
  // expected-error @+1 {{attribute 'direction' must be "forward", "reverse" or "bidirectional", but got "up"}}
  %y, %h = graph.rnn %xp, %r, %rb, %h0 {cell = "rnn", direction = "up"} : (tensor<5x2x4xf32>, tensor<1x4x4xf32>, tensor<1x4xf32>, tensor<1x2x4xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>)
  return
}

// -----

func.func @lstm_without_cell_state(%xp: tensor<5x2x16xf32>, %r: tensor<1x4x16xf32>, %rb: tensor<1x16xf32>, %h0: tensor<1x2x4xf32>) {
  // expected-error @+1 {{expects 6 operands (xp, r, rb, h0, c0, p) and an optional sequence_lens for a lstm cell, but has 4}}
  %y, %h, %c = graph.rnn %xp, %r, %rb, %h0 {cell = "lstm"} : (tensor<5x2x16xf32>, tensor<1x4x16xf32>, tensor<1x16xf32>, tensor<1x2x4xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>)
  return
}

// -----

func.func @wrong_gate_count(%xp: tensor<5x2x8xf32>, %r: tensor<1x4x8xf32>, %rb: tensor<1x8xf32>, %h0: tensor<1x2x4xf32>) {
  // expected-error @+1 {{operand #0 (xp) must have shape [T, B, D·G·H] = 5x2x12 for 1 direction of 3 gru gates, but has 5x2x8}}
  %y, %h = graph.rnn %xp, %r, %rb, %h0 {cell = "gru"} : (tensor<5x2x8xf32>, tensor<1x4x8xf32>, tensor<1x8xf32>, tensor<1x2x4xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>)
  return
}

// -----

func.func @bidirectional_state(%xp: tensor<5x2x8xf32>, %r: tensor<2x4x4xf32>, %rb: tensor<2x4xf32>, %h0: tensor<1x2x4xf32>) {
  // expected-error @+1 {{operand #3 (h0) must have shape [D, B, H] = 2x2x4 for 2 directions of 1 rnn gates, but has 1x2x4}}
  %y, %h = graph.rnn %xp, %r, %rb, %h0 {cell = "rnn", direction = "bidirectional"} : (tensor<5x2x8xf32>, tensor<2x4x4xf32>, tensor<2x4xf32>, tensor<1x2x4xf32>) -> (tensor<5x2x2x4xf32>, tensor<2x2x4xf32>)
  return
}

// -----

func.func @float_lengths(%xp: tensor<5x2x4xf32>, %r: tensor<1x4x4xf32>, %rb: tensor<1x4xf32>, %h0: tensor<1x2x4xf32>, %lens: tensor<2xf32>) {
  // expected-error @+1 {{operand #4 (sequence_lens) must be a tensor of i32 or i64 values}}
  %y, %h = graph.rnn %xp, %r, %rb, %h0, %lens {cell = "rnn"} : (tensor<5x2x4xf32>, tensor<1x4x4xf32>, tensor<1x4xf32>, tensor<1x2x4xf32>, tensor<2xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>)
  return
}

// -----

func.func @too_few_activations(%xp: tensor<5x2x4xf32>, %r: tensor<1x4x4xf32>, %rb: tensor<1x4xf32>, %h0: tensor<2x2x4xf32>) {
  // expected-error @+1 {{attribute 'activations' must name 2 functions (1 per direction for rnn), but has 1}}
  %y, %h = graph.rnn %xp, %r, %rb, %h0 {cell = "rnn", direction = "bidirectional", activations = ["relu"]} : (tensor<5x2x4xf32>, tensor<1x4x4xf32>, tensor<1x4xf32>, tensor<2x2x4xf32>) -> (tensor<5x2x2x4xf32>, tensor<2x2x4xf32>)
  return
}

// -----

func.func @unknown_activation(%xp: tensor<5x2x4xf32>, %r: tensor<1x4x4xf32>, %rb: tensor<1x4xf32>, %h0: tensor<1x2x4xf32>) {
  // expected-error @+1 {{attribute 'activations': unknown activation "gelu"}}
  %y, %h = graph.rnn %xp, %r, %rb, %h0 {cell = "rnn", activations = ["gelu"]} : (tensor<5x2x4xf32>, tensor<1x4x4xf32>, tensor<1x4xf32>, tensor<1x2x4xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>)
  return
}

// -----

func.func @alpha_count(%xp: tensor<5x2x4xf32>, %r: tensor<1x4x4xf32>, %rb: tensor<1x4xf32>, %h0: tensor<1x2x4xf32>) {
  // expected-error @+1 {{attribute 'activation_alpha' must have one value per activation (1), but has 2}}
  %y, %h = graph.rnn %xp, %r, %rb, %h0 {cell = "rnn", activations = ["leaky_relu"], activation_alpha = array<f64: 0.1, 0.2>} : (tensor<5x2x4xf32>, tensor<1x4x4xf32>, tensor<1x4xf32>, tensor<1x2x4xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>)
  return
}

// -----

func.func @negative_clip(%xp: tensor<5x2x4xf32>, %r: tensor<1x4x4xf32>, %rb: tensor<1x4xf32>, %h0: tensor<1x2x4xf32>) {
  // expected-error @+1 {{attribute 'clip' must be positive, but is -1}}
  %y, %h = graph.rnn %xp, %r, %rb, %h0 {cell = "rnn", clip = -1.0 : f64} : (tensor<5x2x4xf32>, tensor<1x4x4xf32>, tensor<1x4xf32>, tensor<1x2x4xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>)
  return
}

// -----

func.func @reset_on_lstm(%xp: tensor<5x2x16xf32>, %r: tensor<1x4x16xf32>, %rb: tensor<1x16xf32>, %h0: tensor<1x2x4xf32>, %p: tensor<1x12xf32>) {
  // expected-error @+1 {{attribute 'linear_before_reset' applies to gru cells only}}
  %y, %h, %c = graph.rnn %xp, %r, %rb, %h0, %h0, %p {cell = "lstm", linear_before_reset} : (tensor<5x2x16xf32>, tensor<1x4x16xf32>, tensor<1x16xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x12xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>)
  return
}

// -----

func.func @missing_cell_result(%xp: tensor<5x2x16xf32>, %r: tensor<1x4x16xf32>, %rb: tensor<1x16xf32>, %h0: tensor<1x2x4xf32>, %p: tensor<1x12xf32>) {
  // expected-error @+1 {{expects 3 results for a lstm cell, but has 2}}
  %y, %h = graph.rnn %xp, %r, %rb, %h0, %h0, %p {cell = "lstm"} : (tensor<5x2x16xf32>, tensor<1x4x16xf32>, tensor<1x16xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x12xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>)
  return
}

// -----

func.func @wrong_result(%xp: tensor<5x2x4xf32>, %r: tensor<1x4x4xf32>, %rb: tensor<1x4xf32>, %h0: tensor<1x2x4xf32>) {
  // expected-error @+1 {{result #0 (y) has type 'tensor<5x2x4xf32>', but the operands give tensor<5x1x2x4xf32>}}
  %y, %h = graph.rnn %xp, %r, %rb, %h0 {cell = "rnn"} : (tensor<5x2x4xf32>, tensor<1x4x4xf32>, tensor<1x4xf32>, tensor<1x2x4xf32>) -> (tensor<5x2x4xf32>, tensor<1x2x4xf32>)
  return
}
