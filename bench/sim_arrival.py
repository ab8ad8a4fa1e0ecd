#!/usr/bin/env python3
"""How late knobscope-sim stamps a request's arrival (not a test).

A raw-socket client (selectors, its own HTTP framing, nothing shared with
knobscope) keeps S streams busy against knobscope-sim, so the server spends
milliseconds in each engine step writing the batch's events; meanwhile a
second process sends small probe requests at random moments, one at a time,
taking CLOCK_MONOTONIC just before each send(). After the run it reads the truth log: per probe,
arrival_us minus the probe's send time is the stamp's error (plus loopback
delivery, a few microseconds). The server's write passes are recovered from
the streams' token_us, so probes that landed mid-pass are reported apart.

Each mode of --arrival-stamp runs once, in turn: 'read' is the old stamp
(taken when the event loop reads the bytes), 'kernel' the new one.

    bench/sim_arrival.py --sim build/release/bin/knobscope-sim --streams 256 --seconds 8
"""
import argparse
import bisect
import json
import multiprocessing
import os
import random
import re
import selectors
import signal
import socket
import subprocess
import sys
import tempfile
import time

from truthlog import read_truth_log

TERMINATOR = b"0\r\n\r\n"


def pct(values, p):
    """numpy's default (linear) percentile."""
    if not values:
        return float("nan")
    s = sorted(values)
    rank = p / 100 * (len(s) - 1)
    lo = int(rank)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (rank - lo)


def now_us():
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000


def request(body, request_id):
    payload = json.dumps(body).encode()
    return (
        b"POST /v1/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        + b"X-Request-Id: " + request_id.encode() + b"\r\nContent-Length: "
        + str(len(payload)).encode() + b"\r\n\r\n" + payload
    )


def start_sim(sim, mode, streams, truth):
    proc = subprocess.Popen(
        [sim, "--port", "0", "--profile", "sim-1.8b", "--max-num-seqs", str(streams + 1),
         "--max-num-batched-tokens", str(max(2048, streams + 1)), "--truth-log", truth,
         "--arrival-stamp", mode],
        stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    m = re.search(r":(\d+)\s*$", line)
    if not m:
        proc.kill()
        sys.exit(f"knobscope-sim did not print its address: {line!r}")
    return proc, int(m.group(1))


def run_probes(port, seconds, gap_ms, out):
    """Sends probes one at a time from their own process, so a send is not held
    back while the load client is busy reading; puts {probe id: send time in us} on `out`."""
    probe = socket.create_connection(("127.0.0.1", port))
    probe.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sent = {}
    time.sleep(0.3)  # let the streams get going first
    end = now_us() + int(seconds * 1e6)
    while now_us() < end:
        time.sleep(random.uniform(0, gap_ms) / 1000)
        pid = f"probe-{len(sent)}"
        data = request({"model": "sim-1.8b", "prompt": pid, "max_tokens": 1, "temperature": 0, "stream": False}, pid)
        sent[pid] = now_us()
        probe.sendall(data)
        buf = b""
        while True:
            buf += probe.recv(1 << 16)
            head, sep, body = buf.partition(b"\r\n\r\n")
            m = re.search(rb"(?i)content-length: *(\d+)", head)
            if sep and m and len(body) >= int(m.group(1)):
                break
    probe.close()
    out.put(sent)


def run_load(port, streams, max_tokens, seconds, gap_ms):
    """Keeps `streams` closed-loop streams busy while a probe process runs; returns the probes' send times."""
    sel = selectors.DefaultSelector()
    n = [0]

    def stream_request():
        n[0] += 1
        return request({"model": "sim-1.8b", "prompt": f"stream {n[0]} " + "word " * 32, "max_tokens": max_tokens,
                        "ignore_eos": True, "temperature": 0, "stream": True}, f"load-{n[0]}")

    conns = []
    for _ in range(streams):
        s = socket.create_connection(("127.0.0.1", port))
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        conns.append(s)
    for s in conns:
        s.sendall(stream_request())
        s.setblocking(False)
        sel.register(s, selectors.EVENT_READ, {"tail": b""})
    out = multiprocessing.Queue()
    prober = multiprocessing.Process(target=run_probes, args=(port, seconds, gap_ms, out))
    prober.start()
    sent = None
    while sent is None:
        for key, _ in sel.select(0.05):
            s, st = key.fileobj, key.data
            chunk = s.recv(1 << 16)
            if not chunk:
                sys.exit("the server closed a connection")
            tail = (st["tail"] + chunk)[-len(TERMINATOR):]
            st["tail"] = tail
            if tail == TERMINATOR:
                st["tail"] = b""
                s.setblocking(True)
                s.sendall(stream_request())
                s.setblocking(False)
        if not out.empty():
            sent = out.get()
        # Read lazily (the socket buffers hold a whole response), leaving a core
        # for the prober while the server writes.
        time.sleep(0.02)
    prober.join()
    for s in conns:
        s.close()
    return sent


def write_passes(records):
    """[start, end] of each burst of token writes (gaps over 1 ms split them)."""
    times = sorted(t for r in records if not r["client_request_id"].startswith("probe") for t in r["token_us"])
    passes = []
    for t in times:
        if passes and t - passes[-1][1] <= 1000:
            passes[-1][1] = t
        else:
            passes.append([t, t])
    return passes


def measure(sim, mode, streams, max_tokens, seconds, gap_ms):
    with tempfile.TemporaryDirectory() as d:
        truth = os.path.join(d, "truth.jsonl")
        proc, port = start_sim(sim, mode, streams, truth)
        try:
            sent = run_load(port, streams, max_tokens, seconds, gap_ms)
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=30)
        records = read_truth_log(truth)
    passes = write_passes(records)
    arrivals = {r["client_request_id"]: r["arrival_us"] for r in records if r["client_request_id"] in sent}
    errors, mid = [], []
    starts = [p[0] for p in passes]

    for pid, t in sent.items():
        if pid not in arrivals:
            continue
        e = (arrivals[pid] - t) / 1000.0
        errors.append(e)
        i = bisect.bisect_right(starts, t) - 1
        if i >= 0 and passes[i][0] <= t <= passes[i][1]:
            mid.append(e)
    lengths = [(p[1] - p[0]) / 1000.0 for p in passes if p[1] > p[0]]
    span = (passes[-1][1] - passes[0][0]) / 1000.0 if passes else 0.0
    return errors, mid, lengths, sum(lengths) / span if span > 0 else 0.0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sim", default="build/release/bin/knobscope-sim")
    ap.add_argument("--streams", type=int, default=256)
    ap.add_argument("--max-tokens", type=int, default=128)
    ap.add_argument("--seconds", type=float, default=8)
    ap.add_argument("--gap-ms", type=float, default=50, help="probe gaps are uniform in [0, gap-ms]")
    ap.add_argument("--modes", nargs="+", default=["read", "kernel"])
    a = ap.parse_args()
    print(f"{a.streams} streams x {a.max_tokens} tokens, sim-1.8b, {a.seconds:g} s per mode; "
          "stamp error = arrival_us - probe send time (ms)")
    print(f"{'mode':<6} {'probes':>6} {'min':>7} {'p50':>7} {'p90':>7} {'p99':>7} {'max':>7} | {'mid-pass':>8} {'p50':>7} "
          f"{'p99':>7} {'max':>7} | write passes: p50 / max, share of the time")
    for mode in a.modes:
        errors, mid, lengths, busy = measure(a.sim, mode, a.streams, a.max_tokens, a.seconds, a.gap_ms)
        print(f"{mode:<6} {len(errors):>6} {min(errors, default=float('nan')):7.3f} {pct(errors, 50):7.3f} {pct(errors, 90):7.3f} {pct(errors, 99):7.3f} "
              f"{max(errors, default=float('nan')):7.3f} | {len(mid):>8} {pct(mid, 50):7.3f} {pct(mid, 99):7.3f} "
              f"{max(mid, default=float('nan')):7.3f} | {pct(lengths, 50):.2f} / {max(lengths, default=0):.2f} ms, "
              f"{busy * 100:.0f} % of the time")


if __name__ == "__main__":
    main()
