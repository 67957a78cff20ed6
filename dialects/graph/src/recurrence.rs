//! `graph.rnn`: the recurrence of one LSTM, GRU or simple RNN layer, as one op.
//!
//! A recurrent layer is a GEMM over every time step (the input projection `X·Wᵀ + Wb`, which
//! does not depend on the state) followed by a serial scan whose step is a small matvec with the
//! recurrent weights and some gate math. The GEMM stays a `graph.matmul`; the scan is this op,
//! so that `lower` can build it as one kernel (a serial time loop holding the step) instead of a
//! chain of tiny ops per step, and the time dim may stay `?`.
//!
//! ```text
//! %y, %y_h, %y_c = graph.rnn %xp, %r, %rb, %h0, %c0, %p, %lens {cell = "lstm", direction = "forward"}
//!     : (tensor<?x2x16xf32>, tensor<1x4x16xf32>, tensor<1x16xf32>, tensor<1x2x4xf32>,
//!        tensor<1x2x4xf32>, tensor<1x12xf32>, tensor<2xi32>)
//!     -> (tensor<?x1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>)
//! ```
//!
//! With `T` steps, batch `B`, hidden size `H`, `D` directions (2 for `bidirectional`) and `G`
//! gates per cell (lstm 4 in the order i, o, f, c; gru 3: z, r, h; rnn 1), the operands are:
//! `xp: [T, B, D·G·H]` the projected inputs (direction `d` in columns `[d·G·H, (d+1)·G·H)`),
//! `r: [D, H, G·H]` the recurrent weights as the right operand of the step's product (ONNX's
//! `R` transposed, as `graph.linear` takes its weights), `rb: [D, G·H]` the recurrent bias, `h0: [D, B, H]` the
//! initial state; for lstm also `c0: [D, B, H]` and the peepholes `p: [D, 3·H]` (i, o, f); and
//! optionally last `sequence_lens: [B]` (i32 or i64). The results are `y: [T, D, B, H]`,
//! `y_h: [D, B, H]` and for lstm `y_c: [D, B, H]`.
//!
//! The step of direction `d` at time `t` computes `g = xp[t, :, d] + h·r[d] + rb[d]` and then,
//! with the direction's activations `f, g, h` (ONNX's names) and `clip` applied to every gate
//! before its activation (not to the cell state before `h`, as onnxruntime):
//! - lstm: `i = f(g_i + p_i⊙c)`, `f = f(g_f + p_f⊙c)` (`1 − i` with `input_forget`),
//!   `c' = f⊙c + i⊙g(g_c)`, `o = f(g_o + p_o⊙c')`, `h' = o⊙h(c')`;
//! - gru: `z = f(g_z)`, `r = f(g_r)`, `ĥ = g(g_h)` where the `h` row of the matvec multiplies
//!   `r⊙h` (with `linear_before_reset`, `r⊙(h·r_h + rb_h)` instead), `h' = (1 − z)⊙ĥ + z⊙h`;
//! - rnn: `h' = f(g)`.
//!
//! Forward directions walk `t = 0..len`, reverse ones `t = len−1..0` (`len` the batch entry's
//! sequence length, `T` without `sequence_lens`, clamped to `[0, T]`); `y[t]` holds `h'` and
//! is 0 at `t ≥ len`; `y_h`/`y_c` are the states after the last step (0 when `len` is 0, as
//! onnxruntime has it).
//!
//! Attributes: `cell` (`"lstm"`, `"gru"`, `"rnn"`), `direction` (`"forward"` (default),
//! `"reverse"`, `"bidirectional"`), `activations` (an array of names, one per cell function and
//! direction: 3 per direction for lstm, 2 for gru, 1 for rnn; default sigmoid/tanh/tanh,
//! sigmoid/tanh, tanh), `activation_alpha` and `activation_beta` (`array<f64: ...>`, one per
//! activation, each the default of its function when absent), `clip` (a float > 0),
//! `linear_before_reset` and `input_forget` (bools, gru and lstm only).

use crate::verify::{
    dims_compatible, shape_str, tensor_parts, types_compatible, Attrs, TensorType,
};
use dlc_ir::{
    AttrKind, Attribute, Context, Diagnostic, InsertPoint, Location, NamedAttr, Op, OpSpec,
    Printer, Type, Value, DYNAMIC,
};

/// The cell of a recurrent layer.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Cell {
    /// Long short-term memory: gates i, o, f, c and a cell state.
    Lstm,
    /// Gated recurrent unit: gates z, r, h.
    Gru,
    /// A simple (Elman) RNN: one gate.
    Rnn,
}

impl Cell {
    /// The gates per direction (`G`).
    pub fn gates(self) -> usize {
        match self {
            Cell::Lstm => 4,
            Cell::Gru => 3,
            Cell::Rnn => 1,
        }
    }

    /// The activation functions per direction.
    pub fn functions(self) -> usize {
        match self {
            Cell::Lstm => 3,
            Cell::Gru => 2,
            Cell::Rnn => 1,
        }
    }

    /// The results: `y`, `y_h`, and `y_c` for lstm.
    pub fn results(self) -> usize {
        if self == Cell::Lstm {
            3
        } else {
            2
        }
    }

    /// The operands without `sequence_lens`: `xp, r, rb, h0`, and `c0, p` for lstm.
    pub fn operands(self) -> usize {
        if self == Cell::Lstm {
            6
        } else {
            4
        }
    }

    fn default_functions(self) -> &'static [ActivationKind] {
        use ActivationKind::*;
        match self {
            Cell::Lstm => &[Sigmoid, Tanh, Tanh],
            Cell::Gru => &[Sigmoid, Tanh],
            Cell::Rnn => &[Tanh],
        }
    }

    /// The attribute spelling.
    pub fn name(self) -> &'static str {
        match self {
            Cell::Lstm => "lstm",
            Cell::Gru => "gru",
            Cell::Rnn => "rnn",
        }
    }
}

/// The direction attribute.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Direction {
    Forward,
    Reverse,
    Bidirectional,
}

impl Direction {
    /// `D`: 2 for bidirectional, else 1.
    pub fn count(self) -> usize {
        if self == Direction::Bidirectional {
            2
        } else {
            1
        }
    }

    /// Whether direction number `d` walks time backwards.
    pub fn is_reverse(self, d: usize) -> bool {
        self == Direction::Reverse || (self == Direction::Bidirectional && d == 1)
    }
}

/// The activation functions of the ONNX recurrent operators.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum ActivationKind {
    Relu,
    Tanh,
    Sigmoid,
    /// `α·x + β`.
    Affine,
    /// `x ≥ 0 ? x : α·x`.
    LeakyRelu,
    /// `x > α ? x : 0`.
    ThresholdedRelu,
    /// `α·tanh(β·x)`.
    ScaledTanh,
    /// `max(0, min(1, α·x + β))`.
    HardSigmoid,
    /// `x ≥ 0 ? x : α·(eˣ − 1)`.
    Elu,
    /// `x / (1 + |x|)`.
    Softsign,
    /// `log(1 + eˣ)`.
    Softplus,
}

impl ActivationKind {
    /// Every function with its attribute spelling.
    pub const ALL: [(&'static str, ActivationKind); 11] = [
        ("relu", ActivationKind::Relu),
        ("tanh", ActivationKind::Tanh),
        ("sigmoid", ActivationKind::Sigmoid),
        ("affine", ActivationKind::Affine),
        ("leaky_relu", ActivationKind::LeakyRelu),
        ("thresholded_relu", ActivationKind::ThresholdedRelu),
        ("scaled_tanh", ActivationKind::ScaledTanh),
        ("hard_sigmoid", ActivationKind::HardSigmoid),
        ("elu", ActivationKind::Elu),
        ("softsign", ActivationKind::Softsign),
        ("softplus", ActivationKind::Softplus),
    ];

    /// The function spelled `name` in the `activations` attribute.
    pub fn from_name(name: &str) -> Option<ActivationKind> {
        Self::ALL.iter().find(|(n, _)| *n == name).map(|(_, k)| *k)
    }

    /// The attribute spelling.
    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(_, k)| *k == self)
            .map_or("?", |(n, _)| n)
    }

    /// Whether the function reads `α` (the ONNX spec: those with an alpha attribute).
    pub fn takes_alpha(self) -> bool {
        use ActivationKind::*;
        matches!(
            self,
            Affine | LeakyRelu | ThresholdedRelu | ScaledTanh | HardSigmoid | Elu
        )
    }

    /// Whether the function reads `β`.
    pub fn takes_beta(self) -> bool {
        use ActivationKind::*;
        matches!(self, Affine | ScaledTanh | HardSigmoid)
    }

    /// ONNX's default `α` and `β` for the function.
    pub fn defaults(self) -> (f64, f64) {
        use ActivationKind::*;
        match self {
            LeakyRelu => (0.01, 0.0),
            HardSigmoid => (0.2, 0.5),
            ScaledTanh => (1.0, 1.0),
            Affine | ThresholdedRelu | Elu => (1.0, 0.0),
            Relu | Tanh | Sigmoid | Softsign | Softplus => (0.0, 0.0),
        }
    }
}

/// One activation with its parameters.
#[derive(Copy, Clone, PartialEq, Debug)]
pub struct Activation {
    pub kind: ActivationKind,
    pub alpha: f64,
    pub beta: f64,
}

impl Activation {
    /// The function at `x`, in `f64` (the interpreter's arithmetic).
    pub fn apply(&self, x: f64) -> f64 {
        use ActivationKind::*;
        let (a, b) = (self.alpha, self.beta);
        match self.kind {
            Relu => x.max(0.0),
            Tanh => x.tanh(),
            Sigmoid => 1.0 / (1.0 + (-x).exp()),
            Affine => a * x + b,
            LeakyRelu => {
                if x >= 0.0 {
                    x
                } else {
                    a * x
                }
            }
            ThresholdedRelu => {
                if x > a {
                    x
                } else {
                    0.0
                }
            }
            ScaledTanh => a * (b * x).tanh(),
            HardSigmoid => (a * x + b).clamp(0.0, 1.0),
            Elu => {
                if x >= 0.0 {
                    x
                } else {
                    a * (x.exp() - 1.0)
                }
            }
            Softsign => x / (1.0 + x.abs()),
            Softplus => x.exp().ln_1p(),
        }
    }
}

/// The attributes of a `graph.rnn`, checked and with their defaults filled in.
#[derive(Clone, PartialEq, Debug)]
pub struct RnnSpec {
    pub cell: Cell,
    pub direction: Direction,
    /// [`Cell::functions`] per direction, direction 0 first.
    pub activations: Vec<Activation>,
    /// Gate pre-activations are clamped to `[−clip, clip]`.
    pub clip: Option<f64>,
    /// gru: apply the reset gate after the recurrent product.
    pub linear_before_reset: bool,
    /// lstm: the forget gate is `1 − i`.
    pub input_forget: bool,
}

impl RnnSpec {
    /// Reads the spec from an op's attributes.
    pub fn from_attrs(ctx: &Context, attrs: &[NamedAttr]) -> Result<RnnSpec, String> {
        let a = Attrs::new(ctx, attrs);
        let cell = match a.string("cell")? {
            Some("lstm") => Cell::Lstm,
            Some("gru") => Cell::Gru,
            Some("rnn") => Cell::Rnn,
            Some(other) => {
                return Err(format!(
                    "attribute 'cell' must be \"lstm\", \"gru\" or \"rnn\", but got \"{other}\""
                ))
            }
            None => return Err("requires string attribute 'cell'".into()),
        };
        let direction = match a.string("direction")? {
            None | Some("forward") => Direction::Forward,
            Some("reverse") => Direction::Reverse,
            Some("bidirectional") => Direction::Bidirectional,
            Some(other) => {
                return Err(format!(
                    "attribute 'direction' must be \"forward\", \"reverse\" or \"bidirectional\", but got \"{other}\""
                ))
            }
        };
        let count = cell.functions() * direction.count();
        let kinds: Vec<ActivationKind> = match a.get("activations") {
            None => (0..direction.count())
                .flat_map(|_| cell.default_functions().iter().copied())
                .collect(),
            Some(list) => {
                let AttrKind::Array(items) = ctx.attr_kind(list) else {
                    return Err("attribute 'activations' must be an array of strings".into());
                };
                let mut kinds = Vec::new();
                for item in items.iter() {
                    let name = ctx
                        .attr_as_str(*item)
                        .ok_or("attribute 'activations' must be an array of strings")?;
                    kinds.push(ActivationKind::from_name(name).ok_or_else(|| {
                        format!("attribute 'activations': unknown activation \"{name}\"")
                    })?);
                }
                kinds
            }
        };
        if kinds.len() != count {
            return Err(format!(
                "attribute 'activations' must name {count} functions ({} per direction for {}), but has {}",
                cell.functions(),
                cell.name(),
                kinds.len()
            ));
        }
        let params = |name: &str| -> Result<Option<Vec<f64>>, String> {
            let Some(attr) = a.get(name) else {
                return Ok(None);
            };
            match ctx.attr_kind(attr) {
                AttrKind::DenseArray { element, values } if *element == Type::F64 => {
                    if values.len() != count {
                        return Err(format!(
                            "attribute '{name}' must have one value per activation ({count}), but has {}",
                            values.len()
                        ));
                    }
                    Ok(Some(
                        values.iter().map(|b| f64::from_bits(*b as u64)).collect(),
                    ))
                }
                _ => Err(format!(
                    "attribute '{name}' must be an array<f64: ...> attribute"
                )),
            }
        };
        let (alphas, betas) = (params("activation_alpha")?, params("activation_beta")?);
        let activations = kinds
            .iter()
            .enumerate()
            .map(|(i, &kind)| {
                let (alpha, beta) = kind.defaults();
                Activation {
                    kind,
                    alpha: alphas.as_ref().map_or(alpha, |v| v[i]),
                    beta: betas.as_ref().map_or(beta, |v| v[i]),
                }
            })
            .collect();
        let clip = a.float("clip")?;
        if let Some(c) = clip {
            if c.is_nan() || c <= 0.0 {
                return Err(format!("attribute 'clip' must be positive, but is {c}"));
            }
        }
        let linear_before_reset = a.flag("linear_before_reset")?;
        if linear_before_reset && cell != Cell::Gru {
            return Err("attribute 'linear_before_reset' applies to gru cells only".into());
        }
        let input_forget = a.flag("input_forget")?;
        if input_forget && cell != Cell::Lstm {
            return Err("attribute 'input_forget' applies to lstm cells only".into());
        }
        Ok(RnnSpec {
            cell,
            direction,
            activations,
            clip,
            linear_before_reset,
            input_forget,
        })
    }

    /// The spec of `op`.
    pub fn of(ctx: &Context, op: Op) -> Result<RnnSpec, String> {
        RnnSpec::from_attrs(ctx, ctx.attrs(op))
    }

    /// Activation `k` (of [`Cell::functions`]) of direction `d`.
    pub fn activation(&self, d: usize, k: usize) -> Activation {
        self.activations[d * self.cell.functions() + k]
    }
}

/// The operand names, for messages.
const NAMES: [&str; 6] = ["xp", "r", "rb", "h0", "c0", "p"];

/// The result types of a `graph.rnn` with these operand types and attributes, `y` first.
pub fn infer_rnn(
    ctx: &Context,
    operands: &[Type],
    attrs: &[NamedAttr],
) -> Result<Vec<TensorType>, String> {
    let spec = RnnSpec::from_attrs(ctx, attrs)?;
    let cell = spec.cell;
    let n = cell.operands();
    if operands.len() != n && operands.len() != n + 1 {
        return Err(format!(
            "expects {n} operands ({}) and an optional sequence_lens for a {} cell, but has {}",
            NAMES[..n].join(", "),
            cell.name(),
            operands.len()
        ));
    }
    let mut ts = Vec::new();
    for (i, &ty) in operands.iter().enumerate() {
        let name = NAMES.get(i).copied().unwrap_or("sequence_lens");
        let t = tensor_parts(ctx, ty)
            .ok_or_else(|| format!("operand #{i} ({name}) must be a tensor"))?;
        ts.push(t);
    }
    let elem = ts[0].element;
    if ![Type::F16, Type::BF16, Type::F32, Type::F64].contains(&elem) {
        return Err("operand #0 (xp) must be a tensor of f16, bf16, f32 or f64 values".into());
    }
    let rank = |i: usize, r: usize| -> Result<(), String> {
        if ts[i].shape.len() != r {
            return Err(format!(
                "operand #{i} ({}) must have rank {r}, but has shape {}",
                NAMES.get(i).copied().unwrap_or("sequence_lens"),
                shape_str(&ts[i].shape)
            ));
        }
        Ok(())
    };
    for i in 0..n {
        if ts[i].element != elem {
            return Err(format!(
                "operand #{i} ({}) must have the element type of xp",
                NAMES[i]
            ));
        }
        rank(i, if i == 2 || i == 5 { 2 } else { 3 })?;
    }
    let (d, g) = (spec.direction.count() as i64, cell.gates() as i64);
    let hidden = ts[1].shape[1];
    let (steps, batch) = (ts[0].shape[0], ts[0].shape[1]);
    let gh = if hidden == DYNAMIC {
        DYNAMIC
    } else {
        g * hidden
    };
    let dgh = if hidden == DYNAMIC { DYNAMIC } else { d * gh };
    let mut expect = vec![
        (0, vec![steps, batch, dgh], "[T, B, D·G·H]"),
        (1, vec![d, hidden, gh], "[D, H, G·H]"),
        (2, vec![d, gh], "[D, G·H]"),
        (3, vec![d, batch, hidden], "[D, B, H]"),
    ];
    if cell == Cell::Lstm {
        let ph = if hidden == DYNAMIC {
            DYNAMIC
        } else {
            3 * hidden
        };
        expect.push((4, vec![d, batch, hidden], "[D, B, H]"));
        expect.push((5, vec![d, ph], "[D, 3·H]"));
    }
    for (i, want, form) in expect {
        let got = &ts[i].shape;
        if !got.iter().zip(&want).all(|(a, b)| dims_compatible(*a, *b)) {
            return Err(format!(
                "operand #{i} ({}) must have shape {form} = {} for {} direction{} of {} {} gates, but has {}",
                NAMES[i],
                shape_str(&want),
                d,
                if d == 1 { "" } else { "s" },
                g,
                cell.name(),
                shape_str(got)
            ));
        }
    }
    if let Some(lens) = ts.get(n) {
        if ![Type::I32, Type::I64].contains(&lens.element) {
            return Err(format!(
                "operand #{n} (sequence_lens) must be a tensor of i32 or i64 values"
            ));
        }
        if lens.shape.len() != 1 || !dims_compatible(lens.shape[0], batch) {
            return Err(format!(
                "operand #{n} (sequence_lens) must have shape [B] = {}, but has {}",
                shape_str(&[batch]),
                shape_str(&lens.shape)
            ));
        }
    }
    let batch = if batch == DYNAMIC {
        ts[3].shape[1]
    } else {
        batch
    };
    let state = TensorType {
        shape: vec![d, batch, hidden],
        element: elem,
    };
    let mut out = vec![
        TensorType {
            shape: vec![steps, d, batch, hidden],
            element: elem,
        },
        state.clone(),
    ];
    if cell == Cell::Lstm {
        out.push(state);
    }
    Ok(out)
}

/// Verifies a `graph.rnn`: its operands (through [`infer_rnn`]), then each result against the
/// inferred type.
pub(crate) fn verify_rnn(ctx: &Context, op: Op) -> Result<(), String> {
    let operands: Vec<Type> = ctx
        .operands(op)
        .iter()
        .map(|v| ctx.value_type(*v))
        .collect();
    let inferred = infer_rnn(ctx, &operands, ctx.attrs(op))?;
    if ctx.num_results(op) != inferred.len() {
        return Err(format!(
            "expects {} results for a {} cell, but has {}",
            inferred.len(),
            RnnSpec::of(ctx, op)?.cell.name(),
            ctx.num_results(op)
        ));
    }
    for (i, (r, want)) in ctx.results(op).zip(&inferred).enumerate() {
        let ty = ctx.value_type(r);
        let ok = tensor_parts(ctx, ty).is_some_and(|t| types_compatible(&t, want));
        if !ok {
            let p = Printer::new(ctx);
            return Err(format!(
                "result #{i} ({}) has type '{}', but the operands give tensor<{}x{}>",
                ["y", "y_h", "y_c"][i],
                p.type_to_string(ty),
                shape_str(&want.shape),
                p.type_to_string(want.element)
            ));
        }
    }
    Ok(())
}

/// Builds `graph.rnn` on `operands` with `attrs`, its result types inferred. Errors are the
/// verifier's, at `loc`.
pub fn build_rnn(
    ctx: &mut Context,
    at: InsertPoint,
    operands: &[Value],
    attrs: &[(&str, Attribute)],
    loc: Location,
) -> Result<Op, Diagnostic> {
    let list = crate::builders::named(ctx, attrs);
    let types: Vec<Type> = operands.iter().map(|v| ctx.value_type(*v)).collect();
    let inferred = infer_rnn(ctx, &types, &list)
        .map_err(|m| Diagnostic::error(loc, format!("'graph.rnn' op {m}")))?;
    let results: Vec<Type> = inferred.iter().map(|t| t.to_type(ctx)).collect();
    let mut spec = OpSpec::new(ctx, "graph.rnn", loc)
        .operands(operands)
        .results(&results);
    spec.attrs = list;
    Ok(ctx.build(at, spec))
}
