//! Training a classifier end to end with dlc: the handwritten digits of scikit-learn (1,797
//! 8x8 images) learned by an MLP or a small CNN whose whole training step — forward, loss,
//! backward, update — is one compiled dlc program, run in a loop through the Rust API.
//!
//! The step is graph IR written here: `@loss` (softmax cross-entropy of the network's logits),
//! a declaration of `@loss_grad`, which the `grad` pass defines, and `@step`, which calls it
//! and applies SGD with momentum as ONNX's `Momentum` op defines it (standard mode:
//! `v ← α·v + g`, `w ← w − lr·v`). [`STEP_PIPELINE`] differentiates, inlines and compiles it.
//! `@predict` (the logits of the test set) is a second program over the same parameters.
//! The data comes from `digits.py` (beside this crate's `peers.py`), which also times the same
//! model, batch and update in PyTorch eager.

use dlc_driver::{Model, ModelOptions};
use dlc_runtime::{read_npy, Tensor};
use dlc_tensor::DType;
use dlc_testkit::Rng;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The pass pipeline of the training step: `grad` defines `@loss_grad`, `inline` puts it and
/// `@loss` into `@step`, `symbol-dce` drops them, and the usual graph pipeline compiles.
pub const STEP_PIPELINE: &str =
    "grad{func=loss wrt=0,1,2,3},inline,symbol-dce,decompose,fuse,lower,cpu-default";

/// The networks.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Net {
    /// 64 → 64 (ReLU) → 10.
    Mlp,
    /// conv 3x3 (8 channels, padded) → ReLU → 2x2 max pool → 128 → 10.
    Cnn,
}

impl Net {
    /// Its name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Net::Mlp => "mlp",
            Net::Cnn => "cnn",
        }
    }

    /// The parameters' shapes, in argument order.
    pub fn params(self) -> Vec<Vec<usize>> {
        match self {
            Net::Mlp => vec![vec![64, 64], vec![64], vec![64, 10], vec![10]],
            Net::Cnn => vec![vec![8, 1, 3, 3], vec![8, 1, 1], vec![128, 10], vec![10]],
        }
    }

    /// The network's logits for `x: [n, 64]` as graph IR lines, the parameters named
    /// `%p0`..`%p3`; the logits are `%logits`.
    fn forward(self, n: usize) -> String {
        match self {
            Net::Mlp => format!(
                "  %h0 = graph.matmul %x, %p0 : tensor<{n}x64xf32>, tensor<64x64xf32> -> tensor<{n}x64xf32>
  %h1 = graph.add %h0, %p1 : tensor<{n}x64xf32>, tensor<64xf32> -> tensor<{n}x64xf32>
  %h2 = graph.relu %h1 : tensor<{n}x64xf32>
  %h3 = graph.matmul %h2, %p2 : tensor<{n}x64xf32>, tensor<64x10xf32> -> tensor<{n}x10xf32>
  %logits = graph.add %h3, %p3 : tensor<{n}x10xf32>, tensor<10xf32> -> tensor<{n}x10xf32>
"
            ),
            Net::Cnn => format!(
                "  %i = graph.reshape %x {{shape = array<i64: {n}, 1, 8, 8>}} : tensor<{n}x64xf32> -> tensor<{n}x1x8x8xf32>
  %c0 = graph.conv2d %i, %p0 {{strides = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64}} : tensor<{n}x1x8x8xf32>, tensor<8x1x3x3xf32> -> tensor<{n}x8x8x8xf32>
  %c1 = graph.add %c0, %p1 : tensor<{n}x8x8x8xf32>, tensor<8x1x1xf32> -> tensor<{n}x8x8x8xf32>
  %c2 = graph.relu %c1 : tensor<{n}x8x8x8xf32>
  %c3 = graph.max_pool2d %c2 {{kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>}} : tensor<{n}x8x8x8xf32> -> tensor<{n}x8x4x4xf32>
  %c4 = graph.reshape %c3 {{shape = array<i64: {n}, 128>}} : tensor<{n}x8x4x4xf32> -> tensor<{n}x128xf32>
  %c5 = graph.matmul %c4, %p2 : tensor<{n}x128xf32>, tensor<128x10xf32> -> tensor<{n}x10xf32>
  %logits = graph.add %c5, %p3 : tensor<{n}x10xf32>, tensor<10xf32> -> tensor<{n}x10xf32>
"
            ),
        }
    }

    /// The parameters as typed arguments, `%p0: tensor<...>, ...`, and their types alone.
    fn param_args(self, prefix: &str) -> (String, Vec<String>) {
        let types: Vec<String> = self.params().iter().map(|s| tensor_type(s)).collect();
        let args = types
            .iter()
            .enumerate()
            .map(|(i, t)| format!("%{prefix}{i}: {t}"))
            .collect::<Vec<_>>()
            .join(", ");
        (args, types)
    }
}

/// `tensor<AxBxf32>`.
fn tensor_type(shape: &[usize]) -> String {
    let mut s = String::from("tensor<");
    for d in shape {
        let _ = write!(s, "{d}x");
    }
    s + "f32>"
}

/// The training step's module for batches of `batch`, with learning rate `lr` and momentum
/// `alpha`: `@loss`, the declaration of `@loss_grad` and `@step(params, velocities, x, y)` →
/// `(loss, params, velocities)`, `y` one-hot.
pub fn step_module(net: Net, batch: usize, lr: f64, alpha: f64) -> String {
    let (params, types) = net.param_args("p");
    let (velocities, _) = net.param_args("v");
    let b = batch;
    let list = types.join(", ");
    let names = |p: &str| {
        (0..types.len())
            .map(|i| format!("%{p}{i}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut text = format!(
        "func.func private @loss({params}, %x: tensor<{b}x64xf32>, %y: tensor<{b}x10xf32>) -> tensor<f32> {{
{forward}  %lp = graph.log_softmax %logits {{axis = 1 : i64}} : tensor<{b}x10xf32>
  %ly = graph.mul %lp, %y : tensor<{b}x10xf32>
  %ls = graph.reduce_sum %ly {{axes = array<i64: 0, 1>, keepdim = false}} : tensor<{b}x10xf32> -> tensor<f32>
  %scale = graph.constant dense<{scale:.9e}> : tensor<f32>
  %loss = graph.mul %ls, %scale : tensor<f32>
  return %loss : tensor<f32>
}}
func.func private @loss_grad({list}, tensor<{b}x64xf32>, tensor<{b}x10xf32>) -> (tensor<f32>, {list})
func.func @step({params}, {velocities}, %x: tensor<{b}x64xf32>, %y: tensor<{b}x10xf32>) -> (tensor<f32>, {list}, {list}) {{
  %l, {grads} = func.call @loss_grad({pnames}, %x, %y) : ({list}, tensor<{b}x64xf32>, tensor<{b}x10xf32>) -> (tensor<f32>, {list})
  %alpha = graph.constant dense<{alpha:.9e}> : tensor<1xf32>
  %lr = graph.constant dense<{lr:.9e}> : tensor<1xf32>
",
        forward = net.forward(b),
        scale = -1.0 / b as f64,
        grads = names("g"),
        pnames = names("p"),
    );
    for (i, t) in types.iter().enumerate() {
        let _ = write!(
            text,
            "  %va{i} = graph.mul %v{i}, %alpha : {t}, tensor<1xf32> -> {t}
  %vn{i} = graph.add %va{i}, %g{i} : {t}
  %st{i} = graph.mul %vn{i}, %lr : {t}, tensor<1xf32> -> {t}
  %pn{i} = graph.sub %p{i}, %st{i} : {t}
"
        );
    }
    let _ = write!(
        text,
        "  return %l, {}, {} : tensor<f32>, {list}, {list}\n}}\n",
        names("pn"),
        names("vn")
    );
    text
}

/// `@predict(params, x: [n, 64]) -> [n, 10]`: the logits.
pub fn predict_module(net: Net, n: usize) -> String {
    let (params, _) = net.param_args("p");
    format!(
        "func.func @predict({params}, %x: tensor<{n}x64xf32>) -> tensor<{n}x10xf32> {{
{}  return %logits : tensor<{n}x10xf32>
}}
",
        net.forward(n)
    )
}

/// The digits as `digits.py` writes them: images scaled to [0, 1], labels 0..9.
pub struct Digits {
    /// `[n, 64]` training images, row-major.
    pub x_train: Vec<f32>,
    pub y_train: Vec<usize>,
    pub x_test: Vec<f32>,
    pub y_test: Vec<usize>,
}

impl Digits {
    /// Reads `x_train.npy`, `y_train.npy`, `x_test.npy` and `y_test.npy` from `dir`.
    pub fn load(dir: &Path) -> Result<Digits, String> {
        let read = |name: &str| -> Result<Vec<f64>, String> {
            let path = dir.join(name);
            let t = read_npy(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            Ok(t.to_literal().to_f64_vec())
        };
        let images = |v: Vec<f64>| v.into_iter().map(|x| x as f32).collect::<Vec<_>>();
        let labels = |v: Vec<f64>| -> Result<Vec<usize>, String> {
            v.into_iter()
                .map(|y| {
                    (y.fract() == 0.0 && (0.0..10.0).contains(&y))
                        .then_some(y as usize)
                        .ok_or_else(|| format!("label {y} is not a digit"))
                })
                .collect()
        };
        let digits = Digits {
            x_train: images(read("x_train.npy")?),
            y_train: labels(read("y_train.npy")?)?,
            x_test: images(read("x_test.npy")?),
            y_test: labels(read("y_test.npy")?)?,
        };
        if digits.x_train.len() != 64 * digits.y_train.len()
            || digits.x_test.len() != 64 * digits.y_test.len()
        {
            return Err(format!(
                "{}: the images are not 64 values per label",
                dir.display()
            ));
        }
        Ok(digits)
    }
}

/// How to train.
#[derive(Clone, Debug)]
pub struct TrainOptions {
    pub net: Net,
    pub epochs: usize,
    pub batch: usize,
    pub lr: f64,
    pub momentum: f64,
    /// Seeds the initial weights and the order of the examples.
    pub seed: u64,
}

impl TrainOptions {
    /// The settings the docs report for `net`.
    pub fn for_net(net: Net) -> TrainOptions {
        TrainOptions {
            net,
            epochs: match net {
                Net::Mlp => 30,
                Net::Cnn => 20,
            },
            batch: 32,
            lr: 0.05,
            momentum: 0.9,
            seed: 1,
        }
    }
}

/// What a training run measured.
pub struct Trained {
    /// The loss of every step.
    pub losses: Vec<f32>,
    /// The share of test images classified right after the last epoch.
    pub accuracy: f64,
    /// The median time of a training step (the compiled step's run, batch copies included).
    pub step_ms: f64,
    /// Compiling the step and the prediction, ms.
    pub compile_ms: f64,
    /// The whole run, compile included, s.
    pub total_s: f64,
}

/// Initial parameters: weights uniform in ±√(6/(fan_in + fan_out)) (Glorot), biases 0.
pub fn initial_params(net: Net, rng: &mut Rng) -> Result<Vec<Tensor>, String> {
    net.params()
        .iter()
        .enumerate()
        .map(|(i, shape)| {
            let n: usize = shape.iter().product();
            let values: Vec<f32> = if i % 2 == 1 {
                vec![0.0; n]
            } else {
                let (fan_in, fan_out) = match shape.len() {
                    4 => (
                        shape[1] * shape[2] * shape[3],
                        shape[0] * shape[2] * shape[3],
                    ),
                    _ => (shape[0], shape[1]),
                };
                let bound = (6.0 / (fan_in + fan_out) as f64).sqrt();
                (0..n)
                    .map(|_| ((rng.unit() * 2.0 - 1.0) * bound) as f32)
                    .collect()
            };
            Tensor::from_f32(shape, &values).map_err(|e| e.to_string())
        })
        .collect()
}

/// Compiles `text` with `pipeline` (the graph pipeline when `None`) and entry `entry`.
fn compile(text: &str, entry: &str, pipeline: Option<&str>) -> Result<Model, String> {
    let options = ModelOptions {
        pipeline: pipeline.map(str::to_string),
        entry: Some(entry.to_string()),
        ..Default::default()
    };
    Model::compile(text, entry, &options)
}

/// Trains `options.net` on `data` and measures it.
pub fn train(data: &Digits, options: &TrainOptions) -> Result<Trained, String> {
    if options.batch == 0 || options.epochs == 0 {
        return Err("the batch and the number of epochs must be at least 1".into());
    }
    if options.batch > data.y_train.len() {
        return Err(format!(
            "a batch of {} is more than the {} training images",
            options.batch,
            data.y_train.len()
        ));
    }
    let start = Instant::now();
    let net = options.net;
    let b = options.batch;
    let n_test = data.y_test.len();
    let step_text = step_module(net, b, options.lr, options.momentum);
    let step = compile(&step_text, "step", Some(STEP_PIPELINE))?;
    let predict = compile(&predict_module(net, n_test), "predict", None)?;
    let compile_ms = start.elapsed().as_secs_f64() * 1e3;

    let mut rng = Rng::new(options.seed);
    let mut params = initial_params(net, &mut rng)?;
    let mut velocities: Vec<Tensor> = net
        .params()
        .iter()
        .map(|s| Tensor::zeros(DType::F32, s))
        .collect::<Result<_, _>>()
        .map_err(|e| e.to_string())?;
    let n_train = data.y_train.len();
    let mut order: Vec<usize> = (0..n_train).collect();
    let mut losses = Vec::new();
    let mut times = Vec::new();
    let mut session = step.session();
    let (mut xb, mut yb) = (vec![0f32; b * 64], vec![0f32; b * 10]);
    for _ in 0..options.epochs {
        for i in (1..n_train).rev() {
            order.swap(i, rng.below(i + 1));
        }
        for batch in order.chunks_exact(b) {
            let t0 = Instant::now();
            yb.iter_mut().for_each(|v| *v = 0.0);
            for (row, &k) in batch.iter().enumerate() {
                xb[row * 64..(row + 1) * 64].copy_from_slice(&data.x_train[k * 64..(k + 1) * 64]);
                yb[row * 10 + data.y_train[k]] = 1.0;
            }
            let x = Tensor::from_f32(&[b, 64], &xb).map_err(|e| e.to_string())?;
            let y = Tensor::from_f32(&[b, 10], &yb).map_err(|e| e.to_string())?;
            let mut inputs: Vec<&Tensor> = params.iter().chain(&velocities).collect();
            inputs.push(&x);
            inputs.push(&y);
            let outputs = session.run(&inputs).map_err(|e| e.to_string())?;
            let loss = outputs
                .get(0)
                .and_then(|t| t.to_f64_vec())
                .and_then(|v| v.first().copied())
                .ok_or("the step returned no loss")?;
            let k = params.len();
            let take = |i: usize| -> Result<Tensor, String> {
                outputs
                    .get(i)
                    .ok_or("the step returned too few values")?
                    .to_tensor()
                    .map_err(|e| e.to_string())
            };
            let new_params = (1..=k).map(take).collect::<Result<Vec<_>, _>>()?;
            let new_velocities = (k + 1..=2 * k).map(take).collect::<Result<Vec<_>, _>>()?;
            params = new_params;
            velocities = new_velocities;
            losses.push(loss as f32);
            times.push(t0.elapsed().as_secs_f64() * 1e3);
        }
    }
    let accuracy = evaluate(&predict, &params, data)?;
    times.sort_by(f64::total_cmp);
    Ok(Trained {
        losses,
        accuracy,
        step_ms: times.get(times.len() / 2).copied().unwrap_or(f64::NAN),
        compile_ms,
        total_s: start.elapsed().as_secs_f64(),
    })
}

/// The share of test images whose largest logit is their label's.
fn evaluate(predict: &Model, params: &[Tensor], data: &Digits) -> Result<f64, String> {
    let n = data.y_test.len();
    let x = Tensor::from_f32(&[n, 64], &data.x_test).map_err(|e| e.to_string())?;
    let mut inputs: Vec<&Tensor> = params.iter().collect();
    inputs.push(&x);
    let mut session = predict.session();
    let outputs = session.run(&inputs).map_err(|e| e.to_string())?;
    let logits = outputs
        .get(0)
        .and_then(|t| t.to_f64_vec())
        .ok_or("predict returned no logits")?;
    let right = logits
        .chunks_exact(10)
        .zip(&data.y_test)
        .filter(|(row, &label)| {
            let best = (0..10).max_by(|&a, &b| row[a].total_cmp(&row[b]));
            best == Some(label)
        })
        .count();
    Ok(right as f64 / n.max(1) as f64)
}

/// PyTorch eager's run of the same training, as `digits.py --torch` prints it.
#[derive(Clone, Debug, serde::Deserialize)]
pub struct TorchRun {
    /// The median step, ms.
    pub step_ms: f64,
    /// Test accuracy after the same epochs.
    pub accuracy: f64,
    /// torch's version.
    pub torch: String,
}

/// Trains `options.net` in PyTorch eager through `digits.py` (run by `python`, writing the
/// data to `dir` again, the same split).
pub fn torch_run(python: &str, dir: &Path, options: &TrainOptions) -> Result<TorchRun, String> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("digits.py");
    let out = std::process::Command::new(python)
        .arg(&script)
        .arg("--out")
        .arg(dir)
        .args(["--torch", options.net.name()])
        .args(["--batch", &options.batch.to_string()])
        .args(["--epochs", &options.epochs.to_string()])
        .args(["--lr", &options.lr.to_string()])
        .args(["--momentum", &options.momentum.to_string()])
        .output()
        .map_err(|e| format!("could not run {python} {}: {e}", script.display()))?;
    if !out.status.success() {
        return Err(format!(
            "{} failed: {}",
            script.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().last().unwrap_or_default();
    serde_json::from_str(line).map_err(|e| format!("{}: {e} in '{line}'", script.display()))
}

/// Trains both networks with dlc and with PyTorch eager (data in `dir`, PyTorch run by
/// `python`), draws dlc's loss curves to `png` and returns the markdown section for
/// docs/benchmarks.md: per-step time, the ratio, accuracies.
pub fn compare(python: &str, dir: &Path, png: &Path) -> Result<String, String> {
    let data = Digits::load(dir)?;
    let mut rows = String::new();
    let mut curves = Vec::new();
    let mut torch_version = String::new();
    for net in [Net::Mlp, Net::Cnn] {
        let options = TrainOptions::for_net(net);
        let dlc = train(&data, &options)?;
        let torch = torch_run(python, dir, &options)?;
        torch_version = torch.torch.clone();
        let _ = writeln!(
            rows,
            "| {} | {} | {:.3} | {:.3} | {:.1}x | {:.2}% | {:.2}% | {:.0} | {:.2} |",
            net.name(),
            dlc.losses.len(),
            dlc.step_ms,
            torch.step_ms,
            torch.step_ms / dlc.step_ms,
            dlc.accuracy * 100.0,
            torch.accuracy * 100.0,
            dlc.compile_ms,
            dlc.total_s
        );
        curves.push((net, dlc.losses));
    }
    let named: Vec<(&str, &[f32])> = curves
        .iter()
        .map(|(n, l)| (n.name(), l.as_slice()))
        .collect();
    plot_losses(&named, png)?;
    Ok(format!(
        "\n## Training the digits classifier (issue 38)\n\n{}\n\nBatch 32, SGD with momentum \
         (lr 0.05, 0.9), the same epochs, initialisation scheme and loss on both sides; PyTorch \
         eager {torch_version} on 2 threads. A step is the batch copy, forward, loss, backward \
         and update: one compiled program in dlc. Loss curves: {}.\n\n\
         | net | steps | dlc step ms | PyTorch eager step ms | PyTorch / dlc | dlc accuracy | \
         PyTorch accuracy | dlc compile ms | dlc whole run s |\n\
         |---|---|---|---|---|---|---|---|---|\n{rows}",
        crate::suite::machine(),
        png.display()
    ))
}

/// The default location of the data: `target/digits`.
pub fn default_data_dir() -> PathBuf {
    PathBuf::from("target/digits")
}

/// Draws each run's loss per step to `png`, one line per named run.
pub fn plot_losses(runs: &[(&str, &[f32])], png: &Path) -> Result<(), String> {
    use plotters::prelude::*;
    crate::report::register_font()?;
    let font = crate::report::FONT_FAMILY;
    let steps = runs.iter().map(|(_, l)| l.len()).max().unwrap_or(1).max(1);
    let top = runs
        .iter()
        .flat_map(|(_, l)| l.iter())
        .copied()
        .filter(|v| v.is_finite())
        .fold(0.1f32, f32::max);
    let fail = |e: &dyn std::fmt::Display| format!("{}: {e}", png.display());
    let root = BitMapBackend::new(png, (900, 480)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| fail(&e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption("dlc training on the digits: loss per step", (font, 22))
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(56)
        .build_cartesian_2d(0..steps, 0f32..top * 1.05)
        .map_err(|e| fail(&e))?;
    chart
        .configure_mesh()
        .x_desc("step")
        .y_desc("cross-entropy")
        .label_style((font, 14))
        .axis_desc_style((font, 15))
        .draw()
        .map_err(|e| fail(&e))?;
    let colors = [RGBColor(31, 119, 180), RGBColor(214, 39, 40)];
    for (i, (name, losses)) in runs.iter().enumerate() {
        let color = colors[i % colors.len()];
        chart
            .draw_series(LineSeries::new(
                losses.iter().enumerate().map(|(s, l)| (s, *l)),
                color.stroke_width(1),
            ))
            .map_err(|e| fail(&e))?
            .label(*name)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 14, y)], color));
    }
    chart
        .configure_series_labels()
        .label_font((font, 14))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(|e| fail(&e))?;
    root.present().map_err(|e| fail(&e))
}
