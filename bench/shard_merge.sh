#!/usr/bin/env bash
# Sharding, measured: one experiment (concurrency 64, external server) run
# unsharded, then as two shards (--shard 0/2 and 1/2, 32 + 32 streams, started
# together with --start-at) merged with `knobscope merge`, each against a fresh
# knobscope-sim. Prints, per round: requests, TTFT p50/p99 from `report --json`,
# the simulator's peak open connections (/metrics) and its peak of concurrent
# requests (from its truth log), and the merge's start skew.
# Not a test: it prints numbers. Usage: bench/shard_merge.sh [build/release/bin] [rounds]
set -euo pipefail
bin="${1:-build/release/bin}"
rounds="${2:-3}"
out="$(mktemp -d)"
# KEEP=1 leaves the run files, truth logs and reports in $out for a closer look.
trap 'kill $(jobs -p) 2>/dev/null || true; [ "${KEEP:-}" = 1 ] && echo "kept $out" || rm -rf "$out"' EXIT

start_sim() { # $1: name
    "$bin/knobscope-sim" --port 0 --profile sim-1.8b --max-num-seqs 256 --truth-log "$out/$1.truth.jsonl" \
        >"$out/$1.sim.txt" &
    sim=$!
    for _ in $(seq 100); do grep -qs listening "$out/$1.sim.txt" && break; sleep 0.1; done
    url=$(sed -n 's/^listening on //p' "$out/$1.sim.txt")
    cat >"$out/$1.spec.json" <<SPEC
{"name": "shard-check", "target": {"base_url": "$url", "api": "completions"},
 "configs": [{"label": "sim", "model": "sim-1.8b"}],
 "arms": [{"name": "stress", "mode": "concurrency", "concurrency": 64, "requests": 1024, "max_tokens": 64}],
 "prompts": {"source": "synthetic", "input_tokens": 128, "seed": 1}}
SPEC
}

stop_sim() { # $1: name; prints the peak open connections
    curl -s "$url/metrics" | sed -n 's/^knobscope_sim_open_connections_peak \(.*\)/\1/p' >"$out/$1.peak"
    kill "$sim"; wait "$sim" || true
}

describe() { # $1: name, $2: run file
    "$bin/knobscope" report "$2" --json >"$out/$1.report.json"
    python3 - "$out/$1.report.json" "$out/$1.truth.jsonl" "$out/$1.peak" "$2" "$1" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))[0]
edges = []
server_ttft = []
for line in open(sys.argv[2]):
    r = json.loads(line)
    if r.get("endpoint") == "completions":
        edges += [(r["arrival_us"], 1), (r["end_us"], -1)]
        if r.get("first_token_us") is not None:
            server_ttft.append((r["first_token_us"] - r["arrival_us"]) / 1000)
server_ttft.sort()
server_p50 = server_ttft[len(server_ttft) // 2] if server_ttft else float("nan")
now = peak = 0
for _, d in sorted(edges, key=lambda e: (e[0], e[1])):
    now += d
    peak = max(peak, now)
skew = "-"
for line in open(sys.argv[4]):
    j = json.loads(line)
    if j.get("type") == "run" and "merged" in j:
        skew = f"{j['merged']['start_skew_us'] / 1000:.1f} ms"
print(f"{sys.argv[5]:<14} requests {report['requests']:>5}  ok {report['ok']:>5}  "
      f"TTFT p50 {report['ttft_ms']['p50']:7.2f} ms  p99 {report['ttft_ms']['p99']:7.2f} ms  "
      f"server TTFT p50 {server_p50:7.2f} ms  send queue p50 {(report.get('send_queue_ms') or {}).get('p50', float('nan')):5.2f} ms  "
      f"peak connections {open(sys.argv[3]).read().strip() or '?':>3}  peak concurrent requests {peak:>3}  "
      f"peak in flight (client) {report.get('peak_in_flight', '-')}  start skew {skew}")
PY
}

for round in $(seq "$rounds"); do
    start_sim "one-$round"
    "$bin/knobscope" run "$out/one-$round.spec.json" --progress none --out "$out/one-$round.jsonl" >/dev/null 2>&1
    stop_sim "one-$round"
    describe "one-$round" "$out/one-$round.jsonl"

    start_sim "two-$round"
    at=$(( $(date +%s) + 4 ))
    for i in 0 1; do
        "$bin/knobscope" run "$out/two-$round.spec.json" --shard "$i/2" --start-at "$at" --progress none \
            --out "$out/two-$round.part-$i.jsonl" >/dev/null 2>"$out/two-$round.part-$i.err" &
    done
    wait $(jobs -p | grep -v "^$sim$")
    stop_sim "two-$round"
    "$bin/knobscope" merge "$out/two-$round.part-0.jsonl" "$out/two-$round.part-1.jsonl" \
        --out "$out/two-$round.jsonl" >/dev/null 2>&1
    describe "two-$round" "$out/two-$round.jsonl"
done
