#!/usr/bin/env python3
"""Power of compare against a planted slowdown (a benchmark, not a test: it prints, never asserts).

knobscope-sim runs with `--step-scale F`, every engine step F times slower, so the
answer is known. One experiment per pair index holds five configurations that
differ only in that knob: base (1), base-again (1: the A/A pair), s05 (1.05),
s10 (1.10) and s25 (1.25), under three arms shaped like the bundled ones but
shorter (a gentle closed loop, a Poisson open loop, a stress closed loop that
queues; sim-1.8b on 8 batch slots, 16-token outputs), with interleaved rounds (`"repeats": R` at the spec's top level).
Each is read against base three ways:

  single      round 1 only, no calibration ("within-run": never significant;
              what the block bootstrap alone would say is shown as "bootstrap alone")
  calibrated  round 1 only, with `compare --calibration` of an A/A calibration of
              base (`knobscope run SPEC --aa N`, made once per bench)
  rounds      all R rounds, paired by round

Per cell it reports the share of pairs called significant (at 0 %: the false-alarm
rate) and the coverage: how often the 95 % interval holds the true ratio. The true
ratio is what compare's ratio estimates, from the simulator's own timestamps (truth
logs) of every run in all pairs and rounds: exp(mean log P(run of B) - mean log
P(run of A)), P a percentile of one run's requests (powertruth.py says why not the
percentiles of all requests pooled, which the table shows beside it, with the
coverage they would give); for the A/A pair it is 1.

    bench/power.py --knobscope build/dev/bin/knobscope --sim build/dev/bin/knobscope-sim
    bench/power.py ... --jitter 0 --pairs 10     # steady step clock: the phase-lock case
    bench/power.py --analyse DIR                 # the tables again from a kept --out DIR
"""
import argparse
import datetime
import glob
import json
import math
import os
import platform
import shutil
import socket
import subprocess
import sys
import tempfile
import time

import powerspread
import powertruth

HERE = os.path.dirname(os.path.abspath(__file__))
WRAPPER = os.path.join(HERE, "power-sim.sh")
SHIFTS = (("base-again", 1.00, 0), ("s05", 1.05, 5), ("s10", 1.10, 10), ("s25", 1.25, 25))
STATS = (("ttft_ms", "p50"), ("ttft_ms", "p99"), ("tpot_ms", "p50"))
ALL_METRICS = ("ttft_ms", "tpot_ms", "itl_ms", "e2e_ms")
ALL_STATS = ("p50", "p95", "p99")
METHODS = ("single", "bootstrap alone", "calibrated", "rounds")
# Arm sizes: the bundled shapes (resources/experiments/one-knob.json, tests/aa) on
# sim-1.8b with 8 batch slots, shortened so that 20 pairs fit in about 45 minutes here.
# The Poisson arm keeps about 2.5 requests in flight on 8 slots: at 8 req/s on 4 slots
# a 25 % slower step tipped some runs into a queue (TTFT p50 1.1x in one round, 2.9x in
# the next), which is a real effect but not the gentle arm this is meant to be.
# "open" is one open-loop arm long enough for 3 rounds to resolve a 10 % TTFT p50 change
# (about 360 requests a run; 40 left a round's TTFT p50 ratio a spread of 0.07 in logs,
# which 3 rounds' t interval cannot tell from 10 %), on 64 slots so that it stays gentle.
ARMS = ("fixed", "poisson", "stress")
SIZES = {
    "default": {"fixed": 24, "rate": 10.0, "duration_s": 4, "stress": 48, "max_tokens": 16, "slots": 8},
    "quick": {"fixed": 12, "rate": 10.0, "duration_s": 2, "stress": 40, "max_tokens": 16, "slots": 8},
    "open": {"arms": ["poisson"], "rate": 60.0, "duration_s": 7, "max_tokens": 16, "slots": 64, "shifts": [0, 10, 25]},
    # The bundled one-knob spec's Poisson arm as it is (2 req/s for 30 s, 128 output tokens) on
    # its mns32 configuration (sim-8b, 32 slots): about 60 requests a run, 6 minutes a pair.
    "bundled": {"arms": ["poisson"], "rate": 2.0, "duration_s": 30, "max_tokens": 128, "slots": 32,
                "model": "sim-8b", "shifts": [0, 10, 25]},
}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def finite(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def percentile(values, q):
    """Linear interpolation between closest ranks (numpy's default)."""
    if not values:
        return float("nan")
    v = sorted(values)
    pos = (len(v) - 1) * q / 100.0
    lo = int(pos)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (pos - lo)


def arm_names(size):
    return [a for a in ARMS if a in size.get("arms", ARMS)]


def arms_of(size):
    mt = size["max_tokens"]
    shapes = {
        "fixed": lambda: {"name": "fixed", "mode": "concurrency", "concurrency": 4, "requests": size["fixed"],
                          "max_tokens": mt},
        "poisson": lambda: {"name": "poisson", "mode": "rate", "rate": size["rate"], "burstiness": 1.0,
                            "duration_s": size["duration_s"], "max_tokens": mt},
        "stress": lambda: {"name": "stress", "mode": "concurrency", "concurrency": 32, "requests": size["stress"],
                           "max_tokens": mt},
    }
    return [shapes[a]() for a in arm_names(size)]


def make_spec(sim, port, seed, size, jitter, rounds, per_arm=False):
    command = [WRAPPER, sim, "--port", str(port), "--profile", "{model}", "--max-num-seqs", "{max_num_seqs}",
               "--step-scale", "{step_scale}", "--step-jitter", str(jitter)]
    slots = size.get("slots", 8)
    model = size.get("model", "sim-1.8b")
    configs = [{"label": "base", "model": model, "knobs": {"max_num_seqs": slots, "step_scale": 1.0}}]
    configs += [{"label": label, "model": model, "knobs": {"max_num_seqs": slots, "step_scale": scale}}
                for label, scale, shift in SHIFTS if shift in size.get("shifts", (0, 5, 10, 25))]
    spec = {
        "name": "power",
        "target": {"base_url": "http://127.0.0.1:%d" % port, "api": "completions"},
        "server": {"command": command, "ready_path": "/health", "ready_timeout_s": 60,
                   "restart_between_configs": True},
        "configs": configs,
        "arms": arms_of(size),
        "prompts": {"source": "synthetic", "input_tokens": 128, "seed": seed},
    }
    if rounds > 1 and per_arm:  # an older knobscope: repeats one after another, per arm
        for arm in spec["arms"]:
            arm["repeats"] = rounds
    elif rounds > 1:
        spec["repeats"] = rounds
    return spec


def knobscope_run(knobscope, spec, work, name, truth_dir, extra=()):
    """Runs SPEC; the run file's path, and the seconds it took."""
    os.makedirs(truth_dir, exist_ok=True)
    spec_path, out = os.path.join(work, name + ".json"), os.path.join(work, name + ".jsonl")
    with open(spec_path, "w") as f:
        json.dump(spec, f, indent=1)
    env = dict(os.environ, KS_POWER_TRUTH_DIR=truth_dir)
    start = time.monotonic()
    run = subprocess.run([knobscope, "run", spec_path, "--out", out, "--progress", "none", *extra],
                         capture_output=True, text=True, env=env, timeout=3600)
    took = time.monotonic() - start
    if run.returncode != 0:
        sys.exit("power: knobscope run %s exited %d\n%s" % (spec_path, run.returncode, run.stderr[-3000:]))
    return out, took


def round_of(line):
    if isinstance(line.get("round"), int):
        return line["round"]
    if isinstance(line.get("repeat"), int):
        return line["repeat"]
    name = str(line.get("run", ""))
    return int(name.rsplit("#", 1)[1]) if "#" in name and name.rsplit("#", 1)[1].isdigit() else 1


def round_one(src, dst):
    """A copy of a run file with round 1 only: what one run per configuration would have written."""
    kept = set()
    with open(src) as f, open(dst, "w") as out:
        for text in f:
            line = json.loads(text)
            if line.get("type") == "experiment":
                spec = line.get("spec", {})
                spec.pop("repeats", None)
                spec.pop("order", None)
            elif line.get("type") == "run":
                if round_of(line) != 1:
                    continue
                kept.add(line.get("run"))
            elif line.get("run") is not None and line.get("run") not in kept:
                continue
            out.write(json.dumps(line) + "\n")


def compare(knobscope, runs, extra=()):
    """compare --json's arms, or the reason it gave none."""
    c = subprocess.run([knobscope, "compare", runs, "--json", *extra], capture_output=True, text=True, timeout=600)
    if c.returncode != 0:
        return None, "compare exited %d: %s" % (c.returncode, c.stderr.strip()[-500:])
    try:
        return [a for a in json.loads(c.stdout) if isinstance(a, dict) and "configs" in a], None
    except ValueError as e:
        return None, "compare --json is not JSON: %s" % e


def extract(arms, method):
    """arm -> label -> stat id -> (ratio, [lo, hi], significant) for the configurations against base."""
    out = {}
    for arm in arms or []:
        base = arm.get("baseline", "base")
        for c in arm["configs"]:
            if c.get("config") == base:
                continue
            got = out.setdefault(arm.get("arm"), {}).setdefault(c.get("config") or c.get("label"), {})
            flags = c.get("within_run_significant") if method == "bootstrap alone" else c.get("significant")
            for metric in ALL_METRICS:
                for stat in ALL_STATS:
                    ratio = (c.get("ratio") or {}).get(metric, {}).get(stat)
                    ci = (c.get("ratio_ci95") or {}).get(metric, {}).get(stat)
                    flag = (flags or {}).get(metric, {}).get(stat)
                    got["%s.%s" % (metric, stat)] = (ratio, ci, flag)
            got["rounds_needed"] = c.get("rounds_needed") or {}
            got["method"] = (c.get("ratio_ci95") or {}).get("method")
            got["why"] = (c.get("why") or {}).get("kind")
    return out


def run_bench(args, work):
    size = SIZES["quick" if args.quick else args.size]
    meta = {"date": datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M UTC"), "host": platform.node(),
            "cpus": os.cpu_count(), "pairs": args.pairs, "rounds": args.rounds, "aa_runs": args.aa_runs,
            "jitter": args.jitter, "sizes": size, "pair_seconds": [], "per_arm_repeats": args.per_arm_repeats}
    cal = None
    if args.aa_runs:
        spec = make_spec(args.sim, free_port(), 9999, size, args.jitter, args.rounds)
        cal, took = knobscope_run(args.knobscope, spec, work, "calibration", os.path.join(work, "truth-cal"),
                                  ["--aa", str(args.aa_runs)])
        meta["calibration_seconds"] = round(took, 1)
        print("power: A/A calibration of base, %d runs: %.0f s" % (args.aa_runs, took), flush=True)
    for pair in range(args.pairs):
        spec = make_spec(args.sim, free_port(), pair + 1, size, args.jitter, args.rounds, args.per_arm_repeats)
        runs, took = knobscope_run(args.knobscope, spec, work, "pair%02d" % pair,
                                   os.path.join(work, "truth", "pair%02d" % pair))
        meta["pair_seconds"].append(round(took, 1))
        print("power: pair %d of %d: %.0f s" % (pair + 1, args.pairs, took), flush=True)
    with open(os.path.join(work, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)


def analyse(work):
    with open(os.path.join(work, "meta.json")) as f:
        meta = json.load(f)
    meta["work"] = work
    cal = os.path.join(work, "calibration.jsonl")
    results, problems = {m: [] for m in METHODS}, []
    for runs in sorted(glob.glob(os.path.join(work, "pair[0-9][0-9].jsonl"))):
        first = runs[:-len(".jsonl")] + ".round1.jsonl"
        round_one(runs, first)
        plans = [("rounds", runs, ()), ("single", first, ()), ("bootstrap alone", first, ())]
        if meta.get("aa_runs"):
            plans.append(("calibrated", first, ("--calibration", cal)))
        seen = {}
        for method, path, extra in plans:
            if (path, extra) not in seen:  # single and bootstrap alone read the same output
                seen[(path, extra)] = compare(KNOBSCOPE, path, extra)
            arms, why = seen[(path, extra)]
            if why:
                problems.append("%s, %s: %s" % (os.path.basename(runs), method, why))
            results[method].append(extract(arms, method))
    # Run names repeat from pair to pair (base/fixed#1 in each), so a dropped request is
    # named by its pair's truth folder too: the cut of one pair's run is not another's.
    skip = set()
    for runs in glob.glob(os.path.join(work, "pair[0-9][0-9].jsonl")):
        pair = os.path.basename(runs)[:-len(".jsonl")]
        skip |= {(pair, rid) for rid in powertruth.warmup_ids(runs)}
    truth = {}  # ("per run" or "pooled", arm, config, stat) -> the true ratio against base
    pooled = powertruth.pooled_truth(os.path.join(work, "truth"), skip)
    per_run = powertruth.per_run_truth(os.path.join(work, "truth"), skip)
    for (config, arm), values in pooled.items():
        base, base_runs = pooled.get(("base", arm)), per_run.get(("base", arm), [])
        for metric in ALL_METRICS:
            for stat in ALL_STATS:
                q, sid = float(stat[1:]), "%s.%s" % (metric, stat)
                a, b = percentile(values[metric], q), percentile(base[metric], q) if base else float("nan")
                truth[("pooled", arm, config, sid)] = 1.0 if config == "base-again" else a / b
                truth[("per run", arm, config, sid)] = 1.0 if config == "base-again" else math.exp(
                    mean_log(per_run[(config, arm)], metric, q) - mean_log(base_runs, metric, q))
    return meta, results, truth, problems


def mean_log(runs, metric, q):
    """The mean over runs of log(the run's percentile q); nan when no run has the metric."""
    logs = [math.log(p) for p in (percentile(r[metric], q) for r in runs) if finite(p) and p > 0]
    return sum(logs) / len(logs) if logs else float("nan")


def cell(pairs, arm, label, stat, true_ratio):
    """(significant, covered, compared) over the pairs."""
    sig = cov = n = 0
    for p in pairs:
        ratio, ci, flag = p.get(arm, {}).get(label, {}).get(stat, (None, None, None))
        if not finite(ratio) or not isinstance(ci, list) or len(ci) != 2 or not all(finite(v) for v in ci):
            continue
        n += 1
        sig += flag is True
        cov += finite(true_ratio) and ci[0] <= true_ratio <= ci[1]
    return sig, cov, n


def share(k, n):
    return "n/a" if n == 0 else "%d %%" % round(100.0 * k / n)


def spread(values):
    if not values:
        return "n/a"
    v = sorted(values)
    return "%.0f, %.0f, %.0f" % (v[0], percentile(v, 50), v[-1])


def tables(meta, results, truth, problems):
    s = meta["sizes"]
    order = ("repeats one after another on one server start per configuration" if meta.get("per_arm_repeats")
             else "interleaved rounds, a server start each")
    lines = ["%d pairs, %d %s, A/A calibration of %d runs; --step-jitter %s; %s, %s (%d CPUs)"
             % (meta["pairs"], meta["rounds"], order, meta["aa_runs"], meta["jitter"], meta["date"], meta["host"],
                meta["cpus"]),
             "arms (%s, --max-num-seqs %d, %d output tokens, 128-token prompts): %s"
             % (s.get("model", "sim-1.8b"), s.get("slots", 8), s["max_tokens"], ", ".join(
                 {"fixed": "fixed 4 streams x %s requests" % s.get("fixed"),
                  "poisson": "poisson %g req/s for %g s" % (s["rate"], s["duration_s"]),
                  "stress": "stress 32 streams x %s requests" % s.get("stress")}[a] for a in arm_names(s))),
             "one experiment (%d configurations x %d rounds): %s s (min, median, max); calibration %s s"
             % (1 + len(s.get("shifts", (0, 5, 10, 25))), meta["rounds"], spread(meta["pair_seconds"]), meta.get("calibration_seconds", "n/a")),
             "", "Share of pairs called significant (0 %: false alarms) and coverage: how often the 95 % interval holds the "
             "true ratio (truth logs, the requests compare kept after each run's MSER-5 warm-up cut: the mean of "
             "the runs' log percentiles; beside it the percentiles of all those requests pooled, and the coverage "
             "that would give):",
             "", "| arm | method | stat | sig 0 % | sig 5 % | sig 10 % | sig 25 % | coverage 0/5/10/25 % | true ratio 5/10/25 % | pooled | coverage of pooled | interval |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for arm in arm_names(s):
        for method in METHODS:
            pairs = results.get(method) or []
            if not pairs:
                continue
            for metric, stat in STATS:
                sid = "%s.%s" % (metric, stat)
                sigs, covs, trues, pooled, pooled_covs = [], [], [], [], []
                for label, _, _ in SHIFTS:
                    t = truth.get(("per run", arm, label, sid), float("nan"))
                    k, c, n = cell(pairs, arm, label, sid, t)
                    sigs.append(share(k, n))
                    covs.append(share(c, n) if method != "bootstrap alone" else "")
                    trues.append("%.3f" % t if finite(t) else "n/a")
                    t = truth.get(("pooled", arm, label, sid), float("nan"))
                    pooled.append("%.3f" % t if finite(t) else "n/a")
                    _, c, n = cell(pairs, arm, label, sid, t)
                    pooled_covs.append(share(c, n) if method != "bootstrap alone" else "")
                seen = sorted({str(p.get(arm, {}).get(label, {}).get("method")) for p in pairs for label, _, _ in SHIFTS}
                              - {"None"})  # a shift this size did not run
                lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                    arm, method, sid, " | ".join(sigs), "/".join(covs) if covs[0] else "(as single)",
                    "/".join(trues[1:]), "/".join(pooled[1:]),
                    "/".join(pooled_covs) if pooled_covs[0] else "(as single)", ", ".join(seen)))
    lines += ["", "A/A (base-again against base): share of ALL latency ratios significant (TTFT, TPOT, ITL, E2E x "
              "p50, p95, p99), and causes named:", "", "| arm | method | significant | causes named | interval method |",
              "| --- | --- | --- | --- | --- |"]
    for arm in arm_names(s):
        for method in METHODS:
            pairs = results.get(method) or []
            k = n = 0
            methods, causes = set(), []
            for p in pairs:
                got = p.get(arm, {}).get("base-again", {})
                methods.add(str(got.get("method")))
                if got.get("why") in ("queueing", "compute", "prefill"):
                    causes.append(got["why"])
                for metric in ALL_METRICS:
                    for stat in ALL_STATS:
                        ratio, ci, flag = got.get("%s.%s" % (metric, stat), (None, None, None))
                        if finite(ratio) and isinstance(flag, bool):
                            n += 1
                            k += flag
            if pairs:
                lines.append("| %s | %s | %s (%d of %d) | %s | %s |" % (arm, method, share(k, n), k, n,
                                                                     "%d of %d" % (len(causes), len(pairs)),
                                                                     ", ".join(sorted(methods))))
    needed = rounds_needed_table(meta, results)
    if needed:
        lines += ["", "What compare says an undecided ratio needs (`rounds_needed`: paired rounds for 80 %% power at a "
                  "5 %% difference, from the %d rounds' spread), median over the pairs where it said it, the A/A pair "
                  "and the 10 %% slower server:" % meta["rounds"], ""] + needed
    if meta["rounds"] > 1:
        lines += ["", "The spread between rounds (run files' summaries; the A/A pair's chance is its false-alarm "
                  "rate with the t interval alone):", "",
                  powerspread.table(meta["work"], STATS, [label for label, _, _ in SHIFTS])]
    if problems:
        lines += ["", "Problems (counted as missing):"] + ["- " + p for p in problems]
    return "\n".join(lines)


def rounds_needed_table(meta, results):
    """Rows of the median rounds_needed per arm and statistic (rounds method), or [] without rounds."""
    pairs = results.get("rounds") or []
    if meta["rounds"] < 2 or not pairs:
        return []
    rows = ["| arm | stat | base-again: median (pairs that said) | s10: median (pairs that said) |",
            "| --- | --- | --- | --- |"]
    for arm in arm_names(meta["sizes"]):
        for metric, stat in STATS:
            cells = []
            for label in ("base-again", "s10"):
                said = [p.get(arm, {}).get(label, {}).get("rounds_needed", {}).get(metric, {}).get(stat, "absent")
                        for p in pairs]
                said = [n for n in said if n != "absent"]
                counts = sorted(n if finite(n) else 1001 for n in said)  # null: more than 1000
                med = percentile(counts, 50) if counts else float("nan")
                cells.append("n/a" if not counts else "%s (%d)" % ("> 1000" if med > 1000 else "%.0f" % med,
                                                                   len(counts)))
            rows.append("| %s | %s.%s | %s |" % (arm, metric, stat, " | ".join(cells)))
    return rows


KNOBSCOPE = None


def main():
    global KNOBSCOPE
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--knobscope", default="build/dev/bin/knobscope")
    p.add_argument("--sim", default="build/dev/bin/knobscope-sim")
    p.add_argument("--pairs", type=int, default=20)
    p.add_argument("--rounds", type=int, default=3, help="interleaved rounds per experiment (1: the current tree)")
    p.add_argument("--aa-runs", type=int, default=8, help="runs of the A/A calibration (0: none)")
    p.add_argument("--jitter", default="0.03", help="knobscope-sim --step-jitter")
    p.add_argument("--per-arm-repeats", action="store_true",
                   help="repeats on each arm, one after another (a knobscope without interleaved rounds)")
    p.add_argument("--quick", action="store_true", help="short arms and 2 pairs: a smoke run")
    p.add_argument("--size", choices=("default", "open", "bundled"), default="default",
                   help="default: the three short arms; open: one Poisson arm of about 420 requests on 64 slots; "
                        "bundled: the one-knob spec's Poisson arm (sim-8b, 32 slots, about 60 requests)")
    p.add_argument("--out", help="keep every spec, run file and truth log in DIR")
    p.add_argument("--analyse", metavar="DIR", help="print the tables again from a kept --out DIR")
    args = p.parse_args()
    KNOBSCOPE = os.path.abspath(args.knobscope)
    if args.analyse:
        print(tables(*analyse(args.analyse)))
        return 0
    if args.quick and args.pairs == 20:
        args.pairs = 2
    args.sim = os.path.abspath(args.sim)
    for path in (KNOBSCOPE, args.sim, WRAPPER):
        if not os.access(path, os.X_OK):
            sys.exit("power: %s is not an executable" % path)
    work = args.out or tempfile.mkdtemp(prefix="knobscope-power-")
    os.makedirs(work, exist_ok=True)
    try:
        run_bench(args, work)
        print(tables(*analyse(work)))
    finally:
        if not args.out:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
