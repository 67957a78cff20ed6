//! Trains the digits MLP or CNN with dlc (`dlc_bench::training`) and prints the loss as it
//! falls, the test accuracy and the median step time.
//!
//! `python3 tools/bench/digits.py --out target/digits` first (scikit-learn's data), then
//! `cargo run --release -p dlc-bench --bin train-digits -- --net mlp [--data target/digits]
//! [--png docs/img/digits_loss.png]`; `--compare` trains both networks with dlc and with
//! PyTorch eager and prints the table docs/benchmarks.md records.

use anyhow::Context as _;
use clap::Parser;
use dlc_bench::training::{self, Digits, Net, TrainOptions};
use std::path::PathBuf;

/// Trains a digits classifier whose whole training step is one dlc program.
#[derive(Parser)]
struct Cli {
    /// `mlp` or `cnn`.
    #[arg(long, default_value = "mlp")]
    net: String,
    /// The directory `digits.py` wrote.
    #[arg(long)]
    data: Option<PathBuf>,
    /// Epochs (default: the net's, see `TrainOptions::for_net`).
    #[arg(long)]
    epochs: Option<usize>,
    /// Write the loss curve to this PNG.
    #[arg(long)]
    png: Option<PathBuf>,
    /// Train both networks with dlc and with PyTorch eager (through `python`), write both loss
    /// curves to `--png` (default docs/img/digits_loss.png) and print the markdown table of
    /// step times and accuracies that docs/benchmarks.md records.
    #[arg(long)]
    compare: bool,
    /// The Python interpreter with PyTorch and scikit-learn, for `--compare`.
    #[arg(long, default_value = "python3")]
    python: String,
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    let net = match cli.net.as_str() {
        "mlp" => Net::Mlp,
        "cnn" => Net::Cnn,
        other => anyhow::bail!("--net must be mlp or cnn, not '{other}'"),
    };
    let dir = cli.data.unwrap_or_else(training::default_data_dir);
    if cli.compare {
        let png = cli
            .png
            .unwrap_or_else(|| PathBuf::from("docs/img/digits_loss.png"));
        let section = training::compare(&cli.python, &dir, &png).map_err(anyhow::Error::msg)?;
        print!("{section}");
        return Ok(());
    }
    let data = Digits::load(&dir)
        .map_err(anyhow::Error::msg)
        .with_context(|| "run `python3 tools/bench/digits.py --out target/digits` first")?;
    let mut options = TrainOptions::for_net(net);
    if let Some(e) = cli.epochs {
        options.epochs = e;
    }
    let trained = training::train(&data, &options).map_err(anyhow::Error::msg)?;
    let per_epoch = trained.losses.len() / options.epochs.max(1);
    for (epoch, chunk) in trained.losses.chunks(per_epoch.max(1)).enumerate() {
        let mean = chunk.iter().sum::<f32>() / chunk.len() as f32;
        println!("epoch {:>2}: mean loss {mean:.4}", epoch + 1);
    }
    println!(
        "{}: test accuracy {:.2}% after {} steps of batch {}; median step {:.3} ms; compile {:.0} ms; total {:.1} s",
        net.name(),
        trained.accuracy * 100.0,
        trained.losses.len(),
        options.batch,
        trained.step_ms,
        trained.compile_ms,
        trained.total_s
    );
    if let Some(png) = cli.png {
        training::plot_losses(&[(net.name(), &trained.losses)], &png)
            .map_err(anyhow::Error::msg)?;
        println!("wrote {}", png.display());
    }
    Ok(())
}
