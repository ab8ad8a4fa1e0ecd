#!/usr/bin/env python3
"""Checks that knobscope's sources depend one way (docs/architecture.md).

core/'s folders form one order, ground first (CORE_ORDER): a file may include
headers from its own folder and from folders before it, never after. The
top-level parts follow the same rule (PART_ORDER), core/ stays free of
widgets and ui/ of networking, and no .cpp there is over 500 lines. Run from anywhere; exits 1 and names every
include that runs against the order, 0 when there is none.
"""
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

# Ground first. A folder may use the folders before it.
CORE_ORDER = [
    "util",      # clocks, redaction, signals, bounded JSON parsing
    "sse",       # the SSE wire format
    "api",       # OpenAI-compatible chunks (the dialects)
    "workload",  # what to send: prompts, lengths, probe sets, the load spec
    "store",     # request records and the JSONL run file
    "metrics",   # percentiles, summaries, verdicts, live aggregation
    "drift",     # output hashes across runs
    "client",    # the HTTP client and stream workers
    "load",      # the load runner: schedules and workers together
    "import",    # other tools' result files
    "compare",   # comparisons, sweeps, their text
    "telemetry", # what the server and the machine report: /metrics, GPUs, the host
    "source",    # where runs come from: a file replayed, one snapshotter for both
    "spec",      # what to run: the experiment spec, its grids, checks and expansion
    "server",    # starting, checking and asking the server under test
    "shard",     # one experiment over several clients, and the parts merged
    "experiment",# the runner: arms in order, steering, the knob search
    "library",   # the run library: every run file catalogued in SQLite
]
# Top-level parts: the simulator and the dashboard both build on core; the
# app (the knobscope executable) on all of them.
PART_ORDER = ["core", "sim", "ui", "app"]
# A source file fits on a few screens; a longer one does more than one thing.
MAX_CPP_LINES = 500
WIDGET_HEADERS = re.compile(r"^(QtWidgets/|QtGui/|Q(Widget|MainWindow|Dialog|Application|Painter|Pixmap|Image|Color|Font)\b)")
NETWORK_HEADERS = re.compile(r"^(QtNetwork/|Q(Network\w*|TcpSocket|SslSocket|LocalSocket|UdpSocket|AbstractSocket)\b)")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
SOURCE = (".h", ".hpp", ".cpp")


def files_under(part):
    for dirpath, _, names in os.walk(os.path.join(ROOT, part)):
        for name in sorted(names):
            if name.endswith(SOURCE):
                yield os.path.join(dirpath, name)


def includes(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        for number, line in enumerate(f, 1):
            m = INCLUDE.match(line)
            if m:
                yield number, m.group(1) == '"', m.group(2)


def main():
    problems = []
    core_dir = os.path.join(ROOT, "core")
    present = sorted(d for d in os.listdir(core_dir) if os.path.isdir(os.path.join(core_dir, d)))
    for folder in present:
        if folder not in CORE_ORDER:
            problems.append(f"core/{folder}/: not in the order; place it in CORE_ORDER "
                            f"(tests/architecture/check_layers.py) and docs/architecture.md")
    rank = {name: i for i, name in enumerate(CORE_ORDER)}
    part_rank = {name: i for i, name in enumerate(PART_ORDER)}
    edges = {}
    for part in PART_ORDER:
        for path in files_under(part):
            rel = os.path.relpath(path, ROOT)
            folder = rel.split(os.sep)[1] if part == "core" and rel.count(os.sep) >= 2 else None
            for number, quoted, target in includes(path):
                where = f"{rel}:{number}: #include {target}"
                if part == "core" and not quoted and WIDGET_HEADERS.match(target):
                    problems.append(f"{where}: core/ is free of widgets and painting")
                if part == "ui" and not quoted and NETWORK_HEADERS.match(target):
                    problems.append(f"{where}: ui/ is free of networking; the core's runners talk to servers")
                if not quoted:
                    continue
                head = target.split("/")[0]
                if head in rank:  # a core header, named by its folder
                    if part == "core" and folder in rank:
                        if head != folder:
                            edges.setdefault((folder, head), []).append(where)
                        if rank[head] > rank[folder]:
                            problems.append(f"{where}: core/{folder} may not use core/{head}, which comes later "
                                            f"in the order")
                    continue
                # sim/ and ui/ headers are included by bare name from their own part and from app/.
                for other in ("sim", "ui"):
                    if other != part and os.path.exists(os.path.join(ROOT, other, target)) \
                            and not os.path.exists(os.path.join(os.path.dirname(path), target)) \
                            and part_rank[other] > part_rank[part]:
                        problems.append(f"{where}: {part}/ may not use {other}/, which comes later in the order")
    for part in PART_ORDER:
        for path in files_under(part):
            if path.endswith(".cpp"):
                with open(path, encoding="utf-8", errors="replace") as f:
                    lines = sum(1 for _ in f)
                if lines > MAX_CPP_LINES:
                    problems.append(f"{os.path.relpath(path, ROOT)}: {lines} lines; split it by purpose "
                                    f"(at most {MAX_CPP_LINES})")
    if "-v" in sys.argv[1:]:
        for (a, b), where in sorted(edges.items(), key=lambda e: (rank[e[0][0]], rank[e[0][1]])):
            print(f"core/{a} -> core/{b}: {len(where)} include(s)")
    if problems:
        print("check_layers: against the order " + " > ".join(reversed(CORE_ORDER)) + " or the size limit:",
              file=sys.stderr)
        for p in sorted(set(problems)):
            print("  " + p, file=sys.stderr)
        return 1
    print(f"check_layers: core/ has {len(CORE_ORDER)} folders in one order, "
          f"{sum(len(w) for w in edges.values())} includes across folders, none against it")
    return 0


if __name__ == "__main__":
    sys.exit(main())
