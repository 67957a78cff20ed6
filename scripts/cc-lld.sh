#!/bin/sh
# The linker driver cargo calls (.cargo/config.toml): the system `cc`, told to link with LLVM's
# lld when lld-22 is installed (scripts/setup.sh installs it). Every tool and test binary links
# LLVM and MLIR statically (about 250 MB each): lld links one in about 2 s where GNU ld took
# 14–20 s (docs/testing.md). Without lld-22 it links with the system's default linker, slower
# but the same binaries.
LLD_DIR=/usr/lib/llvm-22/bin
if [ -x "$LLD_DIR/ld.lld" ]; then
  exec cc -fuse-ld=lld -B"$LLD_DIR" "$@"
fi
exec cc "$@"
