#!/usr/bin/env bash
# Extracts the .deb built by `./packaging/dev package` into a temporary root
# (dpkg -x) and runs the installed programs from there, as a user would after
# `apt-get install ./knobscope_*.deb`. Exit 77 (ctest: skipped) without a .deb;
# with CI=true in the environment a missing .deb fails (exit 1) with the same reason.
#   test_deb.sh VERSION PACKAGE_DIR FIXTURE.jsonl SOURCE_DIR
set -euo pipefail
version=$1 package_dir=$2 fixture=$3 source_dir=$4

deb=${KNOBSCOPE_DEB:-}
if [ -n "$deb" ] && [ ! -f "$deb" ]; then
    echo "FAIL: KNOBSCOPE_DEB names $deb, which does not exist" >&2
    exit 1
fi
if [ -z "$deb" ]; then
    deb=$(ls "$package_dir"/knobscope_"$version"_*.deb 2>/dev/null | head -1 || true)
fi
if [ -z "$deb" ] || [ ! -f "$deb" ]; then
    reason="no knobscope_${version}_*.deb in $package_dir; build it with ./packaging/dev package (or set KNOBSCOPE_DEB)"
    case "${CI:-}" in
    true | TRUE | True | 1)
        echo "FAIL: $reason (CI=true: a missing .deb fails instead of skipping)" >&2
        exit 1
        ;;
    esac
    echo "SKIPPED: $reason"
    exit 77
fi
echo "testing $deb"

root=$(mktemp -d)
sim_pid=
cleanup() {
    if [ -n "$sim_pid" ]; then kill "$sim_pid" 2>/dev/null || true; fi
    rm -rf "$root"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

dpkg -x "$deb" "$root/pkg"
bin=$root/pkg/usr/bin
share=$root/pkg/usr/share

# The files a desktop install needs.
for f in applications/io.github.knobscope.knobscope.desktop metainfo/io.github.knobscope.knobscope.metainfo.xml \
    icons/hicolor/scalable/apps/io.github.knobscope.knobscope.svg \
    icons/hicolor/48x48/apps/io.github.knobscope.knobscope.png \
    icons/hicolor/256x256/apps/io.github.knobscope.knobscope.png \
    man/man1/knobscope.1.gz man/man1/knobscope-sim.1.gz \
    bash-completion/completions/knobscope bash-completion/completions/knobscope-sim \
    knobscope/experiments/one-knob.json knobscope/experiments/ollama-template.json \
    doc/knobscope/copyright doc/knobscope/changelog.gz; do
    [ -s "$share/$f" ] || fail "the package lacks /usr/share/$f"
done

# One version everywhere.
[ "$("$bin/knobscope" --version)" = "knobscope $version" ] || fail "knobscope --version: $("$bin/knobscope" --version)"
[ "$("$bin/knobscope-sim" --version)" = "knobscope-sim $version" ] || fail "knobscope-sim --version"
[ "$(dpkg-deb -f "$deb" Version)" = "$version" ] || fail "the .deb's Version is $(dpkg-deb -f "$deb" Version)"
grep -q "<release version=\"$version\"" "$share/metainfo/io.github.knobscope.knobscope.metainfo.xml" ||
    fail "the AppStream release is not $version"
depends=$(dpkg-deb -f "$deb" Depends)
for lib in libqt6widgets6 libqt6network6 libqcustomplot; do
    [[ $depends == *"$lib"* ]] || fail "Depends lacks $lib: $depends"
done

# Nothing points into a source or build tree.
if grep -rl --binary-files=text -F "$source_dir" "$root/pkg" >/dev/null; then
    fail "these installed files name $source_dir: $(grep -rl --binary-files=text -F "$source_dir" "$root/pkg" | tr '\n' ' ')"
fi

# The CLI on a saved run.
"$bin/knobscope" report "$fixture" >"$root/report.txt" || fail "knobscope report exited $?"
grep -q "ttft" "$root/report.txt" || grep -qi "TTFT" "$root/report.txt" || fail "report has no TTFT: $(head -5 "$root/report.txt")"
QT_QPA_PLATFORM=offscreen "$bin/knobscope" export "$fixture" --chart ttft --out "$root/ttft.png" ||
    fail "knobscope export exited $?"
[ "$(head -c 8 "$root/ttft.png" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] || fail "export wrote no PNG"

# The simulator on a free port answers /health.
"$bin/knobscope-sim" --port 0 >"$root/sim.out" 2>&1 &
sim_pid=$!
url=
for _ in $(seq 1 100); do
    url=$(grep -oE 'http://127\.0\.0\.1:[0-9]+' "$root/sim.out" | head -1 || true)
    [ -n "$url" ] && break
    sleep 0.1
done
[ -n "$url" ] || fail "knobscope-sim printed no address: $(cat "$root/sim.out")"
health=$(python3 -c 'import sys, urllib.request; r = urllib.request.urlopen(sys.argv[1] + "/health", timeout=5); print(r.status)' "$url")
[ "$health" = 200 ] || fail "/health answered $health"
echo "ok: $deb installs, reports version $version, runs report and export, and its simulator answers $url/health"
