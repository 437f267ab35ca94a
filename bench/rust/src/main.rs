//! rmp benchmark: the IEP-75 cases and the Ignite.NET Person, through rmp's plain API on native Rust values and
//! through the runner's type-directed codec (runners/rust, the same crate `make verify` runs).
//!   bench/build/rust/release/ignite-bench bench/build/cases.json schema/registry.json [repeat] [seconds per repeat]
//! Timing: a plain timed loop on this thread's CPU time (clock_gettime(CLOCK_THREAD_CPUTIME_ID): other processes
//! on a shared machine count less): a warm-up that also calibrates the iteration count to about `seconds`, then
//! `repeat` repeats, each giving ops/s. Before anything is timed, both paths must write exactly the case's
//! canonical bytes and read its values back; a mismatch stops the run.

use std::path::Path;

use ignite_runner::codec;
use ignite_runner::errors::{from_hex, Failure};
use ignite_runner::ignite_ext::Registry;
use rmp::decode::{self as rd, Bytes};
use rmp::encode as wr;
use serde_json::{json, Value};

type Res<T> = Result<T, String>;

const SQL: &str = "select * from cars where year > ? and seats = ?";
const UUID_EXT: i8 = 3; // Ignite's UUID ext code (3.0: msb then lsb, each little-endian)

#[derive(Debug, Clone, PartialEq)]
enum Scalar {
    Nil,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
}

#[derive(Debug, Clone, PartialEq)]
struct Car {
    id: i64,
    model: String,
    year: i64,
    seats: i64,
}

#[derive(Debug, Clone, PartialEq)]
struct Person {
    id: i32,
    name: String,
    data: String,
    guid: u128, // the UUID's 128 bits, most significant first in its text
}

fn primitives() -> Vec<Scalar> {
    use Scalar::*;
    vec![Nil, Bool(false), Bool(true), Int(2005), Int(-1), Int(-2147483648), Int(4294967296), Float(0.1), Str("John Johnson".into())]
}

fn car() -> Car {
    Car { id: 42, model: "Mazda MX-5 Miata".into(), year: 2006, seats: 2 }
}

fn person() -> Person {
    Person { id: i32::MIN, name: "John Johnson".into(), data: "g".repeat(1000), guid: 0x6f24146a_244a_4018_a36c_3e9cf5b42082 }
}

// ---------------------------------------------------------------- plain: rmp on native values

fn e<E: std::fmt::Debug>(x: E) -> String {
    format!("{x:?}")
}

fn write_int(out: &mut Vec<u8>, n: i64) {
    wr::write_sint(out, n).expect("Vec");
}

fn write_scalars(values: &[Scalar]) -> Vec<u8> {
    let mut out = Vec::new();
    for v in values {
        match v {
            Scalar::Nil => wr::write_nil(&mut out).expect("Vec"),
            Scalar::Bool(b) => wr::write_bool(&mut out, *b).expect("Vec"),
            Scalar::Int(n) => write_int(&mut out, *n),
            Scalar::Float(x) => wr::write_f64(&mut out, *x).expect("Vec"),
            Scalar::Str(s) => wr::write_str(&mut out, s).expect("Vec"),
        }
    }
    out
}

fn read_str(cur: &mut Bytes) -> Res<String> {
    let (s, tail) = rd::read_str_from_slice(cur.remaining_slice()).map_err(e)?;
    let s = s.to_owned();
    *cur = Bytes::new(tail);
    Ok(s)
}

/// A client reading what it expects: one reader per position.
fn read_primitives(bytes: &[u8]) -> Res<Vec<Scalar>> {
    let cur = &mut Bytes::new(bytes);
    rd::read_nil(cur).map_err(e)?;
    let mut out = vec![Scalar::Nil];
    for _ in 0..2 {
        out.push(Scalar::Bool(rd::read_bool(cur).map_err(e)?));
    }
    for _ in 0..4 {
        out.push(Scalar::Int(rd::read_int(cur).map_err(e)?));
    }
    out.push(Scalar::Float(rd::read_f64(cur).map_err(e)?));
    out.push(Scalar::Str(read_str(cur)?));
    Ok(out)
}

fn write_sql(sql: &str, args: &[i64]) -> Vec<u8> {
    let mut out = Vec::new();
    wr::write_str(&mut out, sql).expect("Vec");
    wr::write_array_len(&mut out, args.len() as u32).expect("Vec");
    for &a in args {
        write_int(&mut out, a);
    }
    out
}

fn read_sql(bytes: &[u8]) -> Res<(String, Vec<i64>)> {
    let cur = &mut Bytes::new(bytes);
    let sql = read_str(cur)?;
    let n = rd::read_array_len(cur).map_err(e)?;
    let args = (0..n).map(|_| rd::read_int(cur).map_err(e)).collect::<Res<Vec<i64>>>()?;
    Ok((sql, args))
}

fn write_car_named(c: &Car) -> Vec<u8> {
    let mut out = Vec::new();
    wr::write_map_len(&mut out, 4).expect("Vec");
    for (key, int) in [("id", Some(c.id)), ("model", None), ("year", Some(c.year)), ("seats", Some(c.seats))] {
        wr::write_str(&mut out, key).expect("Vec");
        match int {
            Some(n) => write_int(&mut out, n),
            None => wr::write_str(&mut out, &c.model).expect("Vec"),
        }
    }
    out
}

fn read_car_named(bytes: &[u8]) -> Res<Car> {
    let cur = &mut Bytes::new(bytes);
    let mut car = Car { id: 0, model: String::new(), year: 0, seats: 0 };
    for _ in 0..rd::read_map_len(cur).map_err(e)? {
        match read_str(cur)?.as_str() {
            "id" => car.id = rd::read_int(cur).map_err(e)?,
            "model" => car.model = read_str(cur)?,
            "year" => car.year = rd::read_int(cur).map_err(e)?,
            "seats" => car.seats = rd::read_int(cur).map_err(e)?,
            other => return Err(format!("unknown field {other}")),
        }
    }
    Ok(car)
}

fn write_car_positional(c: &Car) -> Vec<u8> {
    let mut out = Vec::new();
    wr::write_array_len(&mut out, 4).expect("Vec");
    write_int(&mut out, c.id);
    wr::write_str(&mut out, &c.model).expect("Vec");
    write_int(&mut out, c.year);
    write_int(&mut out, c.seats);
    out
}

fn read_car_positional(bytes: &[u8]) -> Res<Car> {
    let cur = &mut Bytes::new(bytes);
    if rd::read_array_len(cur).map_err(e)? != 4 {
        return Err("a Car is 4 fields".into());
    }
    let id = rd::read_int(cur).map_err(e)?;
    let model = read_str(cur)?;
    Ok(Car { id, model, year: rd::read_int(cur).map_err(e)?, seats: rd::read_int(cur).map_err(e)? })
}

fn write_person(p: &Person) -> Vec<u8> {
    let mut out = Vec::with_capacity(1040);
    wr::write_array_len(&mut out, 4).expect("Vec");
    write_int(&mut out, p.id as i64);
    wr::write_str(&mut out, &p.name).expect("Vec");
    wr::write_str(&mut out, &p.data).expect("Vec");
    wr::write_ext_meta(&mut out, 16, UUID_EXT).expect("Vec");
    out.extend(((p.guid >> 64) as u64).to_le_bytes());
    out.extend((p.guid as u64).to_le_bytes());
    out
}

fn read_person(bytes: &[u8]) -> Res<Person> {
    let cur = &mut Bytes::new(bytes);
    if rd::read_array_len(cur).map_err(e)? != 4 {
        return Err("a Person is 4 fields".into());
    }
    let id = rd::read_int(cur).map_err(e)?;
    let name = read_str(cur)?;
    let data = read_str(cur)?;
    let meta = rd::read_ext_meta(cur).map_err(e)?;
    let p = cur.remaining_slice();
    if meta.typeid != UUID_EXT || meta.size != 16 || p.len() < 16 {
        return Err("not a UUID".into());
    }
    let half = |b: &[u8]| u64::from_le_bytes(b.try_into().expect("8 bytes")) as u128;
    Ok(Person { id, name, data, guid: half(&p[..8]) << 64 | half(&p[8..16]) })
}

// ---------------------------------------------------------------- timing

/// Keeps the optimiser from dropping a result (std::hint::black_box needs rustc 1.66; Debian's is 1.63).
fn keep<T>(x: T) -> T {
    let y = unsafe { std::ptr::read_volatile(&x) };
    std::mem::forget(x);
    y
}

/// A reader's native value, kept from the optimiser, then dropped (as a client's would be).
fn kept<T>(x: T) {
    drop(keep(x));
}

fn cpu_seconds() -> f64 {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}

fn timed<T>(iters: u64, f: &mut impl FnMut() -> T) -> f64 {
    let start = cpu_seconds();
    for _ in 0..iters {
        keep(f());
    }
    cpu_seconds() - start
}

/// Sorted ops/s of each repeat, after a warm-up that doubles the loop until it takes a tenth of `seconds`.
fn rates<T>(repeat: usize, seconds: f64, mut f: impl FnMut() -> T) -> Vec<f64> {
    let mut iters = 1u64;
    let mut took = timed(iters, &mut f);
    while took < seconds / 10.0 {
        iters *= 2;
        took = timed(iters, &mut f);
    }
    let iters = ((iters as f64) * seconds / took).max(1.0) as u64;
    let mut out: Vec<f64> = (0..repeat).map(|_| iters as f64 / timed(iters, &mut f)).collect();
    out.sort_by(|a, b| a.partial_cmp(b).expect("finite"));
    out
}

// ---------------------------------------------------------------- the cases

fn fail(x: Failure) -> String {
    x.to_string()
}

fn main() -> Res<()> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        return Err("usage: ignite-bench CASES.json REGISTRY.json [repeat] [seconds]".into());
    }
    let cases: Value = serde_json::from_str(&std::fs::read_to_string(&args[1]).map_err(e)?).map_err(e)?;
    let reg = Registry::load(Path::new(&args[2]))?;
    let repeat: usize = args.get(3).map_or(Ok(7), |a| a.parse()).map_err(e)?;
    let seconds: f64 = args.get(4).map_or(Ok(0.1), |a| a.parse()).map_err(e)?;
    let library = format!("rmp {}", ignite_runner::RMP_VERSION);

    let (prims, car, person) = (primitives(), car(), person());
    for (name, c) in cases["cases"].as_object().ok_or("no cases")? {
        let canonical = from_hex(c["hex"].as_str().ok_or("no hex")?).map_err(fail)?;
        let values = c["values"].as_array().ok_or("no values")?.clone();
        let era = c["era"].as_str().ok_or("no era")?.to_owned();
        // The plain path of each case: its writer, its reader (timed), and that reader checked against the
        // native value (not timed).
        type Read<'a> = Box<dyn Fn(&[u8]) -> Res<()> + 'a>;
        type ReadOk<'a> = Box<dyn Fn(&[u8]) -> Res<bool> + 'a>;
        let (write, read, read_ok): (Box<dyn Fn() -> Vec<u8>>, Read, ReadOk) = match name.as_str() {
            "primitives" => (Box::new(|| write_scalars(&prims)), Box::new(|b| read_primitives(b).map(kept)),
                             Box::new(|b| Ok(read_primitives(b)? == prims))),
            "sql-request" => (Box::new(|| write_sql(SQL, &[2005, 2])), Box::new(|b| read_sql(b).map(kept)),
                              Box::new(|b| Ok(read_sql(b)? == (SQL.into(), vec![2005, 2])))),
            "pojo-named" => (Box::new(|| write_car_named(&car)), Box::new(|b| read_car_named(b).map(kept)),
                             Box::new(|b| Ok(read_car_named(b)? == car))),
            "pojo-positional" => (Box::new(|| write_car_positional(&car)), Box::new(|b| read_car_positional(b).map(kept)),
                                  Box::new(|b| Ok(read_car_positional(b)? == car))),
            "person" => (Box::new(|| write_person(&person)), Box::new(|b| read_person(b).map(kept)),
                         Box::new(|b| Ok(read_person(b)? == person))),
            other => return Err(format!("unknown case {other}")),
        };
        let typed_write = || codec::encode(&values, &reg).map_err(fail);
        let typed_read = |b: &[u8]| codec::decode(b, &era, &reg).map_err(fail);
        let checks = [
            ("plain write", write() == canonical),
            ("plain read", read_ok(&canonical)?),
            ("typed write", typed_write()? == canonical),
            ("typed read", typed_read(&canonical)? == values),
        ];
        let bad: Vec<&str> = checks.iter().filter(|(_, ok)| !ok).map(|(what, _)| *what).collect();
        if !bad.is_empty() {
            return Err(format!("rust {name}: {} differ from the case's bytes/values", bad.join(", ")));
        }
        let results: Vec<(&str, &str, Vec<f64>)> = if name == "person" {
            vec![
                ("roundtrip", "plain", rates(repeat, seconds, || read(&write()))),
                ("roundtrip", "typed", rates(repeat, seconds, || typed_read(&typed_write().unwrap_or_default()).map(|v| v.len()))),
            ]
        } else {
            vec![
                ("write", "plain", rates(repeat, seconds, &write)),
                ("read", "plain", rates(repeat, seconds, || read(&canonical))),
                ("write", "typed", rates(repeat, seconds, typed_write)),
                ("read", "typed", rates(repeat, seconds, || typed_read(&canonical))),
            ]
        };
        for (op, path, r) in results {
            let line = json!({"lang": "rust", "library": library, "timer": "plain timed loop x repeats, thread CPU time",
                              "case": name, "op": op, "path": path, "bytes": canonical.len(),
                              "median": r[r.len() / 2], "min": r[0], "max": r[r.len() - 1], "n": repeat});
            println!("{line}");
        }
    }
    Ok(())
}
