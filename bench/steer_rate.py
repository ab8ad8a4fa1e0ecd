#!/usr/bin/env python3
"""Steered rate against knobscope-sim's truth log: the offered rate per segment.

Starts knobscope-sim with --truth-log, runs `knobscope run --rate R0 --control
stdin` against it, sends `rate R` for each setting and holds it for --window
seconds, then `stop`. For each setting it counts the requests the server saw
arrive from one second after the command to the next command, and prints:

  measured   arrivals / window, and its error against the setting;
  poisson    the standard deviation a Poisson count of that size has (with
             --burstiness B, gaps of CV 1/sqrt(B): the count's spread shrinks
             by about that factor), so an error inside it is the process's own
             randomness, not the client's;
  planned    the arrivals the client's own schedule put in the window (the run
             file's t_sched_us), and the server's count against it: the error
             of the send path alone, independent of the draw.

    bench/steer_rate.py --knobscope build/release/bin/knobscope --sim build/release/bin/knobscope-sim \\
        --settings 2 8 4 --window 120
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from truthlog import read_truth_log  # noqa: E402


def default_binary(name):
    for build in ("build/release/bin", "build/dev/bin"):
        path = os.path.join(build, name)
        if os.path.exists(path):
            return path
    return os.path.join("build/release/bin", name)


def now_us():
    return time.monotonic_ns() // 1000  # CLOCK_MONOTONIC: the truth log's clock


def start_sim(sim, truth):
    proc = subprocess.Popen([sim, "--port", "0", "--profile", "sim-1.8b", "--max-num-seqs", "256",
                             "--truth-log", truth], stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    m = re.search(r":(\d+)\s*$", line)
    if not m:
        proc.kill()
        sys.exit(f"knobscope-sim did not print its address: {line!r}")
    return proc, int(m.group(1))


def request_index(record):
    rid = record.get("client_request_id") or ""
    tail = rid.rpartition("/")[2]
    return int(tail) if "/" in rid and tail.isdigit() else -1


def run(args, workdir):
    truth = os.path.join(workdir, "truth.jsonl")
    out = os.path.join(workdir, "steered.jsonl")
    sim, port = start_sim(args.sim, truth)
    client = subprocess.Popen(
        [args.knobscope, "run", "--base-url", f"http://127.0.0.1:{port}", "--model", "sim-1.8b",
         "--rate", str(args.start_rate), "--burstiness", str(args.burstiness), "--seed", str(args.seed),
         "--duration", str(int(len(args.settings) * args.window + 120)), "--max-tokens", "16",
         "--progress", "none", "--control", "stdin", "--out", out],
        stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    started = threading.Event()
    stderr_lines = []

    def read_stderr():
        for line in client.stderr:
            stderr_lines.append(line)
            if "[1/1]" in line:
                started.set()
    reader = threading.Thread(target=read_stderr, daemon=True)
    reader.start()
    if not started.wait(60):
        client.kill()
        sim.kill()
        sys.exit("knobscope did not start its arm:\n" + "".join(stderr_lines))
    time.sleep(2)  # a little of the starting rate first
    commands = []
    for rate in args.settings:
        commands.append(now_us())
        client.stdin.write(f"rate {rate:g}\n")
        client.stdin.flush()
        time.sleep(args.window)
    stop_us = now_us()
    client.stdin.write("stop\n")
    client.stdin.flush()
    client.wait(120)
    reader.join(10)
    sim.terminate()
    sim.wait(30)
    if client.returncode != 0:
        sys.exit("knobscope failed:\n" + "".join(stderr_lines))

    arrivals = sorted(r["arrival_us"] for r in read_truth_log(truth) if request_index(r) >= 0)
    t0 = None
    planned = []
    with open(out) as f:
        for line in f:
            j = json.loads(line)
            if j.get("type") == "run" and t0 is None:
                t0 = j["t0_monotonic_us"]
            elif j.get("type") == "request":
                planned.append(j["t_sched_us"])
    planned = sorted(t + t0 for t in planned)
    rows = []
    for i, rate in enumerate(args.settings):
        lo = commands[i] + 1_000_000
        hi = commands[i + 1] if i + 1 < len(commands) else stop_us
        seconds = (hi - lo) / 1e6
        seen = sum(1 for t in arrivals if lo <= t < hi)
        plan = sum(1 for t in planned if lo <= t < hi)
        measured = seen / seconds
        sigma = math.sqrt(rate * seconds) / math.sqrt(args.burstiness) / seconds
        rows.append({"setting": rate, "window_s": round(seconds, 2), "arrivals": seen,
                     "measured_req_per_s": round(measured, 4),
                     "error_pct": round(100 * (measured - rate) / rate, 2),
                     "draw_sd_pct": round(100 * sigma / rate, 2),
                     "planned": plan, "server_vs_plan_pct": round(100 * (seen - plan) / plan, 3) if plan else None})
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--knobscope", default=default_binary("knobscope"))
    ap.add_argument("--sim", default=default_binary("knobscope-sim"))
    ap.add_argument("--settings", type=float, nargs="+", default=[2, 8, 4])
    ap.add_argument("--window", type=float, default=120, help="seconds each setting is held")
    ap.add_argument("--start-rate", type=float, default=1)
    ap.add_argument("--burstiness", type=float, default=1, help="gamma shape of the gaps: 1 Poisson")
    ap.add_argument("--seed", type=int, default=1, help="arrival times (and prompts): another seed, another draw")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as workdir:
        rows = run(args, workdir)
    if args.json:
        print(json.dumps({"burstiness": args.burstiness, "window_s": args.window, "segments": rows}, indent=1))
        return
    print(f"burstiness {args.burstiness:g}, {args.window:g} s per setting; window = 1 s after the command to the next")
    print(f"{'setting':>8} {'window s':>9} {'arrivals':>9} {'measured':>9} {'error %':>8} {'draw sd %':>10}"
          f" {'planned':>8} {'server-plan %':>14}")
    for r in rows:
        print(f"{r['setting']:>8g} {r['window_s']:>9.2f} {r['arrivals']:>9} {r['measured_req_per_s']:>9.3f}"
              f" {r['error_pct']:>8.2f} {r['draw_sd_pct']:>10.2f} {r['planned']:>8} {r['server_vs_plan_pct']!s:>14}")


if __name__ == "__main__":
    main()
