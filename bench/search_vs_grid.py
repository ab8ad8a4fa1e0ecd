#!/usr/bin/env python3
"""The two-knob search against an exhaustive grid over the same knobs, both on
knobscope-sim over real sockets: the grid's best goodput, each seed's
recommendation and top, their ratio to the grid's best, and the server starts.
A benchmark, not a test: it prints numbers and ratios and asserts nothing.

  bench/search_vs_grid.py --bin build/release/bin [--seeds 3] [--grid-seqs 8,16,32,64,128,256]
                          [--grid-batched 512,1024,2048,4096,8192] [--out DIR] [--skip-grid]

The spec is resources/experiments/knob-search-2d.json: the grid replaces its
search with a configuration per pair; each seed changes the prompts' seed.
"""
import argparse
import copy
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def lines(path, kind):
    out = []
    with open(path) as f:
        for line in f:
            try:
                j = json.loads(line)
            except ValueError:
                continue
            if j.get("type") == kind:
                out.append(j)
    return out


def run(binary, spec, path, port):
    spec = json.loads(json.dumps(spec).replace("8000", str(port)))
    spec_path = path + ".spec.json"
    with open(spec_path, "w") as f:
        json.dump(spec, f)
    env = dict(os.environ, PATH=binary + os.pathsep + os.environ["PATH"], QT_QPA_PLATFORM="offscreen")
    started = time.time()
    subprocess.run([os.path.join(binary, "knobscope"), "run", spec_path, "--out", path], env=env, check=True,
                   stdout=subprocess.DEVNULL)
    return time.time() - started


def starts(path):
    return sum(1 for e in lines(path, "server_event") if e.get("event") == "starting")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True, help="folder with knobscope and knobscope-sim")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--grid-seqs", default="8,16,32,64,128,256")
    ap.add_argument("--grid-batched", default="512,1024,2048,4096,8192")
    ap.add_argument("--out", default="/tmp/search-vs-grid")
    ap.add_argument("--port", type=int, default=8031)
    ap.add_argument("--skip-grid", action="store_true", help="reuse DIR/grid.jsonl")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(ROOT, "resources", "experiments", "knob-search-2d.json")) as f:
        base = json.load(f)

    grid = copy.deepcopy(base)
    del grid["search"]
    grid["name"] = "knob-grid-2d"
    seqs = [int(v) for v in args.grid_seqs.split(",")]
    batched = [int(v) for v in args.grid_batched.split(",")]
    grid["configs"] = [{"label": "max_num_batched_tokens={max_num_batched_tokens},max_num_seqs={max_num_seqs}",
                        "model": "sim-1.8b", "knobs": {"max_num_seqs": seqs, "max_num_batched_tokens": batched}}]
    grid_path = os.path.join(args.out, "grid.jsonl")
    if not args.skip_grid:
        took = run(args.bin, grid, grid_path, args.port)
        print(f"grid: {len(seqs)} x {len(batched)} in {took:.0f} s", flush=True)
    cells = {}
    for s in lines(grid_path, "summary"):
        k = s["knobs"]
        cells[(k["max_num_seqs"], k["max_num_batched_tokens"])] = s.get("goodput_req_per_s") or 0.0
    print("grid goodput (req/s); rows max_num_seqs, columns max_num_batched_tokens")
    print("      " + "".join(f"{b:>8}" for b in batched))
    for s in seqs:
        print(f"{s:>6}" + "".join(f"{cells.get((s, b), float('nan')):>8.2f}" for b in batched))
    best_cell = max(cells, key=cells.get)
    best = cells[best_cell]
    grid_starts = starts(grid_path)
    print(f"grid best: max_num_seqs={best_cell[0]} max_num_batched_tokens={best_cell[1]} at {best:.2f} req/s, "
          f"{grid_starts} server starts", flush=True)

    hits = 0
    for seed in range(1, args.seeds + 1):
        spec = copy.deepcopy(base)
        spec["prompts"]["seed"] = seed
        path = os.path.join(args.out, f"search-seed{seed}.jsonl")
        took = run(args.bin, spec, path, args.port)
        search = lines(path, "search")[-1]
        order = " ".join(f"({p['point']['max_num_seqs']},{p['point']['max_num_batched_tokens']})="
                         f"{(p['objective'] or 0):.1f}" for p in search["probes"])
        rec, top = search["best"], search["top"]
        ok = top["objective"] >= 0.95 * best or search["objective"] >= 0.95 * best \
            or {"max_num_seqs": best_cell[0], "max_num_batched_tokens": best_cell[1]} in search["plateau"]
        hits += ok
        print(f"seed {seed}: {starts(path)} server starts in {took:.0f} s, stop {search['stop']}; recommended "
              f"({rec['max_num_seqs']}, {rec['max_num_batched_tokens']}) {search['objective']:.2f} "
              f"[{search['ci95'][0]:.2f}-{search['ci95'][1]:.2f}] = {search['objective'] / best:.3f}x the grid's best; "
              f"top ({top['point']['max_num_seqs']}, {top['point']['max_num_batched_tokens']}) "
              f"{top['objective']:.2f} = {top['objective'] / best:.3f}x; plateau {len(search['plateau'])} points"
              f"{'' if ok else '  MISSED'}\n  probes (max_num_seqs,max_num_batched_tokens)=goodput: {order}",
              flush=True)
    print(f"within 5 % of the grid's best (or its best on the plateau): {hits} of {args.seeds} seeds")
    return 0


if __name__ == "__main__":
    sys.exit(main())
