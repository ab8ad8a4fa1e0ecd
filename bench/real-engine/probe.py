#!/usr/bin/python3
"""Probe a llama-server built by ./setup: endpoints, SSE stream format, speed,
header timing under slot contention, and the HTTP thread pool / keep-alive.

Each scenario starts its own llama-server on 127.0.0.1 (a free port), sends a
bounded number of requests to it, and stops it. Standard library only; raw
sockets, so the exact bytes and their arrival times are seen.

usage: probe.py --bin LLAMA_SERVER --model M.gguf [--threads 1] SCENARIO...
  endpoints  /health /v1/models /props /metrics, and one streamed completion
             (raw bytes of the response: headers, chunks, final chunk, [DONE])
  speed      decode ms/token (128 tokens) and prefill ms of a ~100-token prompt
  contention 8 concurrent streamed requests to a --parallel 2 server: when the
             headers and the first event arrive for each
  keepalive  --threads-http 2: idle keep-alive connections vs a new one, the
             keep-alive timeout and max count, and a burst of connections
"""

import argparse
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time

HOST = "127.0.0.1"


def free_port() -> int:
    s = socket.socket()
    s.bind((HOST, 0))
    p = s.getsockname()[1]
    s.close()
    return p


class Server:
    def __init__(self, binary, model, threads, parallel, ctx=4096, extra=()):
        self.port = free_port()
        self.log = open(f"/tmp/probe-llama-server-{self.port}.log", "w")
        cmd = [binary, "-m", model, "--host", HOST, "--port", str(self.port),
               "--parallel", str(parallel), "-c", str(ctx), "-t", str(threads),
               "--metrics", "--no-ui", *extra]
        self.cmd = cmd
        self.p = subprocess.Popen(cmd, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self.p.poll() is not None:
                raise SystemExit(f"llama-server exited: see {self.log.name}")
            try:
                st, _, _ = request(self.port, "GET", "/health")
                if st == 200:
                    return
            except OSError:
                pass
            time.sleep(0.2)
        raise SystemExit("llama-server did not become healthy")

    def stop(self):
        self.p.send_signal(signal.SIGINT)
        try:
            self.p.wait(15)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
        self.log.close()

    def __enter__(self):
        return self

    def __exit__(self, *a):
        self.stop()


def build(method, path, body=None, keep_alive=True):
    data = b"" if body is None else json.dumps(body).encode()
    head = f"{method} {path} HTTP/1.1\r\nHost: {HOST}\r\n"
    if body is not None:
        head += f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n"
    if not keep_alive:
        head += "Connection: close\r\n"
    return (head + "\r\n").encode() + data


class Conn:
    """One HTTP/1.1 keep-alive connection, read by hand (chunked or sized)."""

    def __init__(self, port, timeout=60):
        self.s = socket.create_connection((HOST, port), timeout=timeout)
        self.buf = b""

    def _more(self):
        d = self.s.recv(65536)
        if not d:
            raise ConnectionError("closed by server")
        self.buf += d
        return time.monotonic()

    def _until(self, sep):
        while sep not in self.buf:
            self._more()
        i = self.buf.index(sep)
        out, self.buf = self.buf[:i], self.buf[i + len(sep):]
        return out

    def send(self, raw):
        self.s.sendall(raw)

    def response(self, on_chunk=None):
        """Returns (status, headers dict, body bytes, t_headers)."""
        head = self._until(b"\r\n\r\n")
        t_head = time.monotonic()
        lines = head.decode().split("\r\n")
        status = int(lines[0].split()[1])
        hdr = {}
        for ln in lines[1:]:
            k, v = ln.split(":", 1)
            hdr[k.strip().lower()] = v.strip()
        body = b""
        if hdr.get("transfer-encoding") == "chunked":
            while True:
                n = int(self._until(b"\r\n").split(b";")[0], 16)
                while len(self.buf) < n + 2:
                    self._more()
                chunk, self.buf = self.buf[:n], self.buf[n + 2:]
                if n == 0:
                    break
                if on_chunk:
                    on_chunk(time.monotonic(), chunk)
                body += chunk
        else:
            n = int(hdr.get("content-length", "0"))
            while len(self.buf) < n:
                self._more()
            body, self.buf = self.buf[:n], self.buf[n:]
        return status, hdr, body, t_head, lines[0]

    def close(self):
        self.s.close()


def request(port, method, path, body=None):
    c = Conn(port, timeout=10)
    try:
        c.send(build(method, path, body, keep_alive=False))
        st, hdr, b, _, _ = c.response()
        return st, hdr, b
    finally:
        c.close()


PROMPT_100 = " ".join(["the quick brown fox jumps over the lazy dog"] * 11)


def stream_body(max_tokens=32, prompt="Hello, my name is", **kw):
    b = {"model": "tiny", "prompt": prompt, "max_tokens": max_tokens, "stream": True,
         "ignore_eos": True, "stream_options": {"include_usage": True}}
    b.update(kw)
    return b


def run_stream(port, body, conn=None):
    """Streams one completion; returns timings and the SSE events."""
    c = conn or Conn(port)
    events = []
    t0 = time.monotonic()
    c.send(build("POST", "/v1/completions", body))
    t_sent = time.monotonic()
    chunks = []
    st, hdr, raw, t_head, status_line = c.response(on_chunk=lambda t, ch: chunks.append((t, ch)))
    for ev in raw.decode().split("\n\n"):
        if ev.strip():
            events.append(ev)
    if conn is None:
        c.close()
    return {"t0": t0, "sent": t_sent - t0, "head": t_head - t0,
            "first_chunk": (chunks[0][0] - t0) if chunks else None,
            "end": time.monotonic() - t0, "status": status_line, "headers": hdr,
            "events": events, "n_http_chunks": len(chunks), "chunks": chunks}


def scenario_endpoints(a):
    with Server(a.bin, a.model, a.threads, 4) as srv:
        print(f"# server: {' '.join(srv.cmd)}")
        for path in ("/health", "/v1/models", "/props"):
            st, hdr, b = request(srv.port, "GET", path)
            j = json.loads(b)
            if path == "/props":
                j = {k: j[k] for k in ("total_slots", "model_path", "build_info",
                                        "chat_template") if k in j} | {
                    "default_generation_settings.n_ctx": j.get("default_generation_settings", {}).get("n_ctx"),
                    "keys": sorted(j)}
            print(f"GET {path} -> {st} {json.dumps(j)[:900]}")
        r = run_stream(srv.port, stream_body(32))
        print(f"\n# streamed /v1/completions: {r['status']}")
        for k, v in r["headers"].items():
            print(f"  {k}: {v}")
        print(f"  {len(r['events'])} SSE events in {r['n_http_chunks']} HTTP chunks")
        sizes = sorted({len(ch) for _, ch in r["chunks"]})
        print(f"  distinct HTTP chunk sizes: {sizes[:12]}")
        for i, ev in enumerate(r["events"]):
            if i < 3 or i >= len(r["events"]) - 4:
                print(f"  [{i}] {ev}")
            elif i == 3:
                print("  ...")
        one_per = all(ch.count(b"data: ") == 1 for _, ch in r["chunks"])
        print(f"  one event per HTTP chunk: {one_per}")
        st, _, b = request(srv.port, "GET", "/metrics")
        print(f"\nGET /metrics -> {st}")
        for ln in b.decode().splitlines():
            if not ln.startswith("#"):
                print(f"  {ln}")
            elif ln.startswith("# TYPE"):
                pass
        # chat completions: first events, to see the role delta
        c = Conn(srv.port)
        c.send(build("POST", "/v1/chat/completions", {
            "model": "tiny", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 4,
            "stream": True, "ignore_eos": True, "stream_options": {"include_usage": True}}))
        st, hdr, raw, _, sl = c.response()
        c.close()
        print(f"\n# streamed /v1/chat/completions (max_tokens 4): {sl}")
        for ev in raw.decode().split("\n\n"):
            if ev.strip():
                print(f"  {ev[:400]}")


def timings_of(r):
    for ev in r["events"]:
        if ev.startswith("data: {"):
            j = json.loads(ev[6:])
            if "timings" in j:
                return j["timings"]
    return None


def scenario_speed(a):
    with Server(a.bin, a.model, a.threads, 1) as srv:
        print(f"# server: {' '.join(srv.cmd)}")
        run_stream(srv.port, stream_body(8))  # warm
        dec, pre = [], []
        for i in range(3):
            r = run_stream(srv.port, stream_body(128, prompt=f"{i} " + PROMPT_100, cache_prompt=False))
            t = timings_of(r)
            dec.append(t["predicted_per_token_ms"])
            pre.append((t["prompt_n"], t["prompt_ms"]))
            gaps = [b[0] - a_[0] for a_, b in zip(r["chunks"], r["chunks"][1:])]
            gaps.sort()
            print(f"  run {i}: prompt_n {t['prompt_n']} prompt_ms {t['prompt_ms']:.1f} "
                  f"predicted_n {t['predicted_n']} ms/token {t['predicted_per_token_ms']:.2f} "
                  f"client: head {r['head']*1e3:.1f} ms, chunk gap p50 {gaps[len(gaps)//2]*1e3:.1f} ms "
                  f"p99 {gaps[int(len(gaps)*0.99)]*1e3:.1f} ms, total {r['end']*1e3:.0f} ms")
        print(f"SPEED decode_ms_per_token={min(dec):.2f} prefill={pre[0][0]}tok/{min(p for _, p in pre):.1f}ms")


def scenario_contention(a):
    with Server(a.bin, a.model, a.threads, 2) as srv:
        print(f"# server: {' '.join(srv.cmd)}")
        run_stream(srv.port, stream_body(4))
        results = [None] * 8
        start = threading.Barrier(8)

        def one(i):
            c = Conn(srv.port)
            start.wait()
            results[i] = run_stream(srv.port, stream_body(32, prompt=f"request {i}: hello"), conn=c)
            c.close()

        th = [threading.Thread(target=one, args=(i,)) for i in range(8)]
        for t in th:
            t.start()
        for t in th:
            t.join()
        base = min(r["t0"] for r in results)
        print("  req  sent_ms  headers_ms  first_event_ms  end_ms  (from the first request's send)")
        for i, r in sorted(enumerate(results), key=lambda x: x[1]["t0"] + x[1]["head"]):
            off = r["t0"] - base
            print(f"  {i:3d} {1e3*(off + r['sent']):8.1f} {1e3*(off + r['head']):11.1f} "
                  f"{1e3*(off + r['first_chunk']):15.1f} {1e3*(off + r['end']):7.0f}")


def idle_conn(port):
    c = Conn(port, timeout=30)
    c.send(build("GET", "/health"))
    c.response()
    return c


def scenario_keepalive(a):
    with Server(a.bin, a.model, a.threads, 1, extra=("--threads-http", "2")) as srv:
        print(f"# server: {' '.join(srv.cmd)}")
        # 1. the keep-alive timeout and the Keep-Alive header
        c = Conn(srv.port)
        c.send(build("GET", "/health"))
        st, hdr, _, _, _ = c.response()
        print(f"  /health response headers: connection={hdr.get('connection')!r} keep-alive={hdr.get('keep-alive')!r}")
        t = time.monotonic()
        c.s.settimeout(20)
        try:
            d = c.s.recv(1)
            print(f"  idle keep-alive connection closed by the server after {time.monotonic()-t:.2f} s (recv -> {d!r})")
        except socket.timeout:
            print("  idle keep-alive connection still open after 20 s")
        c.close()
        # 2. max requests per connection
        c = Conn(srv.port)
        n = 0
        for i in range(1, 120):
            c.send(build("GET", "/health"))
            st, hdr, _, _, _ = c.response()
            n = i
            if hdr.get("connection", "").lower() == "close":
                break
        print(f"  request #{n} on one connection answered with Connection: close")
        c.close()
        time.sleep(0.5)
        # 3. more idle keep-alive connections than --threads-http 2
        idle = [idle_conn(srv.port) for _ in range(4)]
        t = time.monotonic()
        st, _, _ = request(srv.port, "GET", "/health")
        print(f"  4 idle keep-alive connections open (threads-http 2): a 5th connection's /health -> {st} in {1e3*(time.monotonic()-t):.1f} ms")
        for i, c in enumerate(idle):
            t = time.monotonic()
            c.send(build("GET", "/health"))
            c.response()
            print(f"    reuse of idle connection {i}: {1e3*(time.monotonic()-t):.1f} ms")
        for c in idle:
            c.close()
    # 4. bursts: many new connections at once, around the base pool size; any stall?
    for th, n, rounds in ((4, 5, 40), (4, 8, 40), (20, 24, 20), (None, 16, 3), (None, 40, 3)):
        extra = () if th is None else ("--threads-http", str(th))
        with Server(a.bin, a.model, a.threads, 1 if th else 16, extra=extra) as srv:
            lat = sorted(burst_once(srv.port, n, rounds))
            slow = [x for x in lat if x > 1.0]
            pool = f"--threads-http {th}" if th else "--parallel 16 (default pool 20)"
            print(f"  {pool}: {rounds} bursts of {n} new connections, each GET /health then left "
                  f"idle: p50 {1e3*lat[len(lat)//2]:.1f} ms, max {1e3*lat[-1]:.1f} ms, "
                  f"{len(slow)} over 1 s {['%.2f s' % x for x in slow]}")


def burst_once(port, n, rounds=3):
    out = []
    for _ in range(rounds):
        lat = [None] * n
        conns = [None] * n
        bar = threading.Barrier(n)

        def one(i):
            c = Conn(port, timeout=30)
            bar.wait()
            t = time.monotonic()
            c.send(build("GET", "/health"))
            c.response()
            lat[i] = time.monotonic() - t
            conns[i] = c

        th = [threading.Thread(target=one, args=(i,)) for i in range(n)]
        for t in th:
            t.start()
        for t in th:
            t.join()
        for c in conns:
            c.close()
        out += lat
        time.sleep(0.3)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("scenario", nargs="+", choices=["endpoints", "speed", "contention", "keepalive"])
    a = ap.parse_args()
    for s in a.scenario:
        print(f"\n=== {s} ({os.path.basename(a.model)}, -t {a.threads})")
        globals()[f"scenario_{s}"](a)
        sys.stdout.flush()


if __name__ == "__main__":
    main()
