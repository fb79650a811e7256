#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Re-run every canonical run that results/MANIFEST.json lists for one GPU, into OUTDIR.
#
#   scripts/reproduce.sh [--dry-run] [--gpu h100|h200] [--only REGEX] OUTDIR
#
# --gpu picks the manifest's entries (default: the GPU nvidia-smi reports, named by its product,
# e.g. "NVIDIA H100 80GB HBM3" -> h100). --only keeps the entries whose folder (e.g.
# "seed_notebook", "peers/decode") matches the extended regex. --dry-run prints each command
# and runs nothing.
# Commands run from the repository root with build/fa2bench (scripts/bootstrap.sh builds it);
# the PyTorch peers need torch. OUTDIR plays results/<gpu>/: each run writes OUTDIR/<folder>/ as
# the committed one sits in results/<gpu>/<folder>/, so `fa2bench compare
# results/h200/perf_fwd/results.json OUTDIR/perf_fwd/results.json` lines a new run up with the
# committed one, and on a GPU the manifest lacks, `scripts/reproduce.sh --gpu h200 results/h100`
# then `scripts/results_manifest.py` adds that GPU's canonical runs. A failing run is reported
# and the others still run; the exit code is 1 when any failed (a failing check counts).
set -uo pipefail
cd "$(dirname "$0")/.."

usage() { echo "usage: $0 [--dry-run] [--gpu h100|h200] [--only REGEX] OUTDIR" >&2; exit 2; }
dry=0 gpu="" out="" only=""
while [ $# -gt 0 ]; do
  case "$1" in
    --dry-run) dry=1 ;;
    --gpu) [ $# -ge 2 ] || usage; gpu="$2"; shift ;;
    --gpu=*) gpu="${1#--gpu=}" ;;
    --only) [ $# -ge 2 ] || usage; only="$2"; shift ;;
    --only=*) only="${1#--only=}" ;;
    -h|--help) sed -n '3,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) usage ;;
    *) [ -z "$out" ] || usage; out="$1" ;;
  esac
  shift
done
[ -n "$out" ] || { [ "$dry" = 1 ] && out=out/reproduce; } || usage
[ -n "$out" ] || usage

if [ -z "$gpu" ]; then
  name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)
  [ -n "$name" ] || { echo "$0: no GPU found by nvidia-smi; name one with --gpu" >&2; exit 2; }
  # The same naming as scripts/results_manifest.py: the product token, lower case.
  gpu=$(printf '%s\n' "$name" | grep -oE '\b[A-Z]{1,2}[0-9]{2,4}[A-Z]?\b' | head -n 1 | tr 'A-Z' 'a-z')
  [ -n "$gpu" ] || { echo "$0: cannot name the GPU \"$name\"; pass --gpu" >&2; exit 2; }
fi

# One command a line, {out} replaced by OUTDIR (the manifest keeps commands free of paths).
mapfile -t cmds < <(python3 - "$gpu" "$out" "$only" <<'PY'
import json, re, shlex, sys
gpu, out, only = sys.argv[1], sys.argv[2], sys.argv[3]
runs = [r for r in json.load(open("results/MANIFEST.json"))["runs"] if r["gpu"] == gpu]
folder = lambda r: r["path"].split("/", 2)[2]
runs = [r for r in runs if not only or re.search(only, folder(r))]
for r in runs:
    print(r["command"].replace("{out}", shlex.quote(out.rstrip("/"))))
PY
)
if [ "${#cmds[@]}" -eq 0 ]; then
  [ -n "$only" ] && { echo "$0: no run of gpu \"$gpu\" matches --only $only" >&2; exit 2; }
  echo "$0: results/MANIFEST.json lists no runs for gpu \"$gpu\"; to make them, run another" \
    "GPU's entries into results/$gpu, e.g. $0 --gpu h200 results/$gpu" >&2
  exit 2
fi

failed=0
for c in "${cmds[@]}"; do
  if [ "$dry" = 1 ]; then
    printf '%s\n' "$c"
    continue
  fi
  # The peers' --out is a file; the sweeps' a folder fa2bench creates.
  dest=$(printf '%s\n' "$c" | grep -oE -- '--out [^ ]+' | cut -d' ' -f2)
  case "$dest" in *.json) mkdir -p "$(dirname "$dest")" ;; esac
  echo "+ $c" >&2
  eval "$c" || { echo "$0: failed (exit $?): $c" >&2; failed=1; }
done
exit "$failed"
