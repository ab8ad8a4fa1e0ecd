#!/usr/bin/env python3
"""Independent check of knobscope-sim under the stress arm (not a test).

A closed-loop client written from scratch on asyncio raw sockets (its own
HTTP/1.1 chunked decoding and SSE split, nothing shared with knobscope) streams
C concurrent requests of T output tokens against knobscope-sim at each
--max-num-seqs value, then prints TTFT/TPOT percentiles, req/s, the server's
peak open connections, and how far its own TTFT is from the server's truth log.

    bench/sim_cliff.py --sim build/release/bin/knobscope-sim --profile sim-8b --mns 32 128
"""
import argparse
import asyncio
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

from truthlog import truth_by_client_id


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


async def read_chunked_events(reader, on_event):
    """Reads one chunked body, calling on_event(payload, t_us) per SSE data line."""
    pending = b""
    while True:
        size_line = await reader.readline()
        size = int(size_line.strip(), 16)
        data = await reader.readexactly(size + 2)
        if size == 0:
            return
        t = now_us()
        pending += data[:-2]
        while b"\n\n" in pending:
            event, pending = pending.split(b"\n\n", 1)
            for line in event.split(b"\n"):
                if line.startswith(b"data: "):
                    on_event(line[6:], t)


async def worker(host, port, model, prompts, out_tokens, results):
    reader, writer = await asyncio.open_connection(host, port)
    while prompts:
        rid, prompt = prompts.pop()
        body = json.dumps({"model": model, "prompt": prompt, "max_tokens": out_tokens, "ignore_eos": True,
                           "temperature": 0, "stream": True}).encode()
        req = (f"POST /v1/completions HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
               f"Content-Length: {len(body)}\r\nX-Request-Id: {rid}\r\n\r\n").encode() + body
        sent = now_us()
        writer.write(req)
        await writer.drain()
        status = int((await reader.readline()).split()[1])
        while (await reader.readline()) not in (b"\r\n", b""):
            pass
        times = []

        def on_event(payload, t):
            if payload == b"[DONE]":
                return
            choice = json.loads(payload)["choices"]
            if choice and choice[0].get("text"):
                times.append(t)

        await read_chunked_events(reader, on_event)
        results.append({"id": rid, "status": status, "sent": sent, "times": times})
    writer.close()


async def fetch(host, port, path):
    reader, writer = await asyncio.open_connection(host, port)
    writer.write(f"GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())
    data = await reader.read()
    writer.close()
    return data.split(b"\r\n\r\n", 1)[1].decode()


def run_one(sim, profile, mns, concurrency, requests, out_tokens, in_tokens):
    truth_path = tempfile.mktemp(suffix=".jsonl")
    proc = subprocess.Popen([sim, "--port", "0", "--profile", profile, "--max-num-seqs", str(mns),
                             "--truth-log", truth_path], stdout=subprocess.PIPE, text=True)
    port = int(re.search(r":(\d+)$", proc.stdout.readline().strip()).group(1))
    words = ["alpha", "beta", "gamma", "delta", "kappa", "sigma", "omega", "theta"]
    prompts = [(f"r{i}", " ".join(f"{words[(i + j) % 8]}{i}" for j in range(in_tokens))) for i in range(requests)]
    prompts.reverse()
    results = []

    async def main():
        start = now_us()
        await asyncio.gather(*(worker("127.0.0.1", port, profile, prompts, out_tokens, results)
                               for _ in range(concurrency)))
        elapsed = (now_us() - start) / 1e6
        metrics = await fetch("127.0.0.1", port, "/metrics")
        return elapsed, metrics

    elapsed, metrics = asyncio.run(main())
    proc.terminate()
    proc.wait(timeout=10)
    peak = float(re.search(r"^knobscope_sim_open_connections_peak (\S+)$", metrics, re.M).group(1))
    truth = truth_by_client_id(truth_path)
    os.unlink(truth_path)

    ok = [r for r in results if r["status"] == 200 and len(r["times"]) == out_tokens]
    ttft = [(r["times"][0] - r["sent"]) / 1000 for r in ok]
    tpot = [(r["times"][-1] - r["times"][0]) / 1000 / (out_tokens - 1) for r in ok]
    # Client TTFT minus the server's own (first token written - request's first byte read).
    err = [(r["times"][0] - r["sent"]) / 1000 - (truth[r["id"]]["first_token_us"] - truth[r["id"]]["arrival_us"]) / 1000
           for r in ok]
    return {"profile": profile, "mns": mns, "ok": len(ok), "requests": requests, "ttft_p50": pct(ttft, 50),
            "ttft_p95": pct(ttft, 95), "ttft_p99": pct(ttft, 99), "tpot_p50": pct(tpot, 50), "tpot_max": max(tpot),
            "req_s": len(ok) / elapsed, "peak_conn": peak, "err_p50": pct(err, 50), "err_p99": pct(err, 99)}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sim", default="build/release/bin/knobscope-sim")
    ap.add_argument("--profile", nargs="+", default=["sim-8b"])
    ap.add_argument("--mns", nargs="+", type=int, default=[32, 128])
    ap.add_argument("--concurrency", type=int, default=64)
    ap.add_argument("--requests", type=int, default=256)
    ap.add_argument("--output-tokens", type=int, default=256)
    ap.add_argument("--input-tokens", type=int, default=128)
    args = ap.parse_args()
    rows = []
    for profile in args.profile:
        for mns in args.mns:
            r = run_one(args.sim, profile, mns, args.concurrency, args.requests, args.output_tokens, args.input_tokens)
            rows.append(r)
            print(f"{r['profile']:<13} mns {r['mns']:>4}  ok {r['ok']}/{r['requests']}  TTFT p50 {r['ttft_p50']:8.1f} "
                  f"p95 {r['ttft_p95']:8.1f} p99 {r['ttft_p99']:8.1f} ms  TPOT p50 {r['tpot_p50']:5.1f} "
                  f"max {r['tpot_max']:5.1f} ms  {r['req_s']:6.2f} req/s  peak conn {r['peak_conn']:.0f}  "
                  f"client-truth TTFT p50 {r['err_p50']:.2f} p99 {r['err_p99']:.2f} ms", flush=True)
    if len(rows) >= 2:
        a, b = rows[0], rows[-1]
        print(f"TTFT p50 ratio {a['profile']}/mns{a['mns']} : {b['profile']}/mns{b['mns']} = "
              f"{a['ttft_p50'] / b['ttft_p50']:.1f}x; req/s ratio {a['req_s'] / b['req_s']:.2f}")


if __name__ == "__main__":
    sys.exit(main())
