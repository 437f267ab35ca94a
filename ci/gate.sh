#!/bin/sh
# Ignite wire-value conformance gate for a client repository. Copy this file into your repository.
#
# Takes a pinned corpus release, checks its SHA-256, unpacks it, runs your runner through the harness over the
# whole corpus and writes junit.xml, summary.md and report.json to GATE_OUT. Exit status: 0 when nothing
# unexpected happened; 1 when a verdict fails the run (fail, crash, skip or xpass not matching your
# expected-failures file, a stale entry in it, or a REQUIRE capability your runner does not claim); 2 when the
# release or the configuration is wrong (download, SHA-256, tampered or partial corpus, unknown options).
# Vectors outside the eras / formats / ops your runner's start answer claims are 'unclaimed': not sent, not
# failing, and counted on the PASS / FAIL line, in summary.md and on the badge. A run that checked nothing (every
# verdict unclaimed) ends 'NOTHING CHECKED' with exit status 1, unless ALLOW_NOTHING_CHECKED=1 (the harness's
# --allow-nothing-checked: the harness decides, the gate words it); a run that left no report exits 1.
# Rejects answered with a class family the runner declares in capabilities.coarse_classes are 'coarse': passing,
# counted apart from 'pass' on the PASS line.
#
# Environment (required):
#   CORPUS_RELEASE     URL (http/https) or local path of ignite-wire-corpus-<version>.tar.gz
#   CORPUS_SHA256      its SHA-256, from the release's SHA256SUMS (pin it next to the version)
#   RUNNER_NAME        your runner's name, as its start answer gives it (^[a-z0-9][a-z0-9_-]*$)
#   RUNNER_COMMAND     shell command that starts your runner; run by /bin/sh in RUNNER_CWD
# Environment (optional):
#   CORPUS_VERSION     refuse a release whose manifest names another corpus version
#   RUNNER_CWD         where RUNNER_COMMAND runs (default: the directory the gate is started from)
#   EXPECTED_FAILURES  your expected-failures.txt (ID-GLOB  OP-GLOB  reason; see PROTOCOL.md in the release)
#   REQUIRE            capabilities your runner must claim, e.g. era=3.0,format=binary-tuple (harness --require)
#   GATE_OUT           output directory (default: ./conformance-out)
#   HARNESS_ARGS       extra harness options, split on spaces, no quoting (e.g. --timeout 30)
#   PYTHON             Python 3 with jsonschema (default: /usr/bin/python3, else python3)
#   BENCH_HOSTILE      1: also measure your runner's peak RSS and slowest vector over the must-reject vectors
#                      (tools/bench_hostile.py --command; goals: 256 MiB, 1 s per vector; a miss fails the gate)
#   BENCH_ARGS         extra bench options, split on spaces (e.g. --max-rss-mib 512 -k 'hostile.*')
#   ALLOW_NOTHING_CHECKED  1: a run in which every verdict is unclaimed exits 0 (still saying NOTHING CHECKED;
#                      passed to the harness as --allow-nothing-checked)
set -eu

say() { printf 'gate: %s\n' "$*" >&2; }
die() { say "$*"; exit 2; }
# Quotes one word for /bin/sh and for the harness's shlex parsing (both read '...' with '\'' the same way).
shq() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }

: "${CORPUS_RELEASE:?set CORPUS_RELEASE to the URL or path of ignite-wire-corpus-<version>.tar.gz}"
: "${CORPUS_SHA256:?set CORPUS_SHA256 to the release archive SHA-256 (from its SHA256SUMS)}"
: "${RUNNER_NAME:?set RUNNER_NAME to your runner name}"
: "${RUNNER_COMMAND:?set RUNNER_COMMAND to the shell command that starts your runner}"
case "$RUNNER_NAME" in      # it names files and a directory: nothing that climbs out of one (as the harness checks)
    [a-z0-9]*) case "$RUNNER_NAME" in *[!a-z0-9_-]*) bad_name=1 ;; *) bad_name= ;; esac ;;
    *) bad_name=1 ;;
esac
RUNNER_CWD=${RUNNER_CWD:-$(pwd)}
GATE_OUT=${GATE_OUT:-conformance-out}
HARNESS_ARGS=${HARNESS_ARGS:-}
[ -z "$bad_name" ] || die "RUNNER_NAME '$RUNNER_NAME': use lower-case letters, digits, '_' and '-', starting with a letter or digit"
if [ -z "${PYTHON:-}" ]; then
    if [ -x /usr/bin/python3 ]; then PYTHON=/usr/bin/python3; else PYTHON=python3; fi
fi

mkdir -p "$GATE_OUT"
GATE_OUT=$(cd "$GATE_OUT" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/ignite-wire-gate.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

# 1. The pinned release, checked before anything in it runs.
archive="$work/corpus.tar.gz"
case "$CORPUS_RELEASE" in
    http://*|https://*)
        if command -v curl >/dev/null 2>&1; then curl -fsSL -o "$archive" "$CORPUS_RELEASE" || die "cannot download $CORPUS_RELEASE"
        else wget -q -O "$archive" "$CORPUS_RELEASE" || die "cannot download $CORPUS_RELEASE"; fi ;;
    file://*) cp "${CORPUS_RELEASE#file://}" "$archive" || die "cannot read $CORPUS_RELEASE" ;;
    *) cp "$CORPUS_RELEASE" "$archive" || die "cannot read $CORPUS_RELEASE" ;;
esac
if command -v sha256sum >/dev/null 2>&1; then actual=$(sha256sum "$archive" | cut -d' ' -f1)
elif command -v shasum >/dev/null 2>&1; then actual=$(shasum -a 256 "$archive" | cut -d' ' -f1)
else actual=$("$PYTHON" -c 'import hashlib,sys; print(hashlib.sha256(open(sys.argv[1],"rb").read()).hexdigest())' "$archive"); fi
expected=$(printf '%s' "$CORPUS_SHA256" | tr 'A-F' 'a-f')
[ "$actual" = "$expected" ] || die "SHA-256 mismatch for $CORPUS_RELEASE: expected $expected, got $actual; refusing this corpus"
say "release $CORPUS_RELEASE: SHA-256 $actual OK"

mkdir "$work/release"
tar -xzf "$archive" -C "$work/release" || die "cannot unpack $CORPUS_RELEASE"
set -- "$work"/release/ignite-wire-corpus-*
[ $# -eq 1 ] && [ -d "$1" ] || die "$CORPUS_RELEASE: expected one ignite-wire-corpus-<version>/ directory inside"
root=$1
[ -f "$root/vectors/manifest.json" ] || die "$CORPUS_RELEASE: no vectors/manifest.json: not a corpus release"
version=$("$PYTHON" -c 'import json,sys; print(json.load(open(sys.argv[1]))["corpus_version"])' "$root/vectors/manifest.json")
if [ -n "${CORPUS_VERSION:-}" ] && [ "$version" != "$CORPUS_VERSION" ]; then
    die "the release is corpus $version, CORPUS_VERSION pins $CORPUS_VERSION"
fi

# 2. The runner: its command runs in RUNNER_CWD; the harness reads your EXPECTED_FAILURES file where it is, so
# every message names that file.
mkdir -p "$work/runners/$RUNNER_NAME"
set --
if [ -n "${EXPECTED_FAILURES:-}" ]; then
    [ -f "$EXPECTED_FAILURES" ] && [ -r "$EXPECTED_FAILURES" ] || die "cannot read EXPECTED_FAILURES=$EXPECTED_FAILURES"
    listing=$(cd "$(dirname "$EXPECTED_FAILURES")" && pwd)/$(basename "$EXPECTED_FAILURES")
    set -- --expected-failures "$RUNNER_NAME=$listing"
fi
if [ -n "${REQUIRE:-}" ]; then set -- "$@" --require "$REQUIRE"; fi
if [ "${ALLOW_NOTHING_CHECKED:-0}" = 1 ]; then set -- "$@" --allow-nothing-checked; fi
command="$RUNNER_NAME=/bin/sh -c $(shq "cd $(shq "$RUNNER_CWD") && exec $RUNNER_COMMAND")"

# 3. The harness over the whole corpus; --require-manifest refuses a tampered or partial corpus.
status=0
set -f    # HARNESS_ARGS is split on spaces, never glob-expanded (-k int.* stays a pattern)
# shellcheck disable=SC2086
(cd "$root" && PYTHONPATH="$root" "$PYTHON" -B -m harness verify --require-manifest --corpus "$root/vectors" \
    --runners "$RUNNER_NAME" --runners-dir "$work/runners" --command "$command" --out "$GATE_OUT" "$@" $HARNESS_ARGS) \
    >"$GATE_OUT/harness.txt" || status=$?
cat "$GATE_OUT/harness.txt"
if [ "$status" -ne 0 ] && [ "$status" -ne 1 ]; then
    die "the harness refused to run (exit status $status); see the message above"
fi

# 3b. Optional: memory and time on hostile input, measured on your runner (the release's tools/bench_hostile.py).
if [ "${BENCH_HOSTILE:-0}" = 1 ]; then
    [ -f "$root/tools/bench_hostile.py" ] || die "BENCH_HOSTILE=1: this release has no tools/bench_hostile.py"
    bench_status=0
    # shellcheck disable=SC2086
    (cd "$root" && "$PYTHON" -B tools/bench_hostile.py --runners "$RUNNER_NAME" --runners-dir "$work/runners" \
        --command "$command" --corpus "$root/vectors" --out "$GATE_OUT" ${BENCH_ARGS:-}) \
        >"$GATE_OUT/bench-hostile.txt" || bench_status=$?
    cat "$GATE_OUT/bench-hostile.txt"
    if [ "$bench_status" -eq 2 ]; then die "the hostile benchmark refused to run; see the message above"; fi
    if [ "$bench_status" -ne 0 ]; then
        say "hostile benchmark: a goal was missed (see $GATE_OUT/bench-hostile.txt)"
        [ "$status" -ne 0 ] || status=1
    fi
fi

# 4. summary.md: the dashboard's, or (a release without it) the harness's closing lines.
if [ -f "$root/dashboard/__main__.py" ] && (cd "$root" && PYTHONPATH="$root" "$PYTHON" -B -m dashboard \
        --report "$GATE_OUT/report.json" --corpus "$root/vectors" --registry "$root/schema/registry.json" \
        --out "$GATE_OUT"); then
    :
else
    say "no dashboard in this release (or it failed): summary.md holds the harness's result lines"
    {
        printf '# Ignite wire conformance: %s (corpus %s)\n\n```\n' "$RUNNER_NAME" "$version"
        grep -E '^[a-z0-9-]+( \(.*\))?: [0-9]+ pass|^[0-9]+ passed( \([0-9]+ coarse\))?, [0-9]+ failed' "$GATE_OUT/harness.txt" || true
        printf '```\n'
    } >"$GATE_OUT/summary.md"
fi

# What the verdicts were, each kind counted apart.
summary=$("$PYTHON" -c 'import json, sys
r = json.load(open(sys.argv[1]))["runners"][0]
c, unmet = r["counts"], r.get("unmet_requirements") or []
unclaimed = c.get("unclaimed", 0)
coarse = " %d coarse," % c["coarse"] if c.get("coarse") else ""
text = "%d verdicts: %d pass,%s %d info, %d xfail, %d unclaimed" % (sum(c.values()), c["pass"], coarse, c["info"],
                                                                   c["xfail"], unclaimed)
print(unclaimed, text + ("; required but not claimed: " + ", ".join(unmet) if unmet else ""))
' "$GATE_OUT/report.json" 2>/dev/null) || summary="0 no report"
unclaimed=${summary%% *}; counts=${summary#* }
# The harness's last line says NOTHING CHECKED when nothing was (and its exit status already follows
# --allow-nothing-checked); the gate only words it.
if [ "$counts" = "no report" ]; then
    say "FAIL: the harness left no report in $GATE_OUT; see $GATE_OUT/harness.txt"
    status=1
elif tail -n 1 "$GATE_OUT/harness.txt" | grep -q ': NOTHING CHECKED ('; then
    say "NOTHING CHECKED: no verdict of $RUNNER_NAME on corpus $version compared anything ($counts): the vectors" \
        "run all lie outside the eras, formats and ops its start answer claims; reports in $GATE_OUT"
    if [ "$status" -eq 0 ]; then say "ALLOW_NOTHING_CHECKED=1: exit status 0 all the same"; fi
elif [ "$status" -ne 0 ]; then
    say "FAIL: $RUNNER_NAME has unexpected results on corpus $version ($counts); see $GATE_OUT/harness.txt and summary.md"
elif [ "$unclaimed" -gt 0 ]; then
    say "PASS: $RUNNER_NAME conforms to corpus $version where it claims to ($counts: the unclaimed ones were not" \
        "checked); reports in $GATE_OUT (junit.xml, summary.md, report.json)"
else
    say "PASS: $RUNNER_NAME conforms to corpus $version ($counts); reports in $GATE_OUT (junit.xml, summary.md, report.json)"
fi
exit "$status"
