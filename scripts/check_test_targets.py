#!/usr/bin/env python3
"""Checks that no workspace crate hides unit tests behind `test = false`.

A library or binary without unit tests is marked `test = false` in its Cargo.toml, so that
`scripts/test.sh` does not build (and link, with LLVM) an empty test binary for it. A `#[test]`
added to such a crate later would then never run: this check fails instead, naming the file.
Run by scripts/test.sh; exits 1 on a problem.
"""

import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TEST_MARK = re.compile(r"#\[(test|cfg\(test\))\]")


def main() -> int:
    members = tomllib.loads((ROOT / "Cargo.toml").read_text())["workspace"]["members"]
    problems = []
    for member in members:
        manifest = tomllib.loads((ROOT / member / "Cargo.toml").read_text())
        targets = [manifest.get("lib", {})] + manifest.get("bin", [])
        if not any(t.get("test") is False for t in targets):
            continue
        for path in sorted((ROOT / member / "src").rglob("*.rs")):
            if TEST_MARK.search(path.read_text()):
                problems.append(
                    f"{path.relative_to(ROOT)}: has unit tests, but {member}/Cargo.toml says "
                    "`test = false` for its targets: remove that line so they run"
                )
    for p in problems:
        print(p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
