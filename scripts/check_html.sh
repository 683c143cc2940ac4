#!/usr/bin/env bash
# Renders every command's report.html in headless Chromium (Debian's `chromium`) to a PNG and
# fails on a blank page or on any console message (a script error shows as one).
# Usage: bash scripts/check_html.sh [VPSIM_BINARY]   (default: target/debug/vpsim)
# The screenshots stay in target/html-check/ to look at.
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-target/debug/vpsim}"
chrome="$(command -v chromium || command -v chromium-browser || true)"
if [ -z "$chrome" ]; then
  echo "check_html: chromium is not installed (apt-get install chromium)" >&2
  exit 1
fi
out="target/html-check"
rm -rf "$out"
mkdir -p "$out"
race="scenarios/race_to_three.toml"
"$bin" run scenarios/twilight_imperium_4.toml --games 3000 -q --out "$out/run" > /dev/null
"$bin" check "$race" --games 3000 -q --out "$out/check" > /dev/null
"$bin" compare "$race" --b-set settings.q=0.45 --games 3000 -q --out "$out/compare" > /dev/null
"$bin" sweep "$race" --param settings.q=0.2:0.5:0.1 --games 3000 -q --out "$out/sweep" > /dev/null
"$bin" sensitivity "$race" --param settings.p --param settings.q --games 3000 -q --out "$out/sensitivity" > /dev/null
"$bin" tune "$race" --param settings.q=0.2:0.5 --goal 'win_rate(First) - win_rate(Second) = 0' \
  --games 3000 -q --out "$out/tune" > /dev/null
"$bin" exploit scenarios/twilight_imperium_4.toml --faction Sol --games 300 --iterations 1 -q --out "$out/exploit" > /dev/null
"$bin" ladder scenarios/twilight_imperium_4.toml --levels weighted,lookahead:2 --games 100 -q --out "$out/ladder" > /dev/null
failed=0
for d in run check compare sweep sensitivity tune exploit ladder; do
  page="$(pwd)/$out/$d/report.html"
  png="$out/$d.png"
  # The flags keep Chromium off the network (this machine's network is closed).
  timeout 120 "$chrome" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$out/profile-$d" --enable-logging=stderr --v=0 \
    --window-size=1100,2400 --screenshot="$png" "file://$page" 2> "$out/$d.log" || true
  size=$(stat -c %s "$png" 2>/dev/null || echo 0)
  if grep -q ":CONSOLE" "$out/$d.log"; then
    echo "FAIL $d: console messages:" >&2
    grep ":CONSOLE" "$out/$d.log" >&2
    failed=1
  elif [ "$size" -lt 20000 ]; then
    echo "FAIL $d: the page rendered blank ($png is $size bytes)" >&2
    failed=1
  else
    echo "ok   $d: $png ($size bytes), no console messages"
  fi
done
exit $failed
