"""The reference node driver (drivers/PROTOCOL.md): `driver.py HOST:PORT WORKLOAD [SECONDS]` runs one workload with
the minimal client of client.py and prints one outcome line (schema/driver.schema.json) on stdout. Logs go to
stderr."""
import asyncio
import json
import sys
import traceback

import client as ignite

LIMIT_S = 20.0      # the driver's own bound; the node kills it at the case's timeout anyway


def error_of(e):
    if isinstance(e, ignite.ServerError):
        return {"kind": "server", "code": e.code, "codes": [e.code], "class": e.class_name, "message": str(e)[:1000]}
    if isinstance(e, (ignite.ConnectionLost, ConnectionError, OSError, EOFError, asyncio.IncompleteReadError)):
        return {"kind": "connection", "code": None, "class": type(e).__name__, "message": str(e)[:1000]}
    if isinstance(e, asyncio.TimeoutError):
        return {"kind": "timeout", "code": None, "class": "TimeoutError", "message": "the driver gave up"}
    return {"kind": "other", "code": None, "class": type(e).__name__, "message": repr(e)[:1000]}


async def workload(name, host, port, seconds):
    c = ignite.Client()
    await c.connect(host, port)
    try:
        if name == "connect":
            return {}
        if name == "idle":
            await asyncio.sleep(seconds)
            return {}
        if name == "table-get":
            t = await c.get_table("T")
            return {"table": t.name if t else None}
        if name == "two-in-flight":
            results = await asyncio.gather(c.get_table("A"), c.get_table("B"), return_exceptions=True)
            return {"results": [{"error": error_of(r)} if isinstance(r, BaseException) else
                                {"table": r.name if r else None} for r in results]}
        if name == "upsert-get":
            t = await c.get_table("T")
            await c.upsert(t, {"ID": 1, "VAL": "v1"})
            return {"row": await c.get(t, {"ID": 1})}
        if name == "sql-select":
            return {"rows": await c.sql("SELECT ID, VAL FROM T")}
        raise AssertionError(name)
    finally:
        await c.close()


def main(argv):
    host, _, port = argv[0].rpartition(":")
    name = argv[1]
    seconds = float(argv[2]) if len(argv) > 2 else 0.0
    if name not in ("connect", "table-get", "upsert-get", "sql-select", "idle", "two-in-flight"):
        out = {"workload": name, "status": "unclaimed", "reason": "unknown workload"}
    else:
        try:
            values = asyncio.run(asyncio.wait_for(workload(name, host, int(port), seconds), LIMIT_S))
            out = {"workload": name, "status": "ok", "values": values}
        except Exception as e:     # every failure is an outcome to report
            traceback.print_exc(file=sys.stderr)
            out = {"workload": name, "status": "error", "error": error_of(e)}
    print(json.dumps(out), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
