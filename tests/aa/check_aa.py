#!/usr/bin/env python3
"""A/A check (ctest label `aa`): the same configuration, run twice, must not differ.

usage: check_aa.py --knobscope PATH --sim PATH [--keep DIR]

Two experiments against knobscope-sim, each with two identical configurations
(separate server starts, as compare's configurations always are) over the
bundled arm shapes, scaled down:

  fixed    4 closed-loop streams, gentle (never queued)
  poisson  open loop at a rate the server keeps up with
  stress   16 closed-loop streams on 4 batch slots (a queue builds)

Part 1, one run per configuration. A single run cannot see run-to-run spread,
so compare must say so rather than guess (docs/metrics.md, "Intervals"):
ratio_ci95.method is "within-run", every `significant` is false (what the
bootstrap alone says is in `within_run_significant`), run_to_run.measured is
false and its note says "run-to-run not measured".

Part 2, three interleaved rounds (`"repeats": 3` at the spec's top level):
ratio_ci95.method is "rounds", run_to_run.measured is true, and no more of the
compared latency ratios (TTFT, TPOT, ITL, E2E at p50, p95 and p99, per arm; 36)
are called significant than a 5 % false-alarm rate gives by chance: 7 of 36
(P(Binomial(36, 0.05) > 7) < 0.001). A 95 % interval calls 5 % of identical
pairs different by design, and bench/power.py measured 2-6 % per arm for these
intervals (docs/PERFORMANCE.md, "Power"), so "at most 5 %" (1 of 36) would fail
a correct method on about a third of runs; the block bootstrap alone (42-44 % in
the closed loops there) is still caught.

Both parts: no arm names a cause (queueing, compute, prefill) for the second
configuration, since the same engine twice has none; every compared value and
interval is a finite number (a missing or NaN figure fails, never passes).

Counts, never times. Exit 0 pass, 1 fail.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from simcheck import allowed_false_alarms, finite, free_port  # noqa: E402

METRICS = ("ttft_ms", "tpot_ms", "itl_ms", "e2e_ms")
STATS = ("p50", "p95", "p99")
CAUSES = ("queueing", "compute", "prefill")
ROUNDS = 3


def spec(sim, port, rounds):
    command = [sim, "--port", str(port), "--profile", "{model}", "--max-num-seqs", "{max_num_seqs}"]
    config = {"model": "sim-1.8b", "knobs": {"max_num_seqs": 4}}
    # Rounds triple the server starts, so part 2's arms are shorter: the check is
    # of the method and its false alarms, not of a run's precision.
    tokens = 32 if rounds == 1 else 16
    out = {
        "name": "aa" if rounds == 1 else "aa-rounds",
        "target": {"base_url": "http://127.0.0.1:%d" % port, "api": "completions"},
        "server": {"command": command, "ready_path": "/health", "ready_timeout_s": 60,
                   "restart_between_configs": True},
        "configs": [dict(config, label="a"), dict(config, label="a-again")],
        "arms": [
            {"name": "fixed", "mode": "concurrency", "concurrency": 4, "requests": 32, "max_tokens": tokens},
            {"name": "poisson", "mode": "rate", "rate": 4.0 if rounds == 1 else 8.0, "burstiness": 1.0,
             "duration_s": 6 if rounds == 1 else 3, "max_tokens": tokens},
            {"name": "stress", "mode": "concurrency", "concurrency": 16, "requests": 48 if rounds == 1 else 32,
             "max_tokens": tokens},
        ],
        "prompts": {"source": "synthetic", "input_tokens": 128, "seed": 1},
    }
    if rounds > 1:
        out["repeats"] = rounds
    return out


def judge(arms, method):
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
                if method == "within-run":
                    alone = (other.get("within_run_significant") or {}).get(metric, {}).get(stat)
                    if not isinstance(alone, bool):
                        problems.append("%s: within_run_significant.%s.%s is %r, expected true or false"
                                        % (name, metric, stat, alone))
                    if flag:
                        problems.append("%s: %s.%s called significant from one run a side, where run-to-run "
                                        "spread is not measured" % (name, metric, stat))
                compared += 1
                if flag:
                    significant += 1
                    marked.append("%s.%s %.3fx [%.3f-%.3f]" % (metric, stat, ratio, interval[0], interval[1]))
        got = (other.get("ratio_ci95") or {}).get("method")
        if got != method:
            problems.append("%s: ratio_ci95.method is %r, expected %s" % (name, got, method))
        problems += run_to_run_problems(name, other.get("run_to_run"), method)
        why = other.get("why") or {}
        if why.get("kind") in CAUSES:
            problems.append("%s: a cause named for the same configuration: [%s] %s"
                            % (name, why.get("kind"), why.get("text")))
        lines.append("%-8s why [%s]; significant: %s" % (name, why.get("kind"), ", ".join(marked) or "none"))
    if compared == 0:
        problems.append("no ratio was compared")
    elif significant > allowed_false_alarms(compared):
        problems.append("%d of %d ratios called significant, more than the %d a 5 %% false-alarm rate gives by "
                        "chance (p < 0.001)" % (significant, compared, allowed_false_alarms(compared)))
    lines.append("%s: %d of %d ratios significant" % (method, significant, compared))
    return problems, lines


def run_to_run_problems(name, r2r, method):
    if not isinstance(r2r, dict):
        return ["%s: run_to_run is %r, expected an object" % (name, r2r)]
    problems = []
    measured = method != "within-run"
    if r2r.get("measured") is not measured:
        problems.append("%s: run_to_run.measured is %r, expected %s" % (name, r2r.get("measured"), measured))
    if r2r.get("method") != method:
        problems.append("%s: run_to_run.method is %r, expected %s" % (name, r2r.get("method"), method))
    note = r2r.get("note")
    if not isinstance(note, str) or not note:
        problems.append("%s: run_to_run.note is %r, expected a sentence" % (name, note))
    elif not measured and "run-to-run not measured" not in note:
        problems.append("%s: run_to_run.note %r does not say \"run-to-run not measured\"" % (name, note))
    if measured and r2r.get("rounds") != ROUNDS:
        problems.append("%s: run_to_run.rounds is %r, expected %d" % (name, r2r.get("rounds"), ROUNDS))
    return problems


def experiment(args, work, rounds):
    """compare --json's arms for one experiment of `rounds` rounds, or (None, why)."""
    tag = "aa" if rounds == 1 else "aa-rounds"
    spec_path, runs = os.path.join(work, tag + ".json"), os.path.join(work, tag + ".jsonl")
    with open(spec_path, "w") as f:
        json.dump(spec(args.sim, free_port(), rounds), f, indent=1)
    run = subprocess.run([args.knobscope, "run", spec_path, "--out", runs, "--progress", "none"],
                         capture_output=True, text=True, timeout=600)
    if run.returncode != 0:
        return None, "knobscope run %s exited %d\n%s" % (tag, run.returncode, run.stderr[-4000:])
    compare = subprocess.run([args.knobscope, "compare", runs, "--json"], capture_output=True, text=True,
                             timeout=300)
    if compare.returncode != 0:
        return None, "knobscope compare %s exited %d\n%s" % (tag, compare.returncode, compare.stderr[-4000:])
    try:
        return [a for a in json.loads(compare.stdout) if isinstance(a, dict) and "configs" in a], None
    except ValueError as e:
        return None, "compare --json of %s is not JSON: %s" % (tag, e)


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
        problems = []
        for rounds, method in ((1, "within-run"), (ROUNDS, "rounds")):
            arms, why = experiment(args, work, rounds)
            if why:
                problems.append(why)
                continue
            found, lines = judge(arms, method)
            for line in lines:
                print("  " + line, flush=True)
            problems += found
        for problem in problems:
            print("FAIL: " + problem, flush=True)
        print("A/A: %s" % ("failed" if problems else "passed"), flush=True)
        return 1 if problems else 0
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
