#!/usr/bin/env python3
"""Pack the dlc Python package into a wheel from the extension module the cargo build linked.

scripts/test.sh builds the whole workspace once (`cargo build --workspace --profile checked
--lib --bins --tests --examples`), which links the `dlc-python` crate's cdylib, `target/checked/lib_dlc.so`, too.
`maturin build` would link it again, and, since cargo resolves features for the one crate it
builds rather than for the workspace, rebuild about thirty crates to do so (130 s measured
beside the tests on the 2-core machine). This script instead writes the wheel maturin would
(PEP 427: `dlc/` with the pure-Python files and the module as `dlc/_dlc.abi3.so`, and a
`.dist-info` with METADATA, WHEEL and RECORD; an abi3 wheel for CPython >= 3.9 on this
platform), stored uncompressed, from that module. python/pyproject.toml stays the package's
definition for `maturin build` and `pip install ./python` (docs/python.md).

Usage: python3 scripts/python_wheel.py --module target/checked/lib_dlc.so --out target/wheels
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import sys
import sysconfig
import tomllib
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def metadata() -> str:
    """METADATA from python/pyproject.toml's [project] table and the workspace's version."""
    project = tomllib.loads((ROOT / "python/pyproject.toml").read_text())["project"]
    version = tomllib.loads((ROOT / "Cargo.toml").read_text())["workspace"]["package"]["version"]
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {project['name']}",
        f"Version: {version}",
        f"Summary: {project['description']}",
        f"Requires-Python: {project['requires-python']}",
    ]
    lines += [f"Requires-Dist: {d}" for d in project.get("dependencies", [])]
    return "\n".join(lines) + "\n"


def entry_points_txt() -> str:
    """entry_points.txt from python/pyproject.toml's [project.entry-points] tables (the
    `torch_dynamo_backends` group that makes `torch.compile(m, backend="dlc")` find dlc)."""
    project = tomllib.loads((ROOT / "python/pyproject.toml").read_text())["project"]
    groups = project.get("entry-points", {})
    return "".join(
        f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in entries.items()) + "\n"
        for group, entries in groups.items()
    )


def record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--module", required=True, type=Path, help="the linked lib_dlc.so")
    parser.add_argument("--out", required=True, type=Path, help="directory for the wheel")
    args = parser.parse_args()
    if not args.module.is_file():
        print(f"error: '{args.module}' does not exist: build the workspace first", file=sys.stderr)
        return 1

    meta = metadata()
    name_version = "{}-{}".format(*(l.split(": ", 1)[1] for l in meta.splitlines()[1:3]))
    platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    tag = f"cp39-abi3-{platform}"
    dist_info = f"{name_version}.dist-info"
    files = [(f"dlc/{p.name}", p.read_bytes()) for p in sorted((ROOT / "python/dlc").glob("*.py"))]
    files.append(("dlc/_dlc.abi3.so", args.module.read_bytes()))
    files.append((f"{dist_info}/METADATA", meta.encode()))
    entry_points = entry_points_txt()
    if entry_points:
        files.append((f"{dist_info}/entry_points.txt", entry_points.encode()))
    wheel = f"Wheel-Version: 1.0\nGenerator: dlc scripts/python_wheel.py\nRoot-Is-Purelib: false\nTag: {tag}\n"
    files.append((f"{dist_info}/WHEEL", wheel.encode()))
    record = [record_line(n, d) for n, d in files] + [f"{dist_info}/RECORD,,"]
    files.append((f"{dist_info}/RECORD", ("\n".join(record) + "\n").encode()))

    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"{name_version}-{tag}.whl"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        for name, data in files:
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = (0o755 if name.endswith(".so") else 0o644) << 16
            z.writestr(info, data)
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
