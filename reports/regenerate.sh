#!/usr/bin/env bash
# Regenerates the committed reports of the seed scenarios (tables, charts, report.md).
# Usage: bash reports/regenerate.sh   (from anywhere; the dev profile is optimised enough: about a minute on two cores)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --quiet
# Pax Romana and TI4 rotate their seats, so their reports tell a seat's edge from a faction's.
for s in europa_universalis_price_of_power liberty_or_death pax_romana terrus twilight_imperium_4; do
  rotate=()
  case "$s" in pax_romana|twilight_imperium_4) rotate=(--rotate-seats) ;; esac
  target/debug/vpsim run "scenarios/$s.toml" --games 200000 --seed 1 --quiet --force "${rotate[@]}" --out "reports/$s" > /dev/null
  echo "reports/$s"
done
# Balance at every skill level: TI4 with every faction at random play, then lookahead 8 and 32
# (release build: the lookahead levels play about 100,000 playouts a second).
cargo build --release --quiet
target/release/vpsim ladder scenarios/twilight_imperium_4.toml --levels weighted,lookahead:8,lookahead:32 \
  --games 1000 --seed 1 --quiet --force --out reports/twilight_imperium_4-ladder > /dev/null
echo "reports/twilight_imperium_4-ladder"
# Best responses: each TI4 faction's best mix against the others' agents, its own agent a candidate.
target/release/vpsim exploit scenarios/twilight_imperium_4.toml --seed 1 --quiet --force \
  --out reports/twilight_imperium_4-exploit > /dev/null
echo "reports/twilight_imperium_4-exploit"
