#!/usr/bin/env bash
# The max-num-seqs TTFT cliff, as a user would see it: knobscope run against knobscope-sim
# at --max-num-seqs 32 and 128, stress arm and gentle arm; prints TTFT p50 ratios.
# Not a test: it prints numbers. Usage: bench/cli_cliff.sh [build/release/bin]
set -euo pipefail
bin="${1:-build/release/bin}"
out="$(mktemp -d)"
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$out"' EXIT

p50() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[0]['ttft_ms']['p50'])" "$1"; }

for mns in 32 128; do
    "$bin/knobscope-sim" --port 0 --profile sim-8b --max-num-seqs "$mns" >"$out/sim$mns.txt" &
    sim=$!
    for _ in $(seq 50); do grep -q listening "$out/sim$mns.txt" && break; sleep 0.1; done
    url=$(sed -n 's/^listening on //p' "$out/sim$mns.txt")
    for arm in "stress 64 256 256" "gentle 4 64 128"; do
        set -- $arm
        "$bin/knobscope" run --base-url "$url" --model sim-8b --concurrency "$2" --requests "$3" --max-tokens "$4" \
            --progress none --label "mns$mns-$1" --out "$out/$1-$mns.jsonl" >"$out/$1-$mns.txt"
        "$bin/knobscope" report "$out/$1-$mns.jsonl" --json >"$out/$1-$mns.json"
        echo "== mns $mns, $1 arm (concurrency $2, $3 requests, $4 tokens)"
        sed -n '1,9p' "$out/$1-$mns.txt"
    done
    kill "$sim"; wait "$sim" || true
done
for arm in stress gentle; do
    a=$(p50 "$out/$arm-32.json"); b=$(p50 "$out/$arm-128.json")
    python3 -c "print(f'$arm arm: TTFT p50 {float($a):.1f} ms at mns32 vs {float($b):.1f} ms at mns128 = {float($a)/float($b):.1f}x')"
done
