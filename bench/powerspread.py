"""The spread between rounds in bench/power.py's run files, and what it implies for n rounds.

Per arm, configuration and statistic: the log ratio of each round's value to the
base's value in the same round (from the run file's summary lines), its mean over
all pairs and its standard deviation within a pair (pooled). From those, by
simulation, the chance that n paired rounds call the difference significant with
the t interval alone (t_{n-1} * sd / sqrt(n) in logs; compare's interval is never
narrower, as it also takes the block bootstrap of the pooled requests).
"""
import glob
import json
import math
import os
import random
import statistics

T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 9: 2.262}


def _round(line):
    for key in ("round", "repeat"):
        if isinstance(line.get(key), int):
            return line[key]
    name = str(line.get("run", ""))
    return int(name.rsplit("#", 1)[1]) if "#" in name and name.rsplit("#", 1)[1].isdigit() else 1


def per_round_logs(path, stats):
    """(arm, config, stat) -> {round: log(value / base's value in that round)}."""
    values = {}
    with open(path) as f:
        for text in f:
            line = json.loads(text)
            if line.get("type") != "summary" or not isinstance(line.get("ttft_ms"), dict):
                continue
            config, rest = str(line["run"]).split("/", 1)
            arm = rest.split("#")[0]
            for metric, stat in stats:
                v = (line.get(metric) or {}).get(stat)
                if isinstance(v, (int, float)) and v > 0:
                    values.setdefault((arm, "%s.%s" % (metric, stat)), {}).setdefault(config, {})[_round(line)] = v
    out = {}
    for (arm, sid), configs in values.items():
        base = configs.get("base", {})
        for config, rounds in configs.items():
            if config != "base":
                out[(arm, config, sid)] = {r: math.log(v / base[r]) for r, v in rounds.items() if r in base}
    return out


def spread(work, stats):
    """(arm, config, stat) -> (mean log ratio, pooled within-pair sd, pairs)."""
    pooled = {}
    for path in sorted(glob.glob(os.path.join(work, "pair[0-9][0-9].jsonl"))):
        for key, rounds in per_round_logs(path, stats).items():
            pooled.setdefault(key, []).append(list(rounds.values()))
    out = {}
    for key, pairs in pooled.items():
        pairs = [p for p in pairs if len(p) >= 2]
        if not pairs:
            continue
        mean = statistics.mean(v for p in pairs for v in p)
        ss = sum(sum((v - statistics.mean(p)) ** 2 for v in p) for p in pairs)
        df = sum(len(p) - 1 for p in pairs)
        out[key] = (mean, math.sqrt(ss / df), len(pairs))
    return out


def chance_called(mean, sd, n, trials=20000, seed=1):
    """How often n paired rounds with this mean and sd of log ratio give a t interval excluding 0."""
    if n - 1 not in T95 or sd <= 0:
        return float("nan")
    rng, called = random.Random(seed), 0
    for _ in range(trials):
        draws = [rng.gauss(mean, sd) for _ in range(n)]
        m, s = statistics.mean(draws), statistics.stdev(draws)
        called += abs(m) > T95[n - 1] * s / math.sqrt(n)
    return called / trials


def table(work, stats, labels, rounds=(3, 5)):
    rows = ["| arm | stat | config | mean ratio | sd of log ratio per round | %s |" % " | ".join(
        "called in %d rounds" % n for n in rounds), "| --- | --- | --- | --- | --- |" + " --- |" * len(rounds)]
    found = spread(work, stats)
    for arm in ("fixed", "poisson", "stress"):
        for metric, stat in stats:
            sid = "%s.%s" % (metric, stat)
            for label in labels:
                got = found.get((arm, label, sid))
                if not got:
                    continue
                mean, sd, _ = got
                rows.append("| %s | %s | %s | %.3f | %.3f | %s |" % (arm, sid, label, math.exp(mean), sd, " | ".join(
                    "%.1f %%" % (100 * chance_called(mean, sd, n)) for n in rounds)))
    return "\n".join(rows)
