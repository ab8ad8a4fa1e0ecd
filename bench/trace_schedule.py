#!/usr/bin/env python3
"""How closely a trace replay keeps its recorded schedule, measured at the server.

Writes a Mooncake-format trace (N requests, Poisson arrivals at RATE req/s, short
outputs, hash_ids with shared leading blocks), replays it with `knobscope run`
against knobscope-sim (truth log on), and prints, per request, the server's
arrival stamp minus (the arm's t0 + t_sched_us): p50, p99, max in ms. The client's
own send lateness (t_send_us - t_sched_us) is printed beside it. A measurement, not
a test: the test (tst_tracereplay) holds the schedule to one inter-arrival gap.

  python3 bench/trace_schedule.py [--bin build/release/bin] [--requests 2000] [--rate 40]
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from truthlog import read_truth_log  # noqa: E402


def percentile(values, p):
    s = sorted(values)
    return s[min(len(s) - 1, int(p / 100.0 * len(s)))] if s else float("nan")


def write_trace(path, n, rate, seed):
    rng = random.Random(seed)
    t = 0.0
    with open(path, "w") as f:
        for i in range(n):
            t += rng.expovariate(rate)
            shared = rng.randrange(0, 8)  # eight "system prompts" of one block each
            ids = [shared] + [1000 + i]
            f.write(json.dumps({"timestamp": int(t * 1000), "input_length": 1024,
                                "output_length": rng.randrange(8, 33), "hash_ids": ids}) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default="build/release/bin")
    ap.add_argument("--requests", type=int, default=2000)
    ap.add_argument("--rate", type=float, default=40.0)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="trace-schedule-")
    trace = os.path.join(work, "trace.jsonl")
    truth = os.path.join(work, "truth.jsonl")
    out = os.path.join(work, "run.jsonl")
    write_trace(trace, args.requests, args.rate, args.seed)
    sim = os.path.abspath(os.path.join(args.bin, "knobscope-sim"))
    spec = {
        "name": "trace-schedule",
        "target": {"base_url": "http://127.0.0.1:18431", "api": "completions"},
        "server": {"command": [sim, "--port", "18431", "--profile", "sim-1.8b", "--truth-log", truth],
                   "ready_path": "/health", "ready_timeout_s": 60},
        "configs": [{"label": "sim", "model": "sim-1.8b"}],
        "arms": [{"name": "trace", "mode": "trace", "trace": {"path": trace, "format": "mooncake"}}],
    }
    spec_path = os.path.join(work, "spec.json")
    with open(spec_path, "w") as f:
        json.dump(spec, f)
    subprocess.run([os.path.join(args.bin, "knobscope"), "run", spec_path, "--out", out], check=True,
                   stdout=subprocess.DEVNULL)
    t0 = None
    sends = {}
    for line in open(out):
        j = json.loads(line)
        if j.get("type") == "run" and j.get("arm") == "trace":
            t0 = j["t0_monotonic_us"]
        elif j.get("type") == "request" and not j.get("warmup"):
            sends[j["id"]] = j
    late_server, late_send = [], []
    for r in read_truth_log(truth):
        rid = r.get("client_request_id") or ""
        try:
            i = int(rid.rsplit("/", 1)[1])
        except (IndexError, ValueError):
            continue
        if i not in sends:
            continue
        q = sends[i]
        late_server.append((r["arrival_us"] - (t0 + q["t_sched_us"])) / 1000.0)
        late_send.append((q["t_send_us"] - q["t_sched_us"]) / 1000.0)
    if len(late_server) != args.requests:
        print(f"matched {len(late_server)} of {args.requests} requests in the truth log", file=sys.stderr)
        return 1
    print(f"{args.requests} requests at {args.rate:g} req/s ({work})")
    for name, v in (("arrival at server - schedule", late_server), ("client send - schedule", late_send)):
        print(f"  {name:30s} p50 {percentile(v, 50):7.3f} ms  p99 {percentile(v, 99):7.3f} ms  "
              f"max {max(v):7.3f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
