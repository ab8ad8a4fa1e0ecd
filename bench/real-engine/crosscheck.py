#!/usr/bin/python3
"""Check a knobscope run file against llama-server's own account of the same run.

usage: bench/real-engine/crosscheck.py RUNS.jsonl [--server-log RUNS.server.log] [--json]

knobscope writes the launched server's whole output to RUNS.server.log, one
`== TIME starting: ARGV` header per server start. llama-server logs every
finished request (`slot print_timing` / `slot release`):

    prompt eval time = 59.31 ms / 130 tokens     prompt tokens processed (cache hits excluded)
           eval time = 738.10 ms / 64 tokens     tokens predicted
    stop processing: n_tokens = 193              prompt + predicted - 1 (the last token is never fed back)

so each request's usage.prompt_tokens is n_tokens + 1 - predicted, and the sums
over a server's life are what its /metrics counters llamacpp:tokens_predicted_total
and llamacpp:prompt_tokens_total (+ prompt_tokens_cached_total) reach.

Per run it prints: requests, ok, the out_tokens values and their source against
the arm's max_tokens, in_tokens, max post->wire (t_wire_us - t_send_us), TTFT
p50/p95/p99, and the scraped queue (server lines: samples, max and share of
samples with waiting > 0). Per server start it compares knobscope's sums with the
log's. Exit 1 when a count disagrees (out_tokens, predicted totals, errors).
"""
import argparse
import json
import re
import sys

TIMING = re.compile(r"slot print_timing: id +\d+ \| task (\d+) \| +(prompt eval|eval) time = +[\d.]+ ms / +(\d+) tokens")
RELEASE = re.compile(r"slot +release: id +\d+ \| task (\d+) \| stop processing: n_tokens = (\d+)")


def percentile(values, p):
    """numpy's default (linear between closest ranks)."""
    if not values:
        return None
    v = sorted(values)
    k = (len(v) - 1) * p / 100.0
    lo = int(k)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (k - lo)


def read_runs(path):
    spec, runs, order, starts = None, {}, [], []
    for line in open(path, encoding="utf-8"):
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        kind = rec.get("type")
        if kind == "experiment":
            spec = rec.get("spec")
        elif kind == "run":
            runs[rec["run"]] = {"line": rec, "requests": [], "server": [], "summary": None}
            order.append(rec["run"])
        elif kind == "request" and rec.get("run") in runs:
            runs[rec["run"]]["requests"].append(rec)
        elif kind == "server" and rec.get("run") in runs:
            runs[rec["run"]]["server"].append(rec)
        elif kind == "summary" and rec.get("run") in runs:
            runs[rec["run"]]["summary"] = rec
        elif kind == "server_event" and rec.get("event") == "starting":
            starts.append(rec.get("run"))
    return spec, runs, order, starts


def read_log(path):
    """One entry per server start: the requests it finished, by task id."""
    sections = []
    try:
        lines = open(path, encoding="utf-8", errors="replace")
    except OSError:
        return None
    for line in lines:
        if line.startswith("== ") and " starting: " in line:
            sections.append({})
            continue
        if not sections:
            continue
        tasks = sections[-1]
        m = TIMING.search(line)
        if m:
            tasks.setdefault(int(m.group(1)), {})["prompt_processed" if m.group(2) == "prompt eval" else "predicted"] = int(m.group(3))
            continue
        m = RELEASE.search(line)
        if m:
            tasks.setdefault(int(m.group(1)), {})["n_tokens"] = int(m.group(2))
    out = []
    for tasks in sections:
        done = [t for t in tasks.values() if "predicted" in t and "n_tokens" in t]
        out.append({
            "requests": len(done),
            "predicted": sum(t["predicted"] for t in done),
            "prompt_processed": sum(t.get("prompt_processed", 0) for t in done),
            "prompt_tokens": sum(t["n_tokens"] + 1 - t["predicted"] for t in done),
        })
    return out


def arm_max_tokens(spec, arm):
    if spec is None:
        return None
    if arm.startswith("probes"):
        return (spec.get("probes") or {}).get("max_tokens", 64)
    base = arm.split("@")[0].split("#")[0].split("~")[0]
    for a in spec.get("arms", []):
        if a.get("name") == base:
            mt = a.get("max_tokens", 128)
            return mt if isinstance(mt, int) else None
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs")
    ap.add_argument("--server-log")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    log_path = args.server_log or (args.runs[:-len(".jsonl")] if args.runs.endswith(".jsonl") else args.runs) + ".server.log"
    spec, runs, order, starts = read_runs(args.runs)
    log = read_log(log_path)
    bad = []
    result = {"runs": [], "servers": []}
    for name in order:
        r = runs[name]
        reqs = r["requests"]
        ok = [q for q in reqs if q.get("ok")]
        load = [q for q in ok if not q.get("warmup")]
        mt = r["line"].get("prompts", {}).get("max_tokens")
        mt = mt if isinstance(mt, int) else arm_max_tokens(spec, r["line"].get("arm", ""))
        outs = sorted({q.get("out_tokens") for q in reqs})
        sources = sorted({str(q.get("out_tokens_source")) for q in reqs})
        wire = [q["t_wire_us"] - q["t_send_us"] for q in reqs if q.get("t_wire_us") is not None]
        ttft = [q["ttft_us"] / 1000 for q in load if q.get("ttft_us") is not None]
        waits = [s.get("waiting") or 0 for s in r["server"]]
        row = {
            "run": name, "requests": len(reqs), "ok": len(ok), "out_tokens": outs, "out_tokens_source": sources,
            "max_tokens": mt, "in_tokens": sorted({q.get("in_tokens") for q in reqs}),
            "sum_out": sum(q.get("out_tokens") or 0 for q in reqs),
            "sum_in": sum(q.get("in_tokens") or 0 for q in reqs),
            "post_wire_max_ms": max(wire) / 1000 if wire else None,
            "ttft_ms": {p: percentile(ttft, p) for p in (50, 95, 99)},
            "scrapes": len(waits), "max_waiting": max(waits) if waits else None,
            "waiting_share": sum(1 for w in waits if w > 0) / len(waits) if waits else None,
        }
        result["runs"].append(row)
        if len(ok) != len(reqs):
            bad.append(f"{name}: {len(reqs) - len(ok)} of {len(reqs)} requests failed")
        if mt is not None and not name.split("/")[-1].startswith("probes") and outs != [mt]:
            bad.append(f"{name}: out_tokens {outs} != max_tokens {mt}")
        if sources != ["usage"]:
            bad.append(f"{name}: out_tokens_source {sources} (expected usage only)")
    if log is not None:
        # The i-th server start belongs to the i-th "starting" event's configuration
        # (a probes restart is a start of its own, labelled CONFIG/probes-restartN).
        per_start = []
        for i, label in enumerate(starts):
            config = (label or "").split("/")[0]
            restart = label and "/" in label
            names = [n for n in order if runs[n]["line"].get("config") == config
                     and (n.split("/")[-1].startswith("probes-restart") == bool(restart))
                     and (not restart or n == label)]
            per_start.append((label, names))
        for i, (label, names) in enumerate(per_start):
            if i >= len(log):
                break
            srv = log[i]
            k_out = sum(r["sum_out"] for r in result["runs"] if r["run"] in names)
            k_in = sum(r["sum_in"] for r in result["runs"] if r["run"] in names)
            k_n = sum(r["ok"] for r in result["runs"] if r["run"] in names)
            row = {"server": label, "runs": names, "knobscope_requests": k_n, "server_requests": srv["requests"],
                   "knobscope_out": k_out, "server_predicted": srv["predicted"],
                   "knobscope_in": k_in, "server_prompt_tokens": srv["prompt_tokens"],
                   "server_prompt_processed": srv["prompt_processed"]}
            result["servers"].append(row)
            if k_out != srv["predicted"]:
                bad.append(f"server {label}: knobscope out_tokens {k_out} != server predicted {srv['predicted']}")
            if k_n != srv["requests"]:
                bad.append(f"server {label}: knobscope {k_n} ok requests != server {srv['requests']} finished")
    result["disagreements"] = bad
    if args.json:
        json.dump(result, sys.stdout, indent=1)
        print()
    else:
        print(f"{'run':24} {'n':>4} {'ok':>4} {'out_tokens':>12} {'src':>6} {'max_tok':>7} {'in_tokens':>14} "
              f"{'post>wire':>9} {'ttft p50':>9} {'p95':>8} {'p99':>8} {'scrapes':>7} {'maxwait':>7} {'waitshare':>9}")
        for r in result["runs"]:
            t = r["ttft_ms"]
            f = lambda v: "-" if v is None else f"{v:.1f}"
            print(f"{r['run']:24} {r['requests']:4} {r['ok']:4} {str(r['out_tokens']):>12} {','.join(r['out_tokens_source']):>6} "
                  f"{str(r['max_tokens']):>7} {str(r['in_tokens'])[:14]:>14} {f(r['post_wire_max_ms']):>9} "
                  f"{f(t[50]):>9} {f(t[95]):>8} {f(t[99]):>8} {r['scrapes']:7} {f(r['max_waiting']):>7} "
                  f"{'-' if r['waiting_share'] is None else format(r['waiting_share'], '.0%'):>9}")
        if log is None:
            print(f"(no server log at {log_path})")
        for s in result["servers"]:
            print(f"server {s['server']}: requests knobscope {s['knobscope_requests']} / log {s['server_requests']}; "
                  f"output tokens knobscope {s['knobscope_out']} / log {s['server_predicted']}; "
                  f"prompt: knobscope in_tokens {s['knobscope_in']} / log usage.prompt_tokens {s['server_prompt_tokens']} "
                  f"({s['server_prompt_processed']} processed, rest cached)")
        for b in bad:
            print("DISAGREES:", b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
