"""``torch.compile(module, backend="dlc")`` against eager PyTorch on the same inputs (issue 36):
an MLP, a small CNN with BatchNorm in eval mode, ``nn.TransformerEncoderLayer``, a model with an
op dlc does not map (a graph break: that op runs in PyTorch), and dynamic dims."""

import pytest

torch = pytest.importorskip("torch")
import torch.nn as nn  # noqa: E402

import dlc.torch_backend as backend  # noqa: E402

RTOL = 1e-4


def check(model, *inputs, dynamic=False):
    """Compiles `model` with dlc, checks it against eager PyTorch and returns the report."""
    torch._dynamo.reset()
    model.eval()
    with torch.no_grad():
        expected = model(*inputs)
        compiled = torch.compile(model, backend="dlc", dynamic=dynamic)
        got = compiled(*inputs)
    torch.testing.assert_close(got, expected, rtol=RTOL, atol=1e-5)
    return list(backend.last_report), compiled


def compiled_partitions(report):
    return [line for line in report if "compiled by dlc" in line]


def test_mlp():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 32), nn.GELU(), nn.Linear(32, 4))
    report, _ = check(model, torch.randn(8, 16))
    assert len(compiled_partitions(report)) == 1 and not any("left" in r for r in report), report


def test_cnn_with_batch_norm():
    torch.manual_seed(1)
    model = nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1),
        nn.BatchNorm2d(8),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(8, 16, 3, stride=2, padding=1, bias=False),
        nn.BatchNorm2d(16),
        nn.ReLU(),
        nn.Flatten(),
        nn.Linear(16 * 4 * 4, 10),
    )
    # Running statistics that are not the initial 0 and 1.
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.running_mean.uniform_(-0.5, 0.5)
            m.running_var.uniform_(0.5, 2.0)
    report, _ = check(model, torch.randn(2, 3, 16, 16))
    assert len(compiled_partitions(report)) == 1 and not any("left" in r for r in report), report


class MobileBlock(nn.Module):
    """ReLU6, a depthwise convolution, hardswish, a residual add, leaky ReLU, adaptive average
    pooling and a clamp: the activations of MobileNet-style models."""

    def __init__(self):
        super().__init__()
        self.c1, self.b1 = nn.Conv2d(8, 8, 3, padding=1), nn.BatchNorm2d(8)
        self.c2, self.b2 = nn.Conv2d(8, 8, 3, padding=1, groups=8), nn.BatchNorm2d(8)

    def forward(self, x):
        y = nn.functional.relu6(self.b1(self.c1(x)))
        y = nn.functional.hardswish(self.b2(self.c2(y)))
        y = nn.functional.leaky_relu(y + x, 0.1)
        y = nn.functional.adaptive_avg_pool2d(y, 1).flatten(1)
        return torch.clamp(y, -1.0, 1.0) * 2.0 + 1.0


def test_mobilenet_style_block():
    torch.manual_seed(5)
    report, _ = check(MobileBlock(), torch.randn(2, 8, 16, 16))
    assert len(compiled_partitions(report)) == 1 and not any("left" in r for r in report), report


def test_transformer_encoder_layer():
    torch.manual_seed(2)
    model = nn.TransformerEncoderLayer(d_model=32, nhead=4, dim_feedforward=64, batch_first=True)
    report, _ = check(model, torch.randn(2, 10, 32))
    assert compiled_partitions(report), report


class TinyLM(nn.Module):
    """Token and position embeddings, a pre-norm encoder layer, a final norm, a pad, the head
    and a log-softmax: a small language model's forward."""

    def __init__(self, vocab=50, d=32, seq=12):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Parameter(torch.randn(seq, d) * 0.02)
        self.enc = nn.TransformerEncoderLayer(d, 4, 64, batch_first=True, norm_first=True)
        self.ln, self.head = nn.LayerNorm(d), nn.Linear(d, vocab)

    def forward(self, ids):
        h = self.enc(self.tok(ids) + self.pos)
        h = nn.functional.pad(self.ln(h), (0, 0, 1, 0), value=0.5)
        return torch.log_softmax(self.head(h), dim=-1).sum(dim=1) * 0.5 - 1.0


def test_tiny_language_model():
    torch.manual_seed(6)
    report, _ = check(TinyLM(), torch.randint(0, 50, (2, 12)))
    assert len(compiled_partitions(report)) == 1 and not any("left" in r for r in report), report


class WithCumsum(nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Linear(8, 8), nn.Linear(8, 8)

    def forward(self, x):
        return self.b(torch.cumsum(torch.relu(self.a(x)), dim=1))


def test_an_unsupported_op_runs_in_pytorch():
    torch.manual_seed(3)
    report, _ = check(WithCumsum(), torch.randn(4, 8))
    assert any("left to PyTorch: aten.cumsum" in r for r in report), report
    assert len(compiled_partitions(report)) == 2, report


def test_dynamic_batch():
    torch.manual_seed(4)
    model = nn.Sequential(nn.Linear(16, 32), nn.Tanh(), nn.Linear(32, 4)).eval()
    torch._dynamo.reset()
    with torch.no_grad():
        compiled = torch.compile(model, backend="dlc", dynamic=True)
        for batch in (3, 7, 12):
            x = torch.randn(batch, 16)
            torch.testing.assert_close(compiled(x), model(x), rtol=RTOL, atol=1e-5)
    assert compiled_partitions(backend.last_report), backend.last_report


def test_inputs_cross_without_copies():
    # A compiled partition reads a contiguous CPU tensor's memory in place (Tensor.numpy()).
    x = torch.randn(4, 8)
    assert x.numpy().__array_interface__["data"][0] == x.data_ptr()
