#!/usr/bin/env python3
"""Repeats until decided on the arm that one run cannot read (a benchmark: it prints, never asserts).

knobscope-sim with a steady step clock (`--step-jitter 0`) under a gentle closed loop
(4 streams): each run locks to the step phase it met at its start, so one run's TTFT
carries an offset its own requests cannot show, and 3 rounds' interval is too wide
for a 10 % change. Four configurations (base, base-again: the A/A pair; s10,
every step 10 % slower; s25, 25 % slower) run with `"repeats": {"min": 2, "max": MAX, "until": ...}`
and the gate `ttft_ms.p50 > 1.10x`, until every ratio is clear of the threshold or
the budget is spent (or, with the default `half_width` 0.05, until an interval is
within ±5 %, which may still span the threshold; `--half-width 0.01` leaves the gate
alone to decide). Per seed it prints the rounds used, why it stopped and the last
interval of each configuration, then the whole table.

    bench/until_phase_lock.py --knobscope build/dev/bin/knobscope --sim build/dev/bin/knobscope-sim --seeds 5
"""
import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
WRAPPER = os.path.join(HERE, "power-sim.sh")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def spec_for(sim, seed, most, requests, gate, half_width):
    port = free_port()
    configs = [{"label": label, "model": "sim-1.8b", "knobs": {"max_num_seqs": 8, "step_scale": scale}}
               for label, scale in (("base", 1.0), ("base-again", 1.0), ("s10", 1.10), ("s25", 1.25))]
    return {
        "name": "until-phase-lock",
        "target": {"base_url": "http://127.0.0.1:%d" % port, "api": "completions"},
        "server": {"command": [WRAPPER, sim, "--port", str(port), "--profile", "{model}", "--max-num-seqs",
                               "{max_num_seqs}", "--step-scale", "{step_scale}", "--step-jitter", "0"],
                   "ready_path": "/health", "ready_timeout_s": 60, "restart_between_configs": True},
        "configs": configs,
        "arms": [{"name": "fixed", "mode": "concurrency", "concurrency": 4, "requests": requests, "max_tokens": 16}],
        "prompts": {"source": "synthetic", "input_tokens": 128, "seed": seed},
        "repeats": {"min": 2, "max": most, "until": {"fail_if": [gate], "half_width": half_width}},
        "order_seed": seed,
    }


def round_lines(path):
    with open(path) as f:
        return [json.loads(t) for t in f if '"type":"round"' in t.replace(" ", "")]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--knobscope", default="build/dev/bin/knobscope")
    p.add_argument("--sim", default="build/dev/bin/knobscope-sim")
    p.add_argument("--seeds", type=int, default=5)
    p.add_argument("--max", type=int, default=10, help="the budget of rounds")
    p.add_argument("--requests", type=int, default=24, help="requests per run")
    p.add_argument("--gate", default="ttft_ms.p50 > 1.10x")
    p.add_argument("--half-width", type=float, default=0.05,
                   help="until.half_width: an interval this narrow is decided even if it spans the gate")
    p.add_argument("--out", help="keep the specs and run files in DIR")
    args = p.parse_args()
    knobscope, sim = os.path.abspath(args.knobscope), os.path.abspath(args.sim)
    work = args.out or tempfile.mkdtemp(prefix="knobscope-until-")
    os.makedirs(work, exist_ok=True)
    rows = []
    for seed in range(1, args.seeds + 1):
        spec = spec_for(sim, seed, args.max, args.requests, args.gate, args.half_width)
        spec_path, out = os.path.join(work, "seed%d.json" % seed), os.path.join(work, "seed%d.jsonl" % seed)
        with open(spec_path, "w") as f:
            json.dump(spec, f, indent=1)
        env = dict(os.environ, KS_POWER_TRUTH_DIR=os.path.join(work, "truth-seed%d" % seed))
        os.makedirs(env["KS_POWER_TRUTH_DIR"], exist_ok=True)
        start = time.monotonic()
        run = subprocess.run([knobscope, "run", spec_path, "--out", out, "--progress", "none"],
                             capture_output=True, text=True, env=env, timeout=3600)
        took = time.monotonic() - start
        if run.returncode not in (0, 3):
            sys.exit("until_phase_lock: knobscope run exited %d\n%s" % (run.returncode, run.stderr[-2000:]))
        lines = round_lines(out)
        if not lines:
            sys.exit("until_phase_lock: %s has no round line" % out)
        last = lines[-1]
        seen = {r["config"]: r for r in last.get("ratios", [])}
        for config in ("base-again", "s10", "s25"):
            r = seen.get(config, {})
            ci = r.get("ci95") or [float("nan"), float("nan")]
            rows.append((seed, last["round"], last.get("stop"), config, r.get("value", float("nan")), ci[0], ci[1],
                         r.get("decided"), took))
            print("seed %d: %s after round %d; %s %s %.3f [%.3f-%.3f] (%.0f s)"
                  % (seed, last.get("stop"), last["round"], config, "decided" if r.get("decided") else "undecided",
                     rows[-1][4], ci[0], ci[1], took), flush=True)
    print("\n| seed | rounds | stop | config | ttft_ms.p50 ratio | interval | decided |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for seed, rounds, stop, config, value, lo, hi, decided, _ in rows:
        print("| %d | %d | %s | %s | %.3f | [%.3f-%.3f] | %s |" % (seed, rounds, stop, config, value, lo, hi,
                                                                 "yes" if decided else "no"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
