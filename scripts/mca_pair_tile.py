#!/usr/bin/env python3
"""Cycles per accumulator and step of `loop.dot2` register tiles on several x86 cores, by llvm-mca.

Writes the inner loop `tile` emits for an 8-bit product with `loop.dot2` on AVX2 (an `R x V`
tile of `vector<8xi32>` accumulators: per step, each row's pair of `A` loaded as two bytes,
widened to `i16` and broadcast; `V` vectors of the packed `B`; one `pmaddwd` and an add per
accumulator) as LLVM IR, compiles it with `llc-22 -O2 -mcpu=CPU` and runs `llvm-mca-22` on the
loop body. With `--pre-widened`, each row's pair is read from memory already widened (one
`vpbroadcastd`), what packing `A` would give. docs/benchmarks.md (twenty-sixth session) and
`CpuInfo::pair_tile` use its table.

Usage: python3 scripts/mca_pair_tile.py [--pre-widened] [--tiles 6x2,2x4] [--cpus skylake,znver3]
"""

import argparse
import subprocess
import tempfile
from pathlib import Path

LLC, MCA = "/usr/lib/llvm-22/bin/llc", "/usr/lib/llvm-22/bin/llvm-mca"


def loop_ir(rows: int, vectors: int, pre_widened: bool) -> str:
    """A function whose loop is the tile's reduction step, over `n` steps of two."""
    lines = [
        "declare <8 x i32> @llvm.x86.avx2.pmadd.wd(<16 x i16>, <16 x i16>)",
        "define void @k(ptr %a, ptr %b, ptr %c, i64 %n) {",
        "entry:",
        "  br label %loop",
        "loop:",
        "  %k = phi i64 [0, %entry], [%k1, %loop]",
    ]
    for r in range(rows):
        for v in range(vectors):
            lines.append(f"  %acc{r}_{v} = phi <8 x i32> [zeroinitializer, %entry], [%n{r}_{v}, %loop]")
    for v in range(vectors):
        lines += [
            f"  %bo{v} = mul i64 %k, {vectors * 32}",
            f"  %bq{v} = add i64 %bo{v}, {v * 32}",
            f"  %bp{v} = getelementptr i8, ptr %b, i64 %bq{v}",
            f"  %bv{v} = load <16 x i16>, ptr %bp{v}, align 2",
        ]
    for r in range(rows):
        lines.append(f"  %ao{r} = add i64 %k, {r * 1024}")
        if pre_widened:
            lines += [
                f"  %ax{r} = mul i64 %ao{r}, 2",
                f"  %ap{r} = getelementptr i8, ptr %a, i64 %ax{r}",
                f"  %d{r} = load i32, ptr %ap{r}, align 4",
            ]
        else:
            lines += [
                f"  %ap{r} = getelementptr i8, ptr %a, i64 %ao{r}",
                f"  %l{r} = load <2 x i8>, ptr %ap{r}, align 1",
                f"  %z{r} = zext <2 x i8> %l{r} to <2 x i16>",
                f"  %d{r} = bitcast <2 x i16> %z{r} to i32",
            ]
        lines += [
            f"  %i{r} = insertelement <8 x i32> poison, i32 %d{r}, i64 0",
            f"  %s{r} = shufflevector <8 x i32> %i{r}, <8 x i32> poison, <8 x i32> zeroinitializer",
            f"  %A{r} = bitcast <8 x i32> %s{r} to <16 x i16>",
        ]
        for v in range(vectors):
            lines += [
                f"  %p{r}_{v} = call <8 x i32> @llvm.x86.avx2.pmadd.wd(<16 x i16> %A{r}, <16 x i16> %bv{v})",
                f"  %n{r}_{v} = add <8 x i32> %acc{r}_{v}, %p{r}_{v}",
            ]
    lines += ["  %k1 = add i64 %k, 2", "  %more = icmp slt i64 %k1, %n", "  br i1 %more, label %loop, label %exit", "exit:"]
    for r in range(rows):
        for v in range(vectors):
            lines += [
                f"  %co{r}_{v} = getelementptr <8 x i32>, ptr %c, i64 {r * vectors + v}",
                f"  store <8 x i32> %n{r}_{v}, ptr %co{r}_{v}",
            ]
    lines += ["  ret void", "}"]
    return "\n".join(lines) + "\n"


def cycles_per_accumulator(ir: str, cpu: str, accumulators: int, work: Path) -> str:
    (work / "k.ll").write_text(ir)
    subprocess.run([LLC, "-O2", f"-mcpu={cpu}", "-mtriple=x86_64-unknown-linux-gnu", str(work / "k.ll"), "-o", str(work / "k.s")], check=True)
    asm = (work / "k.s").read_text().splitlines()
    start = next(i for i, line in enumerate(asm) if line.startswith(".LBB0_1:"))
    body = []
    for line in asm[start + 1 :]:
        if line.startswith("\t") and not line.startswith("\t."):
            body.append(line)
            if line.split()[0].startswith("j"):
                break
    spills = sum("rsp" in line for line in body)
    (work / "loop.s").write_text("\n".join(body) + "\n")
    out = subprocess.run([MCA, f"-mcpu={cpu}", "-iterations=100", str(work / "loop.s")], capture_output=True, text=True, check=True).stdout
    total = next(int(line.split()[-1]) for line in out.splitlines() if line.startswith("Total Cycles"))
    cell = f"{total / 100 / accumulators:.2f}"
    return cell + (f" ({spills} spills)" if spills else "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pre-widened", action="store_true")
    parser.add_argument("--tiles", default="6x2,4x3,3x3,2x4,2x5,1x8")
    parser.add_argument("--cpus", default="skylake,icelake-server,znver1,znver2,znver3,alderlake")
    args = parser.parse_args()
    cpus = args.cpus.split(",")
    print("| tile | " + " | ".join(cpus) + " |")
    print("|---" * (len(cpus) + 1) + "|")
    with tempfile.TemporaryDirectory() as work:
        for tile in args.tiles.split(","):
            rows, vectors = (int(x) for x in tile.split("x"))
            ir = loop_ir(rows, vectors, args.pre_widened)
            cells = [cycles_per_accumulator(ir, cpu, rows * vectors, Path(work)) for cpu in cpus]
            print(f"| {tile} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
