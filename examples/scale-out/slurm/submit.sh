#!/usr/bin/env bash
# Submits a sharded vpsim run: the shards as one array job, then the merge as a job that
# starts only when every shard succeeded (afterok; cancelled if one fails).
#   SCENARIO=scenarios/twilight_imperium_4.toml GAMES=10000000 SHARDS=16 OUT=$PWD/results \
#     bash examples/scale-out/slurm/submit.sh
# A shard that failed (preempted, out of time, its node lost): run retry.sh with the same
# settings; it resubmits only the missing shards and the merge.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${SCENARIO:?set SCENARIO to the scenario file}"
: "${OUT:?set OUT to the results folder (on storage every node sees)}"
export SHARDS=${SHARDS:-16}
mkdir -p "$OUT"
shards=$(sbatch --parsable --array="1-$SHARDS" "$here/shards.sbatch")
shards=${shards%%;*}
merge=$(sbatch --parsable --dependency="afterok:$shards" --kill-on-invalid-dep=yes \
  "$here/merge.sbatch")
merge=${merge%%;*}
echo "submitted: shards job $shards (array 1-$SHARDS), merge job $merge (starts when every shard succeeded)"
