#!/usr/bin/env python3
"""Plants each fault the project's checks must catch, once, and shows that they catch it.

usage: plant_faults.py

Needs no build, no server, no browser, no engine and no .deb (ctest: tst_plant_faults):

  send-path gate   bench/send_path.py --gate-from on a record whose figures pass; then every
                   figure the gate reads, for every client, absent, None, NaN, +inf and -inf
                   in turn: the gate must fail and name that client and figure. A knobscope
                   run file without client.cpu_utilisation must reach the gate as a missing
                   CPU figure (not 0), a record with no loads or no attempts must fail, and a
                   CPU over the limit must still fail.
  HTML check       tests/html/check_html_report.py's report check on a compare --json with
                   no arms, and with an arm that has no configurations: it must fail.
  skips            the real-engine check, the HTML check and the .deb check with their
                   dependency pointed at a missing path: with CI=true each must exit non-zero
                   and not 77, saying why; without CI each must skip (77), saying why.

Prints one line per planted fault ("caught" or "MISSED") and exits 1 if any was missed.
"""
import contextlib
import copy
import io
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench"))
sys.path.insert(0, os.path.join(ROOT, "tests", "html"))
import send_path  # noqa: E402
import check_html_report  # noqa: E402

SKIP = 77
missed = []


def report(caught, what, detail=""):
    print("%s  %s%s" % ("caught" if caught else "MISSED", what, (": " + detail) if detail else ""), flush=True)
    if not caught:
        missed.append(what)


# --- the send-path gate ---------------------------------------------------------

def client(ttft_err, transit, cpu):
    return {"requests": 96, "ok": 96, "matched": 96, "ttft_err_p50": ttft_err, "transit_p50": transit,
            "cpu_us_per_event": cpu, "missing": {}}


def passing_record():
    """Figures shaped like a real gate round in which knobscope passes every criterion."""
    attempt = {"raw": client(0.4, 0.05, 2.0), "bare": client(1.9, 0.8, 11.0), "knobscope": client(0.9, 0.1, 4.0)}
    return {"loads": [dict(load, attempts=[copy.deepcopy(attempt)]) for load in send_path.GATE_LOADS]}


def judge(record):
    """(exit code, printed text) of the gate on `record`, in process."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = send_path.judge_gate(record)
    return rc, out.getvalue()


def gate_from(record, scratch):
    """(exit code, printed text) of `bench/send_path.py --gate-from FILE`, as CI would run it."""
    path = os.path.join(scratch, "gate.json")
    with open(path, "w") as f:
        json.dump(record, f)  # NaN and Infinity are written as Python's json reads them back
    done = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "send_path.py"), "--gate-from", path],
                          capture_output=True, text=True, timeout=60)
    return done.returncode, done.stdout + done.stderr


def plant_gate(scratch):
    rc, text = gate_from(passing_record(), scratch)
    report(rc == 0, "send-path gate: the unplanted record passes (so each failure below is the planted fault's)",
           text.strip().splitlines()[-1] if text.strip() else "no output")
    if rc != 0:
        print(text)

    faults = [("absent", None), ("None", None), ("NaN", float("nan")), ("inf", float("inf")),
              ("-inf", float("-inf"))]
    for name, figures in send_path.GATE_FIGURES.items():
        for key in figures:
            for fault, value in faults:
                record = passing_record()
                figures_of = record["loads"][0]["attempts"][0][name]
                if fault == "absent":
                    del figures_of[key]
                else:
                    figures_of[key] = value
                rc, text = judge(record)
                named = "%s: %s is" % (name, key)
                report(rc == 1 and named in text, "send-path gate: %s's %s %s" % (name, key, fault),
                       next((l for l in text.splitlines() if named in l), "exit %d, figure not named" % rc))

    # The same through the command line, with the figure the gate once took as 0.
    record = passing_record()
    del record["loads"][1]["attempts"][0]["knobscope"]["cpu_us_per_event"]
    rc, text = gate_from(record, scratch)
    report(rc == 1 and "knobscope: cpu_us_per_event is missing" in text,
           "send-path gate --gate-from: knobscope's cpu_us_per_event absent at 8 streams",
           next((l for l in text.splitlines() if "cpu_us_per_event" in l), "exit %d" % rc))
    record = passing_record()
    record["loads"][0]["attempts"][0]["bare"]["transit_p50"] = float("nan")
    rc, text = gate_from(record, scratch)
    report(rc == 1 and "bare: transit_p50 is nan" in text, "send-path gate --gate-from: bare's transit_p50 NaN",
           next((l for l in text.splitlines() if "transit_p50" in l), "exit %d" % rc))

    # A knobscope run file whose summary lacks client.cpu_utilisation, read as the bench reads it.
    run_file = os.path.join(scratch, "ks.jsonl")
    lines = [{"type": "run", "run": "ks", "t0_monotonic_us": 1_000_000}]
    truth = {}
    for i in range(4):
        lines.append({"type": "request", "run": "ks", "id": i, "ok": True, "t_send_us": 1000 * i, "ttft_us": 5000,
                      "itl_us": [1000, 1000], "e2e_us": 7000})
        truth["ks/%d" % i] = {"arrival_us": 1_000_000 + 1000 * i + 100, "first_token_us": 1_000_000 + 1000 * i + 4900,
                              "token_us": [1_000_000 + 1000 * i + t for t in (4900, 5900, 6900)]}
    lines.append({"type": "summary", "run": "ks", "client": {"cores": 2}})
    with open(run_file, "w") as f:
        f.write("\n".join(json.dumps(l) for l in lines) + "\n")
    records, summary = send_path.read_knobscope_output(run_file, 0)
    figures = send_path.analyse(records, summary, truth, 0.0, 4)
    report(figures["cpu_us_per_event"] is None, "send-path gate: a run file without client.cpu_utilisation",
           "cpu_us_per_event %r (%s)" % (figures["cpu_us_per_event"], figures["missing"].get("cpu_us_per_event")))
    record = passing_record()
    record["loads"][0]["attempts"][0]["knobscope"] = figures
    rc, text = judge(record)
    report(rc == 1 and "client.cpu_utilisation" in text,
           "send-path gate: that run file's figures fail the gate, naming client.cpu_utilisation",
           next((l for l in text.splitlines() if "cpu_utilisation" in l), "exit %d" % rc))

    for what, record in [("no loads", {"loads": []}), ("not a record", []),
                         ("a load with no attempts", dict(passing_record(), loads=[
                             dict(load, attempts=[]) for load in send_path.GATE_LOADS])),
                         ("only the 256-stream load", dict(passing_record(), loads=passing_record()["loads"][:1]))]:
        rc, text = judge(record)
        report(rc == 1, "send-path gate: %s" % what, text.strip().splitlines()[0] if text.strip() else "exit %d" % rc)

    record = passing_record()
    for figures_of in (record["loads"][0]["attempts"][0]["knobscope"],):
        figures_of["requests"] = figures_of["ok"] = figures_of["matched"] = 0
    rc, text = judge(record)
    report(rc == 1 and "knobscope: 0 of 0 requests ok" in text, "send-path gate: knobscope ran no request",
           next((l for l in text.splitlines() if "requests ok" in l), "exit %d" % rc))

    record = passing_record()
    record["loads"][0]["attempts"][0]["knobscope"]["cpu_us_per_event"] = 0.8 * 11.0
    rc, text = judge(record)
    report(rc == 1 and "CPU per event" in text, "send-path gate: knobscope's CPU at 0.8x bare's at 256 streams (limit 0.7x)",
           next((l for l in text.splitlines() if "CPU per event" in l), "exit %d" % rc))


# --- the HTML check -------------------------------------------------------------

def plant_html():
    runs = os.path.join(ROOT, "tests", "data", "runs", "fixture.jsonl")
    page = "<!DOCTYPE html><html><body></body></html>"
    for what, compare, needle in [
            ("compare --json with no arms", [], "0 arms"),
            ("an arm with no configurations", [{"arm": "burst", "baseline": "mns2", "configs": []}],
             "0 configurations"),
            ("a sweep arm with no configurations",
             [{"arm": "knee", "baseline": "", "configs": [], "sweep": {"configs": []}}], "0 configurations")]:
        check_html_report.failures.clear()
        with contextlib.redirect_stdout(io.StringIO()):
            check_html_report.check_report(page, compare, runs)
        named = [f for f in check_html_report.failures if needle in f]
        report(bool(named), "HTML check: %s" % what, named[0] if named else "failures: %s"
               % check_html_report.failures)


# --- checks that skip outside CI and fail in it ------------------------------------

def run_check(argv, env_extra, ci):
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env.update(env_extra)
    if ci:
        env["CI"] = "true"
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)
    return done.returncode, (done.stdout + done.stderr).strip()


def plant_skips(scratch):
    true_bin = "/bin/true"  # stands in for knobscope: each check looks for its dependency first
    fixture = os.path.join(ROOT, "tests", "data", "runs", "fixture.jsonl")
    cases = [
        ("real engine (KNOBSCOPE_LLAMA_SERVER=/nonexistent)",
         [sys.executable, os.path.join(ROOT, "tests", "realengine", "check_real_engine.py"), "--knobscope", true_bin],
         {"KNOBSCOPE_LLAMA_SERVER": "/nonexistent/llama-server", "KNOBSCOPE_REAL_MODEL": "/nonexistent/model.gguf"},
         "llama-server"),
        ("browser (no chromium on PATH)",
         [sys.executable, os.path.join(ROOT, "tests", "html", "check_html_report.py"), "--knobscope", true_bin,
          "--runs", fixture],
         {"PATH": "/nonexistent"}, "chromium"),
        (".deb (none in the package folder)",
         ["bash", os.path.join(ROOT, "tests", "package", "test_deb.sh"), "0.0.0", "/nonexistent", fixture, ROOT],
         {}, ".deb"),
    ]
    for what, argv, env, needle in cases:
        env = dict(env)
        scrubbed = {"KNOBSCOPE_CHROMIUM": "", "KNOBSCOPE_DEB": ""}
        rc, text = run_check(argv, dict(scrubbed, **env), ci=True)
        reason = next((l for l in text.splitlines() if needle in l), "")
        report(rc not in (0, SKIP) and "CI=true" in reason, "CI=true, %s: fails" % what, "exit %d, %s" % (rc, reason))
        rc, text = run_check(argv, dict(scrubbed, **env), ci=False)
        reason = next((l for l in text.splitlines() if needle in l), "")
        report(rc == SKIP and reason != "", "no CI, %s: skips" % what, "exit %d, %s" % (rc, reason))
    # A dependency named explicitly but absent fails even outside CI.
    for what, argv, env in [
            ("KNOBSCOPE_CHROMIUM=/nonexistent", cases[1][1], {"KNOBSCOPE_CHROMIUM": "/nonexistent"}),
            ("KNOBSCOPE_DEB=/nonexistent", cases[2][1], {"KNOBSCOPE_DEB": "/nonexistent"})]:
        for ci in (True, False):
            rc, text = run_check(argv, env, ci=ci)
            reason = next((l for l in text.splitlines() if "/nonexistent" in l), "")
            report(rc not in (0, SKIP) and reason != "", "%s%s: fails" % ("CI=true, " if ci else "no CI, ", what),
                   "exit %d, %s" % (rc, reason))


def main():
    with tempfile.TemporaryDirectory(prefix="ks-plant-") as scratch:
        plant_gate(scratch)
        plant_html()
        plant_skips(scratch)
    print("%d planted fault(s) missed" % len(missed) if missed else "every planted fault was caught")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
