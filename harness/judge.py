"""Judges one runner response against its vector: pass, fail or skip, with a one-line detail and a diagnosis."""

import json
from dataclasses import dataclass, field

from harness import diagnosis, tuple_annotate, values
from harness.msgpack_annotate import annotate, nan_payload_ranges, is_nan_bytes

# Raw verdicts from judging or from the transport; expectations and levels turn them into the final verdict.
RAW_FAILING = ("fail", "skip", "crash", "timeout", "protocol-error")


@dataclass
class Outcome:
    verdict: str                   # pass | fail | skip | crash | timeout | protocol-error
    detail: str                    # one line
    diagnosis: list = field(default_factory=list)   # extra lines for humans
    answer: str = None             # what the runner said: values | hex | error:<class> | skipped | None
    matched: str = None            # encode: 'canonical' or the variant label whose bytes matched
    output: str = None             # encode: the hex the runner wrote (the matrix has the others decode it)


def judge(op, response):
    vector = op.vector
    if "skipped" in response:
        return Outcome("skip", f"runner skipped: {response['skipped']}", answer="skipped")
    if op.name == "encode":
        return _encode(vector, response)
    if op.cmd == "decode" and op.name != "reject":
        return _decode(vector, op, response)
    return _reject(vector, op, response)


def expected_pass(op, response):
    """The pass Outcome when response is exactly the answer op's vector expects, else None (then the caller checks
    the response against the protocol schema and calls judge()). Such a response is valid by construction: its
    values / hex / error class are the vector's, which corpus.schema.json checked against the same definitions
    as protocol.schema.json, and its id is the request's integer (the caller compares it), so the schema check
    can be skipped. Judge() would give the same Outcome for it; anything not exactly expected takes that path."""
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
            return None     # an earlier candidate may match by NaN class first: judge() picks the label
        for v in vector["variants"]:
            if v["encoder_may_emit"] and v["hex"] == hex_:
                return Outcome("pass", f"wrote variant '{v['label']}' (encoder_may_emit)", answer="hex",
                               matched=v["label"], output=hex_)
        return None
    if op.cmd == "decode" and op.name != "reject":
        actual = response.get("values")
        if type(actual) is list and _strictly_equal(vector["values"], actual):
            return Outcome("pass", "values equal", answer="values")
        return None
    error = response.get("error")
    if (type(error) is dict and len(error) == 2 and error.get("class") == vector["error"]
            and type(error.get("message")) is str):
        return Outcome("pass", f"rejected with {vector['error']}", answer=f"error:{vector['error']}")
    return None


_canonical_json = json.JSONEncoder(ensure_ascii=False, sort_keys=True, check_circular=False).encode
_expected_json = {}     # id(vector values) -> (the values, their canonical JSON); the corpus outlives the run


def _strictly_equal(expected, actual):
    """JSON equality with JSON's types: Python's == alone says true == 1 == 1.0, which the schema and judge() tell
    apart. == rejects most differences at C speed; equal canonical JSON texts (C speed too, the expected one
    encoded once per vector) then settle the types. A walk to skip that encode for string-only values cost more
    in Python than the encode it saved."""
    return expected == actual and _canonical_json(actual) == _expected_text(expected)


def _expected_text(expected):
    cached = _expected_json.get(id(expected))
    if cached is None or cached[0] is not expected:
        cached = _expected_json[id(expected)] = (expected, _canonical_json(expected))
    return cached[1]


def prepare(ops):
    """Does now the per-vector work judging would do on first use (the expected values' canonical JSON, each
    request line), so that processes forked afterwards share it instead of each doing it again."""
    for op in ops:
        op.request_line(0)
        if op.cmd == "decode" and op.name != "reject":
            _expected_text(op.vector["values"])


def _error_text(response):
    return f"error {response['error']['class']} ({response['error']['message']})"


def _encode(vector, response):
    expected_values = ["values: " + diagnosis.compact(vector["values"])]
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
    lines = (diagnosis.byte_diff(canonical, actual, "canonical") if fmt == "msgpack"
             else tuple_annotate.byte_diff(canonical, actual, vector.get("columns"), fmt=fmt))
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
    expected = vector["values"]
    if "error" in response:
        return Outcome("fail", f"rejected valid input: {_error_text(response)}",
                       _input_lines(vector, op) + ["expected values: " + diagnosis.compact(expected)],
                       answer=f"error:{response['error']['class']}")
    actual = response["values"]
    where = values.first_difference(expected, actual, vector.get("nan") == "class")
    if where is None:
        return Outcome("pass", "values equal", answer="values")
    return Outcome("fail", f"values differ at {where}",
                   [f"first difference in the typed values at {where}",
                    "expected values: " + diagnosis.compact(expected),
                    "actual values:   " + diagnosis.compact(actual)] + _input_lines(vector, op), answer="values")


def _input_lines(vector, op):
    # Built for failures only: annotating the input is the costly part of a diagnosis.
    return [f"input ({op.name}): {op.hex}"] + _annotated(vector, bytes.fromhex(op.hex))


def _reject(vector, op, response):
    wanted = vector["error"]
    if "error" in response and response["error"]["class"] == wanted:
        return Outcome("pass", f"rejected with {wanted}", answer=f"error:{wanted}")
    context = ([f"input: {op.hex}"] + _annotated(vector, bytes.fromhex(op.hex)) if op.cmd == "decode"
               else ["values: " + diagnosis.compact(vector["values"])])
    if "error" in response:
        got = response["error"]["class"]
        return Outcome("fail", f"expected error {wanted}, got {_error_text(response)}",
                       [f"expected class: {wanted}", f"actual outcome: {_error_text(response)}"] + context,
                       answer=f"error:{got}")
    if "values" in response:
        return Outcome("fail", f"expected error {wanted}, but it decoded",
                       [f"expected class: {wanted}", "actual outcome: decoded to " +
                        diagnosis.compact(response["values"])] + context, answer="values")
    return Outcome("fail", f"expected error {wanted}, but it encoded",
                   [f"expected class: {wanted}", f"actual outcome: wrote {response['hex']}"] +
                   _annotated(vector, bytes.fromhex(response["hex"])) + context, answer="hex")


def _annotated(vector, data):
    """Annotated bytes: MessagePack by its structure; a Binary Tuple (bare, or in an object's / row's bin) by its
    offset table and elements."""
    fmt = vector.get("format", "msgpack")
    if fmt == "msgpack":
        return diagnosis.annotated(data)
    return tuple_annotate.annotate_format(data, fmt, vector.get("columns"))
