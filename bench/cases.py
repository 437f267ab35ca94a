"""Writes bench/build/cases.json: the benchmark cases as typed values and their canonical bytes.

The SQL request and the Person come from the corpus (seed.iep75.sql-request, seed.dotnet-benchmark.person); the
primitives and the Car POJO are the benchmark's own (IEP-75 names the cases but fixes no values), their bytes
built by the generator's byte builder, which shares no code with any runner. Every language's benchmark checks
that both its paths write exactly these bytes before it times anything.
"""
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from generator import wire  # noqa: E402
from generator.encode import canonical, dotnet_str_form, java_str_form  # noqa: E402

ERA = "msgpack"


def s(text):
    return {"type": "str", "value": text}


def i(n):
    return {"type": "int", "value": str(n)}


# One of each scalar family a client writes most: nil, bools, ints of four widths, a float64 that float32 cannot
# hold (so no library may shrink it), a short str.
PRIMITIVES = [{"type": "nil"}, {"type": "bool", "value": False}, {"type": "bool", "value": True}, i(2005), i(-1),
              i(-2147483648), i(4294967296), {"type": "float64", "bits": "3fb999999999999a"}, s("John Johnson")]

# The row the IEP-75 example query looks for: select * from cars where year > ? and seats = ?
CAR = [("id", i(42)), ("model", s("Mazda MX-5 Miata")), ("year", i(2006)), ("seats", i(2))]


def seed(vector_id):
    for v in json.loads((ROOT / "vectors/seed.json").read_text(encoding="utf-8"))["vectors"]:
        if v["id"] == vector_id:
            return v
    raise SystemExit(f"vectors/seed.json has no {vector_id}")


def case(era, values, hex_=None):
    built = b"".join(canonical(v) for v in values).hex()
    if hex_ is not None and built != hex_:
        raise SystemExit("the generator and the corpus disagree on a seed vector's bytes")
    return {"era": era, "values": values, "hex": built, "size": len(built) // 2}


def main():
    sql, person = seed("seed.iep75.sql-request"), seed("seed.dotnet-benchmark.person")
    fields = ["Id", "Name", "Data", "Guid"]
    person_named = {"type": "map", "entries": [[s(k), v] for k, v in zip(fields, person["values"][0]["items"])]}
    strs = [v["value"] for v in person["values"][0]["items"] if v["type"] == "str"]

    def with_headers(form_of):  # the Person's size when its strs get this writer's headers
        return person_size + sum(len(wire.str_header(len(t.encode()), form_of(t))) - len(wire.str_header(len(t.encode())))
                                 for t in strs)
    cases = {
        "primitives": case(ERA, PRIMITIVES),
        "sql-request": case(sql["era"], sql["values"], sql["canonical"]),
        "pojo-named": case(ERA, [{"type": "map", "entries": [[s(k), v] for k, v in CAR]}]),
        "pojo-positional": case(ERA, [{"type": "array", "items": [v for _, v in CAR]}]),
        "person": case(person["era"], person["values"], person["canonical"]),
    }
    # Sizes only (not timed): the Person with its field names, and the Java/.NET writers' string headers.
    person_size = cases["person"]["size"]
    sizes = {"person-named": len(canonical(person_named)), "person-java-headers": with_headers(java_str_form),
             "person-dotnet-headers": with_headers(dotnet_str_form)}
    out = ROOT / "bench/build/cases.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"cases": cases, "sizes": sizes}, indent=1) + "\n", encoding="utf-8")
    print(f"{out.relative_to(ROOT)}: " + ", ".join(f"{k} {c['size']} B" for k, c in cases.items()))


if __name__ == "__main__":
    main()
