#!/usr/bin/env python3
"""Run-library check (ctest label `library`): five runs of one configuration, the
fourth against a slower server, catalogued as `knobscope run` does it (the first
finding a corrupt library, which it sets aside and starts afresh); the trend
marks the change at the fourth run and nowhere else, and `compare @ID @ID`
compares the first and the fourth without a path typed.

usage: check_trend.py --knobscope PATH --sim PATH [--keep DIR]

Each run is one experiment file (same name, configuration and arm) against
knobscope-sim on 8 batch slots: a fixed closed loop of 4 streams x 32 requests,
16 output tokens, 128-token prompts. Runs 1-3 and 5 use `--step-scale 1`; run 4
`--step-scale 1.25` (every engine step 25 % slower: the planted change, as if a
server upgrade had made it slower). TPOT p50 follows the engine step, so the
change is 1.25x; between runs of one server it moved by 0.5 % in bench/power.py.

It fails when
  - run 1 does not complete, or does not say it set the corrupt library aside (kept);
  - `knobscope runs` does not list the five files, each with its figures;
  - the TPOT p50 trend has a change anywhere but at run 4 (up) and run 5 (back);
  - compare @first @fourth does not show both picks, labelled CONFIG @ID, with a
    TPOT p50 ratio within 1.15-1.35;
  - a figure it reads is missing or not finite.
Counts, never times. Exit 0 pass, 1 fail.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from simcheck import finite, free_port  # noqa: E402

SCALES = (1.0, 1.0, 1.0, 1.25, 1.0)


def spec(sim, port, scale):
    return {
        "name": "trend-check",
        "target": {"base_url": "http://127.0.0.1:%d" % port, "api": "completions"},
        "server": {"command": [sim, "--port", str(port), "--profile", "sim-1.8b", "--max-num-seqs", "8",
                               "--step-scale", str(scale)],
                   "ready_path": "/health", "ready_timeout_s": 60},
        "configs": [{"label": "base", "model": "sim-1.8b", "knobs": {"max_num_seqs": 8}}],
        "arms": [{"name": "fixed", "mode": "concurrency", "concurrency": 4, "requests": 32, "max_tokens": 16}],
        "prompts": {"source": "synthetic", "input_tokens": 128, "seed": 7},
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--knobscope", required=True)
    parser.add_argument("--sim", required=True)
    parser.add_argument("--keep")
    args = parser.parse_args()
    work = args.keep or tempfile.mkdtemp(prefix="knobscope-trend-")
    os.makedirs(work, exist_ok=True)
    library = os.path.join(work, "library.sqlite")
    env = dict(os.environ, KNOBSCOPE_LIBRARY=library)
    problems = []
    # A corrupt library in the way: the first run must complete, set it aside with a message, and start afresh.
    with open(library, "wb") as f:
        f.write(b"not a database " * 512)
    try:
        for i, scale in enumerate(SCALES):
            spec_path = os.path.join(work, "run%d.json" % (i + 1))
            with open(spec_path, "w") as f:
                json.dump(spec(args.sim, free_port(), scale), f)
            out = os.path.join(work, "run%d.jsonl" % (i + 1))
            run = subprocess.run([args.knobscope, "run", spec_path, "--out", out, "--progress", "none"],
                                 capture_output=True, text=True, env=env, timeout=240)
            if run.returncode != 0:
                print("run %d failed (%d):\n%s" % (i + 1, run.returncode, run.stderr[-3000:]))
                return 1
            said = [line for line in run.stderr.splitlines() if "run library" in line]
            if i == 0:
                if not any("set aside" in line for line in said):
                    problems.append("run 1 did not say the corrupt library was set aside: %s" % said)
                if not [n for n in os.listdir(work) if n.startswith("library.sqlite.corrupt-")]:
                    problems.append("the corrupt library was not kept beside the new one")
            elif said:
                problems.append("run %d: %s" % (i + 1, said[-1]))

        listed = subprocess.run([args.knobscope, "runs", "--where", "spec=trend-check", "--json"],
                                capture_output=True, text=True, env=env, timeout=60)
        rows = json.loads(listed.stdout) if listed.returncode == 0 else []
        paths = sorted(os.path.basename(r["path"]) for r in rows)
        if paths != ["run%d.jsonl" % (i + 1) for i in range(len(SCALES))]:
            problems.append("runs lists %s, expected the five run files" % paths)
        for r in rows:
            if not finite((r.get("tpot_ms_p50") or {}).get("value")) or not r.get("requests"):
                problems.append("@%s has no TPOT p50 or no requests: %s" % (r.get("id"), r))

        trend_run = subprocess.run([args.knobscope, "runs", "trend", "trend-check", "base", "fixed",
                                    "--metric", "tpot_ms.p50", "--json"],
                                   capture_output=True, text=True, env=env, timeout=60)
        if trend_run.returncode != 0:
            problems.append("runs trend failed (%d): %s" % (trend_run.returncode, trend_run.stderr))
            trend = {"points": [], "changes": []}
        else:
            trend = json.loads(trend_run.stdout)
        points = trend["points"]
        order = [os.path.basename(p["path"]) for p in points]
        if order != ["run%d.jsonl" % (i + 1) for i in range(len(SCALES))]:
            problems.append("trend points in the order %s, expected oldest first" % order)
        for p in points:
            interval = p.get("ci95")
            if not finite(p.get("value")) or not isinstance(interval, list) or not all(finite(v) for v in interval):
                problems.append("trend point @%s without a finite value and interval" % p.get("id"))
        changes = [(c["index"], c["ratio"]) for c in trend["changes"]]
        print("TPOT p50 per run:", ", ".join("%.3f" % p["value"] for p in points if finite(p.get("value"))))
        print("changes:", changes, "threshold z", trend.get("method", {}).get("z_threshold"))
        if [c[0] for c in changes] != [3, 4] or not (changes[0][1] > 1.15 and changes[1][1] < 0.87):
            problems.append("change points %s, expected run 4 up (index 3, ~1.25x) and run 5 back (index 4)"
                            % changes)

        if len(points) == len(SCALES):
            first, fourth = points[0]["id"], points[3]["id"]
            compare = subprocess.run([args.knobscope, "compare", "@%d" % first, "@%d" % fourth, "--json"],
                                     capture_output=True, text=True, env=env, timeout=120)
            if compare.returncode != 0:
                problems.append("compare @%d @%d failed (%d): %s" % (first, fourth, compare.returncode,
                                                                     compare.stderr))
            else:
                arms = json.loads(compare.stdout)
                configs = arms[0]["configs"] if arms else []
                labels = [c.get("config") for c in configs]
                if labels != ["base @%d" % first, "base @%d" % fourth]:
                    problems.append("compare @ID @ID columns %s" % labels)
                ratio = configs[1].get("ratio", {}).get("tpot_ms", {}).get("p50") if len(configs) == 2 else None
                print("compare @%d @%d: TPOT p50 ratio %s" % (first, fourth, ratio))
                if not finite(ratio) or not 1.15 <= ratio <= 1.35:
                    problems.append("compare @ID @ID TPOT p50 ratio %s, expected 1.15-1.35" % ratio)
        bad = subprocess.run([args.knobscope, "compare", "@999999", "@1"], capture_output=True, text=True, env=env,
                             timeout=60)
        if bad.returncode != 2 or "@999999" not in bad.stderr:
            problems.append("compare with an unknown id: exit %d, %r" % (bad.returncode, bad.stderr))
        twice = subprocess.run([args.knobscope, "compare", "@1", "@1"], capture_output=True, text=True, env=env,
                               timeout=60)
        if twice.returncode != 2 or "twice" not in twice.stderr:
            problems.append("compare @1 @1: exit %d, %r" % (twice.returncode, twice.stderr))
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    for p in problems:
        print("FAIL:", p)
    print("trend check: %s" % ("passed" if not problems else "%d problems" % len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
