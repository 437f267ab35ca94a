// Protocol loop of the C++ runner (schema/protocol.schema.json, version 1): one JSON request per stdin line,
// one JSON response per stdout line (flushed before any read that could block), logs on stderr.
// Usage: ignite-runner [path of schema/registry.json, default ../../schema/registry.json]
#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <msgpack/version_master.h>  // plain version macros (version.h needs the C library's export macros)
#include <nlohmann/json.hpp>

#include "binary_tuple.hpp"
#include "codec.hpp"
#include "errors.hpp"
#include "frames.hpp"
#include "ignite_ext.hpp"
#include "stdin_lines.hpp"

namespace {

using ojson = nlohmann::ordered_json;

constexpr int kProtocol = 1;
constexpr int kCorpusMajor = 1;

std::string library_version() {
    return std::to_string(NLOHMANN_JSON_VERSION_MAJOR) + "." + std::to_string(NLOHMANN_JSON_VERSION_MINOR) + "." +
           std::to_string(NLOHMANN_JSON_VERSION_PATCH) + " + " + std::to_string(MSGPACK_VERSION_MAJOR) + "." +
           std::to_string(MSGPACK_VERSION_MINOR) + "." + std::to_string(MSGPACK_VERSION_REVISION);
}

ojson hello() {
    return {{"protocol", kProtocol},
            {"name", "cpp"},
            {"language", "C++17"},
            {"library", "nlohmann/json + msgpack-c"},
            {"library_version", library_version()},
            {"corpus_majors", {kCorpusMajor}},
            {"capabilities",
             {{"ops", {"encode", "decode"}},
              {"eras", ignite::all_era_names()},
              {"formats", {"msgpack", "binary-tuple", "object", "object-array", "table-row", "collection", "compute-arg",
                          "batched-arguments", "frame"}}}}};
}

ignite::Era request_era(const ojson& req) {
    auto era = ignite::parse_era(req.value("era", ""));
    if (!era) throw Unsupported("unknown era '" + req.value("era", "") + "'");
    return *era;
}

// A field of the request, or null when absent (no copy: "hex" and "columns" can be large).
const ojson& field(const ojson& req, const char* name) {
    static const ojson absent;
    auto it = req.find(name);
    return it == req.end() ? absent : *it;
}

std::vector<std::uint8_t> request_bytes(const ojson& req) {
    const ojson& hex = field(req, "hex");
    return codec::from_hex(hex.is_null() ? std::string() : hex.get_ref<const std::string&>());
}

// Library messages may quote input bytes: never let them break the JSON line.
void append_json(std::string& out, const ojson& v) { out += v.dump(-1, ' ', false, ojson::error_handler_t::replace); }

// The parts of every answer are written directly: dump() sets up a serializer (and a 512-byte indent string) per
// call, which cost more than answering a small request. The text is the same as dump()'s.
void append_id(std::string& out, const ojson& id) {
    char digits[24];
    char* last = digits;
    if (id.is_number_unsigned()) last = std::to_chars(digits, digits + sizeof digits, id.get<std::uint64_t>()).ptr;
    else if (id.is_number_integer()) last = std::to_chars(digits, digits + sizeof digits, id.get<std::int64_t>()).ptr;
    else return append_json(out, id);
    out.append(digits, last);
}
void append_text(std::string& out, const std::string& text) {
    // dump() writes \n, \t... for some control characters and replaces invalid UTF-8: leave those to it.
    bool plain = codec::valid_utf8(text) &&
                 std::none_of(text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20; });
    if (plain) codec::append_json_string(out, text);
    else append_json(out, text);
}

void append_error(std::string& out, const ojson& id, const WireError& e) {
    out += "{\"id\":";
    append_id(out, id);
    out += ",\"error\":{\"class\":";
    append_text(out, e.error_class);
    out += ",\"message\":";
    append_text(out, e.what());
    out += "}}";
}

void append_skipped(std::string& out, const ojson& id, const std::string& reason) {
    out += "{\"id\":";
    append_id(out, id);
    out += ",\"skipped\":";
    append_text(out, reason);
    out += '}';
}

// Appends the answer to an encode or decode request to out; failures become error or skipped responses.
void answer(const std::string& cmd, const ojson& req, std::string& out) {
    const std::size_t start = out.size();
    const ojson& id = req.at("id");
    try {
        const std::string format = req.value("format", "msgpack");
        const ojson& columns = field(req, "columns");
        if (format != "msgpack" && format != "frame" && !binary_tuple::is_format(format))
            throw Unsupported("unknown format '" + format + "'");
        out += "{\"id\":";
        append_id(out, id);
        if (format == "frame" && (cmd == "decode" || cmd == "encode")) {  // one message (spec.md 11)
            if (request_era(req) != ignite::Era::V3_0) throw Unsupported("frames are era 3.0 only");
            const ojson& kind = req.at("frame");
            frames::Features features = frames::features_of(field(req, "features"));
            if (cmd == "decode") {
                out += ",\"fields\":";
                append_json(out, frames::decode(kind.get<std::string>(), request_bytes(req), features));
            } else {
                std::vector<std::uint8_t> bytes = frames::encode(kind.get<std::string>(), req.at("fields"), features);
                out += ",\"hex\":\"";
                codec::append_hex(out, bytes.data(), bytes.size());
                out += '"';
            }
        } else if (format != "msgpack" && cmd == "decode") {  // Binary Tuple formats (spec 6.2)
            out += ",\"values\":";
            append_json(out, binary_tuple::decode(format, request_bytes(req), request_era(req), columns));
        } else if (format != "msgpack" && cmd == "encode") {
            std::vector<std::uint8_t> bytes = binary_tuple::encode(format, req.at("values"), request_era(req), columns);
            out += ",\"hex\":\"";
            codec::append_hex(out, bytes.data(), bytes.size());
            out += '"';
        } else if (cmd == "decode") {
            std::vector<std::uint8_t> bytes = request_bytes(req);
            ignite::Era era = request_era(req);
            out += ",\"values\":";
            if (auto rejected = codec::decode(bytes, era, out)) {  // the common answer of the corpus: no exception
                out.resize(start);
                return append_error(out, id, *rejected);
            }
        } else if (cmd == "encode") {
            request_era(req);  // validated only: each Ignite value carries its own era
            std::vector<std::uint8_t> bytes = codec::encode(req.at("values"));
            out += ",\"hex\":\"";
            codec::append_hex(out, bytes.data(), bytes.size());
            out += '"';
        } else {
            throw Unsupported("unknown command '" + cmd + "'");
        }
        out += '}';
        return;
    } catch (const WireError& e) {
        out.resize(start);
        append_error(out, id, e);
    } catch (const Unsupported& e) {
        out.resize(start);
        append_skipped(out, id, e.what());
    } catch (const nlohmann::json::exception& e) {  // a field of the wrong JSON type in the request
        out.resize(start);
        append_skipped(out, id, std::string("request does not follow the protocol: ") + e.what());
    }
}

// Answers are collected here and written when the next read could block (or the buffer is large).
void write_out(std::string& out) {
    std::size_t at = 0;
    while (at < out.size()) {
        ssize_t n = ::write(1, out.data() + at, out.size() - at);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            std::cerr << "cpp runner: cannot write to stdout, giving up\n";
            std::exit(1);
        }
        at += static_cast<std::size_t>(n);
    }
    out.clear();
}

// The registry's frame layouts, read once at start (the harness runs the runner in runners/cpp/).
bool load_registry(const char* path) {
    try {
        std::ifstream in(path);
        if (!in) throw std::runtime_error("cannot open it");
        frames::load(ojson::parse(in));
        return true;
    } catch (const std::exception& e) {
        std::cerr << "cpp runner: cannot read the registry " << path << ": " << e.what() << "\n";
        return false;
    }
}

}  // namespace

int main(int argc, char** argv) {
    if (!load_registry(argc > 1 ? argv[1] : "../../schema/registry.json")) return 2;
    // Freed memory stays with the process, so a big request reuses the pages of the ones before it: on the VMs
    // the suite runs on, a first touch of a page (a page fault) costs more than parsing what goes in it.
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
    StdinLines lines;
    std::string_view line;
    std::string out;
    while (lines.next(line)) {
        if (line.empty()) continue;
        std::optional<ojson> req = codec::parse_request(line.data(), line.data() + line.size());
        if (!req || !req->is_object() || !req->contains("cmd")) {
            std::cerr << "cpp runner: not a request, giving up: " << line.substr(0, 200) << "\n";
            return 2;
        }
        const ojson& cmd_field = (*req)["cmd"];
        const std::string cmd = cmd_field.is_string() ? cmd_field.get<std::string>() : "";
        if (cmd == "stop") {
            write_out(out);
            return 0;
        }
        if (cmd == "start") {
            append_json(out, hello());
        } else if (req->contains("id")) {
            answer(cmd, *req, out);
        } else {
            std::cerr << "cpp runner: request without id, giving up: " << line.substr(0, 200) << "\n";
            return 2;
        }
        out += '\n';
        if (!lines.line_buffered() || out.size() >= (1 << 16)) write_out(out);  // before any read that could block
    }
    write_out(out);
    return 0;
}
