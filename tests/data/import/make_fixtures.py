#!/usr/bin/env python3
"""Writes the import fixtures from the formats the tools document (see
docs/metrics.md for the source files). Aggregates are computed the way each
tool computes them: numpy.percentile's default linear interpolation for vLLM
and AIPerf (written out here, numpy is not needed), GuideLLM's figures are
given as a report would carry them. Run it from this folder; the files are
committed, this script only documents where their numbers come from."""
import json, math, os

def pct(values, p):
    v = sorted(values)
    rank = p / 100 * (len(v) - 1)
    lo = math.floor(rank)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (rank - lo)

def mean(v): return sum(v) / len(v)
def std(v):
    m = mean(v); return math.sqrt(sum((x - m) ** 2 for x in v) / len(v))

# --- vLLM --save-result --save-detailed, --metric-percentiles 50,90,95,99 ---
ttfts   = [0.1210, 0.1342, 0.0987, 0.2511, 0.1105, 0.0, 0.1876, 0.1433]
itls    = [[0.021, 0.019, 0.024], [0.018, 0.022], [0.020, 0.020, 0.021, 0.019], [0.031],
           [0.017, 0.023, 0.018], [], [0.025, 0.026], [0.019, 0.021, 0.022]]
outlens = [4, 3, 5, 2, 4, 0, 3, 4]
inlens  = [128] * 8
errors  = ["", "", "", "", "", "Internal Server Error", "", ""]
starts  = [1000.000, 1000.050, 1000.100, 1000.150, 1000.200, 1000.250, 1000.300, 1000.350]
ok = [i for i in range(8) if errors[i] == ""]
lat = [ttfts[i] + sum(itls[i]) if errors[i] == "" else 0.0 for i in range(8)]
d = {"date": "20261129-101500", "endpoint_type": "openai", "backend": "openai", "label": None,
     "model_id": "meta-llama/Llama-3.1-8B-Instruct", "tokenizer_id": "meta-llama/Llama-3.1-8B-Instruct",
     "num_prompts": 8, "request_rate": "inf", "burstiness": 1.0, "max_concurrency": 4}
dur = max(starts[i] + lat[i] for i in ok) - min(starts)
d.update({"duration": dur, "completed": len(ok), "failed": 1,
          "total_input_tokens": sum(inlens[i] for i in ok), "total_output_tokens": sum(outlens),
          "request_throughput": len(ok) / dur, "request_goodput": None,
          "output_throughput": sum(outlens) / dur, "total_token_throughput": (sum(outlens) + 128 * 7) / dur,
          "input_lens": inlens, "output_lens": outlens, "ttfts": ttfts, "itls": itls,
          "start_times": starts, "generated_texts": ["x"] * 8, "errors": errors,
          "max_output_tokens_per_s": 25.0, "max_concurrent_requests": 4})
series = {"ttft": [ttfts[i] for i in ok],
          "tpot": [(lat[i] - ttfts[i]) / (outlens[i] - 1) for i in ok if outlens[i] > 1],
          "itl": [g for i in ok for g in itls[i]],
          "e2el": [lat[i] for i in ok]}
for m, v in series.items():
    d[f"mean_{m}_ms"] = mean(v) * 1000
    d[f"median_{m}_ms"] = pct(v, 50) * 1000
    d[f"std_{m}_ms"] = std(v) * 1000
    for p in (50, 90, 95, 99):
        d[f"p{p}_{m}_ms"] = pct(v, p) * 1000
json.dump(d, open("vllm-detailed.json", "w"))

# --- vLLM --save-result without --save-detailed (default percentiles: p99 only) ---
s = {"date": "20261128-090000", "endpoint_type": "openai", "backend": "openai", "label": "yesterday",
     "model_id": "meta-llama/Llama-3.1-8B-Instruct", "tokenizer_id": "meta-llama/Llama-3.1-8B-Instruct",
     "num_prompts": 200, "request_rate": 8.0, "burstiness": 1.0, "max_concurrency": None,
     "duration": 25.4, "completed": 198, "failed": 2, "total_input_tokens": 25344, "total_output_tokens": 25344,
     "request_throughput": 7.795, "request_goodput": None, "output_throughput": 997.8,
     "total_token_throughput": 1995.6, "max_output_tokens_per_s": 1320.0, "max_concurrent_requests": 31,
     "mean_ttft_ms": 84.2, "median_ttft_ms": 71.5, "std_ttft_ms": 30.1, "p99_ttft_ms": 190.4,
     "mean_tpot_ms": 21.3, "median_tpot_ms": 20.9, "std_tpot_ms": 2.2, "p99_tpot_ms": 27.8,
     "mean_itl_ms": 21.1, "median_itl_ms": 19.7, "std_itl_ms": 6.4, "p99_itl_ms": 48.2}
json.dump(s, open("vllm-summary.json", "w"))

# --- vLLM --append-result: one object per line ---
with open("vllm-appended.json", "w") as f:
    for i, (c, rps, ttft) in enumerate(((4, 3.1, 45.0), (16, 9.8, 120.0))):
        o = dict(s, max_concurrency=c, request_rate="inf", label=None, request_throughput=rps,
                 median_ttft_ms=ttft, mean_ttft_ms=ttft * 1.1, p99_ttft_ms=ttft * 2.5)
        if i:
            f.write("\n")
        json.dump(o, f)

# --- GuideLLM benchmarks report (two benchmarks) ---
def dist(mean_, med, p90, p95, p99, mx, count):
    ps = {"p001": med * 0.5, "p01": med * 0.6, "p05": med * 0.7, "p10": med * 0.8, "p25": med * 0.9,
          "p50": med, "p75": (med + p90) / 2, "p90": p90, "p95": p95, "p99": p99, "p999": mx}
    d_ = {"mean": mean_, "median": med, "mode": med, "variance": 1.0, "std_dev": 1.0, "min": med * 0.5,
          "max": mx, "count": count, "total_sum": mean_ * count, "percentiles": ps, "pdf": None}
    empty = dict(d_, mean=0.0, median=0.0, max=0.0, count=0, total_sum=0.0)
    return {"successful": d_, "errored": empty, "incomplete": empty, "total": d_}
def bench(strategy, ttft, itl, tpot_incl, lat_s, rps, tps, n):
    return {"type_": "generative_benchmark",
            "config": {"run_id": "r1", "run_index": 0, "strategy": strategy, "constraints": {},
                       "profile": {}, "requests": {}, "backend": {}, "environment": {}},
            "metrics": {"request_totals": {"successful": n, "incomplete": 1, "errored": 0, "total": n + 1},
                        "requests_per_second": dist(rps, rps, rps, rps, rps, rps, n),
                        "request_latency": dist(*lat_s),
                        "time_to_first_token_ms": dist(*ttft),
                        "time_per_output_token_ms": dist(*tpot_incl),
                        "inter_token_latency_ms": dist(*itl),
                        "output_tokens_per_second": dist(tps, tps, tps, tps, tps, tps, n * 128)},
            "requests": {"successful": [], "incomplete": [], "errored": [], "total": None}}
g = {"args": {"model": "Qwen/Qwen3-8B"},
     "benchmarks": [bench({"type_": "concurrent", "streams": 4}, (52.0, 48.0, 71.0, 80.0, 95.0, 101.0, 120),
                          (14.2, 14.0, 15.1, 15.6, 16.9, 18.0, 120), (14.6, 14.4, 15.5, 16.0, 17.3, 18.5, 120),
                          (1.86, 1.84, 1.97, 2.01, 2.12, 2.2, 120), 2.1, 268.0, 120),
                    bench({"type_": "constant", "rate": 8.0}, (140.0, 120.0, 230.0, 260.0, 330.0, 360.0, 240),
                          (22.8, 22.1, 25.9, 27.0, 29.4, 31.0, 240), (23.8, 23.0, 27.1, 28.3, 31.0, 32.9, 240),
                          (3.04, 2.99, 3.4, 3.5, 3.8, 4.0, 240), 7.9, 1011.0, 240)]}
json.dump(g, open("guidellm-benchmarks.json", "w"))

# --- AIPerf: profile_export.jsonl beside profile_export_aiperf.json ---
os.makedirs("aiperf", exist_ok=True)
t0 = 1759813207532900363
recs = []
rows = [(255.9, 297.5, [4.9, 5.3, 4.8, 5.7, 4.8, 5.1, 5.5, 5.5], 9), (240.1, 281.0, [5.0, 5.2, 5.1, 5.6, 5.0, 5.0, 5.2, 5.4], 9),
        (301.7, 345.3, [5.3, 5.6, 5.2, 5.7, 5.3, 5.5, 5.4, 5.6], 9), (222.4, 263.8, [4.9, 5.0, 5.1, 5.3, 5.2, 5.2, 5.3, 5.4], 9),
        (275.0, 318.2, [5.2, 5.4, 5.3, 5.5, 5.4, 5.4, 5.5, 5.5], 9)]
with open("aiperf/profile_export.jsonl", "w") as f:
    for i, (ttft, latency, gaps, osl) in enumerate(rows):
        start = t0 + i * 50_000_000
        r = {"metadata": {"session_num": i, "x_request_id": f"req-{i}", "x_correlation_id": f"c-{i}",
                          "conversation_id": f"conv-{i}", "turn_index": 0, "request_start_ns": start,
                          "request_ack_ns": start + 1_000_000, "request_end_ns": start + int(latency * 1e6),
                          "worker_id": "worker_1", "record_processor_id": "rp_1", "benchmark_phase": "profiling",
                          "was_cancelled": False, "cancellation_time_ns": None},
             "metrics": {"input_sequence_length": {"value": 550, "unit": "tokens"},
                         "time_to_first_token": {"value": ttft, "unit": "ms"},
                         "request_latency": {"value": latency, "unit": "ms"},
                         "inter_chunk_latency": {"value": gaps, "unit": "ms"},
                         "output_sequence_length": {"value": osl, "unit": "tokens"},
                         "inter_token_latency": {"value": (latency - ttft) / (osl - 1), "unit": "ms"}},
             "error": None}
        f.write(json.dumps(r) + "\n")
    f.write(json.dumps({"metadata": {"session_num": 5, "request_start_ns": t0 + 5 * 50_000_000,
                                     "request_end_ns": t0 + 5 * 50_000_000 + 600_000, "benchmark_phase": "profiling",
                                     "was_cancelled": True, "cancellation_time_ns": t0 + 5 * 50_000_000 + 600_000},
                        "metrics": {"error_isl": {"value": 550, "unit": "tokens"}},
                        "error": {"code": 499, "type": "RequestCancellationError",
                                  "message": "Request was cancelled after 0.000 seconds"}}) + "\n")
def stats(v, unit="ms"):
    o = {"unit": unit, "avg": mean(v), "min": min(v), "max": max(v), "std": std(v)}
    for p in (1, 5, 10, 25, 50, 75, 90, 95, 99):
        o[f"p{p}"] = pct(v, p)
    return o
dur_s = (max(t0 + i * 50_000_000 + int(r[1] * 1e6) for i, r in enumerate(rows)) - t0) / 1e9
a = {"schema_version": "1.0", "aiperf_version": "0.3.0", "benchmark_id": "b-1",
     "input_config": {"endpoint": {"model_names": ["Qwen/Qwen3-0.6B"], "streaming": True},
                      "loadgen": {"concurrency": 4}},
     "request_throughput": {"unit": "requests/sec", "avg": len(rows) / dur_s},
     "request_latency": stats([r[1] for r in rows]),
     "time_to_first_token": stats([r[0] for r in rows]),
     "inter_token_latency": stats([(r[1] - r[0]) / (r[3] - 1) for r in rows]),
     "inter_chunk_latency": stats([g for r in rows for g in r[2]]),
     "output_sequence_length": stats([r[3] for r in rows], "tokens"),
     "output_token_throughput": {"unit": "tokens/sec", "avg": sum(r[3] for r in rows) / dur_s},
     "request_count": {"unit": "requests", "avg": len(rows)},
     "error_request_count": {"unit": "requests", "avg": 1},
     "was_cancelled": False, "error_summary": [], "start_time": "2025-10-07T05:00:07", "end_time": "2025-10-07T05:00:08"}
json.dump(a, open("aiperf/profile_export_aiperf.json", "w"), indent=2)
os.makedirs("aiperf-summary-only", exist_ok=True)
json.dump(a, open("aiperf-summary-only/profile_export_aiperf.json", "w"), indent=2)

# --- malformed ---
bad = dict(d, completed="ten", ttfts=[0.1, "fast", 0.2, 0.1, 0.1, 0.0, 0.1, 0.1], mean_ttft_ms=[1])
json.dump(bad, open("vllm-malformed.json", "w"))
gb = json.loads(json.dumps(g))
gb["benchmarks"][0]["metrics"]["time_to_first_token_ms"]["successful"]["percentiles"]["p99"] = "slow"
del gb["benchmarks"][1]["metrics"]
gb["benchmarks"].append(7)
json.dump(gb, open("guidellm-malformed.json", "w"))
os.makedirs("aiperf-malformed", exist_ok=True)
with open("aiperf-malformed/profile_export.jsonl", "w") as f:
    f.write('{"metadata": {"request_start_ns": "soon"}, "metrics": {}, "error": null}\n')
    f.write('{"metadata": {"request_start_ns": 5}, "metrics": {"time_to_first_token": {"value": 3, "unit": "parsecs"}, "request_latency": {"value": 9, "unit": "ms"}, "output_sequence_length": {"value": 4, "unit": "tokens"}}, "error": null}\n')
    f.write('this is not json\n')
    f.write('{"metadata": {"request_start_ns": 9}, "metrics": {"time_to_first_token": {"value": 2, "unit": "ms"}, "request_latency": {"value": 8, "unit": "ms"}, "output_sequence_length": {"value": 4, "unit": "tokens"}}, "error": null}\n')
with open("unknown-format.json", "w") as f:
    json.dump({"hello": "world"}, f)
