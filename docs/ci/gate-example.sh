#!/usr/bin/env bash
# The regression gate of docs/ci.md, end to end against knobscope-sim: a saved
# baseline, an unchanged configuration that must pass, and a planted regression
# (the server's batch cut from 64 slots to 4) that must fail with exit 3 and a
# JUnit <failure>. .ci/run runs it; a CI job runs the same two commands per change
# (knobscope run, then knobscope compare ... --fail-if ... --junit).
#   docs/ci/gate-example.sh [BIN_DIR] [WORK_DIR]     BIN_DIR default build/release/bin
set -euo pipefail
bin=${1:-build/release/bin}
work=${2:-$(mktemp -d)}
mkdir -p "$work"
sim_pid=

start_sim() { # $1: --max-num-seqs
    stop_sim
    "$bin/knobscope-sim" --port 0 --profile sim-8b --max-num-seqs "$1" >"$work/sim.out" 2>&1 &
    sim_pid=$!
    for _ in $(seq 100); do
        url=$(sed -n 's/.*listening on \(http[^ ]*\).*/\1/p' "$work/sim.out" | head -1)
        [ -n "$url" ] && return 0
        sleep 0.1
    done
    echo "gate-example: knobscope-sim did not start: $(cat "$work/sim.out")" >&2
    exit 1
}
stop_sim() { if [ -n "$sim_pid" ]; then kill "$sim_pid" 2>/dev/null || true; wait "$sim_pid" 2>/dev/null || true; sim_pid=; fi; }
trap stop_sim EXIT

load() { # $1: run file. The load a CI job would run for every change.
    "$bin/knobscope" run --base-url "$url" --model sim-8b --concurrency 32 --requests 128 --max-tokens 16 \
        --input-tokens 64 --label server --progress none --out "$1" >/dev/null
}

gate() { # $1: run file, $2: JUnit file; prints the Markdown summary, returns compare's exit status
    "$bin/knobscope" compare "$1" "$work/baseline.jsonl" --format md \
        --fail-if "ttft_ms.p50 > 1.5x" --fail-if "ttft_ms.p99 > 2x" --fail-if "errors > 0" \
        --fail-if "out_tok_per_s < 0.5x" --junit "$2"
}

# A fresh server for every run, as in CI: the same prompts to a warm server would
# hit its prefix cache and make the second run several times faster.
start_sim 64
load "$work/baseline.jsonl" # saved once, kept with the project (or as a CI artifact)
start_sim 64
load "$work/current.jsonl" # the same configuration again: must pass
status=0
gate "$work/current.jsonl" "$work/unchanged.xml" >"$work/unchanged.md" 2>"$work/unchanged.log" || status=$?
if [ "$status" -ne 0 ]; then
    echo "gate-example: the unchanged configuration failed the gate (exit $status):" >&2
    cat "$work/unchanged.log" >&2
    exit 1
fi
echo "gate-example: unchanged configuration: passed (exit 0), $(grep -c '<testcase ' "$work/unchanged.xml") checks"

start_sim 4 # the planted regression: a server with 4 batch slots under 32 streams
load "$work/regressed.jsonl"
status=0
gate "$work/regressed.jsonl" "$work/regressed.xml" >"$work/regressed.md" 2>"$work/regressed.log" || status=$?
if [ "$status" -ne 3 ] || ! grep -q '<failure ' "$work/regressed.xml"; then
    echo "gate-example: the planted regression was not caught (exit $status, expected 3 and a JUnit failure):" >&2
    cat "$work/regressed.log" >&2
    exit 1
fi
echo "gate-example: planted regression: failed as it should (exit 3), $(grep -c '<failure ' "$work/regressed.xml") of $(grep -c '<testcase ' "$work/regressed.xml") checks"
grep '^gate FAIL' "$work/regressed.log" | sed 's/^/  /'
