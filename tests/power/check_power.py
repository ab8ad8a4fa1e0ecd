#!/usr/bin/env python3
"""Power check (ctest label `power`): compare sees a planted 25 % slowdown and invents none.

usage: check_power.py --knobscope PATH --sim PATH [--keep DIR]

One experiment against knobscope-sim with three configurations that differ only
in `--step-scale` (every engine step that many times slower, a planted slowdown
with a known answer, docs/simulator.md): base (1), base-again (1: the A/A pair)
and s25 (1.25), in 5 interleaved rounds (`"repeats": 5` at the spec's top level),
under a Poisson open loop and a gentle fixed closed loop. It fails when

  - s25 is not significant in TPOT p50 and TTFT p50 in either arm (and the
    interval method is not "rounds");
  - more of base-again's latency ratios (TTFT, TPOT, ITL, E2E at p50, p95 and
    p99, both arms: 24) are significant than a 5 % false-alarm rate gives by
    chance (5 of 24: P(Binomial(24, 0.05) > 5) < 0.001), or base-again names a
    cause (why.kind queueing, compute or prefill);
  - any ratio, interval or verdict it reads is missing or not finite.

Sizing, from bench/power.py (docs/PERFORMANCE.md, "Power: what a comparison can
see"; 16 pairs of these arms in 3 interleaved rounds, 2026-12-04). The standard
deviation of a round's log ratio s25 : base was 0.005-0.006 for TPOT p50, 0.063
for TTFT p50 in the fixed arm and 0.068 in the Poisson arm, which then ran 40
requests a round (10 req/s for 4 s). Student's t over 3 rounds (t = 4.30) then
calls TTFT p50 in 73 % (fixed) and 84 % (Poisson) of experiments; over 5 rounds
(t = 2.78) in 99.7 % and 100 % (simulated from those spreads; TPOT 100 % either
way). So 5 rounds, not 3. TTFT p99 is not required: its spread between rounds
was 0.145 (fixed) and 0.25 (Poisson), the arm's few slowest requests, which are
the moments the machine was busy, so 5 rounds would call a 25 % slowdown there
in about half of the runs. The A/A false-alarm rate of these intervals was 6 %
(fixed) and 2 % (Poisson) of all ratios: about one significant ratio of 24 per
run on average, so the bound above leaves room, while the block bootstrap alone
(44 % in the fixed arm) fails it.

A clean-clone CI run (2026-12-06) missed the Poisson arm's TTFT p50: 1.190x
[0.983-1.440], a spread between rounds of about 0.15, twice the quiet figure,
while ctest ran other simulator tests on the second core. A Poisson request's
TTFT is the rest of the step it arrives in plus its prefill, so a round's p50
moves with which phases 40 arrivals happened to hit, and a busy machine widens
that. Hence 96 requests a round (16 req/s for 6 s, about 4 in flight on 8
slots, so a queue rarely forms and TTFT p50 stays the prefill's, not the
queue's): the spread falls by about sqrt(96 / 40) = 1.55. And the test runs
alone (RUN_SERIAL in tests/CMakeLists.txt), since what it measures is the
method's power, not how a shared core delays the simulator's steps. About
140 s here.

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
MUST_SEE = (("tpot_ms", "p50"), ("ttft_ms", "p50"))
ROUNDS = 5


def spec(sim, port):
    command = [sim, "--port", str(port), "--profile", "{model}", "--max-num-seqs", "{max_num_seqs}",
               "--step-scale", "{step_scale}"]
    return {
        "name": "power",
        "target": {"base_url": "http://127.0.0.1:%d" % port, "api": "completions"},
        "server": {"command": command, "ready_path": "/health", "ready_timeout_s": 60,
                   "restart_between_configs": True},
        "configs": [{"label": label, "model": "sim-1.8b", "knobs": {"max_num_seqs": 8, "step_scale": scale}}
                    for label, scale in (("base", 1.0), ("base-again", 1.0), ("s25", 1.25))],
        "arms": [
            {"name": "fixed", "mode": "concurrency", "concurrency": 4, "requests": 32, "max_tokens": 16},
            {"name": "poisson", "mode": "rate", "rate": 16.0, "burstiness": 1.0, "duration_s": 6, "max_tokens": 16},
        ],
        "prompts": {"source": "synthetic", "input_tokens": 128, "seed": 7},
        "repeats": ROUNDS,
    }


def read(config, metric, stat):
    """(ratio, interval, significant), or None when any of them is missing or not finite."""
    ratio = (config.get("ratio") or {}).get(metric, {}).get(stat)
    interval = (config.get("ratio_ci95") or {}).get(metric, {}).get(stat)
    flag = (config.get("significant") or {}).get(metric, {}).get(stat)
    if not finite(ratio) or not isinstance(interval, list) or len(interval) != 2 \
            or not all(finite(v) for v in interval) or not isinstance(flag, bool):
        return None
    return ratio, interval, flag


def judge(arms):
    """The findings (empty = pass) and lines for the log."""
    problems, lines = [], []
    names = sorted(a.get("arm") for a in arms)
    if names != ["fixed", "poisson"]:
        problems.append("compare --json gave arms %s, expected fixed and poisson" % names)
    compared = significant = 0
    for arm in arms:
        name = arm.get("arm")
        configs = {c.get("config"): c for c in arm.get("configs") or []}
        if sorted(configs) != ["base", "base-again", "s25"]:
            problems.append("%s: configurations %s, expected base, base-again and s25" % (name, sorted(configs)))
            continue
        for label in ("base-again", "s25"):
            method = (configs[label].get("ratio_ci95") or {}).get("method")
            if method != "rounds":
                problems.append("%s / %s: ratio_ci95.method is %r, expected rounds" % (name, label, method))
        aa, slow = configs["base-again"], configs["s25"]
        for metric in METRICS:
            for stat in STATS:
                for label, config in (("base-again", aa), ("s25", slow)):
                    if read(config, metric, stat) is None:
                        problems.append("%s / %s: %s.%s has no finite ratio, interval and verdict"
                                        % (name, label, metric, stat))
                got = read(aa, metric, stat)
                if got:
                    compared += 1
                    if got[2]:
                        significant += 1
                        lines.append("%s A/A %s.%s significant: %.3fx [%.3f-%.3f]"
                                     % (name, metric, stat, got[0], got[1][0], got[1][1]))
        for metric, stat in MUST_SEE:
            got = read(slow, metric, stat)
            if got:
                lines.append("%s s25 %s.%s %.3fx [%.3f-%.3f] %s" % (name, metric, stat, got[0], got[1][0], got[1][1],
                                                                   "significant" if got[2] else "NOT significant"))
                if not got[2]:
                    problems.append("%s: the 25 %% slowdown is not significant in %s.%s: %.3fx [%.3f-%.3f]"
                                    % (name, metric, stat, got[0], got[1][0], got[1][1]))
        why = aa.get("why") or {}
        if why.get("kind") in CAUSES:
            problems.append("%s: a cause named for the A/A pair: [%s] %s" % (name, why.get("kind"), why.get("text")))
    if compared == 0:
        problems.append("no A/A ratio was compared")
    elif significant > allowed_false_alarms(compared):
        problems.append("A/A: %d of %d ratios called significant, more than the %d a 5 %% false-alarm rate gives "
                        "by chance (p < 0.001)" % (significant, compared, allowed_false_alarms(compared)))
    lines.append("A/A: %d of %d ratios significant" % (significant, compared))
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
    work = args.keep or tempfile.mkdtemp(prefix="knobscope-power-")
    os.makedirs(work, exist_ok=True)
    try:
        spec_path, runs = os.path.join(work, "power.json"), os.path.join(work, "power.jsonl")
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
            print("FAIL: knobscope compare exited %d\n%s" % (compare.returncode, compare.stderr[-4000:]), flush=True)
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
        print("power: %s" % ("failed" if problems else "passed"), flush=True)
        return 1 if problems else 0
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
