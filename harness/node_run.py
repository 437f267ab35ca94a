"""`python3 -m harness node`: runs drivers (drivers/PROTOCOL.md) over the node cases (node/cases.json), one case per
connection, and judges each: the script the node played (harness/node.py), the client's frames against their
layouts (frame_annotate), request ids, heartbeat gaps, and the outcome line the driver printed against the case's.

Every case is bounded: the driver gets the case's timeout_ms, then its process group is killed; its stdout is read
up to MAX_STDOUT bytes and its stderr's last MAX_STDERR kept. Verdicts go to out/node/verdicts.jsonl as each case
ends (flushed), then report.json, junit.xml and node.html (the wire log, frame by frame) are written atomically
at the end, or at once from what is done when the run is interrupted (SIGINT / SIGTERM)."""

import asyncio
import fnmatch
import json
import os
import shlex
import signal
import sys
import time
from pathlib import Path

from harness import atomic, frame_annotate, incomplete, node, schemas
from harness import junit as junit_xml

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "node" / "cases.json"
DRIVERS = ROOT / "drivers" / "drivers.json"
MAX_STDOUT = 64 << 10
MAX_STDERR = 8 << 10
EXIT_GRACE_MS = 2000      # after the case's timeout, before the driver's process group is killed
VERDICTS = ("pass", "fail", "unclaimed")


class DriverError(Exception):
    """A driver that cannot be set up: not in drivers/drivers.json, or a broken copy whose bug no longer applies."""


def add_arguments(sub):
    n = sub.add_parser("node", help="run drivers over the node cases (the protocol over time, spec.md 11.9)")
    n.add_argument("--driver", action="append", default=[], metavar="NAME",
                   help="a driver of drivers/drivers.json (repeatable; default, unless --driver-cmd is given: every "
                        "driver it lists whose 'requires' path exists)")
    n.add_argument("--driver-cmd", action="append", default=[], metavar="NAME=COMMAND",
                   help="an ad-hoc driver: its name and command line (repeatable)")
    n.add_argument("--case", action="append", default=[], metavar="GLOB", help="case ids to run (default all)")
    n.add_argument("--cases", default=str(CASES), help="the node cases file (default node/cases.json)")
    n.add_argument("--out", default="out/node", help="report directory (default out/node)")
    n.add_argument("--expect", action="append", default=[], metavar="NAME=CASE,...",
                   help="the cases a driver is expected to fail (a broken driver's); the run fails if it passes "
                        "one of them or fails any other")
    n.add_argument("--broken", action="append", default=[], metavar="NAME",
                   help="also run a broken copy of the reference driver (drivers/python/broken.json; 'all' for every "
                        "one), built under OUT/broken/NAME, over the cases listed for it (each must fail)")
    n.add_argument("--jobs", type=int, default=4, metavar="N",
                   help="cases run at once, each on its own port with its own driver process (default 4)")
    n.add_argument("--quiet", action="store_true", help="print only the summary")


# --- drivers ----------------------------------------------------------------------------------------------------
def drivers(args):
    listed = json.loads(DRIVERS.read_text())["drivers"]
    chosen = []
    for d in listed:
        if (args.driver and d["name"] not in args.driver) or (not args.driver and args.driver_cmd):
            continue
        if not args.driver and d.get("requires") and not (ROOT / d["requires"]).exists():
            continue
        chosen.append({"name": d["name"], "command": [sys.executable if c == "{python}" else
                                                      str(ROOT / c) if c.startswith(("drivers/", "out/")) else c
                                                      for c in d["command"]],
                       "expected": _expected(ROOT / d.get("expected_failures", f"drivers/{d['name']}/expected-failures.txt"))})
    unknown = set(args.driver) - {d["name"] for d in listed}
    if unknown:
        raise DriverError(f"no driver {sorted(unknown)} in drivers/drivers.json")
    for spec in args.driver_cmd:
        name, _, cmd = spec.partition("=")
        chosen.append({"name": name, "command": shlex.split(cmd), "expected": {}})
    for name in args.broken:
        chosen += broken_drivers(name, Path(args.out) / "broken")
    for spec in args.expect:
        name, _, ids = spec.partition("=")
        for d in chosen:
            if d["name"] == name:
                d["expected"] = {i: "expected to fail" for i in ids.split(",") if i}
    return chosen


BROKEN = ROOT / "drivers" / "python" / "broken.json"


def broken_drivers(name, where):
    """Broken copies of drivers/python: each is the directory copied with its replacements applied."""
    import shutil
    specs = json.loads(BROKEN.read_text())["broken"]
    chosen = [b for b in specs if name in ("all", b["name"])]
    if not chosen:
        raise DriverError(f"no broken driver {name!r} in {BROKEN.relative_to(ROOT)}")
    out = []
    for b in chosen:
        target = where / b["name"]
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(ROOT / "drivers" / "python", target, ignore=shutil.ignore_patterns("__pycache__"))
        path = target / "client.py"
        text = path.read_text()
        for old, new in b["replace"]:
            if text.count(old) != 1:
                raise DriverError(f"broken driver {b['name']}: the text to replace occurs {text.count(old)} times "
                                      f"in client.py, not once: put the bug back anew")
            text = text.replace(old, new)
        path.write_text(text)
        out.append({"name": f"broken-{b['name']}", "command": [sys.executable, str(target / "driver.py")],
                    "expected": {c: b["bug"] for c in b["cases"]}, "broken": True, "only": b["cases"]})
    return out


def _expected(path):
    """{case id: reason} from an expected-failures file (lines 'case-id  reason'; # comments)."""
    out = {}
    if path.exists():
        for line in path.read_text().splitlines():
            if line.strip() and not line.startswith("#"):
                cid, _, why = line.strip().partition(" ")
                out[cid] = why.strip()
    return out


# --- one case ---------------------------------------------------------------------------------------------------
async def run_case(case, driver):
    t0 = time.monotonic()
    accepted = []
    extra = []

    async def on_connect(reader, writer):
        if accepted:
            extra.append(1)
            writer.close()
            return
        conn = node.Connection(case, reader, writer, t0)
        accepted.append(conn)
        await serve(conn, case)

    server = await asyncio.start_server(on_connect, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    w = case["workload"]
    argv = driver["command"] + [f"127.0.0.1:{port}", w["name"]] + ([str(w["seconds"])] if "seconds" in w else [])
    stdout, stderr, exit_code, killed = b"", b"", None, False
    try:
        proc = await asyncio.create_subprocess_exec(*argv, stdin=asyncio.subprocess.DEVNULL,
                                                    env=dict(os.environ, IGNITE_CONFORMANCE_ROOT=str(ROOT)),
                                                    stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
                                                    start_new_session=True)
    except OSError as e:
        server.close()
        return verdict(case, driver, "fail", f"the driver did not start: {e}", t0)
    out_task = asyncio.ensure_future(_read_capped(proc.stdout, MAX_STDOUT, keep_tail=False))
    err_task = asyncio.ensure_future(_read_capped(proc.stderr, MAX_STDERR, keep_tail=True))
    limit = (case["timeout_ms"] + EXIT_GRACE_MS) / 1000
    try:
        while True:
            try:
                exit_code = await asyncio.wait_for(proc.wait(), 0.1)
                break
            except asyncio.TimeoutError:
                if time.monotonic() - t0 > limit or incomplete.received:
                    killed = True
                    _kill(proc)
                    exit_code = await proc.wait()
                    break
    finally:
        stdout, stderr = await out_task, await err_task
        if accepted:
            accepted[0].close_now()
            if accepted[0].task is not None:
                try:
                    await asyncio.wait_for(accepted[0].task, 1)
                except (asyncio.TimeoutError, Exception):   # the script's own failure is recorded on conn
                    pass
        server.close()
    exit_ms = round((time.monotonic() - t0) * 1000, 1)
    return judge(case, driver, accepted[0] if accepted else None, stdout, stderr, exit_code, killed, exit_ms,
                 bool(extra), t0)


def _kill(proc):
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


async def _read_capped(stream, cap, keep_tail):
    data = bytearray()
    while True:
        chunk = await stream.read(65536)
        if not chunk:
            return bytes(data)
        data += chunk
        if len(data) > cap:
            data = data[-cap:] if keep_tail else data[:cap]
            if not keep_tail:
                data += b"\n...(more output dropped)"
                while await stream.read(65536):      # drain, so the driver never blocks on a full pipe
                    pass
                return bytes(data)


async def serve(conn, case):
    """The connection's life: the reader, the script, then answering auto ops until the client goes."""
    conn.task = asyncio.current_task()
    conn.script_error = conn.unclaimed = None
    reader = asyncio.ensure_future(conn.read_loop())
    deadline = case["timeout_ms"]
    try:
        result = await asyncio.wait_for(node.play(conn, case, deadline), deadline / 1000)
        if result:
            conn.unclaimed = result
            conn.close_now()
    except node.Unclaimed as e:
        conn.unclaimed = str(e)
        conn.close_now()
    except node.CaseFailed as e:
        conn.script_error = (conn.now(), str(e))
        conn.close_now()
    except asyncio.TimeoutError:
        conn.script_error = (conn.now(), f"the script did not finish within the case's {deadline} ms")
        conn.close_now()
    conn.script_done_ms = conn.now()
    # After the script: answer what is automatic (a heartbeat, a cursor close is dropped) until the client closes.
    try:
        while not conn.closed:
            frame = await asyncio.wait_for(conn.queue.get(), max(0.01, (deadline - conn.now()) / 1000))
            if frame is None:
                break
            if not await conn.answer_auto(frame):
                conn.log("node", b"", "note", f"op {frame.op} after the script: not answered")
    except asyncio.TimeoutError:
        pass
    conn.close_now()
    reader.cancel()


node.Connection.task = None


# --- judging ----------------------------------------------------------------------------------------------------
def judge(case, driver, conn, stdout, stderr, exit_code, killed, exit_ms, extra_connections, t0):
    problems = []
    outcome, outcome_error = parse_outcome(stdout, case["workload"]["name"])
    if outcome is not None and outcome.get("status") == "unclaimed":
        return verdict(case, driver, "unclaimed", f"the driver does not do workload {case['workload']['name']}: "
                       f"{outcome.get('reason', '')}", t0, conn, outcome, stderr, exit_ms)
    if conn is None:
        return verdict(case, driver, "fail", "the driver never connected to the node", t0, None, outcome, stderr,
                       exit_ms)
    if conn.unclaimed:
        return verdict(case, driver, "unclaimed", conn.unclaimed, t0, conn, outcome, stderr, exit_ms)
    for t_ms, message in conn.violations:
        problems.append((t_ms, message))
    if conn.script_error:
        problems.append(conn.script_error)
    for f in conn.frames:
        if f.problem:
            problems.append((f.t_ms, f"the client's {f.kind} (op {f.op}) does not fit its layout: {f.problem}"))
    ids = {}
    for f in conn.frames[1:]:
        if f.op == node.SERVER_OP_RESPONSE or not isinstance(f.request_id, int):
            continue
        if f.request_id in ids:
            problems.append((f.t_ms, f"request id {f.request_id} used twice (ops {ids[f.request_id]} and {f.op}) "
                                     f"(PT-REQUEST-ID)"))
        ids[f.request_id] = f.op
    problems += heartbeat_gaps(case, conn)
    max_frames = case.get("max_frames")
    if max_frames and len(conn.frames) - 1 > max_frames:
        problems.append((conn.frames[-1].t_ms, f"{len(conn.frames) - 1} frames after the handshake, more than "
                                               f"{max_frames}: a flood"))
    limit = case.get("report_within_ms")
    if limit and conn.closed_ms is not None and not killed and exit_ms - conn.closed_ms > limit:
        problems.append((exit_ms, f"the driver reported {exit_ms - conn.closed_ms:.0f} ms after the node closed the "
                                  f"connection, not within {limit} ms: a pending request waited (PT-CLOSE)"))
    if killed:
        problems.append((exit_ms, f"the driver did not exit within the case's {case['timeout_ms']} ms "
                                  f"(+{EXIT_GRACE_MS} ms grace): killed; a request hangs"))
    elif outcome_error:
        problems.append((exit_ms, outcome_error))
    elif not outcome_matches(case["outcome"], outcome):
        problems.append((exit_ms, f"the driver reported {json.dumps(outcome)[:400]}, the case expects "
                                  f"{json.dumps(case['outcome'])[:400]}"))
    if extra_connections:
        problems.append((0, "the driver opened more than one connection (one case is one connection)"))
    if problems:
        problems.sort(key=lambda p: p[0])
        detail = problems[0][1] + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else "")
        return verdict(case, driver, "fail", detail, t0, conn, outcome, stderr, exit_ms, problems)
    return verdict(case, driver, "pass", "", t0, conn, outcome, stderr, exit_ms)


def heartbeat_gaps(case, conn):
    """PT-HEARTBEAT as the server judges it: no gap between client frames, from the node's handshake response to
    the connection's end, reaches the idle timeout it announced."""
    timeout = case["idle_timeout_ms"]
    if timeout <= 0 or conn.hs_sent_ms is None:
        return []
    ends = [t for t in (conn.eof_ms, conn.closed_ms) if t is not None]
    end = min(ends) if ends else conn.now()
    times = [conn.hs_sent_ms] + [f.t_ms for f in conn.frames[1:] if f.t_ms >= conn.hs_sent_ms] + [end]
    out = []
    for a, b in zip(times, times[1:]):
        if b - a >= timeout:
            out.append((b, f"the client sent nothing for {b - a:.0f} ms (from {a:.0f} to {b:.0f} ms), not less "
                           f"than the idle timeout {timeout} ms it was given: no heartbeat (PT-HEARTBEAT)"))
    return out


def parse_outcome(stdout, workload):
    lines = [line for line in stdout.decode("utf-8", "replace").splitlines() if line.strip()]
    if len(lines) != 1:
        return None, f"the driver printed {len(lines)} lines on stdout, not one outcome line"
    try:
        outcome = json.loads(lines[0])
    except ValueError as e:
        return None, f"the driver's outcome line is not JSON ({e}): {lines[0][:200]!r}"
    errors = [f"{list(e.path)}: {e.message[:200]}" for e in schemas.validator("driver.schema.json").iter_errors(outcome)]
    if errors:
        return outcome, f"the driver's outcome line breaks schema/driver.schema.json: {errors[0]}"
    if outcome["workload"] != workload:
        return outcome, f"the driver reported workload {outcome['workload']!r}, it was given {workload!r}"
    return outcome, None


def outcome_matches(expected, actual):
    if "any_of" in expected:
        return any(outcome_matches(e, actual) for e in expected["any_of"])
    if actual.get("status") != expected["status"]:
        return False
    if "error" in expected and not error_matches(expected["error"], actual.get("error")):
        return False
    if "values" in expected and not values_match(expected["values"], actual.get("values", {})):
        return False
    return True


def error_matches(expected, actual):
    if not isinstance(actual, dict) or actual.get("kind") not in expected["kind"]:
        return False
    code = expected.get("code")
    return code is None or actual.get("code") == code or code in (actual.get("codes") or [])


def values_match(expected, actual):
    if isinstance(expected, dict) and set(expected) == {"error"} and isinstance(actual, dict):
        return set(actual) == {"error"} and error_matches(expected["error"], actual["error"])
    if isinstance(expected, dict):
        return isinstance(actual, dict) and set(expected) == set(actual) and all(
            values_match(v, actual[k]) for k, v in expected.items())
    if isinstance(expected, list):
        return isinstance(actual, list) and len(expected) == len(actual) and all(
            values_match(e, a) for e, a in zip(expected, actual))
    return expected == actual and type(expected) is type(actual)


# --- verdicts and the wire log ------------------------------------------------------------------------------------
def verdict(case, driver, result, detail, t0, conn=None, outcome=None, stderr=b"", exit_ms=None, problems=()):
    expected_fail = driver["expected"].get(case["id"])
    v = {"driver": driver["name"], "case": case["id"], "rules": case["rules"], "level": case["level"],
         "workload": case["workload"], "verdict": result, "detail": detail,
         "expected_failure": expected_fail, "duration_ms": round((time.monotonic() - t0) * 1000, 1),
         "outcome": outcome, "expected_outcome": case["outcome"], "description": case["description"],
         "stderr_tail": stderr.decode("utf-8", "replace")[-2000:] if stderr else ""}
    v["diagnosis"] = diagnosis(case, conn, problems, outcome, exit_ms) if result == "fail" else []
    v["wire"] = wire_log(conn) if conn is not None else []
    return v


def wire_log(conn):
    out = []
    features = conn.features
    for e in conn.events:
        data = bytes.fromhex(e["hex"])
        lines = []
        if e["kind"] in node_kinds() and data:
            lines = frame_annotate.lines(data, e["kind"], features)[:80]
        out.append(dict(e, lines=lines))
    if conn.dropped_events:
        out.append({"t_ms": conn.now(), "from": "node", "kind": "note", "hex": "", "length": 0,
                    "note": f"{conn.dropped_events} more wire events not kept", "lines": []})
    return out


def node_kinds():
    from harness.frame_layouts import KINDS
    return KINDS


def diagnosis(case, conn, problems, outcome, exit_ms):
    lines = [f"case {case['id']} ({', '.join(case['rules'])}, {case['level'].upper()}): {case['description']}"]
    for t_ms, message in problems:
        lines.append(f"  at {t_ms:>8.1f} ms: {message}")
    lines.append(f"  expected outcome: {json.dumps(case['outcome'])[:600]}")
    lines.append(f"  driver reported:  {json.dumps(outcome)[:600] if outcome is not None else '(nothing)'}"
                 f"{f' at {exit_ms:.0f} ms' if exit_ms is not None else ''}")
    if conn is not None:
        lines.append("  wire log (client -> node '<', node -> client '>'):")
        for e in wire_log(conn)[:60]:
            arrow = "<" if e["from"] == "client" else ">"
            lines.append(f"  {arrow} {e['t_ms']:>8.1f} ms  {e['kind']}  {e['length']} bytes  {e['note']}")
            lines += ["      " + x for x in e["lines"][:24]]
    return lines


# --- the run --------------------------------------------------------------------------------------------------------
def main(args, stdout, stderr):
    cases = json.loads(Path(args.cases).read_text())["cases"]
    if args.case:
        cases = [c for c in cases if any(fnmatch.fnmatchcase(c["id"], g) for g in args.case)]
    try:
        chosen = drivers(args)
    except DriverError as e:
        print(f"harness node: {e}", file=stderr)
        return 2
    if not chosen or not cases:
        print("harness node: no driver or no case selected", file=stderr)
        return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    results, ended = [], "complete"
    started = time.time()
    with open(out / "verdicts.jsonl", "w", encoding="utf-8") as journal:
        journal.write(json.dumps({"journal": 1, "drivers": [d["name"] for d in chosen], "cases": len(cases)}) + "\n")
        journal.flush()

        def done(v):
            results.append(v)
            journal.write(json.dumps({k: v[k] for k in ("driver", "case", "verdict", "detail")}) + "\n")
            journal.flush()
            if not args.quiet:
                mark = {"pass": "ok  ", "fail": "FAIL", "unclaimed": "--  "}[v["verdict"]]
                print(f"{mark} {v['driver']:<24} {v['case']:<44} {v['duration_ms']:>7.0f} ms  {v['detail'][:150]}",
                      file=stdout, flush=True)

        work = [(case, d) for d in chosen for case in cases if not d.get("only") or case["id"] in d["only"]]
        asyncio.run(run_all(work, max(1, args.jobs), done))
        if incomplete.received:
            ended = incomplete.interrupted()
        journal.write(json.dumps({"end": ended}) + "\n")
    order = {(d["name"], c["id"]): n for n, (c, d) in enumerate(work)}
    results.sort(key=lambda v: order[(v["driver"], v["case"])])
    report = build_report(chosen, cases, results, ended, time.time() - started)
    write_reports(out, report)
    status = 0 if ended == "complete" else incomplete.exit_status()
    for name, s in report["drivers"].items():
        print(f"{name}: {s['pass']} pass, {s['fail']} fail ({s['fail_expected']} expected), {s['unclaimed']} "
              f"unclaimed; unexpected: {', '.join(s['unexpected']) or 'none'}", file=stdout)
        if s["unexpected"]:
            status = status or 1
    print(f"node report: {out / 'report.json'}, {out / 'junit.xml'}, {out / 'node.html'} "
          f"({report['seconds']:.1f} s)", file=stdout)
    return status


async def run_all(work, jobs, done):
    """Runs (case, driver) pairs, at most `jobs` at once; stops starting new ones once a signal arrived."""
    gate = asyncio.Semaphore(jobs)

    async def one(case, driver):
        async with gate:
            if incomplete.received:
                return
            done(await run_case(case, driver))
    await asyncio.gather(*(one(c, d) for c, d in work))


def build_report(chosen, cases, results, ended, seconds):
    summary = {}
    for d in chosen:
        mine = [v for v in results if v["driver"] == d["name"]]
        if d.get("broken"):     # a broken driver must fail the cases written for its bug; the rest do not matter
            unexpected = [v["case"] for v in mine if v["expected_failure"] and v["verdict"] != "fail"]
        else:
            unexpected = [v["case"] for v in mine if (v["verdict"] == "fail") != bool(v["expected_failure"])
                          and v["verdict"] != "unclaimed"]
        summary[d["name"]] = {"command": d["command"], "pass": sum(v["verdict"] == "pass" for v in mine),
                              "fail": sum(v["verdict"] == "fail" for v in mine),
                              "fail_expected": sum(v["verdict"] == "fail" and bool(v["expected_failure"]) for v in mine),
                              "unclaimed": sum(v["verdict"] == "unclaimed" for v in mine),
                              "unexpected": unexpected}
    return {"format": "node-report/1", "complete": ended == "complete", "ended": ended, "cases": len(cases),
            "seconds": round(seconds, 2), "drivers": summary, "verdicts": results}


def write_reports(out, report):
    def json_to(tmp):
        Path(tmp).write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    atomic.write(out / "report.json", json_to)
    atomic.write(out / "junit.xml", lambda tmp: Path(tmp).write_text(junit(report), encoding="utf-8"))
    from dashboard import node_page
    atomic.write(out / "node.html", lambda tmp: Path(tmp).write_text(node_page.render(report), encoding="utf-8"))


def junit(report):
    attr, text_of = junit_xml.escape_attr, junit_xml.escape_text
    parts = ["<?xml version='1.0' encoding='utf-8'?>\n<testsuites>"]
    for name, s in report["drivers"].items():
        mine = [v for v in report["verdicts"] if v["driver"] == name]
        parts.append(f'<testsuite name="node.{name}" tests="{len(mine)}" failures="{s["fail"]}" '
                     f'skipped="{s["unclaimed"]}">')
        for v in mine:
            parts.append(f'<testcase classname="node.{name}" name="{v["case"]}" time="{v["duration_ms"] / 1000:.3f}"')
            if v["verdict"] == "pass":
                parts.append(" />")
            elif v["verdict"] == "unclaimed":
                parts.append(f'><skipped message="{attr(v["detail"])}" /></testcase>')
            else:
                text = text_of("\n".join(v["diagnosis"]))
                parts.append(f'><failure message="{attr(v["detail"][:500])}">{text}'
                             f'</failure></testcase>')
        parts.append("</testsuite>")
    parts.append("</testsuites>\n")
    return "".join(parts)
