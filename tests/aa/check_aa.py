#!/usr/bin/env python3
"""A/A check (ctest label `aa`): the same configuration, run twice, must not differ.

usage: check_aa.py --knobscope PATH --sim PATH [--keep DIR]

Runs one experiment against knobscope-sim with two identical configurations
(separate server starts, as compare's configurations always are) over the
bundled arm shapes, scaled down to run in about a minute:

  fixed    4 closed-loop streams, gentle (never queued)
  poisson  open loop at a rate the server keeps up with
  stress   16 closed-loop streams on 4 batch slots (a queue builds)

then `knobscope compare --json` reads the second against the first and checks:

  - at most 5 % of the compared latency ratios (TTFT, TPOT, ITL, E2E at p50,
    p95 and p99, per arm) are called significant: their 95 % interval
    excludes 1 (docs/metrics.md, "Intervals");
  - no arm names a cause (queueing, compute, prefill) for the second
    configuration: the same engine twice has none;
  - every interval says how it was made (ci95.method), and every compared
    value is a finite number: a missing or NaN figure fails, never passes.

Counts, never times. Exit 0 pass, 1 fail.
"""
import argparse
import json
import math
import os
import shutil
import socket
import subprocess
import sys
import tempfile

METRICS = ("ttft_ms", "tpot_ms", "itl_ms", "e2e_ms")
STATS = ("p50", "p95", "p99")
CAUSES = ("queueing", "compute", "prefill")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def spec(sim, port):
    command = [sim, "--port", str(port), "--profile", "{model}", "--max-num-seqs", "{max_num_seqs}"]
    config = {"model": "sim-1.8b", "knobs": {"max_num_seqs": 4}}
    return {
        "name": "aa",
        "target": {"base_url": "http://127.0.0.1:%d" % port, "api": "completions"},
        "server": {"command": command, "ready_path": "/health", "ready_timeout_s": 60,
                   "restart_between_configs": True},
        "configs": [dict(config, label="a"), dict(config, label="a-again")],
        "arms": [
            {"name": "fixed", "mode": "concurrency", "concurrency": 4, "requests": 32, "max_tokens": 32},
            {"name": "poisson", "mode": "rate", "rate": 4.0, "burstiness": 1.0, "duration_s": 6,
             "max_tokens": 32},
            {"name": "stress", "mode": "concurrency", "concurrency": 16, "requests": 48, "max_tokens": 32},
        ],
        "prompts": {"source": "synthetic", "input_tokens": 128, "seed": 1},
    }


def finite(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def judge(arms):
    """The findings (empty = pass) and a line per arm for the log."""
    problems, lines = [], []
    compared = significant = 0
    if len(arms) != 3:
        problems.append("compare --json gave %d arms, expected fixed, poisson and stress" % len(arms))
    for arm in arms:
        name = arm.get("arm")
        configs = arm.get("configs") or []
        if len(configs) != 2:
            problems.append("%s: %d configurations, expected 2" % (name, len(configs)))
            continue
        other = configs[1]
        marked = []
        for metric in METRICS:
            for stat in STATS:
                ratio = (other.get("ratio") or {}).get(metric, {}).get(stat)
                interval = (other.get("ratio_ci95") or {}).get(metric, {}).get(stat)
                flag = (other.get("significant") or {}).get(metric, {}).get(stat)
                if not finite(ratio) or not isinstance(interval, list) or len(interval) != 2 \
                        or not all(finite(v) for v in interval) or not isinstance(flag, bool):
                    problems.append("%s: %s.%s has no finite ratio, interval and verdict" % (name, metric, stat))
                    continue
                compared += 1
                if flag:
                    significant += 1
                    marked.append("%s.%s %.3fx [%.3f-%.3f]" % (metric, stat, ratio, interval[0], interval[1]))
        method = (other.get("ratio_ci95") or {}).get("method")
        if method != "block-bootstrap+run-to-run":
            problems.append("%s: ratio_ci95.method is %r, expected block-bootstrap+run-to-run" % (name, method))
        why = other.get("why") or {}
        if why.get("kind") in CAUSES:
            problems.append("%s: a cause named for the same configuration: [%s] %s"
                            % (name, why.get("kind"), why.get("text")))
        lines.append("%-8s why [%s]; significant: %s" % (name, why.get("kind"), ", ".join(marked) or "none"))
    if compared == 0:
        problems.append("no ratio was compared")
    elif significant > 0.05 * compared:
        problems.append("%d of %d ratios called significant, more than 5 %%" % (significant, compared))
    lines.append("%d of %d ratios significant" % (significant, compared))
    return problems, lines


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--knobscope", required=True)
    p.add_argument("--sim", required=True)
    p.add_argument("--keep", help="keep the spec and the run file in DIR")
    args = p.parse_args()
    for path in (args.knobscope, args.sim):
        if not os.access(path, os.X_OK):
            print("FAIL: %s is not an executable" % path, flush=True)
            return 1
    work = args.keep or tempfile.mkdtemp(prefix="knobscope-aa-")
    os.makedirs(work, exist_ok=True)
    try:
        spec_path, runs = os.path.join(work, "aa.json"), os.path.join(work, "aa.jsonl")
        with open(spec_path, "w") as f:
            json.dump(spec(args.sim, free_port()), f, indent=1)
        run = subprocess.run([args.knobscope, "run", spec_path, "--out", runs, "--progress", "none"],
                             capture_output=True, text=True, timeout=600)
        if run.returncode != 0:
            print("FAIL: knobscope run exited %d\n%s" % (run.returncode, run.stderr[-4000:]), flush=True)
            return 1
        compare = subprocess.run([args.knobscope, "compare", runs, "--json"], capture_output=True, text=True,
                                 timeout=300)
        if compare.returncode != 0:
            print("FAIL: knobscope compare exited %d\n%s" % (compare.returncode, compare.stderr[-4000:]),
                  flush=True)
            return 1
        try:
            arms = [a for a in json.loads(compare.stdout) if isinstance(a, dict) and "configs" in a]
        except ValueError as e:
            print("FAIL: compare --json is not JSON: %s" % e, flush=True)
            return 1
        problems, lines = judge(arms)
        for line in lines:
            print("  " + line, flush=True)
        for problem in problems:
            print("FAIL: " + problem, flush=True)
        print("A/A: %s" % ("failed" if problems else "passed"), flush=True)
        return 1 if problems else 0
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
