#!/usr/bin/env python3
"""The run-file reader's speed and memory targets on one large run file, with Python's C
json.loads looping over the same file as the floor beside them. Not a test: it
prints numbers and ratios.

  bench/reader_speed.py [--bin build/release/bin] [--file /tmp/knobscope-large.jsonl]
                        [--requests 1000000] [--tokens 16] [--repeat 3]

The file is written by open_large (1M requests, 16 tokens each: ~440 MiB) and
kept for later runs (--reuse). Each command runs --repeat times; the best
wall time and the peak RSS of that run are shown.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time


def timed(argv, env=None):
    """Wall seconds, peak RSS (MB) and CPU seconds (user + system, every thread) of one run of argv."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    err = proc.stderr.read().decode(errors="replace")
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{' '.join(argv)} failed: {err[-400:]}")
    return wall, usage.ru_maxrss / 1024 * 1.048576, usage.ru_utime + usage.ru_stime  # KiB -> MB


def best(argv, repeat, env=None):
    runs = [timed(argv, env) for _ in range(repeat)]
    return min(runs, key=lambda r: r[0])


def python_floor(path):
    start = time.process_time()
    n = 0
    with open(path, "rb") as f:
        for line in f:
            json.loads(line)
            n += 1
    return time.process_time() - start, n  # CPU seconds, one thread


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="build/release/bin")
    ap.add_argument("--file", default="/tmp/knobscope-large.jsonl")
    ap.add_argument("--requests", type=int, default=1_000_000)
    ap.add_argument("--tokens", type=int, default=16)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    ks = os.path.join(args.bin, "knobscope")
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")

    # In-process figures: read, first view, intervals, bytes per request.
    out = subprocess.run([os.path.join(args.bin, "open_large"), "--requests", str(args.requests), "--tokens",
                          str(args.tokens), "--file", args.file, "--reuse"], check=True, capture_output=True,
                         text=True).stdout
    print(out.strip())
    first_view = float(re.search(r"first view after ([\d.]+) s", out).group(1))
    intervals = float(re.search(r"intervals: ([\d.]+) s more", out).group(1))
    cpu = re.search(r"read \+ parse ([\d.]+) s, comparison without intervals ([\d.]+) s, with intervals ([\d.]+) s", out)
    read_cpu, quick_cpu, full_cpu = (float(cpu.group(i)) for i in (1, 2, 3))
    per_request = float(re.search(r"\((\d+) bytes per request", out).group(1))
    size_mib = os.path.getsize(args.file) / 1048576

    floor = min(python_floor(args.file)[0] for _ in range(max(1, args.repeat - 1)))
    report = best([ks, "report", args.file, "--json"], args.repeat)
    export = best([ks, "export", args.file, "--chart", "ttft", "--out", "/tmp/knobscope-bench-ttft.png"],
                  args.repeat, env)
    compare = best([ks, "compare", args.file, "--json"], args.repeat)

    cores = os.cpu_count()
    print(f"\n{args.requests} requests, {args.tokens} tokens each, {size_mib:.0f} MiB, {cores} cores; "
          f"best of {args.repeat}. Wall time depends on what else runs; CPU time (every thread) much less so.")
    print(f"Python json.loads over every line (the floor): {floor:.2f} s CPU, one thread "
          f"({size_mib / floor:.0f} MiB/s)\n")
    rows = [
        ("knobscope report FILE --json", report, "<= 1.0 s, <= 200 MB"),
        ("export FILE --chart ttft", export, "<= 1.5 s"),
        ("compare FILE --json (with intervals)", compare, "<= 5 s"),
    ]
    print(f"{'figure':40} {'wall':>8} {'CPU':>8} {'peak RSS':>9}  {'target':22} {'json.loads CPU / CPU'}")
    for name, (wall, rss, cpu_s), target in rows:
        print(f"{name:40} {wall:7.2f}s {cpu_s:7.2f}s {rss:6.0f} MB  {target:22} {floor / cpu_s:.2f}x")
    print(f"{'open -> first Compare view (in process)':40} {first_view:7.2f}s {read_cpu + quick_cpu:7.2f}s "
          f"{'':9}  {'<= 1.5 s':22} {floor / (read_cpu + quick_cpu):.2f}x")
    print(f"{'  ... intervals following':40} {first_view + intervals:7.2f}s "
          f"{read_cpu + quick_cpu + full_cpu:7.2f}s {'':9}  {'<= 5 s':22}")
    print(f"{'memory per loaded request':40} {per_request:7.0f} B {'':18}  {'<= 150 B':22}")
    print(f"\nreport vs json.loads: {floor / report[0]:.2f}x by wall time, {floor / report[2]:.2f}x by CPU time "
          f"(target >= 3.5x)")


if __name__ == "__main__":
    main()
