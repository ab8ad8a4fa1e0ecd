#!/usr/bin/env python3
"""The send path against an independent lockstep server: knobscope beside the raw
epoll floor (bench/raw_epoll.cpp), both against bench/lockstep_server.js (Node's http
module, one thread, every open stream advanced one token per global step, so every
stream of a wave ends at the same step and the closed loop re-posts the whole wave at
once), request by request against the server's own stamps.

Each round runs, in turn, the raw floor, knobscope and knobscope --no-preconnect, each
against a freshly started server with its own log, on the same closed-loop load as
bench/send_path.py (every request tagged X-Request-Id LABEL/INDEX). Definitions are
send_path.py's, with the server's log in place of knobscope-sim's truth log:

  TTFT error p50   client TTFT p50 minus the server's (first_token_us - arrival_us) p50
                   over the same requests; arrival_us is when the server's handler ran
  excess p50       a client's TTFT error p50 minus the raw floor's in the same round
  post -> handler  the client's post() to arrival_us, p50 (first wave / re-posted waves)
  delivery         the server's write of the first token to the client's read of it, p50
  burst density    per request, the requests (itself included) whose handler ran within
                   +-2 ms of its own, p50; a burst is a run of arrivals with no gap > 5 ms
  burst spread     first to last handler of a re-posted burst, p50 over bursts; the
                   client's first to last post() of the same requests beside it

Needs node (any version with BigInt process.hrtime, 10.4+) and the release build's
knobscope and raw_epoll. Runs on 127.0.0.1 only; every step has a timeout.
"""
import argparse
import json
import os
import select
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

import send_path as sp
from truthlog import truth_by_client_id

HERE = os.path.dirname(os.path.abspath(__file__))
CLIENTS = {"raw": ("raw", ""), "knobscope": ("knobscope", ""), "knobscope-npc": ("knobscope", "--no-preconnect")}
NAMES = {"raw": "raw epoll (floor)", "knobscope": "knobscope", "knobscope-npc": "knobscope --no-preconnect"}
BURST_WINDOW_MS = 2.0
BURST_GAP_MS = 5.0


class LockstepServer:
    def __init__(self, node, step_ms, log_path):
        cmd = [node, os.path.join(HERE, "lockstep_server.js"), "--port", "0", "--step-ms", str(step_ms),
               "--log", log_path]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
        ready, _, _ = select.select([self.proc.stdout], [], [], 30)
        line = self.proc.stdout.readline() if ready else ""
        if "listening on" not in line:
            self.stop()
            raise RuntimeError("lockstep_server did not start: %r" % line)
        self.url = line.split()[-1]

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)  # the server writes its log, then exits
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def bursts(items):
    """(arrival ms, ...) tuples, sorted and split where the gap exceeds BURST_GAP_MS."""
    out, cur = [], []
    for t in sorted(items, key=lambda x: x[0]):
        if cur and t[0] - cur[-1][0] > BURST_GAP_MS:
            out.append(cur)
            cur = []
        cur.append(t)
    if cur:
        out.append(cur)
    return out


def density(arrivals_ms):
    """Per request: how many handlers ran within +-BURST_WINDOW_MS of its own (itself included)."""
    v = sorted(arrivals_ms)
    out, lo, hi = [], 0, 0
    for t in v:
        while v[lo] < t - BURST_WINDOW_MS:
            lo += 1
        while hi < len(v) and v[hi] <= t + BURST_WINDOW_MS:
            hi += 1
        out.append(hi - lo)
    return out


def burst_figures(records, truth, concurrency):
    """The server-side shape of the load: density, each re-posted burst's spread at the
    handler and at the client's post(), and delivery (server write -> client read)."""
    matched = []
    for r in records:
        t = truth.get(r["rid"])
        if r.get("ok") and t is not None and t.get("first_token_us", -1) >= 0 and r.get("t_post_mono_us") is not None:
            matched.append((int(r["rid"].rsplit("/", 1)[1]), r, t))
    arrivals = [t["arrival_us"] / 1000.0 for _, _, t in matched]
    spreads, post_spreads, sizes = [], [], []
    for b in bursts([(t["arrival_us"] / 1000.0, i, r) for i, r, t in matched]):
        if any(i < concurrency for _, i, _ in b):
            continue  # the first wave: posted at t0, on connections opened (or not) just before
        sizes.append(len(b))
        spreads.append(b[-1][0] - b[0][0])
        posts = [r["t_post_mono_us"] / 1000.0 for _, _, r in b]
        post_spreads.append(max(posts) - min(posts))
    delivery = [(r["t_post_mono_us"] + r["ttft_us"] - t["first_token_us"]) / 1000.0 for _, r, t in matched]
    return {"density_p50": sp.percentile(density(arrivals), 50),
            "burst_size_p50": sp.percentile(sizes, 50),
            "burst_spread_p50": sp.percentile(spreads, 50),
            "post_spread_p50": sp.percentile(post_spreads, 50),
            "delivery_p50": sp.percentile(delivery, 50)}


def run_one(name, args, work, round_index):
    kind, flags = CLIENTS[name]
    tag = "%s-r%d" % (name, round_index)
    log_path = os.path.join(work, tag + ".server.jsonl")
    out_path = os.path.join(work, tag + ".jsonl")
    cargs = argparse.Namespace(**vars(args))
    cargs.knobscope_flags = flags
    load = os.getloadavg()[0]
    server = LockstepServer(args.node, args.step_ms, log_path)
    try:
        rc, process_cpu_s = sp.run_client(sp.client_command(kind, cargs, server.url, out_path), args.timeout,
                                          os.path.join(work, tag + ".log"))
        server_died = server.proc.poll() is not None
    finally:
        server.stop()
    if server_died or rc != 0 or not os.path.exists(out_path):
        with open(os.path.join(work, tag + ".log")) as log:
            print("  %s: exit %s%s\n%s" % (tag, rc, ", the server had stopped" if server_died else "",
                                           log.read()[-600:]), file=sys.stderr)
        return None
    if kind == "knobscope":
        records, summary = sp.read_knobscope_output(out_path, sp.realtime_minus_monotonic_us())
    else:
        records, summary = sp.read_bench_output(out_path)
    truth = truth_by_client_id(log_path)
    result = sp.analyse(records, summary, truth, process_cpu_s, args.concurrency)
    result.update(burst_figures(records, truth, args.concurrency))
    result["load_before"] = load
    return result


def fmt(x, f="%.1f"):
    return "n/a" if x is None or x != x else f % x


def round_table(rounds, clients):
    head = ["round", "load avg", "client", "ok", "server TTFT p50", "TTFT error p50", "excess p50",
            "post → handler p50: first wave / rest", "delivery p50", "burst density p50",
            "burst: size / handler spread / post spread p50"]
    lines = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    for k, rnd in enumerate(rounds):
        raw = rnd.get("raw")
        for name in clients:
            x = rnd.get(name)
            if x is None:
                lines.append("| %d | | %s | failed | | | | | | | |" % (k + 1, NAMES[name]))
                continue
            excess = x["ttft_err_p50"] - raw["ttft_err_p50"] if raw else float("nan")
            lines.append("| " + " | ".join([
                str(k + 1), fmt(x["load_before"]), NAMES[name], "%d/%d" % (x["matched"], x["requests"]),
                fmt(x["server_ttft_p50"]) + " ms", fmt(x["ttft_err_p50"], "%.2f") + " ms",
                fmt(excess, "%+.2f") + " ms",
                fmt(x["transit_first_p50"], "%.2f") + " / " + fmt(x["transit_rest_p50"], "%.2f") + " ms",
                fmt(x["delivery_p50"], "%.2f") + " ms", fmt(x["density_p50"], "%.0f"),
                fmt(x["burst_size_p50"], "%.0f") + " / " + fmt(x["burst_spread_p50"], "%.2f") + " / "
                + fmt(x["post_spread_p50"], "%.2f") + " ms"]) + " |")
    return "\n".join(lines)


def median_table(rounds, clients):
    def med(values):
        values = [v for v in values if v == v]
        return statistics.median(values) if values else float("nan")

    head = ["client", "rounds", "TTFT error p50 (median)", "excess p50 (median)", "excess p50 range",
            "rounds with excess ≤ 2 ms", "post → handler p50, rest (median)", "burst density p50 (median)"]
    lines = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    for name in clients:
        got = [r for r in rounds if r.get(name) and r.get("raw")]
        if not got:
            continue
        exc = [r[name]["ttft_err_p50"] - r["raw"]["ttft_err_p50"] for r in got]
        lines.append("| " + " | ".join([
            NAMES[name], str(len(got)), fmt(med([r[name]["ttft_err_p50"] for r in got]), "%.2f") + " ms",
            fmt(med(exc), "%+.2f") + " ms", fmt(min(exc), "%+.2f") + " to " + fmt(max(exc), "%+.2f") + " ms",
            "%d of %d" % (sum(1 for e in exc if e <= 2.0), len(exc)),
            fmt(med([r[name]["transit_rest_p50"] for r in got]), "%.2f") + " ms",
            fmt(med([r[name]["density_p50"] for r in got]), "%.0f")]) + " |")
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build-dir", default=os.path.join(sp.ROOT, "build", "release"))
    p.add_argument("--knobscope", help="knobscope executable (default: BUILD_DIR/bin/knobscope)")
    p.add_argument("--raw-epoll", help="raw_epoll executable (default: BUILD_DIR/bin/raw_epoll)")
    p.add_argument("--node", default=shutil.which("node") or "node")
    p.add_argument("--step-ms", type=float, default=20, help="the server's step (one token per stream per step)")
    p.add_argument("--concurrency", type=int, default=256)
    p.add_argument("--requests", type=int, default=1024)
    p.add_argument("--max-tokens", type=int, default=128)
    p.add_argument("--input-tokens", type=int, default=32)
    p.add_argument("--threads", type=int, default=0, help="knobscope's worker threads (default: its own)")
    p.add_argument("--clients", default=",".join(CLIENTS), help="comma-separated subset of " + ",".join(CLIENTS))
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--timeout", type=float, default=300, help="seconds per client run before it is killed")
    p.add_argument("--keep", help="keep client files, server logs and results.json in this folder")
    args = p.parse_args()
    args.knobscope = args.knobscope or os.path.join(args.build_dir, "bin", "knobscope")
    raw = args.raw_epoll or os.path.join(args.build_dir, "bin", "raw_epoll")
    # send_path.client_command finds raw_epoll as BUILD_DIR/bin/raw_epoll.
    if args.raw_epoll:
        args.build_dir = os.path.dirname(os.path.dirname(os.path.abspath(args.raw_epoll)))
    args.profile = "lockstep"  # the model name sent; the server echoes it
    args.bare_flags = args.aiohttp_flags = args.knobscope_flags = ""
    clients = [c.strip() for c in args.clients.split(",") if c.strip()]
    if "raw" not in clients or any(c not in CLIENTS for c in clients):
        p.error("--clients must include raw (the floor) and name only " + ", ".join(CLIENTS))
    for what, path in (("knobscope", args.knobscope), ("raw_epoll", raw)):
        if what == "knobscope" and not any(c.startswith("knobscope") for c in clients):
            continue
        if not os.access(path, os.X_OK):
            p.error("%s not found at %s (cmake --build --preset release --target %s)" % (what, path, what))
    if not shutil.which(args.node):
        p.error("node not found (apt-get install nodejs)")

    work = args.keep or tempfile.mkdtemp(prefix="send_path_lockstep-")
    os.makedirs(work, exist_ok=True)
    rounds = []
    started = time.strftime("%Y-%m-%d %H:%M")
    try:
        for k in range(args.rounds):
            results = {}
            for name in clients:
                print("round %d/%d: %s ..." % (k + 1, args.rounds, name), file=sys.stderr, flush=True)
                results[name] = run_one(name, args, work, k)
            rounds.append(results)
    finally:
        if args.keep:
            with open(os.path.join(work, "results.json"), "w") as f:
                json.dump({"args": vars(args), "rounds": rounds}, f, indent=1)
        else:
            shutil.rmtree(work, ignore_errors=True)
    node_version = subprocess.run([args.node, "--version"], capture_output=True, text=True).stdout.strip()
    print("Closed loop, %d streams, %d requests x %d tokens, %d-word prompts; bench/lockstep_server.js (node %s), "
          "%g ms steps; %d round(s), a fresh server per client and round; %s\n"
          % (args.concurrency, args.requests, args.max_tokens, args.input_tokens, node_version, args.step_ms,
             len(rounds), started))
    print(round_table(rounds, clients))
    print()
    print(median_table(rounds, clients))


if __name__ == "__main__":
    sys.exit(main())
