"""A minimal Ignite 3 thin client over the project's Python frame codec (runners/python/frames.py, codec.py,
binary_tuple.py): the reference the node's cases are checked against (spec.md 11.9, drivers/PROTOCOL.md).

What it does over time, rule by rule: the magic and the handshake first, then nothing until the server's magic and
response (PT-HANDSHAKE-FIRST, PT-BAD-MAGIC, PT-HS-ERROR); the features in effect are the server's answer
(PT-HS-FEATURES, PT-TABLE-NAME); ids from one counter, responses matched by id (PT-REQUEST-ID, PT-MATCH-BY-ID); a
reader that takes frames by their length from the stream (PT-STREAM); a heartbeat whenever nothing was sent for
the interval (PT-HEARTBEAT); the largest observable timestamp kept and sent with SQL (PT-OBSERVABLE-TS); the
partition assignment fetched before the first tuple op and again after flag 1 (PT-PARTITION-FLAG); notifications
and server ops told from responses (PT-NOTIFICATION, PT-SERVER-OP); an error fails its request only (PT-ERROR); a
tuple op retried once on expected-schema-ver (PT-SCHEMA-RETRY); every pending request failed when the connection
goes (PT-CLOSE)."""
import asyncio
import os
import sys

# The runner's codec: this repository's runners/python (IGNITE_CONFORMANCE_ROOT when the driver runs from a copy).
ROOT = os.environ.get("IGNITE_CONFORMANCE_ROOT") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "runners", "python"))

import binary_tuple  # noqa: E402  (the runner's codec, found through the path above)
import frames  # noqa: E402

MAGIC = frames.MAGIC
OPS = {o["name"]: o["code"] for o in frames.REGISTRY["frames"]["client_ops"]}
SERVER_OPS = {o["name"]: o["code"] for o in frames.REGISTRY["frames"]["server_ops"]}
FEATURE_BIT = {f["name"]: f["bit"] for f in frames.REGISTRY["frames"]["features"]}
FLAG = {f["name"]: f["bit_value"] for f in frames.REGISTRY["frames"]["response_flags"]}
SERVER_OP_RESPONSE_ERROR = {f["name"]: f["bit_value"] for f in frames.REGISTRY["frames"]["server_op_response_flags"]}["ERROR"]
TYPE_NAMES = binary_tuple.TYPE_NAMES
SCHEMA_VERSION_MISMATCH = (2 << 16) | 5      # Table.SCHEMA_VERSION_MISMATCH_ERR
REQUESTED_FEATURES = ("PLATFORM_COMPUTE_JOB",)  # answers server ops (PING)
MIN_HEARTBEAT_S = 0.5
CONFIGURED_HEARTBEAT_S = 30.0
MAX_FRAME = 16 << 20


def i(n):
    return {"type": "int", "value": str(n)}


def s(text):
    return {"type": "str", "value": text}


NIL = {"type": "nil"}


def plain(v):
    """A typed value as a plain Python value."""
    t = v["type"]
    if t == "nil":
        return None
    if t == "int":
        return int(v["value"])
    if t in ("str", "bool"):
        return v["value"]
    if t == "bin":
        return bytes.fromhex(v["hex"])
    return v


class ConnectionLost(Exception):
    """The connection failed, closed, or was found broken (a bad magic, an unexpected response id)."""


class ServerError(Exception):
    def __init__(self, error):
        self.code = plain(error["code"])
        self.class_name = plain(error["class_name"])
        self.extensions = {k: plain(v) for k, v in (error["extensions"] if isinstance(error["extensions"], list)
                                                    else [])}
        super().__init__(f"{self.class_name} ({self.code}): {plain(error['message'])}")


class Table:
    def __init__(self, table_id, name):
        self.id, self.name = table_id, name
        self.schemas = {}               # version -> [(name, type name, key index, nullable)]
        self.latest = None
        self.assignment_ts = None       # None: not fetched, or dropped by flag 1


class Client:
    def __init__(self):
        self.pending = {}               # request id -> future of the response
        self.next_id = 0
        self.observable_ts = 0
        self.assignment_changed = False
        self.features = set()
        self.closed = None
        self.last_send = 0.0
        self.tasks = []

    # --- connection ---------------------------------------------------------------------------------------------
    async def connect(self, host, port):
        self.reader, self.writer = await asyncio.open_connection(host, port)
        requested = sorted(FEATURE_BIT[f] for f in REQUESTED_FEATURES)
        hello = frames.encode("handshake-request", {
            "version_major": i(3), "version_minor": i(0), "version_patch": i(0), "client_code": i(2),
            "features": requested, "extensions": []})
        self.writer.write(hello)
        await self.writer.drain()
        try:
            magic = await self.reader.readexactly(4)
            if magic != MAGIC:
                raise ConnectionLost(f"the server answered {magic.hex()}, not the magic 'IGNI'")
            body = await self.read_body()
        except (asyncio.IncompleteReadError, ConnectionError) as e:
            raise ConnectionLost(f"the connection closed during the handshake: {e}") from None
        hs = frames.decode("handshake-response", MAGIC + len(body).to_bytes(4, "big") + body)
        if not frames.is_nil(hs["error"]):
            raise ServerError(hs["error"])
        offered = set(hs["features"])
        self.features = {name for name, bit in FEATURE_BIT.items() if bit in offered and bit in requested}
        self.track(plain(hs["observable_timestamp"]))
        idle = plain(hs["idle_timeout"]) / 1000
        self.interval = min(CONFIGURED_HEARTBEAT_S, max(idle / 3, MIN_HEARTBEAT_S)) if idle > 0 \
            else CONFIGURED_HEARTBEAT_S
        self.last_send = asyncio.get_running_loop().time()
        self.tasks = [asyncio.ensure_future(self.read_loop()), asyncio.ensure_future(self.heartbeats())]

    async def read_body(self):
        n = int.from_bytes(await self.reader.readexactly(4), "big", signed=True)
        if not 0 <= n <= MAX_FRAME:
            raise ConnectionLost(f"frame length {n}")
        return await self.reader.readexactly(n)

    def track(self, ts):
        self.observable_ts = max(self.observable_ts, ts)

    async def close(self):
        for t in self.tasks:
            t.cancel()
        self.fail_all(ConnectionLost("the client closed the connection"))
        self.close_socket()

    def close_socket(self):
        try:
            self.writer.close()
        except (ConnectionError, OSError, RuntimeError):
            pass

    def fail_all(self, error):
        self.closed = self.closed or error
        for fut in self.pending.values():
            if not fut.done():
                fut.set_exception(error)
        self.pending.clear()

    # --- reading ------------------------------------------------------------------------------------------------
    async def read_loop(self):
        try:
            while True:
                body = await self.read_body()
                await self.on_message(frames.decode("response", len(body).to_bytes(4, "big") + body))
        except (asyncio.IncompleteReadError, ConnectionError, OSError) as e:
            self.fail_all(ConnectionLost(f"the connection closed: {type(e).__name__}"))
        except ConnectionLost as e:
            self.fail_all(e)
        except Exception as e:      # a frame the codec refuses: the connection cannot be trusted further
            self.fail_all(ConnectionLost(f"unreadable frame: {e!r}"))
        finally:
            self.close_socket()

    async def on_message(self, msg):
        flags = plain(msg["flags"])
        rid = plain(msg["request_id"])
        if flags & FLAG["PARTITION_ASSIGNMENT"]:
            self.assignment_changed = True
        self.track(plain(msg["observable_timestamp"]))
        if flags & FLAG["SERVER_OP"] and not flags & FLAG["ERROR"]:
            await self.answer_server_op(rid, plain(msg["server_op"]))
            return
        if flags & FLAG["NOTIFICATION"]:
            return                      # never completes a request (PT-NOTIFICATION)
        fut = self.pending.pop(rid, None)
        if fut is None:
            raise ConnectionLost(f"unexpected response id {rid}")
        if not fut.done():
            if flags & FLAG["ERROR"]:
                fut.set_exception(ServerError(msg["error"]))
            else:
                fut.set_result(msg["payload"])

    async def answer_server_op(self, rid, op):
        if op == SERVER_OPS["PING"]:
            reply = {"op": i(OPS["SERVER_OP_RESPONSE"]), "request_id": i(rid), "flags": i(0), "payload": []}
        else:
            reply = {"op": i(OPS["SERVER_OP_RESPONSE"]), "request_id": i(rid), "flags": i(SERVER_OP_RESPONSE_ERROR),
                     "error": {"trace_id": {"type": "uuid", "era": "3.0", "value": "00000000-0000-0000-0000-000000000000"},
                               "code": i((3 << 16) | 1), "class_name": s("UnsupportedOperationException"),
                               "message": s(f"server op {op} is not supported"), "stack_trace": NIL,
                               "extensions": []}}
        self.write(frames.encode("server-op-response", reply))

    # --- writing ------------------------------------------------------------------------------------------------
    def write(self, data):
        if self.closed:
            raise self.closed
        self.writer.write(data)
        self.last_send = asyncio.get_running_loop().time()

    async def heartbeats(self):
        loop = asyncio.get_running_loop()
        while True:
            wait = self.last_send + self.interval - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
                continue
            if self.closed:
                return
            fut = self.send("request", {"op": i(OPS["HEARTBEAT"]), "payload": []})
            fut.add_done_callback(lambda f: f.exception())     # its answer (or the connection's end) is not awaited

    def send(self, kind, fields):
        rid = self.next_id
        self.next_id += 1
        data = frames.encode(kind, dict(fields, request_id=i(rid)), sorted(self.features))
        fut = asyncio.get_running_loop().create_future()
        self.pending[rid] = fut
        try:
            self.write(data)
        except ConnectionLost as e:
            self.pending.pop(rid, None)
            fut.set_exception(e)
        return fut

    async def request(self, op, payload):
        return await self.send("request", {"op": i(op), "payload": payload})

    # --- tables -------------------------------------------------------------------------------------------------
    async def get_table(self, name):
        if "TABLE_GET_REQS_USE_QUALIFIED_NAME" in self.features:
            payload = await self.request(OPS["TABLE_GET_QUALIFIED"], [s("PUBLIC"), s(name)])
            return None if frames.is_nil(payload[0]) else Table(plain(payload[0]), f"{plain(payload[1])}.{plain(payload[2])}")
        payload = await self.request(OPS["TABLE_GET"], [s(name)])
        return None if not payload or frames.is_nil(payload[0]) else Table(plain(payload[0]), plain(payload[1]))

    async def load_schema(self, table, version=None):
        ask = [i(table.id), NIL] if version is None else [i(table.id), i(1), i(version)]
        values = [plain(v) for v in await self.request(OPS["SCHEMAS_GET"], ask)]
        pos, last = 1, None
        for _ in range(values[0]):
            ver, ncols = values[pos], values[pos + 1]
            pos += 2
            cols = []
            for _ in range(ncols):
                props = values[pos]
                name, ctype, key, nullable = values[pos + 1:pos + 5]
                cols.append((name, TYPE_NAMES[ctype], key, nullable))
                pos += 1 + props
            table.schemas[ver] = cols
            last = ver
        table.latest = last if table.latest is None else max(table.latest, last)
        return last

    async def ensure_assignment(self, table):
        if self.assignment_changed:
            table.assignment_ts = None
            self.assignment_changed = False
        if table.assignment_ts is None:
            payload = [plain(v) for v in await self.request(OPS["PARTITION_ASSIGNMENT_GET"],
                                                             [i(table.id), i(-1)])]
            table.assignment_ts = payload[2] if len(payload) > 2 and payload[1] else 0

    async def tuple_op(self, table, op, row, key_only):
        version = table.latest if table.latest is not None else await self.load_schema(table)
        for attempt in range(2):
            await self.ensure_assignment(table)
            cols = table.schemas[version]
            used = [c for c in cols if not key_only or c[2] >= 0]
            elements = [{"type": "NULL"} if row.get(c[0]) is None else
                        {"type": c[1], "value": row[c[0]] if c[1] == "STRING" else str(row[c[0]])} for c in used]
            data = binary_tuple.encode("binary-tuple", elements, "3.0", [c[1] for c in used])
            fields = {"op": i(op), "table_id": i(table.id), "tx": NIL, "schema_version": i(version),
                      "no_value_set": {"type": "bitmask", "era": "3.0", "bits": []},
                      "tuple": {"type": "bin", "hex": data.hex()}}
            try:
                return await self.send("tuple-request", fields), cols
            except ServerError as e:
                expected = e.extensions.get("expected-schema-ver")
                if attempt or e.code != SCHEMA_VERSION_MISMATCH or not isinstance(expected, int):
                    raise
                version = expected
                if version not in table.schemas:
                    await self.load_schema(table, version)
        raise AssertionError("unreachable")

    async def upsert(self, table, row):
        await self.tuple_op(table, OPS["TUPLE_UPSERT"], row, key_only=False)

    async def get(self, table, key):
        payload, cols = await self.tuple_op(table, OPS["TUPLE_GET"], key, key_only=True)
        if len(payload) < 2 or frames.is_nil(payload[1]):
            return None
        version = plain(payload[0])
        cols = table.schemas.get(version) or cols
        values = binary_tuple.decode("binary-tuple", bytes.fromhex(payload[1]["hex"]), "3.0", [c[1] for c in cols])
        return {c[0]: element_value(v) for c, v in zip(cols, values)}

    # --- SQL ----------------------------------------------------------------------------------------------------
    async def sql(self, statement):
        fields = {"op": i(OPS["SQL_EXEC"]), "tx": NIL, "schema": NIL, "page_size": NIL, "query_timeout": NIL,
                  "idle_timeout": NIL, "time_zone": s("UTC"), "property_count": i(0),
                  "properties": {"type": "bin", "hex": "00"}, "statement": s(statement), "arguments_count": NIL,
                  "observable_timestamp": i(self.observable_ts)}
        if "SQL_DIRECT_TX_MAPPING" in self.features:
            fields["direct_tx_mapping"] = {"type": "bool", "value": False}
        if "SQL_MULTISTATEMENT_SUPPORT" in self.features:
            fields["query_modifiers"] = i(0)
        if "SQL_PARTITION_AWARENESS" in self.features:
            fields["partition_awareness"] = {"type": "bool", "value": False}
        values = await self.send("sql-execute-request", fields)
        has_rows = plain(values[1])
        if not has_rows:
            return []
        ncols, pos, types = plain(values[5]), 6, []
        for _ in range(ncols):
            props = plain(values[pos])
            types.append(TYPE_NAMES[plain(values[pos + 3])])
            pos += 1 + props
        nrows = plain(values[pos])
        rows = []
        for k in range(nrows):
            data = bytes.fromhex(values[pos + 1 + k]["hex"])
            rows.append([element_value(v) for v in binary_tuple.decode("binary-tuple", data, "3.0", types)])
        return rows


def element_value(v):
    if v["type"] == "NULL":
        return None
    if v["type"] in ("INT8", "INT16", "INT32", "INT64"):
        return int(v["value"])
    return v.get("value")
