"""Judges one runner response against its vector: pass, fail or skip, with a one-line detail and a diagnosis.

answer() is the one entry point: the runner's stdout line in, its verdict out. Behind it, two fast paths pass the
usual answer, exactly the expected one, without the costly steps: _line_pass without parsing the line,
_expected_pass without the schema check; each gives what _judge gives for that answer
(tests/test_harness_fast_path.py)."""

import json
import re
from dataclasses import dataclass, field

from harness import diagnosis, frame_annotate, schemas, tuple_annotate, values
from harness.ops import values_key, values_of
from harness.msgpack_annotate import annotate, nan_payload_ranges, is_nan_bytes
from harness.runner_process import clean_line
from harness.text import clean, first_line

# Raw verdicts from judging or from the transport; expectations and levels turn them into the final verdict.
RAW_FAILING = ("fail", "skip", "crash", "timeout", "protocol-error")


@dataclass
class Outcome:
    verdict: str                   # pass | coarse | fail | skip | crash | timeout | protocol-error
    detail: str                    # one line
    diagnosis: list = field(default_factory=list)   # extra lines for humans
    answer: str = None             # what the runner said: values | hex | error:<class> | skipped | None
    matched: str = None            # encode: 'canonical' or the variant label whose bytes matched
    output: str = None             # encode: the hex the runner wrote (the matrix has the others decode it)


@dataclass
class NotAnAnswer:
    """A stdout line that is no valid response to the request (the caller's protocol error): why, in one line."""
    problem: str
    not_json: str = None    # the JSON parser's complaint (its first line) when the line is not JSON at all


def answer(op, rid, line):
    """The verdict on a runner's stdout line (its newline dropped) due for request rid of op: an Outcome (pass,
    fail, skip), or NotAnAnswer when the line is not JSON, answers another id or breaks protocol.schema.json."""
    outcome = _line_pass(op, rid, line)     # the expected answer, written compactly: no parse needed
    if outcome is not None:
        return outcome
    try:
        message = json.loads(line)
    except (ValueError, RecursionError) as e:   # not JSON, not UTF-8, too deep, an int too long to read
        return NotAnAnswer(f"stdout line is not JSON ({first_line(e)}): {clean_line(line)}", first_line(e))
    if not isinstance(message, dict) or message.get("id") != rid:
        got = message.get("id") if isinstance(message, dict) else None
        return NotAnAnswer(f"answered id {clean(repr(got), 100)} while request {rid} was due: {clean_line(line)}")
    # Most answers are exactly what the vector expects: valid by construction, judged without the (costly) schema
    # check. Everything else is checked, then judged.
    outcome = _expected_pass(op, message)
    if outcome is not None:
        return outcome
    if not schemas.is_valid("protocol.schema.json", f"/$defs/{op.cmd}_response", message):
        validator = schemas.validator("protocol.schema.json", f"/$defs/{op.cmd}_response")
        error = schemas.first_error(validator, message)
        return NotAnAnswer(f"response violates protocol.schema.json#/$defs/{op.cmd}_response: {error}")
    return _judge(op, message)


def _judge(op, response):
    vector = op.vector
    if "skipped" in response:
        return Outcome("skip", f"runner skipped: {response['skipped']}", answer="skipped")
    if op.name == "encode":
        return _encode(vector, response)
    if op.cmd == "decode" and op.name != "reject":
        return _decode(vector, op, response)
    return _reject(vector, op, response)


def _expected_pass(op, response):
    """The pass Outcome when response is exactly the answer op's vector expects, else None (then answer() checks
    the response against the protocol schema and calls _judge()). Such a response is valid by construction: its
    values / hex / error class are the vector's, which corpus.schema.json checked against the same definitions
    as protocol.schema.json, and its id is the request's integer (answer() compares it), so the schema check
    can be skipped. _judge() would give the same Outcome for it; anything not exactly expected takes that path."""
    if len(response) != 2 or type(response.get("id")) is not int:
        return None
    vector = op.vector
    if op.name == "encode":
        hex_ = response.get("hex")
        if type(hex_) is not str:
            return None
        if hex_ == vector["canonical"]:
            return Outcome("pass", "wrote the canonical bytes", answer="hex", matched="canonical", output=hex_)
        if vector.get("nan") == "class":
            return None     # an earlier candidate may match by NaN class first: _judge() picks the label
        for v in vector["variants"]:
            if v["encoder_may_emit"] and v["hex"] == hex_:
                return Outcome("pass", f"wrote variant '{v['label']}' (encoder_may_emit)", answer="hex",
                               matched=v["label"], output=hex_)
        return None
    if op.cmd == "decode" and op.name != "reject":
        expected = values_of(vector)
        actual = response.get(values_key(vector))
        if type(actual) is type(expected) and _strictly_equal(expected, actual):
            return _equal_outcome(vector)
        return None
    error = response.get("error")
    if (type(error) is dict and len(error) == 2 and error.get("class") == vector["error"]
            and type(error.get("message")) is str):
        return _rejected_with(vector["error"])
    return None


# Pass outcomes are shared, never changed (only a failing outcome's texts are cleaned, in runner_session): a batch
# of them crosses from a worker process as one object each, not one per op.
VALUES_EQUAL = Outcome("pass", "values equal", answer="values")
FIELDS_EQUAL = Outcome("pass", "fields equal", answer="fields")      # a frame vector's decode (spec 11.1)
_REJECTED = {}


def _equal_outcome(vector):
    return FIELDS_EQUAL if vector.get("format") == "frame" else VALUES_EQUAL


def _rejected_with(error_class):
    outcome = _REJECTED.get(error_class)
    if outcome is None:
        outcome = _REJECTED[error_class] = Outcome("pass", f"rejected with {error_class}",
                                                   answer=f"error:{error_class}")
    return outcome


def _line_pass(op, rid, line):
    """The pass Outcome when the stdout line (its newline dropped) is, byte for byte, the compact JSON of the answer
    op's vector expects to request rid (keys in the corpus's order, or sorted; UTF-8, no spaces; for a rejection,
    with any message), else None. Such a line parses to an answer _expected_pass() passes (the same values or error class, the integer
    id rid), so it is judged without being parsed; any other line, an equal answer written differently included,
    takes the parsing path."""
    last = op.last_answer
    if last is not None and last[0] == rid:     # the id this op had in an earlier runner's session: one compare
        if line in last[1]:
            return last[2]
        if last[3] is not None and _message_between(line, last[3], _ID_FIRST_TAIL):
            return last[2]
    return _exact_pass(op, rid, line)


# Runners number their requests alike (1, 2, ... in plan order, when they claim the same ops and none restarts):
# the expected lines an op had for one runner's request id are kept, so that the next runner's answer to the same
# id is one compare. Not for longer lines, which would be kept a second time (a decode op's forms are shared by
# its vector's ops): those are compared by their head and tail.
LAST_LINE_BYTES = 1 << 12


def _exact_pass(op, rid, line):
    forms = op.exact_forms
    if forms is None:
        forms = _exact_forms(op)
    if not forms:
        return None
    rid_text = str(rid).encode()
    if op.name in ("reject", "reject-encode"):
        ((error_class, outcome),) = forms
        head = _id_first_head(error_class, rid_text)
        _remember(op, (rid, (), outcome, head))
        return _exact_rejection(error_class, outcome, head, rid_text, line)
    for head, tail, outcome in forms:
        if (len(line) == len(head) + len(rid_text) + len(tail) and line.endswith(tail) and line.startswith(head)
                and line[len(head):len(head) + len(rid_text)] == rid_text):
            _remember(op, (rid, tuple(h + rid_text + t for h, t, _ in forms if len(h) + len(t) <= LAST_LINE_BYTES),
                           outcome, None))     # every form carries the op's one pass Outcome
            return outcome
    if len(forms) == 1 and op.cmd == "decode":     # one try with sorted keys, then both forms are kept
        forms = _exact_forms(op, sorted_too=True)
        return _exact_pass(op, rid, line)
    return None


def _remember(op, last):
    """(request id, its expected lines, the pass Outcome, a rejection's start up to the message or None)."""
    op.last_answer = last


def _utf8(data):
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


# The body of a JSON string as json.loads reads it (strict: no raw control characters; the escapes JSON has).
_STRING_BODY = re.compile(rb'(?:[^"\\\x00-\x1f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*')
# The same without escapes, which most messages have: one character class, ~6x quicker to match than the
# alternation above, which then only checks a body with a backslash (or not a string body at all).
_PLAIN_STRING_BODY = re.compile(rb'[^"\\\x00-\x1f]*')


def _exact_rejection(error_class, outcome, id_first_head, rid_text, line):
    """An error answer of the expected class, its message any JSON string, written compactly (keys in the
    protocol's order, from id_first_head, or sorted): outcome, else None."""
    if (_message_between(line, id_first_head, _ID_FIRST_TAIL)
            or _message_between(line, b'{"error":{"class":' + error_class + b',"message":"',
                                b'"},"id":' + rid_text + b"}")):
        return outcome
    return None


def _id_first_head(error_class, rid_text):
    """A rejection's line in the protocol's key order, up to its message."""
    return b'{"id":' + rid_text + b',"error":{"class":' + error_class + b',"message":"'


_ID_FIRST_TAIL = b'"}}'


def _message_between(line, head, tail):
    """Whether line is head + the body of a JSON string + tail, the body as json.loads reads it (else the line is
    a protocol error, found by the parsing path)."""
    end = len(line) - len(tail)
    return (end >= len(head) and line.startswith(head) and line.endswith(tail)
            and (_PLAIN_STRING_BODY.fullmatch(line, len(head), end) is not None
                 or _STRING_BODY.fullmatch(line, len(head), end) is not None)
            and (line.isascii() or _utf8(line[len(head):end])))


_compact_json = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), check_circular=False).encode
_sorted_json = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), check_circular=False, sort_keys=True).encode


def _exact_forms(op, sorted_too=False):
    """[(head, tail, pass Outcome)]: the expected answer line is head + the request id + tail (cached on the op)."""
    try:
        forms = _forms(op, sorted_too)
    except UnicodeEncodeError:  # a lone surrogate: no runner's UTF-8 line can carry it; judged by the slow path
        forms = []
    op.exact_forms = forms
    return forms


def _forms(op, sorted_too):
    vector, forms = op.vector, []
    if op.name == "encode":
        canonical, outcome = vector["canonical"].encode(), _pass_outcome(op)
        forms = [(b'{"id":', b',"hex":"' + canonical + b'"}', outcome),
                 (b'{"hex":"' + canonical + b'","id":', b"}", outcome)]
    elif op.name in ("reject", "reject-encode"):
        forms = [(_compact_json(vector["error"]).encode(), _pass_outcome(op))]
    elif op.cmd == "decode":
        values = values_of(vector)
        # The sorted form is kept even when it is the same text: two forms say it was made.
        forms = _decode_forms(values) + _sorted_forms(values) if sorted_too else _decode_forms(values)
    return forms


def _pass_outcome(op):
    """The pass Outcome that an exact answer line of op earns (each of its forms carries it)."""
    vector = op.vector
    if op.name == "encode":
        return Outcome("pass", "wrote the canonical bytes", answer="hex", matched="canonical",
                       output=vector["canonical"])
    if op.name in ("reject", "reject-encode"):
        return _rejected_with(vector["error"])
    return _equal_outcome(vector)


# id(vector values) -> (the values, their forms): shared by a vector's decode ops; id(vector) -> (the vector, its
# decode ops' forms) for forms from a prepared plan (set_exact_forms), whose values stay marshalled
_decode_forms_made = {}


def _decode_forms(expected):
    """The compact expected answer of every decode op of a vector (decode, decode[<label>]) is the same: made and
    kept once per vector, not once per op (a copy of the values' JSON each). A frame vector's are its fields."""
    return _once_per_values(_decode_forms_made, expected, lambda values: [
        (b'{"id":', _answer_key(values) + _compact_json(values).encode() + b'}', _answer_outcome(values))])


def _answer_key(expected):
    """The decode answer's member before its JSON: a frame's fields are an object, other vectors' values a list."""
    return b',"fields":' if type(expected) is dict else b',"values":'


def _answer_outcome(expected):
    return FIELDS_EQUAL if type(expected) is dict else VALUES_EQUAL


_sorted_forms_made = {}    # the same for the sorted-keys form, made when a runner first writes one


def _sorted_forms(expected):
    return _once_per_values(_sorted_forms_made, expected, _sorted_form)


def _sorted_form(expected):
    """The answer with sorted keys: "id" before "values", but after "fields" (a frame's answer)."""
    text = _sorted_json(expected).encode()
    if type(expected) is dict:
        return [(b'{"fields":' + text + b',"id":', b'}', FIELDS_EQUAL)]
    return [(b'{"id":', b',"values":' + text + b'}', VALUES_EQUAL)]


def _once_per_values(cache, values, make):
    """make(values), kept in cache by the values object's id (checked by identity): the corpus outlives the run."""
    cached = cache.get(id(values))
    if cached is None or cached[0] is not values:
        cached = cache[id(values)] = (values, make(values))
    return cached[1]


_canonical_json = json.JSONEncoder(ensure_ascii=False, sort_keys=True, check_circular=False).encode
_expected_json = {}     # id(vector values) -> (the values, their canonical JSON); the corpus outlives the run


def _strictly_equal(expected, actual):
    """JSON equality with JSON's types: Python's == alone says true == 1 == 1.0, which the schema and _judge() tell
    apart. == rejects most differences at C speed; equal canonical JSON texts (C speed too, the expected one
    encoded once per vector) then settle the types. A walk to skip that encode for string-only values cost more
    in Python than the encode it saved."""
    return expected == actual and _canonical_json(actual) == _expected_text(expected)


def _expected_text(expected):
    return _once_per_values(_expected_json, expected, _canonical_json)


def prepare(ops, values_json=True):
    """Does now the per-vector work judging would do on first use (each request line, the expected answer lines,
    the expected values' canonical JSON), so that processes forked afterwards share it instead of each doing it
    again. values_json=False leaves the canonical JSON to first use: only an answer that is not the exact expected
    line needs it, and in one process nothing is gained by making it early."""
    for op in ops:
        op.line_parts()
        if op.exact_forms is None:
            _exact_forms(op)
        if values_json and op.cmd == "decode" and op.name != "reject":
            _expected_text(values_of(op.vector))


def exact_form_texts(op):
    """The texts of op's exact answer forms ([(head, tail)], or [(error class JSON,)] for a rejection), as
    set_exact_forms takes them back: a cache of prepared work keeps these (harness/plan_cache.py). A decode op's
    include the sorted-keys form, which judging would otherwise make from the values when a runner writes one."""
    forms = op.exact_forms
    decode = op.cmd == "decode" and op.name != "reject"
    if forms is None or (decode and len(forms) == 1):
        forms = _exact_forms(op, sorted_too=decode)
    return [form[:-1] for form in forms]


def set_exact_forms(op, texts):
    """op's exact answer forms from exact_form_texts of an equal op, with the pass Outcomes _forms gives."""
    vector, outcome = op.vector, _pass_outcome(op)
    forms = [text + (outcome,) for text in texts]
    if op.cmd == "decode" and op.name != "reject" and forms:     # shared by a vector's decode ops, as made
        forms = _once_per_values(_decode_forms_made, vector, lambda _: forms)
    op.exact_forms = forms


def _error_text(response):
    return f"error {response['error']['class']} ({response['error']['message']})"


def _encode(vector, response):
    expected_values = [f"{values_key(vector)}: " + diagnosis.compact(values_of(vector))]
    if "error" in response:
        return Outcome("fail", f"refused to encode: {_error_text(response)}", expected_values,
                       answer=f"error:{response['error']['class']}")
    actual = bytes.fromhex(response["hex"])
    nan_class = vector.get("nan") == "class"
    candidates = [("canonical", vector["canonical"])] + [
        (v["label"], v["hex"]) for v in vector["variants"] if v["encoder_may_emit"]]
    for label, hex_ in candidates:
        if _bytes_match(bytes.fromhex(hex_), actual, nan_class):
            return Outcome("pass", f"wrote the {label} bytes" if label == "canonical" else
                           f"wrote variant '{label}' (encoder_may_emit)", answer="hex", matched=label,
                           output=response["hex"])
    canonical = bytes.fromhex(vector["canonical"])
    fmt = vector.get("format", "msgpack")
    if fmt == "msgpack":
        lines = diagnosis.byte_diff(canonical, actual, "canonical")
    elif fmt == "frame":     # the offset and the field there, its expected typed value, both frames by field
        lines = frame_annotate.byte_diff(canonical, actual, vector["frame"], vector.get("features", ()))
        name = frame_annotate.field_name(canonical, vector["frame"], vector.get("features", ()),
                                         diagnosis.first_difference(canonical, actual))
        if name in vector["fields"]:
            lines.insert(1, f"field {name}: expected {diagnosis.compact(vector['fields'][name])}")
    else:
        lines = tuple_annotate.byte_diff(canonical, actual, vector.get("columns"), fmt=fmt)
    also = [label for label, _ in candidates[1:]]
    if also:
        lines.append("also accepted: variant(s) " + ", ".join(also))
    offset = diagnosis.first_difference(canonical, actual)
    return Outcome("fail", f"bytes differ from canonical at offset {offset}", lines + expected_values,
                   answer="hex", output=response["hex"])


def _bytes_match(expected, actual, nan_class):
    if expected == actual:
        return True
    if not nan_class or len(expected) != len(actual):
        return False
    # Equal outside NaN payloads, and a NaN of the same width inside each (the header byte is compared as usual).
    segments, error = annotate(expected)
    if error:
        return False
    masked_e, masked_a = bytearray(expected), bytearray(actual)
    for start, end, kind in nan_payload_ranges(segments):
        if not is_nan_bytes(actual[start:end], kind):
            return False
        masked_e[start:end] = masked_a[start:end] = bytes(end - start)
    return masked_e == masked_a


def _decode(vector, op, response):
    expected, key = values_of(vector), values_key(vector)
    if "error" in response:
        return Outcome("fail", f"rejected valid input: {_error_text(response)}",
                       _input_lines(vector, op) + [f"expected {key}: " + diagnosis.compact(expected)],
                       answer=f"error:{response['error']['class']}")
    if key not in response:      # a frame answered with values, or values with fields
        got = "fields" if "fields" in response else "values"
        return Outcome("fail", f"answered {got}, expected {key}",
                       [f"expected {key}: " + diagnosis.compact(expected),
                        f"actual {got}: " + diagnosis.compact(response[got])] + _input_lines(vector, op), answer=got)
    actual = response[key]
    where = values.first_difference(expected, actual, vector.get("nan") == "class")
    if where is None:
        return _equal_outcome(vector)
    if key == "fields":
        return _fields_differ(vector, op, expected, actual, where)
    return Outcome("fail", f"values differ at {where}",
                   [f"first difference in the typed values at {where}",
                    "expected values: " + diagnosis.compact(expected),
                    "actual values:   " + diagnosis.compact(actual)] + _input_lines(vector, op), answer="values")


def _fields_differ(vector, op, expected, actual, where):
    """A frame decoded to other fields: which field, its expected and actual typed value, then the input bytes
    labelled by field."""
    name = where[2:].split(".")[0].split("[")[0] if where != "$" else None
    if name is None:
        detail = "fields differ: " + ", ".join(
            [f"missing {n}" for n in expected if n not in actual] + [f"unexpected {n}" for n in actual if n not in expected])
        field_lines = [detail]
    else:
        detail = f"field {name} differs (at {where})"
        field_lines = [f"field {name}: expected {diagnosis.compact(expected[name])}",
                       f"field {name}: actual   {diagnosis.compact(actual[name])}"]
    return Outcome("fail", detail, field_lines + ["expected fields: " + diagnosis.compact(expected),
                                                  "actual fields:   " + diagnosis.compact(actual)]
                   + _input_lines(vector, op), answer="fields")


def _input_lines(vector, op):
    # Built for failures only: annotating the input is the costly part of a diagnosis.
    return [f"input ({op.name}): {op.hex}"] + _annotated(vector, bytes.fromhex(op.hex))


def _reject(vector, op, response):
    wanted = vector["error"]
    if "error" in response and response["error"]["class"] == wanted:
        return Outcome("pass", f"rejected with {wanted}", answer=f"error:{wanted}")
    context = ([f"input: {op.hex}"] + _annotated(vector, bytes.fromhex(op.hex)) if op.cmd == "decode"
               else [f"{values_key(vector)}: " + diagnosis.compact(values_of(vector))])
    if "error" in response:
        got = response["error"]["class"]
        return Outcome("fail", f"expected error {wanted}, got {_error_text(response)}",
                       [f"expected class: {wanted}", f"actual outcome: {_error_text(response)}"] + context,
                       answer=f"error:{got}")
    for key in ("values", "fields"):
        if key in response:
            return Outcome("fail", f"expected error {wanted}, but it decoded",
                           [f"expected class: {wanted}", "actual outcome: decoded to " +
                            diagnosis.compact(response[key])] + context, answer=key)
    return Outcome("fail", f"expected error {wanted}, but it encoded",
                   [f"expected class: {wanted}", f"actual outcome: wrote {response['hex']}"] +
                   _annotated(vector, bytes.fromhex(response["hex"])) + context, answer="hex")


REJECT_OPS = ("reject", "reject-encode")


def ancestor(family, error_class):
    """True when family is a proper ancestor of error_class: a prefix of it ending on a '.' boundary ('malformed'
    of 'malformed.truncated'; 'invalid.tuple' is no ancestor of 'invalid.tuple-length')."""
    return error_class.startswith(family + ".")


def coarse(op, outcome, families):
    """A failing reject / reject-encode outcome judged on the runner's declared coarse_classes (its start answer,
    runners/PROTOCOL.md): when the class it answered is one of families and an ancestor of the vector's class,
    the input was rejected and only the class's granularity is the family's: a 'coarse' Outcome (not failing,
    counted apart from 'pass'). Any other outcome is returned as it is."""
    answer_ = outcome.answer
    if outcome.verdict != "fail" or op.name not in REJECT_OPS or not answer_ or not answer_.startswith("error:"):
        return outcome
    got, wanted = answer_[len("error:"):], op.vector["error"]
    if got not in families or not ancestor(got, wanted):
        return outcome
    return Outcome("coarse", f"rejected with {got}, the declared coarse class above {wanted}", answer=answer_)


def _annotated(vector, data):
    """Annotated bytes: MessagePack by its structure; a Binary Tuple (bare, or in an object's / row's bin) by its
    offset table and elements."""
    fmt = vector.get("format", "msgpack")
    if fmt == "msgpack":
        return diagnosis.annotated(data)
    if fmt == "frame":
        return frame_annotate.lines(data, vector["frame"], vector.get("features", ()))
    return tuple_annotate.annotate_format(data, fmt, vector.get("columns"))
