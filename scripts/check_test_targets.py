#!/usr/bin/env python3
"""Checks that no workspace target hides unit tests behind `test = false`.

A library or binary without unit tests is marked `test = false` in its Cargo.toml, so that
`scripts/test.sh` does not build (and link, with LLVM) an empty test binary for it. A `#[test]`
added to such a target later would then never run: this check fails instead, naming the file.
A binary's sources are its own file; a library's are the crate's other sources (a crate may
keep unit tests in its library and none in its binaries). Run by scripts/test.sh; exits 1 on a
problem.
"""

import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TEST_MARK = re.compile(r"#\[(test|cfg\(test\))\]")


def bin_paths(member: Path, manifest: dict) -> dict[Path, dict]:
    """Each binary target's source file, with its table (`{}` for one cargo discovers)."""
    src = member / "src"
    found = {src / "main.rs": {}} if (src / "main.rs").exists() else {}
    found.update({p: {} for p in sorted((src / "bin").glob("*.rs"))})
    for target in manifest.get("bin", []):
        path = member / target.get("path", f"src/bin/{target['name']}.rs")
        if "path" not in target and target["name"] == manifest["package"]["name"]:
            path = src / "main.rs"
        found[path] = target
    return found


def problems_of(member: Path, manifest: dict) -> list[str]:
    """The files of `member`'s `test = false` targets that have unit tests."""
    bins = bin_paths(member, manifest)
    files = []
    if manifest.get("lib", {}).get("test") is False:
        files += [p for p in sorted((member / "src").rglob("*.rs")) if p not in bins]
    files += [p for p, target in bins.items() if target.get("test") is False]
    return [
        f"{path.relative_to(ROOT)}: has unit tests, but {member.relative_to(ROOT)}/Cargo.toml "
        "says `test = false` for its target: remove that line so they run"
        for path in files
        if TEST_MARK.search(path.read_text())
    ]


def main() -> int:
    members = tomllib.loads((ROOT / "Cargo.toml").read_text())["workspace"]["members"]
    problems = []
    for member in members:
        manifest = tomllib.loads((ROOT / member / "Cargo.toml").read_text())
        problems += problems_of(ROOT / member, manifest)
    for p in problems:
        print(p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
