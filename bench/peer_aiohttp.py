#!/usr/bin/env python3
"""The peer column of bench/send_path.py: a streaming client written the way vLLM's
benchmark client is (aiohttp, one ClientSession per request, the timer taken just
before session.post, the response read chunk by chunk, TTFT at the first event
whose text is non-empty), running the same closed-loop load as bench/raw_epoll.cpp
and bench/bare_qnam.cpp and writing the same per-request lines.

Times are time.perf_counter(), as in vLLM's client; on Linux that is
clock_gettime(CLOCK_MONOTONIC), the clock the simulator's truth log stamps, and
the post time is also recorded from time.monotonic_ns() for matching.

Needs python3-aiohttp (Debian 12: apt-get install python3-aiohttp).
"""
import argparse
import asyncio
import contextlib
import json
import sys
import time

try:
    import aiohttp
except ImportError:
    sys.exit("peer_aiohttp: aiohttp is missing; install it with: apt-get install python3-aiohttp")

WORDS = ["amber", "brook", "cedar", "delta", "ember", "fjord", "grove", "harbor",
         "inlet", "juniper", "kettle", "lagoon", "meadow", "nectar", "orchard", "pebble"]


def prompt(index, words):
    """The same prompts as bench/raw_epoll.cpp (an xorshift over a 32-bit state)."""
    out = ["r%d" % index]
    h = (index * 2654435761 + 1) & 0xFFFFFFFF
    for _ in range(1, words):
        h ^= (h << 13) & 0xFFFFFFFF
        h ^= h >> 17
        h ^= (h << 5) & 0xFFFFFFFF
        out.append(WORDS[h % 16])
    return " ".join(out)


async def request_func(args, index, timeout, shared_session=None):
    payload = {"model": args.model, "prompt": prompt(index, args.input_tokens), "max_tokens": args.max_tokens,
               "temperature": 0, "stream": True, "ignore_eos": True, "stream_options": {"include_usage": True}}
    headers = {"X-Request-Id": "%s/%d" % (args.label, index)}
    rec = {"type": "request", "rid": headers["X-Request-Id"], "status": 0, "ok": False, "ttft_us": -1,
           "e2e_us": -1, "tokens": 0, "itl_us": []}
    tokens = 0
    ttft = 0.0
    itl = []
    done = False
    async with contextlib.AsyncExitStack() as stack:
        session = shared_session or await stack.enter_async_context(
            aiohttp.ClientSession(trust_env=True, timeout=timeout))
        rec["t_post_mono_us"] = time.monotonic_ns() // 1000
        st = time.perf_counter()
        most_recent_timestamp = st
        try:
            async with session.post(url=args.url, json=payload, headers=headers) as response:
                rec["status"] = response.status
                if response.status == 200:
                    buffer = b""
                    async for chunk_bytes in response.content.iter_any():
                        buffer += chunk_bytes
                        while b"\n\n" in buffer:
                            message, buffer = buffer.split(b"\n\n", 1)
                            message = message.strip()
                            if not message:
                                continue
                            chunk = message.decode("utf-8").removeprefix("data: ")
                            if chunk == "[DONE]":
                                done = True
                                continue
                            data = json.loads(chunk)
                            choices = data.get("choices")
                            if choices and choices[0].get("text"):
                                timestamp = time.perf_counter()
                                if tokens == 0:
                                    ttft = timestamp - st
                                else:
                                    itl.append(timestamp - most_recent_timestamp)
                                most_recent_timestamp = timestamp
                                tokens += 1
                    rec["e2e_us"] = round((most_recent_timestamp - st) * 1e6)
        except (aiohttp.ClientError, asyncio.TimeoutError) as error:
            rec["error"] = str(error) or type(error).__name__
    rec["ok"] = rec["status"] == 200 and done and tokens > 0
    rec["tokens"] = tokens
    rec["ttft_us"] = round(ttft * 1e6) if tokens else -1
    rec["itl_us"] = [round(x * 1e6) for x in itl]
    return rec, tokens


async def main_async(args):
    timeout = aiohttp.ClientTimeout(total=6 * 60 * 60)
    records = []
    events = 0
    next_index = 0

    shared = None
    if args.shared_session:
        # Newer vLLM clients share one session (keep-alive connections) across requests.
        shared = aiohttp.ClientSession(timeout=timeout, connector=aiohttp.TCPConnector(limit=0))

    async def stream_slot():
        nonlocal next_index, events
        while next_index < args.requests:
            index = next_index
            next_index += 1
            rec, tokens = await request_func(args, index, timeout, shared)
            records.append(rec)
            events += tokens

    t0 = time.monotonic_ns() // 1000
    cpu0 = time.process_time()
    await asyncio.gather(*(stream_slot() for _ in range(min(args.concurrency, args.requests))))
    cpu = time.process_time() - cpu0
    if shared:
        await shared.close()
    wall = (time.monotonic_ns() // 1000 - t0) / 1e6
    return records, {"type": "summary", "client": "peer_aiohttp", "t0_mono_us": t0, "wall_s": wall, "cpu_s": cpu,
                     "events": events, "cpu_us_per_event": cpu * 1e6 / events if events else 0, "threads": 1}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--base-url", default="http://127.0.0.1:8000")
    p.add_argument("--model", default="sim-1.8b")
    p.add_argument("--concurrency", type=int, default=256)
    p.add_argument("--requests", type=int, default=1024)
    p.add_argument("--max-tokens", type=int, default=128)
    p.add_argument("--input-tokens", type=int, default=32)
    p.add_argument("--label", default="aiohttp")
    p.add_argument("--out", required=True)
    p.add_argument("--shared-session", action="store_true",
                   help="one ClientSession for all requests (keep-alive) instead of one per request")
    args = p.parse_args()
    args.url = args.base_url.rstrip("/") + "/v1/completions"
    records, summary = asyncio.run(main_async(args))
    with open(args.out, "w") as f:
        for rec in records:
            f.write(json.dumps(rec, separators=(",", ":")) + "\n")
        f.write(json.dumps(summary) + "\n")
    print("peer_aiohttp: %d requests, %d token events in %.2f s, CPU %.2f s = %.1f us per event"
          % (len(records), summary["events"], summary["wall_s"], summary["cpu_s"], summary["cpu_us_per_event"]))


if __name__ == "__main__":
    main()
