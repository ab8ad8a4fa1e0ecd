#!/usr/bin/env python3
"""The dashboard's pipeline from source to page, timed from inside the dashboard.

The dashboard writes what it measures when KNOBSCOPE_PROFILE names a file
(ui/window/uiprofile.h): one JSON line per second of the GUI thread's busy time (time
inside outermost event handlers), one per part of an arm's end handled by the
main window (the summary, the copied run file, the Compare and Drift result),
and the first frame painted after an opened run file's result reached the pages.
This bench runs the release build's dashboard against knobscope-sim in three parts:

  stream  one configuration, one closed-loop arm of 1024 streams for 30 s:
          the GUI thread's busy ms per wall second, p50/p95/max, over the arm,
          and its CPU ms per second
  sweep   a 60-step concurrency sweep of short steps (1 s each, 16 tokens):
          the GUI thread's ms spent on each arm's end (summary + record + result),
          at arms 1, 30 and 60, and the ratio 60th/1st (also of the medians of the
          first and last five arms, per part); wall and the GUI thread's CPU time,
          which other load on the machine does not inflate; and the latency from
          the arm recorded to its Compare result handled (that includes the
          comparison on a worker thread)
  open    a 200-arm run file, written once by `knobscope run` against the simulator
          (or given with --open-file), opened --open-repeats times: ms from the
          start of guiMain to the first frame painted after its comparison reached
          the pages, to its 95 % intervals reaching them, the process's CPU seconds
          at both, and its peak RSS (VmHWM) once the intervals are in

The dashboard runs on an Xvfb display this bench starts (or QT_QPA_PLATFORM=offscreen
with --platform offscreen), with HOME and the XDG directories in a temporary folder
so that no settings or run files of the user are read or written. It prints numbers
and ratios and asserts nothing; --out FILE writes them as JSON, with the load average.

  bench/ui_pipeline.py [--build-dir build/release] [--parts stream,sweep,open] [--out ui.json]
"""
import argparse
import datetime
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

import send_path
from send_path import percentile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


class Simulator(send_path.Simulator):
    """send_path's simulator process, started with the dashboard's slots and a log of its own."""

    def __init__(self, sim, profile, slots, log_path):  # pylint: disable=super-init-not-called
        self.log = open(log_path, "w")
        self.proc = subprocess.Popen(
            [sim, "--port", "0", "--profile", profile, "--max-num-seqs", str(slots),
             "--kv-cache-tokens", str(max(slots * 512, 100000))],
            stdout=subprocess.PIPE, stderr=self.log, text=True)
        line = self.proc.stdout.readline()
        if "listening on" not in line:
            self.stop()
            raise RuntimeError("knobscope-sim did not start: %r" % line)
        self.url = line.split()[-1]

    def stop(self):
        super().stop()
        self.log.close()


class Display:
    """An Xvfb display of our own (so the dashboard's pid is ours to read and stop), or offscreen."""

    def __init__(self, platform):
        self.proc = None
        self.env = {}
        if platform == "offscreen":
            self.env = {"QT_QPA_PLATFORM": "offscreen"}
            return
        read_fd, write_fd = os.pipe()
        self.proc = subprocess.Popen(["Xvfb", "-displayfd", str(write_fd), "-screen", "0", "1600x1000x24",
                                      "-nolisten", "tcp"], pass_fds=(write_fd,), stderr=subprocess.DEVNULL)
        os.close(write_fd)
        with os.fdopen(read_fd) as r:
            number = r.readline().strip()
        if not number:
            raise RuntimeError("Xvfb did not start")
        self.env = {"DISPLAY": ":" + number, "QT_QPA_PLATFORM": "xcb"}

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait()


class Dashboard:
    """One dashboard process with profiling on; lines() returns the profile lines written so far."""

    running = []  # stopped by main() if the bench fails half-way

    def __init__(self, args, display, home, argv, tag):
        self.profile_path = os.path.join(home, tag + ".profile.jsonl")
        env = dict(os.environ)
        env.update(display.env)
        env.update({"HOME": home, "XDG_CONFIG_HOME": os.path.join(home, "config"),
                    "XDG_DATA_HOME": os.path.join(home, "data"), "XDG_CACHE_HOME": os.path.join(home, "cache"),
                    "KNOBSCOPE_PROFILE": self.profile_path})
        self.log = open(os.path.join(home, tag + ".log"), "w")
        self.started = time.monotonic()
        self.proc = subprocess.Popen([args.knobscope] + argv + ["--size", args.size], env=env,
                                     stdout=self.log, stderr=subprocess.STDOUT)
        Dashboard.running.append(self)
        self.offset = 0
        self.records = []

    def lines(self):
        try:
            with open(self.profile_path) as f:
                f.seek(self.offset)
                chunk = f.read()
        except FileNotFoundError:
            return self.records
        end = chunk.rfind("\n") + 1
        self.offset += len(chunk[:end].encode())
        for line in chunk[:end].splitlines():
            try:
                self.records.append(json.loads(line))
            except ValueError:
                print("  not a profile line in %s: %r" % (self.profile_path, line[:80]), file=sys.stderr)
        return self.records

    def wait_for(self, predicate, timeout_s):
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            for rec in self.lines():
                if predicate(rec):
                    return rec, time.monotonic() - self.started
            if self.proc.poll() is not None:
                self.lines()
                return None, None
            time.sleep(0.02)
        return None, None

    def cpu_s(self):
        """User and system CPU seconds of the dashboard's process so far, all threads."""
        try:
            with open("/proc/%d/stat" % self.proc.pid) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, IndexError, ValueError):
            return None

    def peak_rss_mib(self):
        try:
            with open("/proc/%d/status" % self.proc.pid) as f:
                for line in f:
                    if line.startswith("VmHWM:"):
                        return int(line.split()[1]) / 1024.0
        except OSError:
            pass
        return None

    def wait_exit(self, timeout_s):
        try:
            self.proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            print("  the dashboard did not finish within %d s; stopped" % timeout_s, file=sys.stderr)
            self.stop()
        self.lines()
        self.log.close()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.lines()


def write_spec(path, name, url, model, arms):
    spec = {"name": name, "target": {"base_url": url, "api": "completions"},
            "configs": [{"label": "sim", "model": model}], "arms": arms,
            "prompts": {"source": "synthetic", "input_tokens": 32, "seed": 1}}
    with open(path, "w") as f:
        json.dump(spec, f, indent=1)
    return path


def loadavg():
    return [round(x, 2) for x in os.getloadavg()]


def stream_part(args, display, home):
    sim = Simulator(args.sim, args.model, args.streams, os.path.join(home, "sim-stream.log"))
    try:
        spec = write_spec(os.path.join(home, "stream.json"), "ui-stream", sim.url, args.model,
                          [{"name": "streams", "mode": "concurrency", "concurrency": args.streams,
                            "duration_s": args.stream_seconds, "max_tokens": 128}])
        load_before = loadavg()
        dash = Dashboard(args, display, home, [spec, "--run", "--shot", "live:end:" + os.path.join(home, "stream.png")],
                         "stream")
        dash.wait_exit(args.stream_seconds + 180)
        peak = sim.peak_connections()
    finally:
        sim.stop()
    recs = dash.records
    start = next((r["t"] for r in recs if r["kind"] == "arm_start"), None)
    end = next((r["t"] for r in recs if r["kind"] == "arm_end" and r["part"] == "summary"), None)
    busy = [r for r in recs if r["kind"] == "busy" and start is not None and end is not None
            and start + 1000 <= r["t"] <= end]
    per_s = [1000.0 * r["busy_ms"] / r["wall_ms"] for r in busy if r["wall_ms"] > 0]
    cpu_s = [1000.0 * r["cpu_ms"] / r["wall_ms"] for r in busy if r["wall_ms"] > 0]
    events = [1000.0 * r["events"] / r["wall_ms"] for r in busy if r["wall_ms"] > 0]
    overhead = next((r["ns_per_event"] for r in recs if r["kind"] == "overhead"), None)
    result = {"streams": args.streams, "seconds": args.stream_seconds, "sim_peak_connections": peak,
              "seconds_measured": len(per_s), "busy_ms_per_s": {
                  "p50": percentile(per_s, 50), "p95": percentile(per_s, 95), "max": max(per_s, default=None)},
              "cpu_ms_per_s": {
                  "p50": percentile(cpu_s, 50), "p95": percentile(cpu_s, 95), "max": max(cpu_s, default=None)},
              "longest_event_ms": max((r["longest_ms"] for r in busy), default=None),
              "events_per_s_p50": percentile(events, 50), "hook_ns_per_event": overhead,
              "hook_overhead_ms_per_s": (percentile(events, 50) * overhead / 1e6) if overhead and events else None,
              "loadavg_before": load_before, "loadavg_after": loadavg()}
    b = result["busy_ms_per_s"]
    print("stream: %d streams for %d s (simulator's peak connections %s), %d seconds measured"
          % (args.streams, args.stream_seconds, peak, len(per_s)))
    c = result["cpu_ms_per_s"]
    print("  GUI thread busy ms per s   p50 %6.1f  p95 %6.1f  max %6.1f   longest event %.1f ms"
          % (b["p50"], b["p95"], b["max"] or float("nan"), result["longest_event_ms"] or float("nan")))
    print("  GUI thread CPU ms per s    p50 %6.1f  p95 %6.1f  max %6.1f"
          % (c["p50"], c["p95"], c["max"] or float("nan")))
    print("  events per s p50 %.0f; the hook's own cost about %.3f ms per s (%.0f ns an event)"
          % (result["events_per_s_p50"], result["hook_overhead_ms_per_s"] or float("nan"), overhead or float("nan")))
    return result


def sweep_part(args, display, home):
    sim = Simulator(args.sim, args.model, args.sweep_steps, os.path.join(home, "sim-sweep.log"))
    try:
        spec = write_spec(os.path.join(home, "sweep.json"), "ui-sweep", sim.url, args.model,
                          [{"name": "ladder", "mode": "sweep", "over": "concurrency",
                            "values": list(range(1, args.sweep_steps + 1)), "duration_s": args.step_seconds,
                            "max_tokens": 16}])
        load_before = loadavg()
        dash = Dashboard(args, display, home, [spec, "--run", "--shot", "live:end:" + os.path.join(home, "sweep.png")],
                         "sweep")
        dash.wait_exit(args.sweep_steps * (args.step_seconds + 5) + 180)
    finally:
        sim.stop()
    parts = ("summary", "record", "result")
    arms = {}
    for r in dash.records:
        if r["kind"] == "arm_end" and r["arm"] > 0:
            arm = arms.setdefault(r["arm"], {"arm": r["arm"]})
            arm[r["part"] + "_ms"] = r["ms"]
            arm[r["part"] + "_cpu_ms"] = r["cpu_ms"]
            arm[r["part"] + "_t"] = r["t"]
    for a in arms.values():
        # A result superseded by the next arm's never reaches the GUI thread: such an arm has none.
        a["gui_ms"] = sum(a.get(p + "_ms", 0.0) for p in parts)
        a["gui_cpu_ms"] = sum(a.get(p + "_cpu_ms", 0.0) for p in parts)
        a["result_latency_ms"] = a["result_t"] - a["record_t"] if "result_t" in a and "record_t" in a else None
    last = max(arms, default=0)

    def window(centre):
        """Per part, the median over the five arms around CENTRE that have it; their sum is one arm's end."""
        ns = [n for n in range(max(1, centre - 2), min(last, centre + 2) + 1)]
        if centre <= 3:
            ns = list(range(1, min(last, 5) + 1))
        elif centre >= last - 2:
            ns = list(range(max(1, last - 4), last + 1))
        out = {"arms": "%d-%d" % (ns[0], ns[-1]) if ns else ""}
        for key in [p + "_ms" for p in parts] + [p + "_cpu_ms" for p in parts] + ["result_latency_ms"]:
            vals = [arms[n][key] for n in ns if n in arms and arms[n].get(key) is not None]
            out[key] = percentile(vals, 50) if vals else None
        out["gui_ms"] = sum(out[p + "_ms"] or 0.0 for p in parts)
        out["gui_cpu_ms"] = sum(out[p + "_cpu_ms"] or 0.0 for p in parts)
        return out

    def ratio(a, b):
        return a / b if a is not None and b else None

    picks = [n for n in (1, (last + 1) // 2, last) if n in arms]
    windows = {str(n): window(n) for n in picks}
    first, end = windows.get("1"), windows.get(str(last))
    result = {"steps": args.sweep_steps, "step_seconds": args.step_seconds, "arms_seen": len(arms),
              "arms_with_result": sum(1 for a in arms.values() if "result_ms" in a),
              "arms": {str(n): arms[n] for n in picks}, "windows": windows,
              "ratio_gui_ms_last_first": ratio(arms[last]["gui_ms"], arms[1]["gui_ms"]) if picks else None,
              "ratio_gui_cpu_ms_last_first": ratio(arms[last]["gui_cpu_ms"], arms[1]["gui_cpu_ms"]) if picks else None,
              "ratio_window_gui_ms": ratio(end["gui_ms"], first["gui_ms"]) if first and end else None,
              "ratio_window_gui_cpu_ms": ratio(end["gui_cpu_ms"], first["gui_cpu_ms"]) if first and end else None,
              "ratio_window_latency": ratio(end["result_latency_ms"], first["result_latency_ms"]) if first and end
              else None,
              "all_arms": {str(n): a for n, a in sorted(arms.items())},
              "loadavg_before": load_before, "loadavg_after": loadavg()}
    fmt = lambda v: "%7.1f" % v if v is not None else "      -"
    print("sweep: %d steps of %.1f s, %d arms seen, %d with a Compare result on the GUI thread"
          % (args.sweep_steps, args.step_seconds, len(arms), result["arms_with_result"]))
    print("  the GUI thread's ms on an arm's end = summary + record (the run file copied) + result (Compare, Drift);")
    print("  wall (CPU); and ms from recorded to the Compare result handled")
    for n in picks:
        a, w = arms[n], windows[str(n)]
        for label, r in (("arm %d" % n, a), ("median of arms %s" % w["arms"], w)):
            print("  %-22s %s (%s) = %s (%s) + %s (%s) + %s (%s)   latency %s" % (
                label, fmt(r["gui_ms"]), fmt(r["gui_cpu_ms"]),
                *[fmt(r.get(p + k)) for p in parts for k in ("_ms", "_cpu_ms")], fmt(r.get("result_latency_ms"))))
    print("  last / first: arm %s wall, %s CPU; medians %s wall, %s CPU, latency %s" % tuple(
        fmt(result[k]).strip() for k in ("ratio_gui_ms_last_first", "ratio_gui_cpu_ms_last_first",
                                          "ratio_window_gui_ms", "ratio_window_gui_cpu_ms", "ratio_window_latency")))
    return result


def make_open_file(args, home):
    path = os.path.join(home, "arms%d.jsonl" % args.open_arms)
    sim = Simulator(args.sim, args.model, 32, os.path.join(home, "sim-open.log"))
    try:
        spec = write_spec(os.path.join(home, "open.json"), "ui-open", sim.url, args.model,
                          [{"name": "a%03d" % i, "mode": "concurrency", "concurrency": 32, "requests": 32,
                            "max_tokens": 32} for i in range(1, args.open_arms + 1)])
        t0 = time.monotonic()
        subprocess.run([args.knobscope, "run", spec, "--out", path, "--progress", "none"], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=1800)
        print("open: wrote %s (%d arms, %.1f MiB) in %.0f s" % (path, args.open_arms, os.path.getsize(path) / 2**20,
                                                               time.monotonic() - t0))
    finally:
        sim.stop()
    return path


def open_part(args, display, home):
    path = args.open_file or make_open_file(args, home)
    load_before = loadavg()
    rounds = []
    for i in range(args.open_repeats):
        dash = Dashboard(args, display, home, ["open", path], "open%d" % i)
        frame, wall = dash.wait_for(lambda r: r["kind"] == "frame" and r["what"] == "file", 300)
        cpu_at_frame = dash.cpu_s()
        full, _ = dash.wait_for(lambda r: r["kind"] == "arm_end" and r["part"] == "intervals" and r["arm"] == 0, 600)
        rss = dash.peak_rss_mib()
        cpu_at_full = dash.cpu_s()
        dash.stop()
        dash.log.close()
        opened = next((r["t"] for r in dash.records if r["kind"] == "open"), None)
        result_ms = next((r["ms"] for r in dash.records if r["kind"] == "arm_end" and r["part"] == "result"
                          and r["arm"] == 0), None)
        rounds.append({"first_frame_ms": frame["t"] if frame else None,
                       "open_to_first_frame_ms": frame["t"] - opened if frame and opened is not None else None,
                       "spawn_to_first_frame_s": wall, "intervals_shown_ms": full["t"] if full else None,
                       "gui_result_ms": result_ms, "peak_rss_mib": rss, "process_cpu_s_at_first_frame": cpu_at_frame,
                       "process_cpu_s_at_intervals": cpu_at_full})
    result = {"file": path, "arms": args.open_arms, "file_mib": os.path.getsize(path) / 2**20, "rounds": rounds,
              "loadavg_before": load_before, "loadavg_after": loadavg()}
    print("open: %s, %.1f MiB, %d times" % (os.path.basename(path), result["file_mib"], len(rounds)))
    print("  first frame ms: from guiMain / from openRunFile / from spawn; intervals shown ms; GUI ms on the "
          "result; process CPU s at the first frame / at the intervals; peak RSS MiB")
    fmt = lambda v, f="%.0f": "-" if v is None else f % v
    for r in rounds:
        print("  %6s / %6s / %6s   %6s   %6s   %5s / %5s   %6s" % (
            fmt(r["first_frame_ms"]), fmt(r["open_to_first_frame_ms"]),
            fmt(r["spawn_to_first_frame_s"] * 1000 if r["spawn_to_first_frame_s"] else None),
            fmt(r["intervals_shown_ms"]), fmt(r["gui_result_ms"], "%.1f"),
            fmt(r["process_cpu_s_at_first_frame"], "%.2f"), fmt(r["process_cpu_s_at_intervals"], "%.2f"),
            fmt(r["peak_rss_mib"])))
    return result


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build-dir", default=os.path.join(ROOT, "build", "release"))
    p.add_argument("--knobscope", help="default: BUILD_DIR/bin/knobscope")
    p.add_argument("--sim", help="default: BUILD_DIR/bin/knobscope-sim")
    p.add_argument("--model", default="sim-1.8b", help="the simulator's profile")
    p.add_argument("--parts", default="stream,sweep,open")
    p.add_argument("--platform", choices=["xvfb", "offscreen"], default="xvfb" if shutil.which("Xvfb") else "offscreen")
    p.add_argument("--size", default="1280x800", help="the dashboard's window size")
    p.add_argument("--streams", type=int, default=1024)
    p.add_argument("--stream-seconds", type=float, default=30)
    p.add_argument("--sweep-steps", type=int, default=60)
    p.add_argument("--step-seconds", type=float, default=1.0)
    p.add_argument("--open-arms", type=int, default=200)
    p.add_argument("--open-file", help="a run file to open instead of writing one")
    p.add_argument("--open-repeats", type=int, default=3)
    p.add_argument("--keep", help="keep the profiles, logs, specs and the written run file in this folder")
    p.add_argument("--out", help="write the figures as JSON")
    args = p.parse_args()
    args.knobscope = args.knobscope or os.path.join(args.build_dir, "bin", "knobscope")
    args.sim = args.sim or os.path.join(args.build_dir, "bin", "knobscope-sim")
    for exe in (args.knobscope, args.sim):
        if not os.access(exe, os.X_OK):
            sys.exit("ui_pipeline: no executable %s (build the release preset's knobscope and knobscope-sim)" % exe)
    parts = [x for x in args.parts.split(",") if x]
    home = args.keep or tempfile.mkdtemp(prefix="ui_pipeline.")
    os.makedirs(home, exist_ok=True)
    record = {"when": datetime.datetime.now().isoformat(timespec="seconds"), "platform": args.platform,
              "size": args.size, "model": args.model, "cpus": os.cpu_count(), "loadavg_start": loadavg()}
    print("ui_pipeline: %s, dashboard at %s on %s, %d CPUs, load average %s"
          % (args.knobscope, args.size, args.platform, os.cpu_count(), " ".join(map(str, loadavg()))))
    display = Display(args.platform)
    try:
        for part, fn in (("stream", stream_part), ("sweep", sweep_part), ("open", open_part)):
            if part in parts:
                record[part] = fn(args, display, home)
    finally:
        for dash in Dashboard.running:
            dash.stop()
        display.stop()
        if not args.keep:
            shutil.rmtree(home, ignore_errors=True)
    record["loadavg_end"] = loadavg()
    if args.out:
        with open(args.out, "w") as f:
            json.dump(record, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
