#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A real single-node Slurm: munged, slurmctld and slurmd started as the current user from a
# generated slurm.conf in a temporary directory (own ports, state and logs; nothing system-wide
# is touched), then scripts/slurm_sweep.sbatch for configs/ci_cpu.json on the CPU target as an
# array of 3 shards plus the dependent merge job, exactly as its usage text says. The merged
# results must equal an unsharded run case for case (ids in order, statuses) and check for
# check (names, verdicts); timings are not compared.
#
# One array task is killed mid-run and requeued, as a preemption does: once its shard has
# written a case the test stops (SIGSTOP) its sweep, so the kill lands mid-shard however fast
# the machine, and `scontrol requeuehold` makes Slurm kill the task (SIGCONT, SIGTERM) and
# queue it again, held, so the test can read the shard's folder between the two runs before
# `scontrol release`. The requeued run must resume that folder (its log says so), keep the
# cases finished before the kill byte for byte without running them again, and succeed, so
# that the afterok merge runs and passes; `fa2bench check` on the merged results passes too.
#
# The sweep's extra arguments go after the script's name (one with a space in it) and in
# SWEEP_ARGS (a glob pattern, with a file that it would match in the job's working directory):
# every shard's sweep.json must record them word for word.
#
# Exits 77 (ctest SKIP_RETURN_CODE) with the reason when Slurm cannot start here: slurm-wlm or
# munge not installed (scripts/run_tests.sh installs them on Debian/Ubuntu), or a daemon that
# does not come up. Once Slurm is up, anything else is a failure.
#
#   $1 the fa2bench binary, $2 the source tree.
set -uo pipefail
BIN=$(realpath "$1")  # the jobs run in a directory of their own
SRC=$(realpath "$2")
skip() {
  echo "SKIP: $*" >&2
  exit 77
}
fail() {
  echo "FAIL: $*" >&2
  exit 1
}

for cmd in munged slurmctld slurmd sbatch squeue scontrol sinfo python3 flock; do
  command -v "$cmd" >/dev/null 2>&1 ||
    skip "$cmd not found: install slurm-wlm and munge (scripts/run_tests.sh does on Debian/Ubuntu)"
done

TMP=$(mktemp -d /tmp/fa2bench-slurm.XXXXXX)
chmod 755 "$TMP"
stop_daemons() {
  for pidfile in "$TMP/slurmd.pid" "$TMP/slurmctld.pid" "$TMP/munge/munged.pid"; do
    [ -s "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null
  done
  sleep 1
}
JOBID=""
MERGE=""
pgid=""
cleanup() {
  # A failure may leave a task running, or the stopped sweep: end them before the daemons.
  [ -n "$pgid" ] && kill -CONT -- "-$pgid" 2>/dev/null
  local jobs=()
  [ -n "$JOBID" ] && jobs+=("$JOBID")
  [ -n "$MERGE" ] && jobs+=("$MERGE")
  [ ${#jobs[@]} -gt 0 ] && scancel "${jobs[@]}" 2>/dev/null && sleep 2
  stop_daemons
  rm -rf "$TMP"
}
trap cleanup EXIT
show_logs() {
  for f in "$TMP"/log/*.log "$TMP/munge/munged.log"; do
    [ -f "$f" ] && { echo "--- $f" >&2; tail -n 20 "$f" >&2; }
  done
}

# ---- munge: a fresh key, its own socket --------------------------------------------------------
mkdir -m 711 "$TMP/munge"
head -c 1024 /dev/urandom >"$TMP/munge/munge.key"
chmod 400 "$TMP/munge/munge.key"
SOCKET=$TMP/munge/munge.socket
munged --force --key-file="$TMP/munge/munge.key" --socket="$SOCKET" \
  --pid-file="$TMP/munge/munged.pid" --log-file="$TMP/munge/munged.log" \
  --seed-file="$TMP/munge/munged.seed" >/dev/null 2>&1 || {
  show_logs
  skip "munged did not start"
}

# ---- slurm.conf: one node (this machine), one partition, free ports ----------------------------
read -r CTLD_PORT SLURMD_PORT < <(python3 -c '
import socket
socks = [socket.socket() for _ in range(2)]
for s in socks: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in socks])')
NODE=$(hostname -s)
USER_NAME=$(id -un)
CPUS=$(nproc)
mkdir -p "$TMP/state" "$TMP/spool" "$TMP/log"
cat >"$TMP/slurm.conf" <<EOF
ClusterName=fa2bench-ci
SlurmctldHost=$NODE(127.0.0.1)
SlurmUser=$USER_NAME
SlurmdUser=$USER_NAME
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
AuthType=auth/munge
AuthInfo=socket=$SOCKET
CredType=cred/munge
StateSaveLocation=$TMP/state
SlurmdSpoolDir=$TMP/spool
SlurmctldPidFile=$TMP/slurmctld.pid
SlurmdPidFile=$TMP/slurmd.pid
SlurmctldLogFile=$TMP/log/slurmctld.log
SlurmdLogFile=$TMP/log/slurmd.log
ProctrackType=proctrack/pgid
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
# A requeued job may run again (the killed-and-requeued task below).
JobRequeue=1
# A merge whose shards failed is cancelled instead of waiting forever.
SchedulerParameters=kill_invalid_depend
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
MinJobAge=600
SlurmdParameters=config_overrides
NodeName=$NODE NodeAddr=127.0.0.1 CPUs=$CPUS State=UNKNOWN
PartitionName=ci Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$TMP/slurm.conf

slurmctld -f "$SLURM_CONF" >"$TMP/log/slurmctld.out" 2>&1 || {
  show_logs
  skip "slurmctld did not start"
}
slurmd -f "$SLURM_CONF" -N "$NODE" >"$TMP/log/slurmd.out" 2>&1 || {
  show_logs
  skip "slurmd did not start"
}
state=""
for _ in $(seq 60); do
  state=$(sinfo -h -n "$NODE" -o %T 2>/dev/null)
  [ "$state" = idle ] && break
  sleep 1
done
if [ "$state" != idle ]; then
  show_logs
  skip "the Slurm node did not become idle within 60 s (state: ${state:-none})"
fi
echo "slurm: node $NODE idle (slurmctld port $CTLD_PORT, slurmd port $SLURMD_PORT)"

# ---- the unsharded reference -------------------------------------------------------------------
CONFIG=$SRC/configs/ci_cpu.json
"$BIN" sweep --config "$CONFIG" --target cpu --quiet --out "$TMP/ref" >"$TMP/ref.out" 2>&1
rc=$?
[ "$rc" -eq 0 ] || { cat "$TMP/ref.out" >&2; fail "the unsharded sweep exited $rc"; }

# ---- 3 shards and the merge, as scripts/slurm_sweep.sbatch's usage says --------------------------
# The script asks for a GPU and 8 CPUs; this partition has neither, so the command line drops
# the GPU and asks for one CPU per task (three shards on a 2-core machine: two run at once).
# Extra sweep arguments, each the config's own value (so the cases stay the unsharded run's):
# one after the script's name with a space in it, one in SWEEP_ARGS that is a glob pattern
# matching a file in the jobs' working directory (unquoted, it became --set sweeps.0.grid.T=1).
ARG_SET='sweeps.1.grid.T=[256, 1024]'
ENV_SET='sweeps.0.grid.T=[1,17,64,256]'
mkdir -p "$TMP/work"
touch "$TMP/work/sweeps.0.grid.T=1"
export CONFIG OUT=$TMP/slurm FA2BENCH=$BIN TARGET=cpu SWEEP_ARGS="--set $ENV_SET"
cd "$SRC" || fail "cd $SRC"
JOBID=$(sbatch --parsable --array=0-2 --gres=none --cpus-per-task=1 --chdir="$TMP/work" \
  --output="$TMP/log/shard-%A_%a.out" --export=ALL scripts/slurm_sweep.sbatch --set "$ARG_SET") ||
  fail "sbatch of the shard array failed"
MERGE=$(sbatch --parsable --dependency=afterok:"$JOBID" --gres=none --cpus-per-task=1 \
  --chdir="$TMP/work" --output="$TMP/log/merge-%j.out" --export=ALL,MODE=merge \
  scripts/slurm_sweep.sbatch) ||
  fail "sbatch of the merge failed"
echo "slurm: shard array $JOBID, merge $MERGE"

# ---- kill task 1 mid-run and requeue it -----------------------------------------------------------
KILLED=1
KDIR=$OUT/shard-$KILLED
task_state() { squeue -h -j "${JOBID}_$KILLED" -o %T 2>/dev/null | head -n 1; }
lines() { if [ -f "$1" ]; then wc -l <"$1"; else echo 0; fi; }
# The sweep's process group (the pid in its --out lock file): stopped once a case is written.
deadline=$(($(date +%s) + 300))
polls=0
while :; do
  if [ "$(lines "$KDIR/results.jsonl")" -ge 1 ] && [ -s "$KDIR/.fa2bench.lock" ]; then
    pid=$(tr -dc 0-9 <"$KDIR/.fa2bench.lock")
    pgid=$(ps -o pgid= -p "$pid" 2>/dev/null | tr -dc 0-9)
    [ -n "$pgid" ] && kill -STOP -- "-$pgid" 2>/dev/null && break
  fi
  polls=$((polls + 1))
  if [ $((polls % 20)) -eq 0 ]; then  # about once a second: the task still running, in time
    st=$(scontrol show job "${JOBID}_$KILLED" 2>/dev/null | tr ' ' '\n' | sed -n 's/^JobState=//p')
    case "$st" in
      PENDING | CONFIGURING | RUNNING) ;;
      *) cat "$TMP"/log/shard-*.out >&2; fail "shard $KILLED is ${st:-unknown} before the test could stop it" ;;
    esac
    [ "$(date +%s)" -lt "$deadline" ] || { show_logs; fail "shard $KILLED wrote no case within 300 s"; }
  fi
  sleep 0.05
done
stopped_at=$(lines "$KDIR/results.jsonl")
scontrol requeuehold "${JOBID}_$KILLED" || fail "scontrol requeuehold ${JOBID}_$KILLED failed"
# The first run is over when the task is pending again and no process holds the folder's lock.
deadline=$(($(date +%s) + 120))
until [ "$(task_state)" = PENDING ] && flock -n "$KDIR/.fa2bench.lock" true; do
  [ "$(date +%s)" -lt "$deadline" ] || { squeue >&2; show_logs; fail "the requeued shard $KILLED did not stop within 120 s"; }
  sleep 0.5
done
cp "$KDIR/results.jsonl" "$TMP/killed.jsonl"
killed_at=$(lines "$TMP/killed.jsonl")
shard_cases=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["cases"]))' \
  "$KDIR/sweep.json") || fail "cannot read $KDIR/sweep.json"
echo "slurm: shard $KILLED stopped after $stopped_at case(s), killed and requeued with" \
  "$killed_at of $shard_cases finished"
if [ "$killed_at" -lt 1 ] || [ "$killed_at" -ge "$shard_cases" ]; then
  fail "shard $KILLED was killed with $killed_at of $shard_cases case(s) finished (want mid-run)"
fi
scontrol release "${JOBID}_$KILLED" || fail "scontrol release ${JOBID}_$KILLED failed"
# A requeued job waits out the credential lifetime (AuthInfo cred_expire, 120 s) before it may
# start again; nothing of that run is left on this node, so start it now.
scontrol update JobId="${JOBID}_$KILLED" StartTime=now >/dev/null ||
  fail "scontrol update StartTime=now of ${JOBID}_$KILLED failed"

deadline=$(($(date +%s) + 600))
while [ -n "$(squeue -h -j "$JOBID,$MERGE" 2>/dev/null)" ]; do
  # A failed shard leaves the merge pending for good (kill_invalid_depend does not always
  # cancel it): that is the end of the run.
  if [ "$(squeue -h -j "$MERGE" -o %r 2>/dev/null)" = DependencyNeverSatisfied ]; then
    cat "$TMP"/log/shard-*.out >&2
    fail "a shard failed, so the merge can never run (DependencyNeverSatisfied)"
  fi
  [ "$(date +%s)" -lt "$deadline" ] || {
    squeue >&2
    show_logs
    fail "jobs still queued or running after 600 s"
  }
  sleep 2
done

# "COMPLETED 0:0": the job's state and exit code (scontrol keeps finished jobs for MinJobAge).
job_state() {
  scontrol show job "$1" 2>/dev/null | tr ' ' '\n' |
    sed -n 's/^JobState=//p; s/^ExitCode=//p' | head -n 2 | paste -sd ' '
}
for task in 0 1 2; do
  s=$(job_state "${JOBID}_$task")
  if [ "$s" != "COMPLETED 0:0" ]; then
    cat "$TMP"/log/shard-*.out >&2
    fail "shard $task: ${s:-no state} (want COMPLETED 0:0: deferred checks never fail a shard)"
  fi
done
s=$(job_state "$MERGE")
if [ "$s" != "COMPLETED 0:0" ]; then
  cat "$TMP"/log/*.out >&2
  fail "merge job: ${s:-no state} (want COMPLETED 0:0)"
fi
echo "slurm: 3 shards and the merge completed"

# ---- the killed task: requeued once, resumed, nothing finished before the kill run again --------
restarts=$(scontrol show job "${JOBID}_$KILLED" 2>/dev/null | tr ' ' '\n' | sed -n 's/^Restarts=//p')
[ "$restarts" = 1 ] || fail "shard $KILLED: Restarts=${restarts:-none} (want 1: killed and requeued once)"
KLOG=$TMP/log/shard-${JOBID}_$KILLED.out
grep -q "interrupted after" "$KLOG" ||
  { cat "$KLOG" >&2; fail "shard $KILLED's log does not show its first run interrupted"; }
grep -q "slurm_sweep: .*resuming $KDIR (restart 1" "$KLOG" ||
  { cat "$KLOG" >&2; fail "shard $KILLED's log does not show the requeued run resuming $KDIR"; }
python3 - "$TMP/killed.jsonl" "$KDIR/results.jsonl" "$KDIR/sweep.json" <<'EOF' ||
import json, sys
killed = open(sys.argv[1]).read().splitlines(keepends=True)
killed = [l for l in killed if l.endswith("\n")]  # a line cut by the kill runs again
final = open(sys.argv[2]).read().splitlines(keepends=True)
want = json.load(open(sys.argv[3]))["cases"]
ids = [json.loads(l)["id"] for l in final]
bad = []
if final[:len(killed)] != killed:
    bad.append("the results finished before the kill were not kept as they were")
if sorted(ids) != sorted(want) or len(ids) != len(set(ids)):
    bad.append(f"results.jsonl holds {len(ids)} results ({len(set(ids))} cases), want each of "
               f"the shard's {len(want)} cases once: a finished case ran again or one is missing")
for b in bad:
    print("FAIL:", b, file=sys.stderr)
if not bad:
    print(f"slurm: shard resumed: {len(killed)} case(s) kept from before the kill, "
          f"{len(final) - len(killed)} run after the requeue")
sys.exit(1 if bad else 0)
EOF
  fail "shard $KILLED did not resume its folder"

# ---- the extra arguments reached every shard word for word -------------------------------------
for task in 0 1 2; do
  python3 - "$OUT/shard-$task/sweep.json" "$ARG_SET" "$ENV_SET" <<'EOF' ||
import json, sys
got = json.load(open(sys.argv[1]))["args"]["set"]
want = sys.argv[2:]
if got != want:
    sys.exit(f"FAIL: {sys.argv[1]}: --set {got}, want {want}")
EOF
    fail "shard $task's sweep did not get the extra arguments as given"
done

# ---- fa2bench check on the merged results ------------------------------------------------------
"$BIN" check "$OUT/all/results.json" --config "$CONFIG" >"$TMP/check.out" 2>&1
rc=$?
[ "$rc" -eq 0 ] || { cat "$TMP/check.out" >&2; fail "fa2bench check of the merged results exited $rc"; }
echo "slurm: fa2bench check of the merged results passed"

# ---- merged == unsharded, case for case and check for check ------------------------------------
python3 - "$TMP/ref/results.json" "$TMP/slurm/all/results.json" "$TMP"/slurm/shard-*/results.json <<'EOF' ||
import json, sys
ref, merged = (json.load(open(p)) for p in sys.argv[1:3])
shards = [json.load(open(p)) for p in sys.argv[3:]]
bad = []
def cases(rs):
    return [(c["id"], c["status"]) for c in rs["cases"]]
def verdicts(rs):
    return [(c["name"], c["verdict"]) for c in rs["checks"]]
if cases(ref) != cases(merged):
    bad.append(f"cases differ:\n  unsharded {cases(ref)}\n  merged    {cases(merged)}")
if verdicts(ref) != verdicts(merged):
    bad.append(f"check verdicts differ:\n  unsharded {verdicts(ref)}\n  merged    {verdicts(merged)}")
if len(shards) != 3:
    bad.append(f"{len(shards)} shard results, want 3")
if sum(len(s["cases"]) for s in shards) != len(ref["cases"]):
    bad.append("the shards' cases do not add up to the unsharded run's")
if not any(c["verdict"] == "deferred" for s in shards for c in s["checks"]):
    bad.append("no shard deferred a check (the config has checks across shards)")
if any(c["verdict"] == "deferred" for c in merged["checks"]):
    bad.append("the merge left a check deferred")
for b in bad:
    print("FAIL:", b, file=sys.stderr)
print(f"slurm: {len(ref['cases'])} cases and {len(ref['checks'])} checks: merged == unsharded"
      if not bad else "", end="")
sys.exit(1 if bad else 0)
EOF
  fail "merged results differ from the unsharded run"
echo
echo "slurm: PASS"
