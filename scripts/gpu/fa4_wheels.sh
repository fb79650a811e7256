#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Brings flash-attn-4 (the peer of scripts/flash_attn_baseline.py) to a GPU machine that has no
# package index, in parts small enough to travel one at a time.
#
#   scripts/gpu/fa4_wheels.sh fetch          here (PyPI reachable): download the pinned wheels for
#                                            Python 3.12 x86_64 into .fa4/, repack the one large
#                                            wheel as xz and cut it into parts .fa4/part1, part2, ...
#   scripts/gpu/fa4_wheels.sh stage          on the GPU machine, in every call but the last: keep
#                                            the parts this call carried in .fa4-stage/ (ignored, so
#                                            it stays on the warm machine between calls)
#   scripts/gpu/fa4_wheels.sh install DIR    on the GPU machine, last call: join the parts (checked
#                                            against their sha256), install everything into DIR;
#                                            then export PYTHONPATH=DIR
#
# Why parts: nvidia-cutlass-dsl-libs-cu13 is a 92 MB wheel (one 193 MB shared library, the CuTe
# DSL compiler); a call carries at most 64 MiB with the working tree. xz takes it to about
# 60 MB; each call carries one part (carry [".fa4/partN"]), the last one also .fa4/wheels, and the
# calls follow each other while the machine is warm. Without fetch's network it prints what to do.
set -euo pipefail
cd "$(dirname "$0")/../.."

# The versions this repository's committed fa4 runs used (one of each: two stop pip).
WHEELS=(flash-attn-4==4.0.0b36 nvidia-cutlass-dsl==4.8.1 nvidia-cutlass-dsl-libs-base==4.8.1
        nvidia-cutlass-dsl-libs-core==4.8.1 quack-kernels==0.6.5 apache-tvm-ffi==0.1.15.post2
        torch-c-dlpack-ext==0.1.5)
BIG=nvidia-cutlass-dsl-libs-cu13==4.8.1
PART_BYTES=${FA4_PART_BYTES:-34000000}

die() { echo "fa4_wheels.sh: $*" >&2; exit 2; }

fetch() {
  rm -rf .fa4 && mkdir -p .fa4/wheels .fa4/big
  local plat=()
  for p in manylinux_2_17 manylinux2014 manylinux_2_24 manylinux_2_27 manylinux_2_28 \
           manylinux_2_34 manylinux_2_35; do plat+=(--platform "${p}_x86_64"); done
  local pip=(python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12
             --implementation cp "${plat[@]}")
  "${pip[@]}" -q -d .fa4/wheels "${WHEELS[@]}"
  "${pip[@]}" -q -d .fa4/big "$BIG"
  local whl; whl=$(ls .fa4/big/*.whl)
  # The wheel's files (dist-info included, so the package's version reads as installed), as one
  # xz stream: install unpacks it where pip would have put them.
  mkdir -p .fa4/big/tree && (cd .fa4/big/tree && python3 -m zipfile -e "../$(basename "$whl")" .)
  tar -C .fa4/big/tree -cf - . | xz -T0 -9 > .fa4/big.tar.xz
  rm -rf .fa4/big
  (cd .fa4 && split -b "$PART_BYTES" -d -a 1 big.tar.xz part.tmp. && sha256sum big.tar.xz > big.sha256)
  rm .fa4/big.tar.xz
  local i=1
  for f in .fa4/part.tmp.*; do mkdir -p ".fa4/part$i"; mv "$f" ".fa4/part$i/$(basename "$f")"; i=$((i + 1)); done
  local n=$((i - 1))
  mv .fa4/big.sha256 ".fa4/part$n/"
  mv .fa4/wheels ".fa4/part$n/wheels"
  du -sh .fa4/part*
  echo "fetch: $n parts; carry .fa4/part1 ... .fa4/part$n in consecutive calls: 'stage' in each" \
       "but the last, 'install DIR' in the last"
}

stage() {
  [ -d .fa4 ] || die "no .fa4/partN here: pass carry=[\".fa4/partN\"] to this call"
  mkdir -p .fa4-stage
  cp -r .fa4/part*/. .fa4-stage/
  ls -la .fa4-stage
}

install() {
  local dir=${1:?usage: fa4_wheels.sh install DIR}
  stage >/dev/null
  ls .fa4-stage/part.tmp.* >/dev/null 2>&1 || die "no parts staged"
  [ -f .fa4-stage/big.sha256 ] || die "the last part (big.sha256, wheels/) is missing: carry it"
  (cd .fa4-stage && cat part.tmp.* > big.tar.xz && sha256sum -c big.sha256 >/dev/null) ||
    die "the joined parts do not match big.sha256: a part is missing or from another fetch" \
        "(the machine may have been released between calls: stage them again)"
  mkdir -p "$dir"
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target "$dir" .fa4-stage/wheels/*.whl
  tar -C "$dir" -xJf .fa4-stage/big.tar.xz
  rm .fa4-stage/big.tar.xz
  # pip --target runs no .pth file: nvidia-cutlass-dsl's adds its dsl_packages folder (the
  # `cutlass` package) to sys.path, so a user of DIR runs it (flash_attn_baseline.py does).
  python3 -c 'import site, sys; site.addsitedir(sys.argv[1]); import flash_attn.cute, cutlass
import importlib.metadata as m; print("flash-attn-4", m.version("flash-attn-4"), "importable")' "$dir"
}

case "${1:-}" in
  fetch) fetch ;;
  stage) stage ;;
  install) shift; install "$@" ;;
  *) sed -n '3,19p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
