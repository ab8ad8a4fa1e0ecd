#!/usr/bin/env python3
"""Writes the seed corpora in tests/fuzz/corpus/<target>/ from the test fixtures
(tests/data, resources/experiments) and from examples written into the parser
tests. Re-run after changing a fixture; the output is committed. Inputs a
fuzzer found a bug with are added by hand as corpus/<target>/regress-*."""
import json
import pathlib

root = pathlib.Path(__file__).resolve().parents[2]
out = root / "tests/fuzz/corpus"


def write(target, name, data):
    d = out / target
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_bytes(data if isinstance(data, bytes) else data.encode())


def split_header(reads):
    """The read-size header of fuzzinput.h: a count, then each read size - 1."""
    return bytes([len(reads)] + [r - 1 for r in reads])


# Inputs that once found a bug (regress-*) are kept; everything else is rewritten.
for old in out.glob("*/*"):
    if not old.name.startswith("regress-"):
        old.unlink()

# SSE streams: whole, in 1/7/17-byte reads, and byte by byte; each also a body for the accumulator.
for sse in sorted((root / "tests/data/sse").glob("*.sse")):
    body = sse.read_bytes()
    write("fuzz_sseparser", sse.stem + ".whole", split_header([]) + body)
    write("fuzz_sseparser", sse.stem + ".split", split_header([1, 7, 17]) + body)
    write("fuzz_sseparser", sse.stem + ".bytes", split_header([1]) + body)
    write("fuzz_chunkdecoder", sse.stem + ".sse", body)
    for i, line in enumerate(body.splitlines()):
        if line.startswith(b"data:"):
            write("fuzz_chunkdecoder", f"{sse.stem}.{i}.json", line[5:].strip())
write("fuzz_sseparser", "crlf-comments", split_header([2, 3]) +
      b": keep-alive\r\nevent: message\r\ndata: a\r\ndata: b\r\r\ndata: \xe2\x82\xac\n\nretry: 5\nid\n\n")

# Run-file lines: the first line of each record type, a few requests, and a stretch of lines.
lines = (root / "tests/data/runs/fixture.jsonl").read_bytes().splitlines()
seen = {}
for line in lines:
    kind = json.loads(line)["type"]
    seen.setdefault(kind, []).append(line)
for kind, group in seen.items():
    for i, line in enumerate(group[:3]):
        write("fuzz_runline", f"{kind}.{i}", line)
write("fuzz_runline", "stretch", b"\n".join(lines[:12]) + b"\n")
request = json.loads(seen["request"][0])
request.update(probe="p01", probe_repeat=1, ok=False, error="http_500", error_detail="boom", run="x/y")
write("fuzz_runline", "request.error", json.dumps(request, separators=(",", ":")))
write("fuzz_runline", "request.spaced", json.dumps(json.loads(seen["request"][1])))
write("fuzz_runline", "truncated", seen["request"][2][:80])

# Prometheus texts (tests/core/tst_prometheustext.cpp).
write("fuzz_prometheustext", "special",
      '# HELP vllm:num_requests_running Number of requests.\n# TYPE vllm:num_requests_running gauge\n'
      'vllm:num_requests_running{model_name="m"} 32.0\n\n'
      'escaped{path="C:\\\\dir",quote="say \\"hi\\"",nl="a\\nb"} 1\nnan_metric NaN\n'
      'inf_metric{le="+Inf"} +Inf\nneg_inf -Inf\nwith_timestamp 7 1700000000000\nsci 1.5e-3\nempty_labels{} 4\n')
write("fuzz_prometheustext", "histogram",
      '# TYPE vllm:time_to_first_token_seconds histogram\n'
      'vllm:time_to_first_token_seconds_bucket{le="0.1",model_name="m"} 3\n'
      'vllm:time_to_first_token_seconds_bucket{le="+Inf",model_name="m"} 9\n'
      'vllm:time_to_first_token_seconds_sum{model_name="m"} 2.5\n'
      'vllm:time_to_first_token_seconds_count{model_name="m"} 9\nvllm:num_requests_waiting{model_name="m"} 5\n')
write("fuzz_prometheustext", "malformed",
      'good 1\n{no_name="x"} 2\nbad_value abc\nunterminated{a="x 3\ntoo many fields 1 2 3\nalso_good 2\n')
write("fuzz_prometheustext", "vllm",
      'vllm:num_requests_running{model_name="a"} 3\nvllm:num_requests_running{model_name="b"} 4\n'
      'vllm:num_requests_waiting{model_name="a"} 2\nvllm:kv_cache_usage_perc{model_name="a"} 0.5\n'
      'vllm:gpu_cache_usage_perc 0.25\n')
write("fuzz_prometheustext", "sglang",
      'sglang:num_running_reqs{tp_rank="0"} 12\nsglang:num_queue_reqs{tp_rank="0"} 30\n'
      'sglang:token_usage{tp_rank="0"} 0.8\n')
write("fuzz_prometheustext", "llamacpp", "llamacpp:requests_processing 2\r\nllamacpp:requests_deferred 6\r\n")

# Experiment specs.
for spec in sorted((root / "resources/experiments").glob("*.json")):
    write("fuzz_experimentspec", spec.name, spec.read_bytes())

# HTTP requests (tests/sim/tst_httprequestparser.cpp), whole and split.
body = '{"prompt":"héllo"}'.encode()
post = (b"POST /v1/completions?x=1 HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
        b"Content-Length: " + str(len(body)).encode() + b"\r\nX-Request-Id: abc\r\n\r\n" + body)
chat_body = (b'{"model":"sim-8b","messages":[{"role":"user","content":"hi there"}],"max_tokens":8,'
             b'"stream":true,"stream_options":{"include_usage":true},"seed":7,"temperature":0}')
chat = (b"POST /v1/chat/completions HTTP/1.1\r\nContent-Length: " + str(len(chat_body)).encode() +
        b"\r\n\r\n" + chat_body)
http = {
    "post": post,
    "pipelined": post + b"GET /health HTTP/1.1\r\n\r\nGET /metrics HTTP/1.1\r\nConnection: close\r\n\r\n",
    "http10": b"GET / HTTP/1.0\r\n\r\nGET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
    "bare-lf": b"\r\n\nGET /health HTTP/1.1\nHost: x\n\n",
    "chat": chat,
    "bad-line": b"GET /\r\n\r\n",
    "bad-length": b"POST / HTTP/1.1\r\nContent-Length: -5\r\n\r\n",
    "chunked": b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n",
    "huge-header": b"GET / HTTP/1.1\r\nX: " + b"a" * 300,
}
for name, data in http.items():
    write("fuzz_httprequestparser", name + ".whole", split_header([]) + data)
    write("fuzz_httprequestparser", name + ".split", split_header([1, 5, 30]) + data)
