#!/usr/bin/env python3
"""The HTML report in a real browser (ctest label `html`): `knobscope export --html`.

usage: check_html_report.py --knobscope PATH --runs RUNS.jsonl [--keep DIR]

Starts no server. Writes the report of a committed run file and checks:

  file        it exists and is one HTML document;
  charts      each load arm's section holds 7 inline <svg> (ttft, tpot, itl, e2e,
              throughput, cdf-ttft, cdf-e2e), a sweep arm's 1 (knee), the drift
              section 1 when the file has probe passes; arms and sweeps are read
              from `knobscope compare --json`, probe passes from the file itself;
  content     every arm's name, the 95 % intervals ("1.23x [1.10-1.40]") and how each
              configuration's were made, every
              diagnosis sentence (`why`), the spec (the <pre> parses back to the
              file's own spec) and no API key material;
  escaping    the same file with a configuration renamed to hold markup
              ('<i class="x">&amp;') shows the name as text everywhere;
  offline     no external reference: no <link>, <script>, <iframe>/<object>/<embed>,
              src=, srcset=, @import, href= or url( that does not start with '#',
              and no http(s):// outside a namespace declaration (xmlns=...) or the
              text of a <pre> (the spec's base_url is text, never fetched);
  trends      the file catalogued twice in a run library of its own (runs rescan):
              export --html --library gives a Trends section with one inline <svg>
              per load arm's configuration ("2 runs, 0 change points"), and
              --no-trends none;
  drawn       headless Chromium screenshots at 1280 and 400 px wide; each PNG is
              decoded here (zlib + the five PNG row filters) and must show ink:
              a share of dark or coloured pixels and several distinct colours
              (charts drawn, not a blank page).

The reference check is first run on planted snippets, so it is known to catch what
it looks for. Chromium is $KNOBSCOPE_CHROMIUM (then it must exist: CI names it so
a missing browser fails) or chromium / chromium-browser / google-chrome on PATH;
none -> exit 77 (skip), or, with CI=true in the environment, exit 1 with the same
reason: CI never passes by skipping the browser.
"""
import argparse
import html
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

SKIP = 77
LOAD_CHARTS = 7
failures = []


def log(message):
    print(message, flush=True)


def check(condition, message):
    log(f"  {'ok  ' if condition else 'FAIL'}  {message}")
    if not condition:
        failures.append(message)
    return condition


# --- external references ------------------------------------------------------

NAMESPACE = re.compile(r"""\sxmlns(?::[\w-]+)?\s*=\s*("[^"]*"|'[^']*')""", re.I)
PRE = re.compile(r"<pre\b[^>]*>.*?</pre>", re.I | re.S)
REFERENCE_PATTERNS = [
    ("<link>", re.compile(r"<link\b", re.I)),
    ("<script>", re.compile(r"<script\b", re.I)),
    ("embedded document", re.compile(r"<(?:iframe|object|embed|frame)\b", re.I)),
    ("src=", re.compile(r"""\bsrc\s*=""", re.I)),
    ("srcset=", re.compile(r"""\bsrcset\s*=""", re.I)),
    ("@import", re.compile(r"@import\b", re.I)),
    ("href= not to '#'", re.compile(r"""\bhref\s*=\s*(?!["']?#)""", re.I)),
    ("url( not to '#'", re.compile(r"""\burl\(\s*(?!["']?#)""", re.I)),
]
ABSOLUTE_URL = re.compile(r"\b(?:https?|ftp|wss?):/{2}|(?:=\s*[\"']?)//[\w.-]", re.I)


def external_references(text):
    """Every real reference in `text`, as (kind, excerpt); namespace declarations are not references."""
    text = NAMESPACE.sub(" ", text)
    found = []
    for kind, pattern in REFERENCE_PATTERNS:
        found += [(kind, text[m.start():m.start() + 60]) for m in pattern.finditer(text)]
    outside_pre = PRE.sub("<pre></pre>", text)
    found += [("absolute URL", outside_pre[m.start():m.start() + 60]) for m in ABSOLUTE_URL.finditer(outside_pre)]
    return found


def self_test_references():
    """The check catches each planted reference and passes what is allowed."""
    planted = [
        '<img src="https://example.org/a.png">',
        '<link rel="stylesheet" href="style.css">',
        '<a href="http://example.org/">x</a>',
        '<style>@import "x.css";</style>',
        '<style>body { background: url(https://example.org/bg.png); }</style>',
        '<svg><image xlink:href="chart.png"/></svg>',
        '<p style="background:url(bg.png)">x</p>',
        '<script>1</script>',
        '<iframe></iframe>',
        '<svg><use href="//cdn.example.org/s.svg#a"/></svg>',
        '<p>see https://example.org</p>',
    ]
    clean = ('<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">'
             '<clipPath id="c1-a"/><g clip-path="url(#c1-a)"><use href="#c1-a"/></g></svg>'
             '<a href="#arm-1">arm</a><pre>{"base_url": "http://127.0.0.1:8000"}</pre>')
    ok = all(external_references(p) for p in planted)
    missed = [p for p in planted if not external_references(p)]
    check(ok and not external_references(clean),
          "the reference check catches %d planted references and passes namespaces, #links and <pre> text%s"
          % (len(planted), f" (missed: {missed}; clean: {external_references(clean)})" if missed
             or external_references(clean) else ""))


# --- PNG ----------------------------------------------------------------------

def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def decode_png(path):
    """(width, height, channels, rows) of an 8-bit RGB or RGBA, non-interlaced PNG; rows are bytearrays."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, header = 8, [], None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in (2, 6) or interlace != 0:
        raise ValueError(f"unsupported PNG: depth {depth}, colour type {colour}, interlace {interlace}")
    bpp = 3 if colour == 2 else 4
    raw = zlib.decompress(b"".join(idat))
    stride = width * bpp
    mask = (1 << (8 * stride)) - 1
    low7 = int.from_bytes(b"\x7f" * stride, "big")
    high = int.from_bytes(b"\x80" * stride, "big")
    rows, prior = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        if kind == 1:  # Sub: a running sum per channel
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 0xFF
        elif kind == 2:  # Up: bytewise sum with the row above, all bytes at once without carries
            a, b = int.from_bytes(line, "big"), int.from_bytes(prior, "big")
            line = bytearray((((a & low7) + (b & low7)) ^ ((a ^ b) & high) & mask).to_bytes(stride, "big"))
        elif kind == 3:  # Average
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prior[i]) >> 1)) & 0xFF
        elif kind == 4:  # Paeth
            for i in range(stride):
                if i >= bpp:
                    line[i] = (line[i] + paeth(line[i - bpp], prior[i], prior[i - bpp])) & 0xFF
                else:
                    line[i] = (line[i] + prior[i]) & 0xFF
        elif kind != 0:
            raise ValueError(f"row {y}: unknown filter {kind}")
        rows.append(line)
        prior = line
    return width, height, bpp, rows


def ink(path):
    """Share of dark (text, lines) and of coloured (chart series) pixels, and the distinct colours among them."""
    width, height, bpp, rows = decode_png(path)
    dark = coloured = 0
    colours = {}
    for line in rows:
        for x in range(0, width * bpp, bpp):
            r, g, b = line[x], line[x + 1], line[x + 2]
            hi, lo = max(r, g, b), min(r, g, b)
            if hi - lo > 60:
                coloured += 1
                key = (r >> 5, g >> 5, b >> 5)
                colours[key] = colours.get(key, 0) + 1
            elif hi < 150:
                dark += 1
    total = width * height
    distinct = sum(1 for n in colours.values() if n >= 200)
    return width, height, dark / total, coloured / total, distinct


# --- the report ---------------------------------------------------------------

def find_chromium():
    named = os.environ.get("KNOBSCOPE_CHROMIUM")
    if named:
        path = shutil.which(named)
        if not path:
            log(f"FAIL: $KNOBSCOPE_CHROMIUM is {named!r}, which is not an executable")
            sys.exit(1)
        return path
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    reason = "no chromium on PATH (./packaging/dev deps-html installs it), nor $KNOBSCOPE_CHROMIUM"
    if os.environ.get("CI", "").lower() in ("true", "1"):
        log(f"FAIL: {reason} (CI=true: a missing browser fails instead of skipping)")
        sys.exit(1)
    log(f"SKIP: {reason}")
    sys.exit(SKIP)


def spec_of(runs_path):
    with open(runs_path, encoding="utf-8") as f:
        for line in f:
            rec = json.loads(line)
            if rec.get("type") == "experiment":
                return rec.get("spec", {})
    return {}


def has_probe_passes(runs_path):
    with open(runs_path, encoding="utf-8") as f:
        return any(rec.get("type") == "run" and rec.get("probes")
                   for rec in map(json.loads, f))


def sections(text):
    return {m.group(1): m.group(2)
            for m in re.finditer(r'<section id="([^"]+)">(.*?)</section>', text, re.S)}


def check_report(text, compare, runs_path):
    parts = sections(text)
    # Every check below is per arm and per configuration: with none of either they would all pass unseen.
    check(isinstance(compare, list) and len(compare) > 0,
          f"compare --json lists {len(compare) if isinstance(compare, list) else 'no list of'} arms, expected at least 1")
    if not isinstance(compare, list):
        return
    for index, arm in enumerate(compare, start=1):
        name = arm["arm"]
        body = parts.get(f"arm-{index}", "")
        expected = 1 if "sweep" in arm else LOAD_CHARTS
        check(body.count("<svg") == expected,
              f"arm {name}: {body.count('<svg')} inline <svg> in its section, expected {expected}")
        check(f">{html.escape(name, quote=False)} <span" in body, f"arm {name}: named in its heading")
        # A sweep's own entry lists its configurations under sweep.configs; its steps are arms of their own.
        configs = (arm.get("sweep") or {}).get("configs") if "sweep" in arm else arm.get("configs")
        check(len(configs or []) > 0,
              f"arm {name}: {len(configs or [])} configurations in compare --json, expected at least 1")
        for config in arm.get("configs", []):
            why = config.get("why", {}).get("text")
            if why:
                # As QString::toHtmlEscaped writes it: & < > and " escaped, ' left as it is.
                escaped = html.escape(why, quote=False).replace('"', "&quot;")
                check(escaped in body, f"arm {name}: diagnosis of {config['config']} shown")
        for config in arm.get("configs", []):
            # How its intervals were made, next to them (the baseline's line names no method).
            r2r = config.get("run_to_run")
            if isinstance(r2r, dict) and config["config"] != arm.get("baseline"):
                label = html.escape(config["config"], quote=False)
                check(re.search(rf"<li[^>]*>{re.escape(label)}: [^<]*intervals ", body) is not None,
                      f"arm {name}: how the intervals of {config['config']} were made ({r2r.get('method')})")
        for label in arm.get("unsettled", []):
            check(f"{html.escape(label, quote=False)}: " in body and "TTFT still moving at the end of the run" in body,
                  f"arm {name}: {label} is said to be not steady")
        if "sweep" not in arm and len(arm.get("configs", [])) > 1:
            check(re.search(r"\d+\.\d\dx \[\d+\.\d\d-\d+\.\d\d\]", body) is not None,
                  f"arm {name}: ratios with their 95 % intervals")
    if has_probe_passes(runs_path):
        drift = parts.get("drift", "")
        check(drift.count("<svg") == 1, f"drift: {drift.count('<svg')} inline <svg>, expected 1")
    else:
        check("drift" not in parts, "no drift section for a file without probe passes")
    spec = spec_of(runs_path)
    pres = [json.loads(html.unescape(p)) for p in re.findall(r"<pre>(.*?)</pre>", text, re.S)]
    check(spec in pres, "the spec is shown and parses back to the file's own spec")
    check(re.search(r"Bearer |Authorization|sk-[A-Za-z0-9]{16}", text) is None, "no API key material")
    references = external_references(text)
    check(not references, "no external reference" + (f": {references[:5]}" if references else ""))
    check(text.count("<svg") == text.count("</svg>"), "every <svg> is closed")
    check(re.search(r"<\?xml|<!DOCTYPE svg", text, re.I) is None, "no XML prolog or SVG doctype left inline")


def check_escaping(knobscope, runs_path, scratch, env):
    """A configuration label with markup in it is shown as text, never as markup."""
    with open(runs_path, encoding="utf-8") as f:
        labels = [c["label"] for c in spec_of(runs_path).get("configs", [])]
        text = f.read()
    if not labels:
        return
    planted = labels[-1] + '<i class="x">&amp;'
    # Every mention of the label is in a JSON string, so renaming it there renames the configuration.
    renamed = os.path.join(scratch, "renamed.jsonl")
    with open(renamed, "w", encoding="utf-8") as f:
        f.write(text.replace(f'"{labels[-1]}', '"' + planted.replace('"', '\\"')))
    page = os.path.join(scratch, "renamed.html")
    done = subprocess.run([knobscope, "export", renamed, "--html", page], env=env,
                          capture_output=True, text=True, timeout=240)
    if not check(done.returncode == 0, f"export of a file whose label holds markup exited {done.returncode}"):
        return
    with open(page, encoding="utf-8") as f:
        written = f.read()
    shown = written.count("&lt;i class=")
    check(shown >= 3 and "<i class" not in written and "&amp;amp;" in written,
          f"a label holding markup is escaped wherever it is shown ({shown} times)")


def screenshot(chromium, page, png, width, scratch):
    command = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
               "--force-device-scale-factor=1", "--no-first-run", "--disable-extensions",
               f"--user-data-dir={os.path.join(scratch, 'profile')}",
               f"--window-size={width},2400", f"--screenshot={png}", "file://" + page]
    done = subprocess.run(command, capture_output=True, text=True, timeout=180)
    if not check(done.returncode == 0 and os.path.isfile(png), f"chromium wrote a screenshot at {width} px"):
        log(done.stderr[-2000:])
        return
    w, h, dark, coloured, distinct = ink(png)
    log(f"        {w}x{h}: {dark:.1%} dark, {coloured:.1%} coloured, {distinct} distinct colours")
    check(w == width, f"the screenshot is {width} px wide")
    check(dark > 0.005, f"{width} px: text and axes drawn (dark pixels {dark:.2%} > 0.5 %)")
    check(coloured > 0.01, f"{width} px: chart series drawn (coloured pixels {coloured:.2%} > 1 %)")
    check(distinct >= 3, f"{width} px: at least 3 distinct colours ({distinct})")


def check_trends(knobscope, runs_path, compare, scratch, env):
    """With the run library holding the file twice, each load arm's configurations get a trend chart."""
    library = os.path.join(scratch, "trend-library.sqlite")
    folder = os.path.join(scratch, "catalogued")
    os.makedirs(folder, exist_ok=True)
    for name in ("monday.jsonl", "tuesday.jsonl"):
        shutil.copyfile(runs_path, os.path.join(folder, name))
    done = subprocess.run([knobscope, "runs", "rescan", folder, "--library", library], env=env,
                          capture_output=True, text=True, timeout=240)
    if not check(done.returncode == 0, f"runs rescan exited {done.returncode} {done.stderr.strip()[-300:]}"):
        return
    expected = sum(len(arm.get("configs", [])) for arm in compare if "sweep" not in arm)
    for extra, want in (([], expected), (["--no-trends"], 0)):
        page = os.path.join(scratch, "trends%s.html" % ("-none" if extra else ""))
        done = subprocess.run([knobscope, "export", os.path.join(folder, "tuesday.jsonl"), "--html", page,
                               "--library", library] + extra, env=env, capture_output=True, text=True, timeout=240)
        if not check(done.returncode == 0, f"export --html with a library exited {done.returncode}"):
            continue
        with open(page, encoding="utf-8") as f:
            trends = sections(f.read()).get("trends", "")
        check(trends.count("<svg") == want,
              f"trends{' with --no-trends' if extra else ''}: {trends.count('<svg')} inline <svg>, expected {want}")
        if want:
            check("2 runs, 0 change points" in trends, "each trend names its 2 runs and no change point")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--knobscope", required=True)
    parser.add_argument("--runs", required=True)
    parser.add_argument("--keep", help="write the report and screenshots here and keep them")
    args = parser.parse_args()

    self_test_references()
    chromium = find_chromium()
    scratch = tempfile.mkdtemp(prefix="ks-html-")
    out = os.path.abspath(args.keep) if args.keep else scratch
    os.makedirs(out, exist_ok=True)
    try:
        # An empty run library of its own: the report's trends are checked apart, in check_trends.
        env = dict(os.environ, QT_QPA_PLATFORM="offscreen",
                   KNOBSCOPE_LIBRARY=os.path.join(scratch, "empty-library.sqlite"))
        page = os.path.join(out, "report.html")
        done = subprocess.run([args.knobscope, "export", args.runs, "--html", page], env=env,
                              capture_output=True, text=True, timeout=240)
        check(done.returncode == 0, f"knobscope export --html exited {done.returncode} {done.stderr.strip()[-500:]}")
        if not check(os.path.isfile(page), "the report exists"):
            return 1
        compare = json.loads(subprocess.run([args.knobscope, "compare", args.runs, "--json"], env=env,
                                            capture_output=True, text=True, timeout=240, check=True).stdout)
        with open(page, encoding="utf-8") as f:
            text = f.read()
        log(f"        {len(text.encode()) / 1024:.0f} KiB, {text.count('<svg')} charts")
        check(text.startswith("<!DOCTYPE html>") and text.rstrip().endswith("</html>"), "one HTML document")
        check_report(text, compare, args.runs)
        check_escaping(args.knobscope, args.runs, scratch, env)
        check_trends(args.knobscope, args.runs, compare, scratch, env)
        for width in (1280, 400):
            screenshot(chromium, page, os.path.join(out, f"shot-{width}.png"), width, scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if failures:
        log(f"{len(failures)} check(s) failed")
        return 1
    log("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
