#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# On the GPU machine: is a case's run-to-run spread the kernel or the card? Runs one fa2 case RUNS
# times (each its own sweep, many samples) while nvidia-smi logs the SM clock, power and the
# clock-event (throttle) reasons every 20 ms, then prints each run's timing next to the clocks
# seen during it. Clocks are only read, never set.
#   scripts/gpu/clock_trace.sh BIN CONFIG CASE_ID [OUT_DIR]
set -uo pipefail
cd "$(dirname "$0")/../.."
bin=$1 config=$2 case_id=$3
dir=${4:-out/clock_trace}
runs=${RUNS:-3}
mkdir -p "$dir"
fields=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active
nvidia-smi --query-gpu=$fields --format=csv,noheader -lms 20 > "$dir/smi.csv" 2> "$dir/smi.err" &
smi=$!
sleep 1
if [ -s "$dir/smi.err" ]; then  # older drivers name the reasons field clocks_throttle_reasons
  kill "$smi" 2>/dev/null
  nvidia-smi --query-gpu=${fields/clocks_event_reasons/clocks_throttle_reasons} --format=csv,noheader \
    -lms 20 > "$dir/smi.csv" 2>> "$dir/smi.err" &
  smi=$!
  sleep 1
fi
for i in $(seq 1 "$runs"); do
  date +%s.%N > "$dir/run$i.start"
  "$bin" sweep --config "$config" --target cuda --quiet --backends fa2 --filter "^fa2/$case_id\$" \
    --set measure.min_samples=200 --set measure.max_samples=200 --set measure.max_time_s=30 \
    --out "$dir/run$i" > "$dir/run$i.log" 2>&1
  date +%s.%N > "$dir/run$i.end"
done
sleep 1
kill "$smi"
python3 - "$dir" "$runs" <<'EOF'
import csv, datetime, pathlib, statistics, sys
d, runs = pathlib.Path(sys.argv[1]), int(sys.argv[2])
smi = []
for row in csv.reader(open(d / "smi.csv")):
    try:
        t = datetime.datetime.strptime(row[0].strip(), "%Y/%m/%d %H:%M:%S.%f").timestamp()
        smi.append((t, float(row[1].split()[0]), float(row[2].split()[0]), row[4].strip()))
    except (ValueError, IndexError):
        continue
print("| run | median ms | p10 ms | p90 ms | SM MHz min / median / max | power W max | clock-event reasons seen |")
print("|---|--:|--:|--:|--:|--:|---|")
for i in range(1, runs + 1):
    t0, t1 = (float((d / f"run{i}.{w}").read_text()) for w in ("start", "end"))
    r = next(csv.DictReader(open(d / f"run{i}" / "results.csv")))
    seen = [s for s in smi if t0 <= s[0] <= t1]
    clk = [s[1] for s in seen] or [0]
    pw = [s[2] for s in seen] or [0]
    reasons = sorted({s[3] for s in seen})
    print(f"| {i} | {float(r['time_median_ms']):.3f} | {float(r['time_p10_ms']):.3f} | "
          f"{float(r['time_p90_ms']):.3f} | {min(clk):.0f} / {statistics.median(clk):.0f} / "
          f"{max(clk):.0f} | {max(pw):.0f} | {' '.join(reasons)} |")
EOF
