"""Ignite extension payloads, one builder per layout id of schema/registry.json.

Written from the layouts in spec.md (which cite apache/ignite-3 ClientMessagePacker at f6bad72d20a
and 3e2687b68f7); the registry says which era gives which code which layout.
"""
import calendar
import json
import uuid as uuidlib
from pathlib import Path

from . import wire

REGISTRY = json.loads((Path(__file__).resolve().parent.parent / "schema" / "registry.json").read_text())
LAYOUTS = {layout["id"]: layout for layout in REGISTRY["layouts"]}
IGNITE_ERAS = [era["id"] for era in REGISTRY["eras"] if era["ignite"]]

# Instant.MIN / Instant.MAX epoch seconds (java.time.Instant).
INSTANT_MIN, INSTANT_MAX = -31557014167219200, 31556889864403199
YEAR_MIN, YEAR_MAX = -999999999, 999999999


class Invalid(ValueError):
    """The value has no valid payload; carries the error class a codec must report."""

    def __init__(self, error_class: str, why: str):
        super().__init__(why)
        self.error_class = error_class


def ext_code(value_type: str, era: str) -> tuple[int, str]:
    """(code, layout id) of an Ignite value type in an era, or Invalid(unrepresentable)."""
    for ext in REGISTRY["ext_types"]:
        layout = ext["layouts"].get(era)
        if layout and LAYOUTS[layout]["value_type"] == value_type:
            return ext["code"], layout
    raise Invalid("unrepresentable", f"era {era} assigns no ext code to {value_type}")


def twos_complement(n: int, extra: int = 0) -> bytes:
    """Minimal big-endian two's complement, like BigInteger.toByteArray(); `extra` sign-extends."""
    bit_length = n.bit_length() if n >= 0 else (~n).bit_length()
    return n.to_bytes(bit_length // 8 + 1 + extra, "big", signed=True)


def uuid_be(text: str) -> bytes:
    return uuidlib.UUID(text).bytes


def uuid_le(text: str) -> bytes:
    raw = uuidlib.UUID(text).bytes
    return raw[7::-1] + raw[:7:-1]  # each 64-bit half reversed


def check_date(year: int, month: int, day: int) -> None:
    if not YEAR_MIN <= year <= YEAR_MAX:
        raise Invalid("invalid.ext-value", f"year {year} outside java.time.LocalDate's range")
    if not 1 <= month <= 12:
        raise Invalid("invalid.ext-value", f"month {month}")
    # calendar.isleap is the proleptic Gregorian rule for any integer year (year 0 is a leap year).
    days = [31, 29 if calendar.isleap(year) else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
    if not 1 <= day <= days:
        raise Invalid("invalid.ext-value", f"day {day} of {year}-{month:02}")


def check_time(hour: int, minute: int, second: int, nano: int) -> None:
    for name, value, high in (("hour", hour, 23), ("minute", minute, 59), ("second", second, 59), ("nano", nano, 999_999_999)):
        if not 0 <= value <= high:
            raise Invalid("invalid.ext-value", f"{name} {value}")


def date_payload(v: dict) -> bytes:
    check_date(v["year"], v["month"], v["day"])
    return wire.be(v["year"], 4, signed=True) + bytes([v["month"], v["day"]])


def time_payload(v: dict) -> bytes:
    check_time(v["hour"], v["minute"], v["second"], v["nano"])
    return bytes([v["hour"], v["minute"], v["second"]]) + wire.be(v["nano"], 4, signed=True)


def timestamp_payload(v: dict) -> bytes:
    seconds = int(v["seconds"])
    if not INSTANT_MIN <= seconds <= INSTANT_MAX:
        raise Invalid("invalid.ext-value", f"epoch second {seconds} outside java.time.Instant's range")
    if not 0 <= v["nano"] <= 999_999_999:
        raise Invalid("invalid.ext-value", f"nano {v['nano']}")
    return wire.be(seconds, 8, signed=True) + wire.be(v["nano"], 4, signed=True)


def bitmask_payload(v: dict) -> bytes:
    bits = v["bits"]
    if bits != sorted(set(bits)):
        raise ValueError("bitmask bits must be strictly ascending")
    out = bytearray((max(bits) // 8 + 1) if bits else 0)
    for i in bits:
        out[i // 8] |= 1 << (i % 8)
    return bytes(out)


def decimal_int32_payload(v: dict) -> bytes:
    if not -(2**31) <= v["scale"] < 2**31:
        raise Invalid("unrepresentable", f"scale {v['scale']} outside int32")
    return wire.be(v["scale"], 4, signed=True) + twos_complement(int(v["unscaled"]))


def decimal_varint_payload(v: dict) -> bytes:
    if not -(2**31) <= v["scale"] < 2**31:
        raise Invalid("unrepresentable", f"scale {v['scale']} outside int32")
    return wire.integer(v["scale"]) + twos_complement(int(v["unscaled"]))


def ignite_uuid_payload(v: dict) -> bytes:
    local = int(v["local"])
    if not -(2**63) <= local < 2**63:
        raise Invalid("unrepresentable", f"local id {local} outside int64")
    return uuid_be(v["global"]) + wire.be(local, 8, signed=True)


PAYLOAD = {
    "number": lambda v: twos_complement(int(v["value"])),
    "decimal-int32-scale": decimal_int32_payload,
    "decimal-varint-scale": decimal_varint_payload,
    "uuid-be": lambda v: uuid_be(v["value"]),
    "uuid-le": lambda v: uuid_le(v["value"]),
    "date": date_payload,
    "time": time_payload,
    "datetime": lambda v: date_payload(v) + time_payload(v),
    "timestamp": timestamp_payload,
    "bitmask": bitmask_payload,
    "ignite-uuid": ignite_uuid_payload,
    "no-value": lambda v: b"\x00",
}
assert set(PAYLOAD) == set(LAYOUTS), "every registry layout needs a payload builder"


def payload(value: dict) -> tuple[int, str, bytes]:
    """(ext code, layout id, canonical payload) of an Ignite-typed value in its own era."""
    code, layout = ext_code(value["type"], value["era"])
    return code, layout, PAYLOAD[layout](value)


def payload_variants(value: dict, layout: str) -> list[tuple[str, bytes, str, str]]:
    """Other payloads a decoder must read as the same value: (label, payload, why, rule)."""
    out = []
    if layout == "number":
        out.append(("sign-extended", twos_complement(int(value["value"]), 1), "one redundant sign byte", "EXT-NUMBER"))
    elif layout.startswith("decimal"):
        scale = payload_for_scale(layout, value["scale"])
        out.append(("unscaled-sign-extended", scale + twos_complement(int(value["unscaled"]), 1),
                    "unscaled value with one redundant sign byte", "EXT-NUMBER"))
        if layout == "decimal-varint-scale":
            canonical = wire.int_canonical_form(value["scale"])
            for form in wire.int_forms_holding(value["scale"]):
                if form != canonical and form not in ("uint64", "int64"):  # the scale is read as an int32
                    out.append((f"scale-{form}", wire.int_form(form, value["scale"]) + twos_complement(int(value["unscaled"])),
                                f"scale written as MessagePack {form}", "EXT-DECIMAL-VARINT"))
    elif layout == "bitmask":
        out.append(("trailing-zero", bitmask_payload(value) + b"\x00",
                    "one trailing zero byte (the .NET and C++ clients size the mask from the column count)", "EXT-BITMASK"))
    elif layout == "no-value":
        out.append(("payload-ff", b"\xff", "payload byte ff: readers ignore its value", "EXT-NO-VALUE"))
    return out


def payload_for_scale(layout: str, scale: int) -> bytes:
    return wire.be(scale, 4, signed=True) if layout == "decimal-int32-scale" else wire.integer(scale)
