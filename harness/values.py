"""Typed-value comparison: plain JSON equality; the one allowed exception is NaN-class matching of floats."""

from harness.msgpack_annotate import is_nan_bytes

_FLOAT_WIDTH = {"float32": 8, "float64": 16}


def is_nan(value):
    kind = value.get("type") if isinstance(value, dict) else None
    if kind not in _FLOAT_WIDTH or not isinstance(value.get("bits"), str) or len(value["bits"]) != _FLOAT_WIDTH[kind]:
        return False
    return is_nan_bytes(bytes.fromhex(value["bits"]), kind)


def first_difference(expected, actual, nan_class=False, path="$"):
    """None if equal, else the path of the first difference in the typed values (e.g. $[0].items[2].bits)."""
    if nan_class and is_nan(expected):
        # Any NaN of the same width matches; a float of the other width or a number does not.
        return None if is_nan(actual) and actual["type"] == expected["type"] else path
    if isinstance(expected, dict):
        if not isinstance(actual, dict) or expected.keys() != actual.keys():
            return path
        for key in expected:
            diff = first_difference(expected[key], actual[key], nan_class, f"{path}.{key}")
            if diff:
                return diff
        return None
    if isinstance(expected, list):
        if not isinstance(actual, list):
            return path
        for i, (e, a) in enumerate(zip(expected, actual)):
            diff = first_difference(e, a, nan_class, f"{path}[{i}]")
            if diff:
                return diff
        return None if len(expected) == len(actual) else f"{path}[{min(len(expected), len(actual))}]"
    # bool vs int: JSON true is not 1 (Python's == would say it is).
    if type(expected) is not type(actual) or expected != actual:
        return path
    return None
