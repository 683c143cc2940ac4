#!/usr/bin/env bash
# Runs again only the shards missing from $OUT (a task that failed, was preempted or ran out
# of time left no tally.json), then the merge, with the settings submit.sh was given.
#   SCENARIO=... GAMES=... SHARDS=16 OUT=$PWD/results bash examples/scale-out/slurm/retry.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${SCENARIO:?set SCENARIO to the scenario file}"
: "${OUT:?set OUT to the results folder}"
export SHARDS=${SHARDS:-16}
if compgen -G "$OUT/shard-*/tally.json" >/dev/null; then
  # The indices no folder holds, as a Slurm array list (3,7,12).
  missing=$("${VPSIM:-vpsim}" merge --list-missing "$OUT"/shard-* | paste -sd, -)
else
  missing="1-$SHARDS"
fi
if [ -z "$missing" ]; then
  echo "no shard is missing from $OUT: merging"
  merge=$(sbatch --parsable "$here/merge.sbatch")
else
  shards=$(sbatch --parsable --array="$missing" "$here/shards.sbatch")
  shards=${shards%%;*}
  merge=$(sbatch --parsable --dependency="afterok:$shards" --kill-on-invalid-dep=yes \
    "$here/merge.sbatch")
  echo "resubmitted: shards $missing as job $shards"
fi
merge=${merge%%;*}
echo "merge job $merge"
