"""Command line: python3 -m harness verify --runners a,b [options]   (and: annotate HEX, report-journal).

Exit status: 0 when nothing fails the run, 1 when something does (or nothing was checked: every verdict
unclaimed, unless --allow-nothing-checked), 2 for usage and configuration errors
(invalid corpus, unknown runner, bad expected-failures file, empty selection), 3 for an internal error of the
harness, 130 / 143 when SIGINT / SIGTERM stopped the run. With 3, 130 and 143 report.json and junit.xml hold
the verdicts gathered so far (report.json says "incomplete"), when the harness got as far as running runners.
report-journal (harness/rebuild.py) exits 1 when it wrote the rebuilt, incomplete report, 2 for an unusable journal.
This module reads the command line and runs the command on a thread of its own, SIGINT / SIGTERM handled; verify
is the pipeline of harness/verify.py (plan, run, judge, report).
"""

import argparse
import gc
import signal
import sys
import threading

from harness import capabilities, expectations, incomplete, manifest, rebuild, schemas, selection, threads
from harness import corpus as corpus_mod, frame_annotate, frame_layouts, node_run, tuple_annotate, verify
from harness.diagnosis import annotated
from harness.options import SECONDS, UsageError, number as _number
from harness.runner_config import ConfigError
from harness.runner_process import STOP
from harness.runner_session import MAX_FAULTS

DEFAULT_CORPUS = schemas.REPO_ROOT / "vectors"
DEFAULT_RUNNERS = schemas.REPO_ROOT / "runners"
DEFAULT_CACHE = schemas.REPO_ROOT / "out" / ".corpus-cache"      # out/ is not tracked by git


def parser():
    p = argparse.ArgumentParser(prog="python3 -m harness", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True)
    v = sub.add_parser("verify", help="run runners over the corpus and judge their answers")
    v.add_argument("--runners", help="comma-separated runner names (runners/<name>/runner.json)")
    v.add_argument("--case", action="append", default=[], metavar="ID",
                   help="run this vector id (repeatable); a warm cache makes this cost the runner's start-up only")
    v.add_argument("-k", action="append", default=[], metavar="GLOB", dest="patterns",
                   help="run vectors whose id matches this fnmatch pattern (repeatable)")
    v.add_argument("--family", action="append", default=[], metavar="NAME",
                   help="run every vector of this corpus family (a file's 'family', e.g. float; a glob is allowed; "
                        "repeatable)")
    v.add_argument("--corpus", default=str(DEFAULT_CORPUS), help="corpus directory or file (default: vectors/)")
    v.add_argument("--dump", metavar="ID", help="print the request lines a runner receives for this vector, exit")
    v.add_argument("--out", default="out", help="report directory (default: out/)")
    v.add_argument("--cache-dir", default=str(DEFAULT_CACHE),
                   help="where validated-corpus catalogs are kept (default: out/.corpus-cache in the repository)")
    v.add_argument("--no-cache", action="store_true", help="validate the whole corpus, use and write no cache")
    v.add_argument("--timeout", type=SECONDS, default=10.0, metavar="SECONDS", help="per-request timeout (10)")
    v.add_argument("--start-timeout", type=SECONDS, metavar="SECONDS",
                   help="time a runner may take to answer 'start' (default: 3 x --timeout)")
    v.add_argument("--command", action="append", default=[], metavar="NAME=SHELL-WORDS",
                   help="run runner NAME with this command instead of its runner.json (repeatable)")
    v.add_argument("--expected-failures", action="append", default=[], metavar="NAME=FILE",
                   help="runner NAME's expected failures are in FILE instead of runners/NAME/expected-failures.txt "
                        "(repeatable)")
    v.add_argument("--runners-dir", default=str(DEFAULT_RUNNERS),
                   help="where runner directories live (default: runners/)")
    v.add_argument("--require-manifest", action="store_true",
                   help="refuse a corpus directory without manifest.json (a directory with one is always checked)")
    v.add_argument("--window", type=_number(int, 1, 1024), default=64,
                   help="requests in flight per runner (1 to 1024, default 64, as fuzz)")
    v.add_argument("--max-faults", type=_number(int, 1, 1_000_000), default=MAX_FAULTS, metavar="K",
                   help=f"give a runner up after K crashes or timeouts in a row: its remaining ops are "
                        f"'abandoned' (default {MAX_FAULTS})")
    # One process by default: on 2 cores it was faster than forked workers once the runners got fast (2026-11-24,
    # 7 runners, interleaved: 10.1-11.2 s wall / 16.6-18.3 s CPU against 12.9-13.8 s / 21.6-22.9 s): the workers'
    # forked heaps (copy-on-write page faults) and the outcomes pickled across cost more than one GIL.
    mode = v.add_mutually_exclusive_group()
    mode.add_argument("--workers", action="store_true",
                      help="run each runner's session in a process of its own, so judging spreads over the cores "
                           "(may pay off with more than 2 cores; reports are the same either way)")
    mode.add_argument("--serial", action="store_true",
                      help="judge every runner in this one process (the default; kept for scripts that ask for it)")
    v.add_argument("--no-matrix", action="store_true",
                   help="skip the producer x consumer matrix (each runner decoding the others' encode output)")
    v.add_argument("--require", action="append", default=[], metavar="KEY=VALUE,...",
                   help="capabilities every runner must claim, e.g. era=3.0,format=binary-tuple,op=encode or "
                        "format=* (every format of the protocol schema; repeatable); ops outside a runner's claims "
                        "are 'unclaimed', which alone does not fail")
    v.add_argument("--allow-nothing-checked", action="store_true",
                   help="exit 0 when nothing was checked (every verdict unclaimed, or none at all); without it such a "
                        "run exits 1, its last line ending 'NOTHING CHECKED'")
    v.add_argument("--max-diagnoses", type=_number(int, 0, 1_000_000), default=20, metavar="N",
                   help="full diagnoses printed per runner; the rest are one line each (default 20)")
    v.add_argument("--fail-fast", action="store_true",
                   help="end the run at the first failing verdict: print it, write no reports, exit 1 (for mutation "
                        "testing, where one failing vector is enough; harness/fail_fast.py)")
    j = sub.add_parser("report-journal", help="rebuild report.json and junit.xml from a killed run's verdicts.jsonl")
    j.add_argument("--journal", default="out/verdicts.jsonl", help="the run's journal (default: out/verdicts.jsonl)")
    j.add_argument("--corpus", default=str(DEFAULT_CORPUS), help="the corpus the run used (default: vectors/)")
    j.add_argument("--runners-dir", default=str(DEFAULT_RUNNERS),
                   help="where the runners' expected-failures.txt live (default: runners/)")
    j.add_argument("--out", default="out", help="report directory (default: out/)")
    j.add_argument("--cache-dir", default=str(DEFAULT_CACHE), help=argparse.SUPPRESS)
    j.add_argument("--max-diagnoses", type=_number(int, 0, 1_000_000), default=20, metavar="N",
                   help="full diagnoses printed per runner (default 20)")
    node_run.add_arguments(sub)
    a = sub.add_parser("annotate", help="print the structure of a hex string: MessagePack, a Binary Tuple format or "
                                        "a frame")
    a.add_argument("hex")
    a.add_argument("--format", default="msgpack", choices=tuple_annotate.FORMATS + ("frame",),
                   help="what the bytes are (spec 6.2.1, 11; default msgpack): a Binary Tuple, MessagePack with the "
                        "tuple inside its bin shown element by element, or one frame (field names over the bytes)")
    a.add_argument("--frame", metavar="KIND", choices=frame_layouts.KINDS,
                   help="the message kind of a --format frame input: " + ", ".join(frame_layouts.KINDS))
    a.add_argument("--features", metavar="NAME,...",
                   help="the negotiated feature names a --format frame input was written with (sql-execute-request)")
    a.add_argument("--columns", metavar="TYPE,...",
                   help="the ColumnType of every element (binary-tuple, table-row), e.g. INT32,STRING")
    return p


def main(argv, stdout=None, stderr=None):
    stdout, stderr = stdout or sys.stdout, stderr or sys.stderr
    _one_malloc_arena()
    box = []
    STOP.clear()
    incomplete.received.clear()
    # SIGINT / SIGTERM: kill every runner now; the work thread then writes what it has and returns.
    old = {}
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGINT, signal.SIGTERM):
            old[sig] = signal.signal(sig, incomplete.on_signal)
    try:
        # The work runs on a thread with a large stack: deeply nested vectors recurse through validation and
        # judging.
        threads.run_all([lambda: box.append(_main(argv, stdout, stderr))])
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)
    return box[0] if box else incomplete.INTERNAL_ERROR


def _one_malloc_arena():
    """Caps glibc's malloc at one arena for this process, before its first threads allocate (MALLOC_ARENA_MAX=1
    without re-executing; the runners, started later, keep their own defaults). By default each thread that
    allocates while another does gets an arena of its own: the work thread and every session thread, whose
    freed memory then serves none of the others and stays resident. With one: a full verify of 7 runners peaks
    ~35 MB lower with ~17,000 fewer page faults (each costs system time on the suite's VMs); the threads mostly
    wait on pipes and the GIL, so they hardly contend for the one arena. Not glibc, or an arena limit fixed
    already: nothing changes.
    Freed memory also stays in the heap (a run is short) and blocks up to 32 MiB come from it, not from mappings of
    their own: the stdout reads and long answer lines reuse pages instead of faulting fresh ones in (a full run:
    ~8,000 fewer page faults, 0.03-0.07 s less system time, the same peak RSS)."""
    try:
        import ctypes
        mallopt = ctypes.CDLL(None).mallopt
        mallopt(-8, 1)              # M_ARENA_MAX (glibc's malloc.h)
        mallopt(-1, 256 << 20)      # M_TRIM_THRESHOLD
        mallopt(-2, 64 << 20)       # M_TOP_PAD
        mallopt(-3, 32 << 20)       # M_MMAP_THRESHOLD
    except (OSError, AttributeError):
        pass


def _main(argv, stdout, stderr):
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20000))
    try:
        args = parser().parse_args(argv)
    except SystemExit as e:     # argparse's usage errors (exit 2) and --help (0); this is not the main thread
        return e.code
    try:
        return _command(args, stdout, stderr)
    finally:
        gc.enable()


def _command(args, stdout, stderr):
    try:
        if args.command == "annotate":
            return annotate(args, stdout)
        if args.command == "node":
            return node_run.main(args, stdout, stderr)
        if args.command == "report-journal":
            return rebuild.report_journal(args, stdout, stderr)
        return verify.verify(args, stdout, stderr)
    except (UsageError, ConfigError, corpus_mod.CorpusError, expectations.ExpectationError,
            manifest.ManifestError, capabilities.RequireError, selection.SelectionError) as e:
        print(f"harness: {e}", file=stderr)
        return 2


def annotate(args, stdout):
    try:
        data = bytes.fromhex(args.hex)
    except ValueError as e:
        raise UsageError(f"annotate: not a hex string ({e})") from None
    columns = [c.strip() for c in args.columns.split(",") if c.strip()] if args.columns else None
    if args.format in ("binary-tuple", "table-row") and not columns:
        raise UsageError(f"annotate --format {args.format} needs --columns (the ColumnType of every element: the "
                         f"count and the types are not on the wire), e.g. --columns INT32,STRING")
    if args.format == "frame":
        if not args.frame:
            raise UsageError("annotate --format frame needs --frame KIND (the message kind decides the layout), one "
                             "of " + ", ".join(frame_layouts.KINDS))
        features = [f.strip() for f in args.features.split(",") if f.strip()] if args.features else ()
        print("\n".join(frame_annotate.lines(data, args.frame, features)), file=stdout)
        return 0
    lines = annotated(data) if args.format == "msgpack" else tuple_annotate.annotate_format(data, args.format, columns)
    print("\n".join(lines), file=stdout)
    return 0
