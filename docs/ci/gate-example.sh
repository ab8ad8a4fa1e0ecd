#!/usr/bin/env bash
# The regression gate of docs/ci.md, end to end against knobscope-sim. A CI job runs
# the reference server and the candidate in one experiment, in interleaved rounds
# (a fresh server each), and gates the candidate's ratios against the reference:
#   1. candidate = reference (the unchanged configuration): must pass (exit 0);
#   2. candidate 20 % slower at every engine step (knobscope-sim --step-scale 1.2,
#      a planted regression of about 1.2x TTFT p99): must fail with exit 3, a JUnit
#      <failure>, and ttft_ms.p99 among the failed checks.
# .ci/run runs it. docs/ci.md says how many rounds it needs on a 2-core machine.
#   docs/ci/gate-example.sh [BIN_DIR] [WORK_DIR] [ROUNDS]   BIN_DIR default build/release/bin
set -euo pipefail
bin=$(cd "${1:-build/release/bin}" && pwd)
work=${2:-$(mktemp -d)}
rounds=${3:-${GATE_ROUNDS:-8}}
mkdir -p "$work"

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

spec() { # $1: the candidate's --step-scale; prints the experiment a CI job would run per change
    local port
    port=$(free_port)
    cat <<EOF
{
  "name": "gate-example",
  "target": {"base_url": "http://127.0.0.1:$port", "api": "completions"},
  "server": {"command": ["$bin/knobscope-sim", "--port", "$port", "--profile", "sim-8b",
                         "--max-num-seqs", "16", "--step-scale", "{step_scale}"],
             "ready_path": "/health", "ready_timeout_s": 60, "restart_between_configs": true},
  "configs": [
    {"label": "reference", "model": "sim-8b", "knobs": {"step_scale": 1}},
    {"label": "candidate", "model": "sim-8b", "knobs": {"step_scale": $1}}
  ],
  "arms": [{"name": "stress", "mode": "concurrency", "concurrency": 32, "requests": 96, "max_tokens": 16}],
  "prompts": {"source": "synthetic", "input_tokens": 64, "seed": 1},
  "repeats": $rounds
}
EOF
}

gate() { # $1: run file, $2: JUnit file; prints the Markdown summary, returns compare's exit status
    "$bin/knobscope" compare "$1" --baseline reference --format md \
        --fail-if "ttft_ms.p99 > 1.10x" --fail-if "ttft_ms.p50 > 1.10x" --fail-if "tpot_ms.p50 > 1.10x" \
        --fail-if "errors > 0" --junit "$2"
}

experiment() { # $1: name, $2: the candidate's --step-scale
    spec "$2" >"$work/$1.json"
    if ! "$bin/knobscope" run "$work/$1.json" --out "$work/$1.jsonl" --progress none >"$work/$1.run.log" 2>&1; then
        echo "gate-example: knobscope run $1 failed:" >&2
        cat "$work/$1.run.log" >&2
        exit 1
    fi
}

experiment unchanged 1
status=0
gate "$work/unchanged.jsonl" "$work/unchanged.xml" >"$work/unchanged.md" 2>"$work/unchanged.log" || status=$?
if [ "$status" -ne 0 ]; then
    echo "gate-example: the unchanged configuration failed the gate (exit $status):" >&2
    cat "$work/unchanged.log" >&2
    exit 1
fi
echo "gate-example: unchanged configuration, $rounds rounds: passed (exit 0), $(grep -c '<testcase ' "$work/unchanged.xml") checks"
grep '^gate ' "$work/unchanged.log" | sed 's/^/  /'

experiment regressed 1.2
status=0
gate "$work/regressed.jsonl" "$work/regressed.xml" >"$work/regressed.md" 2>"$work/regressed.log" || status=$?
if [ "$status" -ne 3 ] || ! grep -q '<failure ' "$work/regressed.xml" \
        || ! grep -q '^gate FAIL.*ttft_ms\.p99' "$work/regressed.log"; then
    echo "gate-example: the planted regression (1.2x) was not caught on ttft_ms.p99 (exit $status, expected 3," \
        "a JUnit failure and a failed ttft_ms.p99 check):" >&2
    cat "$work/regressed.log" >&2
    exit 1
fi
echo "gate-example: planted regression, $rounds rounds: failed as it should (exit 3)," \
    "$(grep -c '<failure ' "$work/regressed.xml") of $(grep -c '<testcase ' "$work/regressed.xml") checks"
grep '^gate ' "$work/regressed.log" | sed 's/^/  /'
