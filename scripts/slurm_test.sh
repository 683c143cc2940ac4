#!/usr/bin/env bash
# End-to-end test of the Slurm recipe (examples/scale-out/slurm) on a real one-node Slurm
# cluster (scripts/slurm_cluster.sh): the shards as an array job with one task killed, merge
# refusing with the missing index and the command that runs it again, the task resubmitted
# alone by retry.sh with its dependent merge job, and the merged result equal to one whole
# run bit for bit (bar `performance`). Fails, never skips, when Slurm cannot be installed.
#   bash scripts/slurm_test.sh target/debug/vpsim
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
vpsim=$(cd "$(dirname "${1:?usage: slurm_test.sh PATH/TO/vpsim}")" && pwd)/$(basename "$1")
work=$(mktemp -d /tmp/vpsim-slurm.XXXXXX)
chmod 755 "$work" # the MUNGE socket inside must be reachable
started=$(date +%s)
cleanup() {
  bash "$root/scripts/slurm_cluster.sh" stop "$work/cluster" || true
  rm -rf "$work" 2>/dev/null || { sleep 1; rm -rf "$work"; }
}
trap cleanup EXIT
fail() {
  echo "slurm test FAILED: $*" >&2
  for f in "$work"/cluster/*.log "$work"/jobs/*.log; do
    [ -f "$f" ] && { echo "--- $f" >&2; tail -n 15 "$f" >&2; }
  done
  exit 1
}

bash scripts/slurm_cluster.sh start "$work/cluster"
export SLURM_CONF=$work/cluster/slurm.conf

# The recipe's settings; the key stands for a CI secret.
export SCENARIO=$root/scenarios/twilight_imperium_4.toml GAMES=4000000 SEED=11 SHARDS=4
export OUT=$work/results VPSIM=$vpsim CHECK=1 VPSIM_SHARD_KEY=slurm-test-key
mkdir -p "$work/jobs" && cd "$work/jobs"

# 1. Submit the array and its merge; kill task 3 while it plays (as a preemption would).
line=$(bash "$root/examples/scale-out/slurm/submit.sh")
echo "$line"
shards=$(sed -n 's/.*shards job \([0-9]*\).*/\1/p' <<<"$line")
merge=$(sed -n 's/.*merge job \([0-9]*\).*/\1/p' <<<"$line")
[ -n "$shards" ] && [ -n "$merge" ] || fail "submit.sh did not name its jobs: $line"
for _ in $(seq 1 600); do
  [ "$(squeue -h -j "${shards}_3" -o %T 2>/dev/null)" = RUNNING ] && break
  sleep 0.2
done
[ "$(squeue -h -j "${shards}_3" -o %T)" = RUNNING ] || fail "task 3 did not start in 120 s"
sleep 1
scancel "${shards}_3"

# 2. Wait for the array to end; the merge job must never run (afterok, invalid dependency).
wait_gone() {
  for _ in $(seq 1 600); do
    [ -z "$(squeue -h -j "$1" 2>/dev/null)" ] && return 0
    sleep 0.5
  done
  fail "job $1 did not end in 300 s"
}
wait_gone "$shards"
wait_gone "$merge"
state=$(scontrol show job "$merge" | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')
[ "$state" = CANCELLED ] || fail "the merge job of an array with a failed task is $state, not CANCELLED"
[ ! -e "$OUT/shard-3/tally.json" ] || fail "the killed task 3 wrote a tally"
grep -q "interrupted" "vpsim-shard-${shards}_3.log" || fail "task 3 was not interrupted while it played"
for k in 1 2 4; do [ -f "$OUT/shard-$k/tally.json" ] || fail "shard $k wrote no tally"; done

# 3. merge refuses with exit 2, naming 3/4 and the command that runs it again.
set +e
"$vpsim" merge "$OUT"/shard-* > /dev/null 2> "$work/refused.txt"
rc=$?
set -e
cat "$work/refused.txt"
[ $rc = 2 ] || fail "merge of 3 shards of 4 exited $rc, not 2"
grep -q "missing 3/4" "$work/refused.txt" || fail "merge did not name the missing shard 3/4"
grep -qF -- "--shard 3/4 --out $OUT/shard-3" "$work/refused.txt" \
  || fail "merge did not give the command that runs shard 3 again"
[ "$("$vpsim" merge --list-missing "$OUT"/shard-*)" = 3 ] || fail "merge --list-missing is not 3"

# 4. retry.sh resubmits task 3 alone (sbatch --array=3) and the merge after it.
line=$(bash "$root/examples/scale-out/slurm/retry.sh")
echo "$line"
grep -q "resubmitted: shards 3 as job" <<<"$line" || fail "retry.sh did not resubmit shard 3 alone"
merge=$(sed -n 's/^merge job \([0-9]*\).*/\1/p' <<<"$line")
wait_gone "$merge"
state=$(scontrol show job "$merge" | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')
[ "$state" = COMPLETED ] || fail "the merge job after the retry is $state, not COMPLETED"
[ -f "$OUT/checks.xml" ] || fail "the merge job wrote no checks.xml (CHECK=1)"

# 5. The merged result is one whole run's, bit for bit bar `performance`.
# A report folder counts usage, so the whole run asks for it too.
"$vpsim" run "$SCENARIO" --games "$GAMES" --seed "$SEED" --usage --json --quiet > "$work/whole.json"
python3 - "$OUT/merged.json" "$work/whole.json" <<'PY' || fail "the merged result differs from one whole run"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for d in (a, b):
    d.pop("performance", None)
if a != b:
    diff = [k for k in set(a) | set(b) if a.get(k) != b.get(k)]
    sys.exit(f"fields that differ: {diff}")
PY
echo "slurm test passed in $(( $(date +%s) - started )) s: 4 shards on a Slurm array, task 3 killed, resubmitted alone, merged equal to one run"
