#!/usr/bin/env python3
"""Lists the places that find an op by comparing its name string, outside the op definitions.

Passes, interpreters and backends ask typed views (`ctx.view::<LoadOp>(op)`), the dialects'
dispatch enums (`LoopOps::of(ctx, op)`) and op interfaces (`dlc_loop::access`,
`ctx.memory_effects`) instead (docs/architecture.md, "Finding ops"). A comparison that must stay
carries a comment with "op name" on its line or the line before it, saying why. The script fails
when there are more than LIMIT comparisons or one of them has no such comment.

Counted: `== "dialect.op"`, `!= "dialect.op"`, match arms and `matches!` alternatives on op
names, and `starts_with`/`strip_prefix` of a dialect prefix, in the Rust sources of every crate.
Not counted: tests (`tests/` directories and `#[cfg(test)]` modules), and the files that define
a dialect's ops (a dialect's `ops.rs`, `lib.rs`, `syntax.rs`, `verify.rs`, `fold.rs`,
`canonicalize.rs`, `math.rs`, `interfaces.rs`, and the IR core). Building an op by name
(`OpSpec::new(ctx, "loop.load", ..)`) is not a comparison.

Usage: python3 scripts/op_name_comparisons.py [--list]
"""

import os
import re
import sys

LIMIT = 10
DIALECTS = r"(?:loop|graph|arith|math|func|builtin)"
NAME = rf'"{DIALECTS}\.[a-z_0-9]+"'
PATTERNS = [
    re.compile(rf"[=!]=\s*{NAME}"),
    re.compile(rf"{NAME}\s*[=!]="),
    re.compile(rf"{NAME}\s*(?:=>|\|)"),
    re.compile(rf"\|\s*{NAME}"),
    re.compile(rf"matches!\([^,]*,\s*{NAME}"),
    re.compile(rf'(?:starts_with|strip_prefix)\("{DIALECTS}\.'),
]
ROOTS = ["compiler", "dialects", "passes", "tools"]
DEFINITION_FILES = {
    "ops.rs", "lib.rs", "syntax.rs", "verify.rs", "fold.rs", "canonicalize.rs", "math.rs",
    "interfaces.rs",
}


def is_definition(path):
    parts = path.split(os.sep)
    if parts[:2] == ["compiler", "ir"]:
        return True
    return parts[0] == "dialects" and parts[-1] in DEFINITION_FILES


def comparisons(path):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    in_tests = False
    for i, line in enumerate(lines):
        if re.match(r"\s*#\[cfg\(test\)\]", line):
            in_tests = True
        if in_tests:
            continue
        if line.lstrip().startswith("//"):
            continue
        if any(p.search(line) for p in PATTERNS):
            context = (lines[i - 1] if i > 0 else "") + line
            yield i + 1, line.strip(), "op name" in context.lower()


def main():
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    os.chdir(repo)
    hits = []
    for root in ROOTS:
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = [d for d in dirnames if d not in ("tests", "target", "fuzz")]
            for name in sorted(filenames):
                path = os.path.join(dirpath, name)
                if name.endswith(".rs") and not is_definition(path):
                    hits.extend((path, n, text, ok) for n, text, ok in comparisons(path))
    uncommented = [h for h in hits if not h[3]]
    if "--list" in sys.argv or uncommented or len(hits) > LIMIT:
        for path, n, text, ok in hits:
            print(f"{path}:{n}: {'' if ok else '[no comment] '}{text}")
    print(f"{len(hits)} op-name comparisons outside op definitions and tests "
          f"(limit {LIMIT}), {len(uncommented)} without a comment")
    return 0 if len(hits) <= LIMIT and not uncommented else 1


if __name__ == "__main__":
    sys.exit(main())
