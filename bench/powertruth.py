"""The true latencies behind bench/power.py's runs, from knobscope-sim's truth logs.

Each request's TTFT, TPOT, ITL and E2E by the server's own timestamps, pooled per
(configuration, arm) over every truth log under a folder. compare drops each run's
warm-up (MSER-5 over the run's TTFT in send order, core/compare/steadystate.cpp)
before its percentiles; `warmup_ids` repeats that cut on the run file's client
TTFTs, so the truth can be taken over the same requests compare kept.

Two truths, because a run's percentile and the percentile of every run pooled are
not the same quantity. compare's ratio over rounds is the geometric mean of each
round's ratio, and a single run's ratio is one such round, so what both estimate is
exp(E[log P(run of B)] - E[log P(run of A)]), P a percentile of one run of the arm.
`per_run_truth` gives that, from each run's server-side requests. `pooled_truth`
pools every request of a side first, so its p99 follows the side's slowest runs:
for a 24-request closed loop 25 % slower, 1.123x pooled against 1.169x per run
(20 pairs, steady clock), a gap wider than the intervals it was checking.
"""
import glob
import json
import math
import os

from truthlog import read_truth_log

METRICS = ("ttft_ms", "tpot_ms", "itl_ms", "e2e_ms")
BATCH, MIN_VALUES, TREND_Z = 5, 20, 3.09


def _kendall_z(m):
    k = len(m)
    if k < 4:
        return 0.0
    s = sum((m[j] > m[i]) - (m[j] < m[i]) for i in range(k) for j in range(i + 1, k))
    return s / math.sqrt(k * (k - 1) * (2 * k + 5) / 18.0)


def _head_differs(means, d):
    rest = means[d:]
    if len(rest) < 2:
        return True
    mean = sum(rest) / len(rest)
    sd = math.sqrt(sum((x - mean) ** 2 for x in rest) / (len(rest) - 1))
    return abs(sum(means[:d]) / d - mean) > 2 * sd / math.sqrt(d)


def mser5(values):
    """How many leading values compare's MSER-5 drops (0 when it keeps all or calls the run unsettled)."""
    if len(values) < MIN_VALUES:
        return 0
    k = len(values) // BATCH
    means = [sum(values[b * BATCH:(b + 1) * BATCH]) / BATCH for b in range(k)]
    best, best_score = 0, None
    for d in range(k // 2 + 1):
        rest = means[d:]
        mean = sum(rest) / len(rest)
        score = sum((x - mean) ** 2 for x in rest) / len(rest) ** 2
        if best_score is None or score < best_score:
            best, best_score = d, score
    if best > 0 and not _head_differs(means, best):
        best = 0
    if _kendall_z(means[best:]) > TREND_Z:
        return 0
    return best * BATCH


def warmup_ids(run_file):
    """The X-Request-Ids ("RUN/ID") of the requests compare's steady-state cut drops from each run."""
    rows = {}
    with open(run_file) as f:
        for text in f:
            line = json.loads(text)
            if line.get("type") == "request" and line.get("ok") and not line.get("warmup") \
                    and isinstance(line.get("ttft_us"), (int, float)) and line["ttft_us"] >= 0:
                rows.setdefault(line["run"], []).append((line["t_send_us"], line["id"], line["ttft_us"]))
    dropped = set()
    for run, requests in rows.items():
        requests.sort(key=lambda r: r[0])
        for _, rid, _ in requests[:mser5([r[2] for r in requests])]:
            dropped.add("%s/%s" % (run, rid))
    return dropped


def _requests(truth_dir, skip):
    """(folder under truth_dir, run label, config, arm, record) of every good request whose
    (folder, X-Request-Id) is not in `skip`."""
    for path in glob.glob(os.path.join(truth_dir, "**", "*.jsonl"), recursive=True):
        where = os.path.relpath(path, truth_dir).split(os.sep)[0]  # pairNN: a run label repeats across pairs
        for r in read_truth_log(path):
            rid = r.get("client_request_id") or ""
            if r.get("fault") != "none" or r.get("status") != 200 or "/" not in rid or (where, rid) in skip:
                continue
            if r.get("first_token_us") is None or r.get("arrival_us") is None:
                continue
            label = rid.rsplit("/", 1)[0]
            config, arm = label.split("/", 1) if "/" in label else (label, "")
            arm = arm.split("#")[0].split("@")[0].split("~")[0]
            yield where, label, config, arm, r


def _add(m, r):
    tokens = r.get("token_us") or []
    m["ttft_ms"].append((r["first_token_us"] - r["arrival_us"]) / 1000)
    m["e2e_ms"].append((r["end_us"] - r["arrival_us"]) / 1000)
    if len(tokens) > 1:
        m["tpot_ms"].append((tokens[-1] - tokens[0]) / 1000 / (len(tokens) - 1))
        m["itl_ms"].extend((b - a) / 1000 for a, b in zip(tokens, tokens[1:]))


def pooled_truth(truth_dir, skip=frozenset()):
    """(config, arm) -> metric -> values (ms), leaving out the (folder, request id)s in `skip`."""
    pooled = {}
    for _, _, config, arm, r in _requests(truth_dir, skip):
        _add(pooled.setdefault((config, arm), {k: [] for k in METRICS}), r)
    return pooled


def per_run_truth(truth_dir, skip=frozenset()):
    """(config, arm) -> a list of runs, each metric -> values (ms), leaving out the (folder, request id)s in `skip`."""
    runs = {}
    for where, label, config, arm, r in _requests(truth_dir, skip):
        _add(runs.setdefault((config, arm), {}).setdefault((where, label), {k: [] for k in METRICS}), r)
    return {key: list(by_run.values()) for key, by_run in runs.items()}
