"""The conformance node (spec.md 11.9): plays one node case (node/cases.json) over one loopback connection.

It reads the client's frames from the byte stream (the magic, then 4-byte lengths), records both directions with
the time of each, answers heartbeats and the ops the case answers automatically (auto), and plays the case's
script: read the client's next request (its op, its int fields), send messages (whole, byte by byte, in chunks,
late, cut short), wait, close. What it sends is bytes from the generator (node/cases.json); a request id the
client chose goes into its slot with generator.wire.integer and the body is framed with generator.frames.frame.

Nothing the client sends can take it down: a frame longer than MAX_FRAME or a negative length ends the case, more
than MAX_BYTES in all ends it, every wait has a deadline, and the client's frames are judged with the harness's own
frame annotator (harness/frame_annotate.py), which never allocates by a declared length."""

import asyncio
import time

from harness import frame_annotate, schemas
from harness.frame_layouts import MAGIC

MAX_FRAME = 16 << 10      # a client request of a node case is a few hundred bytes
MAX_BYTES = 1 << 20       # everything a client may send in one case
MAX_EVENTS = 400          # wire log entries kept per case (the rest are counted)
HEARTBEAT, SERVER_OP_RESPONSE, TUPLE_OPS, SQL_EXEC = 1, 73, (10, 12), 50
BYTE_GAP_S = 0.002        # between the writes of a byte-by-byte send


def kind_of(op):
    """The frame kind (spec.md 11, harness/frame_layouts.py) of a client frame with this op."""
    if op in TUPLE_OPS:
        return "tuple-request"
    if op == SQL_EXEC:
        return "sql-execute-request"
    if op == SERVER_OP_RESPONSE:
        return "server-op-response"
    return "request"


class CaseFailed(Exception):
    """The client did something the case forbids: the verdict is fail, with this message."""


class Frame:
    """One frame the client sent: when, its bytes, its kind and the int / str values of its top-level fields."""

    def __init__(self, t_ms, raw, kind, features):
        self.t_ms, self.raw, self.kind, self.features = t_ms, bytes(raw), kind, tuple(features)
        self.segments, self.problem = frame_annotate.segments(self.raw, kind, self.features)
        self.fields = top_fields(self.raw, self.segments)
        self.op = self.fields.get("op")
        self.request_id = self.fields.get("request_id")

    def retype(self, kind):
        self.__init__(self.t_ms, self.raw, kind, self.features)


def top_fields(raw, segments):
    """{field: value} of the top-level values: an int as its number, a str as its text, anything else as its
    MessagePack kind ('nil', 'bin', 'ext', ...); payload values as payload[i]."""
    out, texts = {}, {}
    for seg in segments:
        path = seg.path
        if path.startswith("(") or path in ("magic", "length") or seg.part == "malformed":
            continue
        top = path.split("]", 1)[0] + "]" if path.startswith("payload[") else path.split(".", 1)[0].split(" ")[0]
        if " count" in path.split(".", 1)[0]:
            continue
        if seg.kind == "int":
            if seg.part in ("value", "payload") and (top not in out or out[top] == "int"):
                try:
                    out[top] = int(seg.note.split()[-1])
                except (ValueError, IndexError):
                    out[top] = "int"
        elif seg.kind == "str":
            out.setdefault(top, "")
            if seg.part == "payload" and path.count(".") == 2:      # the str itself, not a value nested in it
                texts[top] = texts.get(top, b"") + raw[seg.start:seg.end]
        elif top not in out:
            out[top] = seg.kind
    for top, data in texts.items():
        if out.get(top) == "":
            out[top] = data.decode("utf-8", "replace")
    return out


def value_type(v):
    """'int', 'str' or the MessagePack kind of a top_fields value."""
    if isinstance(v, int):
        return "int"
    return v if v in ("nil", "bool", "bin", "ext", "array", "map", "float32", "float64") else "str"


class Connection:
    """One client connection of one case: the byte stream in, the writes out, the wire log."""

    def __init__(self, case, reader, writer, t0):
        self.case, self.reader, self.writer, self.t0 = case, reader, writer, t0
        self.events, self.dropped_events = [], 0
        self.frames = []                      # every client frame, in order
        self.queue = asyncio.Queue()          # client frames the script may read (not heartbeats)
        self.auto = dict(case["auto"])
        self.bound = {}                       # slot name -> request id
        self.handshake = None                 # the client's handshake request (Frame)
        self.requested_features = set()
        self.features = ()                    # in effect: the case's offer and the client's request
        self.hs_sent_ms = None                # when the node's handshake response was written in full
        self.eof_ms = self.closed_ms = None
        self.bytes_in = 0
        self.violations = []                  # (t_ms, message): rules broken while reading
        self.wlock = asyncio.Lock()
        self.closed = False

    def now(self):
        return round((time.monotonic() - self.t0) * 1000, 1)

    def log(self, side, data, kind, note=""):
        if len(self.events) >= MAX_EVENTS:
            self.dropped_events += 1
            return
        self.events.append({"t_ms": self.now(), "from": side, "kind": kind, "hex": bytes(data[:4096]).hex(),
                            "length": len(data), "note": note})

    # --- reading -------------------------------------------------------------------------------------------------
    async def read_loop(self):
        buf = bytearray()
        first = True
        try:
            while True:
                data = await self.reader.read(65536)
                if not data:
                    self.eof_ms = self.now()
                    self.log("client", b"", "eof", "the client closed the connection")
                    return
                self.bytes_in += len(data)
                if self.bytes_in > MAX_BYTES:
                    self.violate(f"the client sent more than {MAX_BYTES} bytes: flood")
                    return
                buf += data
                while True:
                    head = len(MAGIC) if first else 0
                    if first and len(buf) >= len(MAGIC) and bytes(buf[:len(MAGIC)]) != MAGIC:
                        self.log("client", buf, "garbage", "not 'IGNI'")
                        self.violate(f"the client's first bytes are {bytes(buf[:4]).hex()}, not the magic 'IGNI'")
                        return
                    if len(buf) < head + 4:
                        break
                    n = int.from_bytes(buf[head:head + 4], "big", signed=True)
                    if n < 0 or n > MAX_FRAME:
                        self.log("client", buf[:64], "garbage", f"length {n}")
                        self.violate(f"the client's frame declares length {n} (must be 0..{MAX_FRAME})")
                        return
                    if len(buf) < head + 4 + n:
                        break
                    raw = bytes(buf[:head + 4 + n])
                    del buf[:head + 4 + n]
                    await self.on_frame(raw, first)
                    first = False
        except (ConnectionError, OSError):
            self.eof_ms = self.now()
        finally:
            self.queue.put_nowait(None)

    def violate(self, message):
        self.violations.append((self.now(), message))
        self.close_now()

    async def on_frame(self, raw, first):
        if first:
            frame = Frame(self.now(), raw, "handshake-request", ())
            self.handshake = frame
            self.log("client", raw, "handshake-request")
            self.frames.append(frame)
            self.queue.put_nowait(frame)
            return
        frame = Frame(self.now(), raw, "request", self.features)
        if frame.op is not None and kind_of(frame.op) != "request":
            frame.retype(kind_of(frame.op))
        self.frames.append(frame)
        self.log("client", raw, frame.kind, f"op {frame.op}, request id {frame.request_id}")
        if self.hs_sent_ms is None:
            self.violations.append((frame.t_ms, f"op {frame.op} sent before the node's handshake response "
                                                f"(PT-HANDSHAKE-FIRST)"))
        if frame.op == HEARTBEAT and str(HEARTBEAT) in self.auto and isinstance(frame.request_id, int):
            await self.send([self.auto[str(HEARTBEAT)]], split=self.auto[str(HEARTBEAT)].get("split"),
                            slot_id=frame.request_id, note="heartbeat answer")
            return
        self.queue.put_nowait(frame)

    async def next_frame(self, deadline_ms, what):
        """The client's next frame the script reads (auto ops answered meanwhile)."""
        while True:
            left = (deadline_ms - self.now()) / 1000
            if left <= 0:
                raise CaseFailed(f"the client sent no {what} within {deadline_ms:.0f} ms of the case's start")
            try:
                frame = await asyncio.wait_for(self.queue.get(), left)
            except asyncio.TimeoutError:
                raise CaseFailed(f"the client sent no {what} within {deadline_ms:.0f} ms of the case's start") from None
            if frame is None:
                self.queue.put_nowait(None)
                raise CaseFailed(f"the connection ended before the client sent a {what}")
            return frame

    async def answer_auto(self, frame):
        """Answers a frame with the case's automatic answer for its op; False if the op has none."""
        msg = self.auto.get(str(frame.op))
        if msg is None or not isinstance(frame.request_id, int):
            return False
        await self.send([msg], split=msg.get("split"), slot_id=frame.request_id, note=f"auto answer to op {frame.op}")
        return True

    # --- writing -------------------------------------------------------------------------------------------------
    def message_bytes(self, msg, slot_id=None):
        # The generator's builder, imported here: a release of the corpus ships the harness without generator/,
        # and `harness verify` there must not need it.
        from generator import frames as gen_frames, wire as gen_wire
        if "hex" in msg:
            return bytes.fromhex(msg["hex"])
        body = b""
        for part in msg["body"]:
            if "hex" in part:
                body += bytes.fromhex(part["hex"])
            else:
                rid = slot_id if part["slot"] == "*" else self.bound.get(part["slot"])
                if rid is None:
                    raise CaseFailed(f"case bug: slot {part['slot']!r} names no request read so far")
                body += gen_wire.integer(rid)
        return gen_frames.frame(msg["kind"], body)

    async def send(self, msgs, split=None, gap_ms=None, cut=None, delay_ms=0, slot_id=None, note=""):
        if delay_ms:
            await asyncio.sleep(delay_ms / 1000)
        data = b""
        for m in msgs:
            b = self.message_bytes(m, slot_id)
            self.log("node", b, m["kind"], note)
            data += b
        if cut is not None:
            data = data[:cut]
            self.log("node", b"", "cut", f"only the first {cut} bytes of the above are written")
        if split == "bytes":
            chunks, gap = [data[i:i + 1] for i in range(len(data))], (gap_ms or 0) / 1000 or BYTE_GAP_S
        elif isinstance(split, list):
            chunks, at = [], 0
            for size in split:
                chunks.append(data[at:at + size])
                at += size
            chunks.append(data[at:])
            chunks, gap = [c for c in chunks if c], (gap_ms or 0) / 1000
        else:
            chunks, gap = [data], 0
        async with self.wlock:
            for i, chunk in enumerate(chunks):
                if self.closed:
                    return
                if i and gap:
                    await asyncio.sleep(gap)
                try:
                    self.writer.write(chunk)
                    await self.writer.drain()
                except (ConnectionError, OSError):
                    return
        if any(m["kind"] == "handshake-response" for m in msgs) and self.hs_sent_ms is None:
            self.hs_sent_ms = self.now()

    def close_now(self):
        if not self.closed:
            self.closed = True
            self.closed_ms = self.now()
            self.log("node", b"", "close", "the node closes the connection")
            try:
                self.writer.close()
            except (ConnectionError, OSError, RuntimeError):
                pass


# --- the script -----------------------------------------------------------------------------------------------------
async def play(conn, case, deadline_ms):
    """Plays the case's script; raises CaseFailed when the client breaks it, returns 'unclaimed: ...' or None."""
    for step in case["script"]:
        if "read" in step:
            within = deadline_ms if "within_ms" not in step else min(deadline_ms, conn.now() + step["within_ms"])
            if step["read"] == "handshake-request":
                frame = await conn.next_frame(within, "handshake request")
                if frame.problem:
                    raise CaseFailed(f"the handshake request does not fit its layout: {frame.problem}")
                conn.requested_features = features_of(frame)
                conn.features = tuple(sorted(set(case["features"]) & conn.requested_features))
                need = case.get("requires_feature")
                if need and need not in conn.requested_features:
                    return f"unclaimed: the client does not request feature {need}"
                continue
            names = step.get("by_name") or {None: step.get("as")}
            for _ in names:
                frame = await read_op(conn, step["read"], within, case)
                check_fields(frame, step.get("fields", {}))
                slot = step.get("as")
                if step.get("by_name"):
                    asked = str(frame.fields.get("payload[0]", "")).split(".")[-1].strip('"').upper()
                    slot = step["by_name"].get(asked)
                    if slot is None or slot in conn.bound:
                        raise CaseFailed(f"op {frame.op} asks for table {asked!r}, not one of "
                                         f"{sorted(set(step['by_name']) - {k for k, v in step['by_name'].items() if v in conn.bound})}")
                if slot:
                    conn.bound[slot] = frame.request_id
        elif "send" in step:
            await conn.send(step["send"], split=step.get("split"), gap_ms=step.get("gap_ms"), cut=step.get("cut"),
                            delay_ms=step.get("delay_ms", 0), note="script")
        elif "auto" in step:
            conn.auto.update(step["auto"])
        elif "quiet_ms" in step:
            await asyncio.sleep(step["quiet_ms"] / 1000)
            if not conn.queue.empty():
                frame = conn.queue.get_nowait()
                if frame is not None:
                    raise CaseFailed(f"the client sent op {frame.op} while it had to wait (PT-HANDSHAKE-FIRST)")
                conn.queue.put_nowait(None)
        elif "idle_ms" in step:
            end = conn.now() + step["idle_ms"]
            while conn.now() < end:
                try:
                    frame = await asyncio.wait_for(conn.queue.get(), max(0.001, (end - conn.now()) / 1000))
                except asyncio.TimeoutError:
                    break
                if frame is None:
                    conn.queue.put_nowait(None)
                    break
                if not await conn.answer_auto(frame):
                    raise CaseFailed(f"the client sent op {frame.op} while the case expected it idle")
        elif "close" in step:
            conn.close_now()
        elif "expect_close" in step:
            end = conn.now() + step["expect_close"]
            while True:
                try:
                    frame = await asyncio.wait_for(conn.queue.get(), max(0.001, (end - conn.now()) / 1000))
                except asyncio.TimeoutError:
                    raise CaseFailed(f"the client kept the connection open {step['expect_close']} ms after a "
                                     f"failed handshake") from None
                if frame is None:
                    conn.queue.put_nowait(None)
                    break
                raise CaseFailed(f"the client sent op {frame.op} on a connection whose handshake failed")
    return None


async def read_op(conn, op, within, case):
    while True:
        frame = await conn.next_frame(within, f"request with op {op}")
        if frame.op == op:
            return frame
        if await conn.answer_auto(frame):
            continue
        if case.get("requires_op") and not any(f.op == case["requires_op"] for f in conn.frames):
            raise Unclaimed(f"unclaimed: the client never sent op {case['requires_op']} (it does not route by "
                            f"partition), so the case does not apply")
        raise CaseFailed(f"expected a request with op {op}, the client sent op {frame.op} "
                         f"(request id {frame.request_id})")


class Unclaimed(Exception):
    pass


def features_of(frame):
    """The feature names a handshake request's features bin sets (registry frames.features)."""
    for seg in frame.segments:
        if seg.path.startswith("features") and seg.part == "payload":
            raw = frame.raw[seg.start:seg.end]
            bits = {8 * i + j for i, byte in enumerate(raw) for j in range(8) if byte >> j & 1}
            return {f["name"] for f in schemas.load("registry.json")["frames"]["features"] if f["bit"] in bits}
    return set()


def check_fields(frame, expected):
    if frame.problem:
        raise CaseFailed(f"op {frame.op} does not fit its layout ({frame.kind}): {frame.problem}")
    for name, want in expected.items():
        if name == "payload":
            got = [value_type(frame.fields[k]) for k in sorted((k for k in frame.fields if k.startswith("payload[")),
                                                               key=lambda k: int(k[8:-1]))]
            if got != want:
                raise CaseFailed(f"op {frame.op}'s payload is {got or 'empty'}, the case expects {want}")
            continue
        got = frame.fields.get(name)
        if isinstance(want, dict):
            if not isinstance(got, int) or got < want["min"]:
                raise CaseFailed(f"op {frame.op}'s {name} is {got}, the case expects at least {want['min']}")
        elif got != want:
            raise CaseFailed(f"op {frame.op}'s {name} is {got}, the case expects {want}")
