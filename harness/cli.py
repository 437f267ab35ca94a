"""Command line: python3 -m harness verify --runners a,b [options]   (and: annotate HEX, report-journal).

Exit status: 0 when nothing fails the run, 1 when something does, 2 for usage and configuration errors
(invalid corpus, unknown runner, bad expected-failures file, empty selection), 3 for an internal error of the
harness, 130 / 143 when SIGINT / SIGTERM stopped the run. With 3, 130 and 143 report.json and junit.xml hold
the verdicts gathered so far (report.json says "incomplete"), when the harness got as far as running runners.
report-journal (harness/rebuild.py) exits 1 when it wrote the rebuilt, incomplete report, 2 for an unusable journal.
"""

import argparse
import gc
import os
import signal
import sys
import threading
import traceback
from pathlib import Path

from harness import capabilities, corpus_cache, selection
from harness import corpus as corpus_mod
from harness import fail_fast, judge, plan_cache, workers
from harness import expectations, journal, junit, tuple_annotate, manifest, matrix, ops as ops_mod, report, results, schemas, threads
from harness.diagnosis import annotated
from harness.prestart import Prestarted
from harness.options import SECONDS, number as _number
from harness.runner_config import ConfigError, known_runners, parse_overrides, resolve
from harness.runner_process import STOP, StderrLog, stop_all
from harness.runner_session import MAX_FAULTS, RunnerResult, Session

DEFAULT_CORPUS = schemas.REPO_ROOT / "vectors"
DEFAULT_RUNNERS = schemas.REPO_ROOT / "runners"
DEFAULT_CACHE = schemas.REPO_ROOT / "out" / ".corpus-cache"      # out/ is not tracked by git
MAX_FAILURE_LINES = 200      # per runner, one line each


INTERNAL_ERROR = 3
EXIT_WHEN_DONE = False      # set by harness/__main__.py: a finished verify run ends the process (_done)
RUN_GC_THRESHOLD = (1_000_000, 50, 1000)    # the collector's thresholds while runners run (verify)
_signals = []       # signals received by this run


class UsageError(Exception):
    pass


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
    a = sub.add_parser("annotate", help="print the structure of a hex string: MessagePack, or a Binary Tuple format")
    a.add_argument("hex")
    a.add_argument("--format", default="msgpack", choices=tuple_annotate.FORMATS,
                   help="what the bytes are (spec 6.2.1; default msgpack): a Binary Tuple, or MessagePack with the "
                        "tuple inside its bin shown element by element")
    a.add_argument("--columns", metavar="TYPE,...",
                   help="the ColumnType of every element (binary-tuple, table-row), e.g. INT32,STRING")
    return p


def main(argv, stdout=None, stderr=None):
    stdout, stderr = stdout or sys.stdout, stderr or sys.stderr
    _one_malloc_arena()
    box = []
    STOP.clear()
    _signals.clear()
    # SIGINT / SIGTERM: kill every runner now; the work thread then writes what it has and returns.
    old = {}
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGINT, signal.SIGTERM):
            old[sig] = signal.signal(sig, _on_signal)
    try:
        # The work runs on a thread with a large stack: deeply nested vectors recurse through validation and
        # judging.
        threads.run_all([lambda: box.append(_main(argv, stdout, stderr))])
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)
    return box[0] if box else INTERNAL_ERROR


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


def _on_signal(signum, frame):
    _signals.append(signum)
    stop_all()


def _interrupted():
    """'interrupted by SIGINT' (or SIGTERM) once a signal stopped the run, else None."""
    return f"interrupted by {signal.Signals(_signals[0]).name}" if _signals else None


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
        if args.command == "report-journal":
            from harness import rebuild     # it builds on this module's steps
            return rebuild.report_journal(args, stdout, stderr)
        return verify(args, stdout, stderr)
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
    lines = annotated(data) if args.format == "msgpack" else tuple_annotate.annotate_format(data, args.format, columns)
    print("\n".join(lines), file=stdout)
    return 0


def verify(args, stdout, stderr):
    # Loading makes millions of objects and no garbage: the collector is off until the corpus and the plan are
    # frozen below (a third of the load's CPU went to collections walking what was just loaded). _main turns it
    # back on if this returns or fails before.
    gc.disable()
    # The runners' processes start first, so their runtimes start up while the corpus loads; each session sends
    # 'start' once the plan is ready. Whatever loading raises, the early processes are killed before it is told.
    early = _prestart(args)
    thresholds = gc.get_threshold()
    try:
        return _verify(args, stdout, stderr, early)
    finally:
        gc.set_threshold(*thresholds)
        early.kill_all()


def _prestart(args):
    """The named runners' processes, started now (harness/prestart.py). None are when the command line does not
    run runners (--dump, no --runners) or names them wrongly (the error is reported where it always was, after
    the corpus checks), nor with --workers (a forked worker starts its own)."""
    if args.dump or not args.runners:
        return Prestarted()
    try:
        configs = _configs(args)
    except ConfigError:
        return Prestarted()
    if args.workers and workers.usable(len(configs)):
        return Prestarted()
    return Prestarted(configs)


def _configs(args):
    names = list(dict.fromkeys(n.strip() for n in args.runners.split(",") if n.strip()))
    return resolve(names, args.runners_dir, parse_overrides(args.command),
                   parse_overrides(args.expected_failures, "--expected-failures", "FILE"))


def _verify(args, stdout, stderr, early):
    # Before loading: a tampered file is named as such, not as whatever schema error the tampering caused.
    cache_dir = None if args.no_cache else Path(args.cache_dir)
    # One read and hash of every file (of those changed since: corpus_cache.py) serves both the manifest
    # check and the cache key.
    digests = corpus_cache.digests(args.corpus, cache_dir) if cache_dir else None
    print(f"harness: corpus: {manifest.check(args.corpus, args.require_manifest, digests)}", file=stderr)
    catalog, how = corpus_cache.open_corpus(args.corpus, cache_dir, digests)
    if how == "cached":
        print(f"harness: corpus: validated before (cache {_shown_path(cache_dir)}): not checked again, only the "
              f"files holding the selected vectors are read", file=stderr)
    registry_version = schemas.load("registry.json")["corpus_version"]
    if catalog.version != registry_version:
        print(f"harness: note: corpus files are version {catalog.version}, schema/registry.json says "
              f"{registry_version}", file=stderr)
    if args.dump:
        return dump(catalog, args.dump, stdout, stderr)
    if not args.runners:
        raise UsageError("--runners is required (known runners: "
                         f"{', '.join(known_runners(args.runners_dir)) or 'none'})")
    required = capabilities.parse(args.require)
    configs = _configs(args)
    selected_ids = selection.select(catalog, args.case, args.patterns, args.family, stderr)
    full_run = not args.case and not args.patterns and not args.family
    # A full run takes the vectors and their request and answer lines from the cache when it has them.
    cached = plan_cache.load(cache_dir, catalog) if full_run else None
    selected, plan = cached or (catalog.vectors(selected_ids), None)
    entries = load_expectations(configs, catalog)
    # The files' bytes were hashed and (without a prepared plan) parsed: the run keeps only the vectors.
    digests = None
    catalog.release_files()

    to_store = None
    if plan is None:
        plan = ops_mod.plan(selected)
    # Forked workers share what is made now; in one process the values' canonical JSON is made on first use.
    judge.prepare(plan, values_json=bool(args.workers and workers.usable(len(configs))))
    if cached is None and full_run and cache_dir:
        to_store = plan_cache.texts(plan)
    # The corpus and the plan live as long as the run: the collector need not walk them again and again (each
    # full collection did, while a run's outcomes, verdicts and report records were made).
    gc.freeze()
    # What the run makes lives until the reports are written, and its garbage is freed by reference counts: the
    # collector runs seldom (the defaults walked the run's young objects ~780 times, 0.1 s of a full run's CPU; a
    # full run now makes too few objects for one collection).
    gc.set_threshold(*RUN_GC_THRESHOLD)
    gc.enable()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    start_timeout = args.start_timeout or 3 * args.timeout
    # The header holds what report-journal needs to rebuild the report if this process is killed.
    run = {"selection": {"cases": args.case, "patterns": args.patterns, "families": args.family},
           "commands": {c.name: c.argv for c in configs},
           "expected_failures": {name: str(Path(path).resolve()) for name, path in
                                 parse_overrides(args.expected_failures, "--expected-failures", "FILE").items()}}
    # The last run's reports go now, not when this run's replace them: on ext4 a rename over a file, or a rewrite
    # of a truncated one, makes the new data be written out at once (~0.03 s at the end of a full run, its reports
    # ~110 MB), a new file's in the background; and a run killed before its reports leaves its journal
    # (report-journal rebuilds them), not an older run's report that disagrees with it.
    for name in ("report.json", "junit.xml", "verdicts.jsonl"):
        (out / name).unlink(missing_ok=True)
    log = journal.Journal(out / "verdicts.jsonl", catalog.version, [c.name for c in configs], len(plan), run)
    incomplete = None
    try:
        shared, shared_junit = report.shared_pieces(), junit.shared_pieces()

        def finish(config, result):
            # A runner's verdicts, report records and JUnit suite are made as soon as its session ends, while slower
            # runners still run (on a core that is free by then), not all after the last one. judge_runs adds the
            # advice.
            verdicts = results.build(config.name, plan, result.outcomes)
            expectations.mark(entries[config.name], verdicts, catalog.scope)
            result.records = report.records(verdicts, shared)
            result.junit = junit.suite(config.name, verdicts, shared_junit)
            result.verdicts, result.counts = verdicts, results.counts(verdicts)
            # They live until the reports are written: frozen like the plan, so that the full collections while
            # the other runners still run do not walk them again (4 full collections walked up to 230,000 such
            # objects, 0.3 s of a run's CPU). Garbage made of them is still freed when its count drops to zero.
            gc.freeze()

        on_outcome = fail_fast.watch(log.add, entries, catalog.scope, stdout) if args.fail_fast else log.add
        runs, error = run_all(configs, plan, catalog.version, args, start_timeout, out, on_outcome, finish, early)
        incomplete = _interrupted() or (error and _internal_error(error, stderr))
        complete = incomplete is None
        final = judge_runs(runs, plan, entries, required, full_run and complete, catalog)

        chosen = {"cases": args.case, "patterns": args.patterns + [f"family:{f}" for f in args.family],
                  "full": full_run, "vectors": len(selected), "ops": len(plan)}
        grid = None
        if len(final) > 1 and not args.no_matrix and complete:
            try:
                grid = matrix.run(final, plan, catalog.version, args.timeout, start_timeout, args.window, out,
                                  args.max_faults)
            except Exception as e:      # noqa: BLE001 - the per-runner verdicts are still written
                incomplete = _interrupted() or _internal_error(e, stderr)
            incomplete = incomplete or _interrupted()
            if incomplete:
                grid = None
        rep = report.build(catalog, registry_version, chosen, final, incomplete)
        if grid:
            matrix.add_to_report(rep, grid)
        write_reports(out, rep, final)
    finally:
        log.close(incomplete or "complete")
    print_results(final, args.max_diagnoses, full_run and not incomplete, stdout)
    if grid:
        matrix.print_matrix(grid, args.max_diagnoses, lambda text: print(text, file=stdout))
    print(f"reports: {out / 'report.json'}, {out / 'junit.xml'}, {out / 'verdicts.jsonl'}", file=stderr)
    totals = print_totals(rep, stdout)
    if to_store and not incomplete:
        plan_cache.store(cache_dir, catalog, selected, to_store)
    if incomplete:
        return _done(128 + _signals[0] if _signals else INTERNAL_ERROR, early, stdout, stderr)
    return _done(0 if totals["failed"] == 0 else 1, early, stdout, stderr)


def _done(code, early, stdout, stderr):
    """A verify run's exit status. Under `python3 -m harness` (EXIT_WHEN_DONE) the process ends here, its output
    flushed (the reports and the journal are closed by now), without returning: the run's objects (the plan, the
    verdicts, the report's records: millions) are then not freed one by one, which took 0.1 s of a full run."""
    if EXIT_WHEN_DONE:
        early.kill_all()
        stdout.flush()
        stderr.flush()
        os._exit(code)
    return code


def load_expectations(configs, catalog):
    """{runner name: its expected-failures entries}; a wildcard entry's cap is checked against every op."""
    entries = {c.name: expectations.parse(c.expected_failures) for c in configs}
    if any(e.wildcard for listing in entries.values() for e in listing):     # the cap needs every op's key
        all_keys = catalog.op_keys()
        for listing in entries.values():
            expectations.check_cap(listing, all_keys)
    return entries


def judge_runs(runs, plan, entries, required, stale_checked, catalog):
    """[(config, RunnerResult)] -> [(config, result, [Verdict], Advice)]: levels and expectations applied.
    stale_checked: a complete full run, where an entry matching no verdict is stale."""
    # Stale only where the loaded corpus holds an entry's scope: a foreign or partial corpus gets a note.
    corpus_scope = expectations.CorpusScope(catalog)
    final = []
    for config, result in runs:
        result.unmet = capabilities.unmet(required, result.info) if result.info else []
        if result.verdicts is not None:     # built and marked when the session ended (verify's finish)
            verdicts = result.verdicts
            advice = expectations.advise(entries[config.name], verdicts, stale_checked, corpus_scope, result.counts)
        else:
            verdicts = results.build(config.name, plan, result.outcomes)
            advice = expectations.apply(entries[config.name], verdicts, stale_checked, catalog.scope, corpus_scope)
        final.append((config, result, verdicts, advice))
    return final


def write_reports(out, rep, final):
    report.write(out / "report.json", rep)
    junit.write(out / "junit.xml", [(config.name, verdicts, getattr(result, "junit", None))
                                    for config, result, verdicts, _ in final])


def print_totals(rep, stdout):
    """The INCOMPLETE line (if any) and the closing totals line; returns the totals."""
    totals = rep["totals"]
    if rep.get("incomplete"):
        print(f"INCOMPLETE: {rep['incomplete']['reason']}; {rep['incomplete']['missing']} verdicts missing "
              f"(report.json holds the ones gathered)", file=stdout)
    unclaimed = f", {totals['unclaimed']} unclaimed" if totals.get("unclaimed") else ""
    print(f"{totals['passed']} passed, {totals['failed']} failed{unclaimed}", file=stdout)
    return totals


def _internal_error(error, stderr):
    """Prints a harness bug's traceback; the words report.json's "incomplete" gives for it."""
    traceback.print_exception(type(error), error, error.__traceback__, file=stderr)
    return f"internal error: {type(error).__name__}: {str(error)[:300]}"


def run_all(configs, plan, corpus_version, args, start_timeout, out, on_outcome=None, finish=None, early=None):
    """One thread per runner; ([(config, RunnerResult)] in the order the runners were named, the first harness
    error or None). A result holds the outcomes gathered so far when its session failed or was interrupted.
    finish(config, result) is called once a runner's session has ended, while the others may still run.
    early: the runners' processes started before the plan was made (Prestarted), used for their first start."""
    results_ = [RunnerResult(c.name) for c in configs]
    logs = [StderrLog(out / f"{c.name}.stderr.log") for c in configs]

    errors = []

    def finished(i):
        if finish:
            finish(configs[i], results_[i])

    def work(i):
        try:
            session = Session(configs[i], corpus_version, args.timeout, start_timeout, args.window, logs[i],
                              args.max_faults, on_outcome)
            if early is not None:
                session.prestarted = early.take(configs[i].name, logs[i])
            session.run(plan, results_[i])
            finished(i)
        except BaseException as e:     # a harness bug: report it after the other runners finish
            errors.append(e)
            stop_all()                 # the run is incomplete anyway: do not wait for the other runners

    # Compile the response checks once, before the threads (or forked workers) share them.
    for cmd in ("start", "encode", "decode"):
        schemas.fast_check("protocol.schema.json", f"/$defs/{cmd}_response")

    if args.workers and workers.usable(len(configs)):
        def make_session(i, send_outcome):
            return Session(configs[i], corpus_version, args.timeout, start_timeout, args.window, logs[i],
                           args.max_faults, send_outcome)
        error = workers.run_all([c.name for c in configs], make_session, plan, results_, on_outcome, finished)
        if error:
            errors.append(error)
    else:
        threads.run_all([lambda i=i: work(i) for i in range(len(configs))])
    for log in logs:
        log.close()
    return list(zip(configs, results_)), (errors[0] if errors else None)


# Full diagnoses go to the worst verdicts first; within one kind, in vector order.
SEVERITY = ("crash", "fail", "protocol-error", "timeout", "xpass")
GROUPED = ("unclaimed", "skip", "abandoned")     # one line per reason, with a count: the same cause, many ops
EXAMPLES = 3                        # ids shown on a grouped line


def print_results(final, max_diagnoses, full_run, stdout):
    def say(text=""):
        print(text, file=stdout)

    for config, result, verdicts, advice in final:
        # The counts say which kinds there are: most runs have no failing or grouped verdict to look for.
        c = results.counts_of(result, verdicts)
        failing = [v for v in verdicts if v.verdict in results.FAILING] if any(c[k] for k in results.FAILING) else []
        if result.start_error:
            say(f"{config.name}: runner did not start: {result.start_error.splitlines()[0]}")
            for line in result.start_error.splitlines()[1:]:
                say(f"    {line}")
            say(f"CRASH {config.name}: all {len(failing)} selected verdicts (the runner did not start)")
            failing = []
        for requirement in result.unmet:
            key, value = requirement.split("=", 1)
            say(f"UNMET {config.name}: --require {requirement}: the runner does not claim {key} '{value}' in its "
                f"start answer's capabilities")
        if any(c[k] for k in GROUPED) and not result.start_error:
            _print_groups(config.name, [v for v in verdicts if v.verdict in GROUPED], say)
        ranked = sorted((v for v in failing if v.verdict not in GROUPED),
                        key=lambda v: SEVERITY.index(v.verdict) if v.verdict in SEVERITY else len(SEVERITY))
        shown = 0
        for v in ranked[:MAX_FAILURE_LINES]:
            say(f"{v.verdict.upper()} {config.name} {v.vector} {v.op}: {v.detail}")
            if v.verdict == "xpass":
                say(f"    listed as expected to fail ({v.expectation}), but passes")
            elif shown < max_diagnoses:
                shown += 1
                for line in v.diagnosis:
                    say(f"    {line}")
        if len(ranked) > MAX_FAILURE_LINES:
            say(f"... and {len(ranked) - MAX_FAILURE_LINES} more failing verdicts for {config.name} "
                f"(see report.json)")
        for e in advice.stale:
            say(f"STALE {config.name} {_shown_path(e.where)}: matches no verdict: {e.text}")
        if advice.unchecked:
            e = advice.unchecked[0]
            more = f" and {len(advice.unchecked) - 1} more" if len(advice.unchecked) > 1 else ""
            say(f"NOTE {config.name}: {len(advice.unchecked)} expected-failure entr"
                f"{'ies' if len(advice.unchecked) > 1 else 'y'} name no vector of this corpus (a foreign or "
                f"partial corpus), so not checked as stale: {_shown_path(e.where)}: {e.text}{more}")
        if result.start_error:
            advice.add = [line for line in advice.add if "  crash: runner did not start" not in line]
        if advice.add or advice.remove:
            scope = "" if full_run else " (for this selection only)"
            say(f"{config.name}: to make {_shown_path(config.expected_failures)} match this run{scope}:")
            edits = [f"  remove: {line}" for line in advice.remove] + [f"  add:    {line}" for line in advice.add]
            for line in edits[:MAX_FAILURE_LINES]:
                say(line)
            if len(edits) > MAX_FAILURE_LINES:
                say(f"  ... and {len(edits) - MAX_FAILURE_LINES} more (all of them: report.json, runners[].expectations)")
    for config, result, verdicts, advice in final:
        say(closing_line(config, result, verdicts, advice))


def _print_groups(name, verdicts, say):
    """One line per (verdict, reason): 'SKIP x: 12 ops runner skipped: why (e.g. id op, ...)'."""
    groups = {}
    for v in verdicts:
        groups.setdefault((v.verdict, v.detail), []).append(v)
    for (verdict, detail), group in sorted(groups.items(), key=lambda g: (GROUPED.index(g[0][0]), -len(g[1]), g[0])):
        examples = ", ".join(f"{v.vector} {v.op}" for v in group[:EXAMPLES])
        more = ", ..." if len(group) > EXAMPLES else ""
        say(f"{verdict.upper()} {name}: {len(group)} op{'s' if len(group) != 1 else ''} {detail} "
            f"(e.g. {examples}{more})")


def closing_line(config, result, verdicts, advice):
    """'name (language, library version): 10 pass, 0 fail, 4 unclaimed; 1 restart'."""
    c = results.counts_of(result, verdicts)
    parts = [f"{c[k]} {k}" for k in results.ORDER if c[k] or k in ("pass", "fail")]
    if advice.stale:
        parts.append(f"{len(advice.stale)} stale expectation{'s' if len(advice.stale) > 1 else ''}")
    if result.unmet:
        parts.append(f"{len(result.unmet)} unmet requirement{'s' if len(result.unmet) > 1 else ''}")
    who = config.name
    if result.info:
        who += f" ({result.info['language']}, {result.info['library']} {result.info['library_version']})"
    restarts = f"; {result.restarts} restart{'s' if result.restarts != 1 else ''}" if result.restarts else ""
    if result.abandoned:
        restarts += f"; {result.abandoned}"
    return f"{who}: {', '.join(parts)}{restarts}"


def _shown_path(path):
    """Paths under the working directory are shown relative to it (the output then reads the same anywhere)."""
    text = str(path)
    cwd = str(Path.cwd()) + "/"
    return text[len(cwd):] if text.startswith(cwd) else text


def dump(catalog, vector_id, stdout, stderr):
    if vector_id not in catalog.meta:
        raise UsageError(f"--dump {vector_id}: no such vector{selection.did_you_mean(vector_id, catalog.ids)}")
    (vector,) = catalog.vectors([vector_id])
    # The same lines, ids included, that 'verify --case ID' sends to a runner that supports every op.
    stdout.write(ops_mod.encode_line(ops_mod.start_request(catalog.version)).decode("utf-8"))
    for rid, op in enumerate(ops_mod.ops_for(vector), 1):
        stdout.write(op.request_line(rid).decode("utf-8"))
        print(f"# request {rid}: {op.name}", file=stderr)
    return 0
