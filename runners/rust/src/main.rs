//! Conformance runner for rmp 0.8.11: protocol v1 (schema/protocol.schema.json) over stdin/stdout.
//!
//! One JSON request per line in, one JSON response per line out (flushed); logs go to stderr only.
//! The runner never sees expected results: it encodes or decodes what it is given and the harness judges.

use std::collections::HashMap;
use std::io::{self, BufRead, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

use ignite_runner::errors::{from_hex, unsupported, Failure, Hex, Result};
use ignite_runner::ignite_ext::Registry;
use ignite_runner::json::Json;
use ignite_runner::{binary_tuple, codec, frames};
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{json, Value};

const PROTOCOL: i64 = 1;
const CORPUS_MAJORS: [u64; 1] = [1];
/// The runner runs with cwd runners/rust (runner.json).
const REGISTRY: &str = "../../schema/registry.json";
/// Requests nest typed values two JSON levels per container, and serde_json recurses per level (its default
/// limit of 128 is off). A request deeper than this is answered `skipped` without being parsed: 10,000 levels
/// of typed values and the envelope, the Java runner's bound.
const MAX_JSON_DEPTH: usize = 20_100;
/// Room for that depth (parsing, encoding and dropping recurse): only the touched pages become resident.
const STACK_BYTES: usize = 512 << 20;

fn log(message: &str) {
    eprintln!("rust-runner: {message}");
}

fn start_response(reg: &Registry) -> Value {
    json!({
        "protocol": PROTOCOL,
        "name": "rust",
        "language": format!("rust {}", env!("RUNNER_RUSTC_VERSION")),
        "library": "rmp",
        "library_version": ignite_runner::RMP_VERSION,
        "corpus_majors": CORPUS_MAJORS,
        "capabilities": {
            "ops": ["encode", "decode"],
            "eras": reg.eras,
            "formats": ["msgpack", "binary-tuple", "object", "object-array", "table-row", "collection", "compute-arg", "batched-arguments", "frame"],
        },
    })
}

fn text<'a>(req: &'a Json, name: &str) -> Option<&'a str> {
    req.get(name).and_then(Json::as_str)
}

/// The response to a request with an id, written by `Serialize` straight to the output: encoded bytes and
/// decoded values are never built as a JSON tree first (the corpus has answers of 3 MB).
struct Answer<'a> {
    id: Value,
    body: Body<'a>,
}

enum Body<'a> {
    Hex(Vec<u8>),
    /// msgpack values, borrowing from the decoded request bytes
    Decoded(Vec<codec::Decoded<'a>>),
    /// Binary Tuple values
    Values(Vec<Value>),
    /// a frame's named fields
    Fields(Value),
    Error { class: &'static str, message: String },
    Skipped(String),
}

impl Serialize for Answer<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(2))?;
        m.serialize_entry("id", &self.id)?;
        match &self.body {
            Body::Hex(bytes) => m.serialize_entry("hex", &Hex(bytes))?,
            Body::Decoded(values) => m.serialize_entry("values", values)?,
            Body::Values(values) => m.serialize_entry("values", values)?,
            Body::Fields(fields) => m.serialize_entry("fields", fields)?,
            Body::Error { class, message } => m.serialize_entry("error", &json!({"class": class, "message": message}))?,
            Body::Skipped(why) => m.serialize_entry("skipped", why)?,
        }
        m.end()
    }
}

/// The response body for an encode or decode request; `data` holds a decode request's bytes.
fn handle<'a>(req: &'a Json<'a>, reg: &'a Registry, data: &'a mut Vec<u8>) -> Result<Body<'a>> {
    let cmd = text(req, "cmd").unwrap_or("");
    let era = text(req, "era").unwrap_or("");
    if !reg.knows_era(era) {
        return unsupported(format!("unknown era {era:?}"));
    }
    let fmt = text(req, "format").unwrap_or("msgpack");
    let list = |name: &str| req.get(name).and_then(Json::as_array).unwrap_or(&[]);
    // The Binary Tuple formats read Values; their requests are small.
    let values_of = |name: &str| list(name).iter().map(Json::to_value).collect::<Vec<_>>();
    if cmd == "decode" {
        *data = from_hex(text(req, "hex").unwrap_or(""))?;
    }
    let data: &'a Vec<u8> = data;
    // A frame's kind and the features its connection negotiated (names).
    let frame = text(req, "frame").unwrap_or("");
    let features: Vec<&str> = list("features").iter().filter_map(Json::as_str).collect();
    match (cmd, fmt) {
        ("encode", "frame") => {
            let fields = req.get("fields").map_or(Value::Null, Json::to_value);
            Ok(Body::Hex(frames::encode(frame, &fields, &features, reg)?))
        }
        ("decode", "frame") => Ok(Body::Fields(frames::decode(frame, data, &features, era, reg)?)),
        ("encode", "msgpack") => Ok(Body::Hex(codec::encode_json(list("values"), reg)?)),
        ("decode", "msgpack") => Ok(Body::Decoded(codec::decode_lazily(data, era, reg)?)),
        // Binary Tuple formats (spec 6.2)
        ("encode", _) => Ok(Body::Hex(binary_tuple::encode(fmt, &values_of("values"), era, reg)?)),
        ("decode", _) => Ok(Body::Values(binary_tuple::decode(fmt, data, era, &values_of("columns"), reg)?)),
        _ => unsupported(format!("unknown command {cmd:?}")),
    }
}

/// `catch_unwind` for a call whose result borrows what the closure captured (an `FnOnce`).
fn guarded<T>(f: impl FnOnce() -> T) -> std::thread::Result<T> {
    catch_unwind(AssertUnwindSafe(f))
}

/// Writes exactly one response for a request that carries an id; codec errors become responses, and so does a
/// panic (a runner bug, not a verdict on the input: answered `skipped`, which fails the run unless listed).
fn answer(out: &mut impl Write, id: Value, req: &Json, reg: &Registry) -> io::Result<()> {
    let mut data = Vec::new();
    let body = match guarded(|| handle(req, reg, &mut data)) {
        Ok(Ok(body)) => body,
        Ok(Err(Failure::Wire { class, message })) => Body::Error { class, message },
        Ok(Err(Failure::Unsupported(why))) => Body::Skipped(why),
        Err(_) => {
            log(&format!("request {id}: internal error (panic above)"));
            Body::Skipped("internal error: the runner panicked (see its stderr)".into())
        }
    };
    write(out, &Answer { id, body })
}

/// The deepest `[`/`{` nesting of a JSON text (strings skipped): checked before parsing, which recurses per level.
fn json_depth(line: &[u8]) -> usize {
    let (mut depth, mut deepest, mut in_str, mut escaped) = (0usize, 0usize, false, false);
    for &b in line {
        if in_str {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_str = false,
                _ => {}
            }
        } else {
            match b {
                b'"' => in_str = true,
                b'[' | b'{' => {
                    depth += 1;
                    deepest = deepest.max(depth);
                }
                b']' | b'}' => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
    }
    deepest
}

/// The id of a request too deep to parse into a `Value`: serde_json skips the other members (RawValue) with an
/// explicit stack, not by recursing.
fn shallow_id(line: &[u8]) -> Option<Value> {
    let envelope: HashMap<String, Box<RawValue>> = serde_json::from_slice(line).ok()?;
    serde_json::from_str(envelope.get("id")?.get()).ok()
}

fn parse(line: &[u8]) -> serde_json::Result<Json<'_>> {
    let mut de = serde_json::Deserializer::from_slice(line);
    de.disable_recursion_limit();
    let v = Json::deserialize(&mut de)?;
    de.end()?;
    Ok(v)
}

fn write(out: &mut impl Write, v: &impl Serialize) -> io::Result<()> {
    serde_json::to_writer(&mut *out, v)?; // escapes control characters; UTF-8 otherwise
    out.write_all(b"\n")
}

fn serve(reg: &Registry) -> io::Result<()> {
    // Own buffers on both sides, so the loop can see whether a complete request is already read: answers are
    // flushed once before a read that could block (PROTOCOL.md 1), not per line.
    let mut input = io::BufReader::with_capacity(1 << 16, io::stdin());
    let stdout = io::stdout();
    let mut out = io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let mut line = Vec::new();
    loop {
        if !input.buffer().contains(&b'\n') {
            out.flush()?;
        }
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            return out.flush(); // end of input means stop
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let shown = || String::from_utf8_lossy(&line[..line.len().min(200)]).into_owned();
        let depth = json_depth(&line);
        if depth > MAX_JSON_DEPTH {
            let why = format!("the request nests {depth} levels of JSON, over this runner's {MAX_JSON_DEPTH}");
            match shallow_id(&line) {
                Some(id) => write(&mut out, &json!({"id": id, "skipped": why}))?,
                None => log(&format!("{why}, and no id to answer: {}", shown())),
            }
            continue;
        }
        let req = match parse(&line) {
            Ok(req) => req,
            Err(e) => {
                log(&format!("unreadable request line, no id to answer ({e}): {}", shown()));
                continue;
            }
        };
        match (text(&req, "cmd"), req.get("id")) {
            (Some("stop"), _) => return out.flush(),
            (Some("start"), _) => {
                let protocol = req.get("protocol").map_or(Value::Null, Json::to_value);
                if protocol.as_i64() != Some(PROTOCOL) {
                    log(&format!("harness speaks protocol {protocol}, this runner {PROTOCOL}"));
                }
                write(&mut out, &start_response(reg))?;
            }
            (_, Some(id)) => answer(&mut out, id.to_value(), &req, reg)?,
            _ => log(&format!("request without id ignored: {}", shown())),
        }
    }
}

/// glibc malloc, tuned before the worker thread starts (mallopt(3)). Without this the thread gets its own arena,
/// which grows by small mprotect steps and hands memory back between requests, so every big request touches
/// fresh pages again (page faults were a quarter of a big decode). One arena, grown and kept in 64 MiB steps,
/// and no mmap for blocks under 256 MiB (the few-MB buffers of the big requests are reused, not re-faulted).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn tune_malloc() {
    extern "C" {
        fn mallopt(param: i32, value: i32) -> i32;
    }
    const M_TRIM_THRESHOLD: i32 = -1;
    const M_TOP_PAD: i32 = -2;
    const M_MMAP_THRESHOLD: i32 = -3;
    const M_ARENA_MAX: i32 = -8;
    // SAFETY: mallopt only changes malloc's parameters; it is called before any other thread exists.
    unsafe {
        mallopt(M_ARENA_MAX, 1);
        mallopt(M_TOP_PAD, 64 << 20);
        mallopt(M_TRIM_THRESHOLD, 256 << 20);
        mallopt(M_MMAP_THRESHOLD, 256 << 20);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn tune_malloc() {}

fn main() {
    tune_malloc();
    let reg = match Registry::load(Path::new(REGISTRY)) {
        Ok(reg) => reg,
        Err(e) => {
            log(&format!("cannot read the registry: {e}"));
            std::process::exit(2);
        }
    };
    let worker = std::thread::Builder::new().name("runner".into()).stack_size(STACK_BYTES).spawn(move || serve(&reg));
    match worker.map(|w| w.join()) {
        Ok(Ok(Ok(()))) => {}
        Ok(Ok(Err(e))) if e.kind() == io::ErrorKind::BrokenPipe => log("stdout closed"),
        Ok(Ok(Err(e))) => {
            log(&format!("I/O error: {e}"));
            std::process::exit(1);
        }
        Ok(Err(_)) => std::process::exit(101), // the panic was printed
        Err(e) => {
            log(&format!("cannot start the runner thread: {e}"));
            std::process::exit(1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_counts_brackets_outside_strings() {
        assert_eq!(json_depth(br#"{"a":[[1],{"b":"[[[{"}]}"#), 3);
        assert_eq!(json_depth(br#"{"s":"\"[["}"#), 1);
    }

    #[test]
    fn a_request_too_deep_to_parse_still_has_its_id() {
        let deep = format!(r#"{{"cmd":"encode","values":{}{}, "id": 7}}"#, "[".repeat(100_000), "]".repeat(100_000));
        assert_eq!(shallow_id(deep.as_bytes()), Some(json!(7)));
    }
}
