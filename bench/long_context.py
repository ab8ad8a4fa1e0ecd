#!/usr/bin/env python3
"""TTFT error at long prompts: each client against the same knobscope-sim, every
request matched to the simulator's truth log.

  raw        bench/raw_epoll.cpp     the floor: one thread, epoll, its own HTTP/1.1
  knobscope  knobscope run           the product
  aiohttp    bench/peer_aiohttp.py   written the way vLLM's benchmark client is

Per request, TTFT error = the client's TTFT (from just before it writes the request
to the first token read) - the server's (the first byte of the request read ->
the first token event handed to the socket). The error so holds everything the
client adds: writing a body of hundreds of KB, its own read and parse of the
stream. Reported as p50/p99 over the requests, per client and prompt length.

Each (length, client) cell starts a fresh simulator (send_path.py's machinery).
Requests go one at a time (--concurrency 1) so prefill is not shared and the
server's TTFT is the prompt's own prefill. The default lengths take about 3 min.
"""
import argparse
import datetime
import os
import shutil
import sys
import tempfile

import send_path
from truthlog import truth_by_client_id


def per_request_errors(records, truth):
    """(client TTFT - server TTFT) in ms for every ok request found in the truth log."""
    errors, server = [], []
    for r in records:
        t = truth.get(r["rid"])
        if not r.get("ok") or t is None or t.get("first_token_us", -1) < 0 or r.get("ttft_us", -1) < 0:
            continue
        s = (t["first_token_us"] - t["arrival_us"]) / 1000.0
        errors.append(r["ttft_us"] / 1000.0 - s)
        server.append(s)
    return errors, server


def run_cell(name, args, work, tokens):
    tag = "%s-%dk" % (name, tokens // 1024)
    truth_path = os.path.join(work, tag + ".truth.jsonl")
    out_path = os.path.join(work, tag + ".jsonl")
    cell = argparse.Namespace(**vars(args))
    cell.input_tokens = tokens
    cell.requests = args.requests_128k if tokens > 65536 else args.requests
    sim = send_path.Simulator(cell, truth_path)
    try:
        rc, _ = send_path.run_client(send_path.client_command(name, cell, sim.url, out_path), args.timeout,
                                     os.path.join(work, tag + ".log"))
    finally:
        sim.stop()
    if rc != 0 or not os.path.exists(out_path):
        with open(os.path.join(work, tag + ".log")) as log:
            print("  %s: exit %s\n%s" % (tag, rc, log.read()[-600:]), file=sys.stderr)
        return None
    if name == "knobscope":
        records, _ = send_path.read_knobscope_output(out_path, send_path.realtime_minus_monotonic_us())
    else:
        records, _ = send_path.read_bench_output(out_path)
    errors, server = per_request_errors(records, truth_by_client_id(truth_path))
    return {"requests": len(records), "matched": len(errors), "err_p50": send_path.percentile(errors, 50),
            "err_p99": send_path.percentile(errors, 99), "server_p50": send_path.percentile(server, 50)}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build-dir", default=os.path.join(send_path.ROOT, "build", "release"))
    p.add_argument("--profile", default="sim-1.8b")
    p.add_argument("--lengths", default="32768,131072", help="prompt lengths in tokens (words)")
    p.add_argument("--requests", type=int, default=24, help="requests per client at lengths up to 64K")
    p.add_argument("--requests-128k", type=int, default=10, help="requests per client above 64K")
    p.add_argument("--max-tokens", type=int, default=16)
    p.add_argument("--clients", default="raw,knobscope,aiohttp")
    p.add_argument("--timeout", type=float, default=300)
    p.add_argument("--keep", help="keep run files and truth logs in this folder")
    args = p.parse_args()
    lengths = [int(x) for x in args.lengths.split(",")]
    # A context that holds the longest prompt and its output; the KV cache holds one.
    args.sim_flags = "--max-model-len %d --kv-cache-tokens %d" % (max(lengths) + 4096, max(lengths) + 8192)
    args.concurrency = args.max_num_seqs = 1
    args.max_num_batched_tokens = 0
    args.threads = 0
    args.bare_flags = args.knobscope_flags = args.aiohttp_flags = ""
    args.knobscope = os.path.join(args.build_dir, "bin", "knobscope")
    args.sim = os.path.join(args.build_dir, "bin", "knobscope-sim")
    clients = [c for c in args.clients.split(",") if c]
    if "aiohttp" in clients:
        args.python_aiohttp = send_path.python_with_aiohttp()
        if not args.python_aiohttp:
            print("long_context: aiohttp is missing (apt-get install python3-aiohttp); skipping it", file=sys.stderr)
            clients.remove("aiohttp")
    work = args.keep or tempfile.mkdtemp(prefix="long_context-")
    os.makedirs(work, exist_ok=True)
    results = {}
    try:
        for tokens in lengths:
            for name in clients:
                print("%d tokens: %s ..." % (tokens, name), file=sys.stderr, flush=True)
                results[(tokens, name)] = run_cell(name, args, work, tokens)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    print("TTFT error (client - knobscope-sim's truth log), one request at a time, %d output tokens; %s, %s\n"
          % (args.max_tokens, args.profile, datetime.datetime.now().strftime("%Y-%m-%d %H:%M")))
    print("| prompt | client | requests | server TTFT p50 | error p50 | error p99 |")
    print("|---|---|---|---|---|---|")
    for (tokens, name), r in results.items():
        if r is None:
            print("| %dK | %s | failed | | | |" % (tokens // 1024, name))
            continue
        print("| %dK | %s | %d/%d | %.0f ms | %+.2f ms | %+.2f ms |" % (
            tokens // 1024, name, r["matched"], r["requests"], r["server_p50"], r["err_p50"], r["err_p99"]))
    return 0 if all(r is not None for r in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
