// Protocol loop of the C++ runner (schema/protocol.schema.json, version 1): one JSON request per stdin line,
// one JSON response per stdout line (flushed before any read that could block), logs on stderr.
#include <iostream>
#include <string>

#include <msgpack/version_master.h>  // plain version macros (version.h needs the C library's export macros)
#include <nlohmann/json.hpp>

#include "binary_tuple.hpp"
#include "codec.hpp"
#include "errors.hpp"
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
              {"formats", {"msgpack", "binary-tuple", "object", "object-array", "table-row", "collection", "compute-arg"}}}}};
}

ignite::Era request_era(const ojson& req) {
    auto era = ignite::parse_era(req.value("era", ""));
    if (!era) throw Unsupported("unknown era '" + req.value("era", "") + "'");
    return *era;
}

// The answer to an encode or decode request; failures become error or skipped responses.
ojson answer(const std::string& cmd, const ojson& req) {
    ojson resp = {{"id", req.at("id")}};
    try {
        const std::string format = req.value("format", "msgpack");
        const ojson columns = req.value("columns", ojson());  // null when absent
        if (format != "msgpack" && !binary_tuple::is_format(format))
            throw Unsupported("unknown format '" + format + "'");
        if (format != "msgpack" && cmd == "decode") {  // Binary Tuple formats (spec 6.2)
            std::vector<std::uint8_t> bytes = codec::from_hex(req.value("hex", ""));
            resp["values"] = binary_tuple::decode(format, bytes, request_era(req), columns);
        } else if (format != "msgpack" && cmd == "encode") {
            std::vector<std::uint8_t> bytes = binary_tuple::encode(format, req.at("values"), request_era(req), columns);
            resp["hex"] = codec::to_hex(bytes.data(), bytes.size());
        } else if (cmd == "decode") {
            resp["values"] = codec::decode(codec::from_hex(req.value("hex", "")), request_era(req));
        } else if (cmd == "encode") {
            request_era(req);  // validated only: each Ignite value carries its own era
            std::vector<std::uint8_t> bytes = codec::encode(req.at("values"));
            resp["hex"] = codec::to_hex(bytes.data(), bytes.size());
        } else {
            throw Unsupported("unknown command '" + cmd + "'");
        }
    } catch (const WireError& e) {
        resp = {{"id", req.at("id")}, {"error", {{"class", e.error_class}, {"message", e.what()}}}};
    } catch (const Unsupported& e) {
        resp = {{"id", req.at("id")}, {"skipped", e.what()}};
    } catch (const nlohmann::json::exception& e) {  // a field of the wrong JSON type in the request
        resp = {{"id", req.at("id")}, {"skipped", std::string("request does not follow the protocol: ") + e.what()}};
    }
    return resp;
}

}  // namespace

int main() {
    std::ios::sync_with_stdio(false);
    StdinLines lines;
    std::string line;
    while (lines.next(line)) {
        if (line.empty()) continue;
        ojson req = ojson::parse(line, nullptr, /*allow_exceptions=*/false);
        if (req.is_discarded() || !req.is_object() || !req.contains("cmd")) {
            std::cerr << "cpp runner: not a request, giving up: " << line.substr(0, 200) << "\n";
            return 2;
        }
        const std::string cmd = req["cmd"].is_string() ? req["cmd"].get<std::string>() : "";
        if (cmd == "stop") return std::cout.flush() ? 0 : 1;
        ojson resp;
        if (cmd == "start") {
            resp = hello();
        } else if (req.contains("id")) {
            resp = answer(cmd, req);
        } else {
            std::cerr << "cpp runner: request without id, giving up: " << line.substr(0, 200) << "\n";
            return 2;
        }
        // Library messages may quote input bytes: never let them break the JSON line.
        std::cout << resp.dump(-1, ' ', false, ojson::error_handler_t::replace) << '\n';
        if (!lines.line_buffered()) std::cout.flush();  // flushed before any read that could block
    }
    return 0;
}
