// ignite-cpp: the runner protocol (runners/PROTOCOL.md) over the official Apache Ignite 3 C++ client's own wire
// code. Every request is answered in a forked child (isolate.cpp); formats.cpp makes the client calls.
#include "formats.hpp"
#include "isolate.hpp"

#include <msgpack.h>

#include <cstdlib>
#include <iostream>
#include <string>

using icpp::json;

namespace {

constexpr unsigned CHILD_SECONDS = 5;

std::string answer(const json &req) {
    auto id = req.at("id").get<unsigned long long>();
    std::string format = req.value("format", "msgpack");
    try {
        if (req.at("cmd") == "encode")
            return json{{"id", id}, {"hex", icpp::to_hex(icpp::encode(req))}}.dump();
        // A str the client read is its raw bytes: ill-formed UTF-8 is shown with U+FFFD, as the harness would.
        return json{{"id", id}, {"values", icpp::decode(req)}}.dump(-1, ' ', false, json::error_handler_t::replace);
    } catch (const icpp::no_api &e) {
        return json{{"id", id}, {"skipped", e.what()}}.dump(-1, ' ', false, json::error_handler_t::replace);
    } catch (const std::exception &e) {
        std::string cls, why;
        if (icpp::error_class(e, format, cls, why))
            return json{{"id", id}, {"error", {{"class", cls}, {"message", e.what()}}}}.dump(
                -1, ' ', false, json::error_handler_t::replace);
        return json{{"id", id}, {"skipped", why}}.dump(-1, ' ', false, json::error_handler_t::replace);
    }
}

json start_answer() {
    json formats = icpp::claimed_formats();
    json caps = {{"ops", {"encode", "decode"}}, {"eras", {"3.0"}}, {"formats", formats}};
    // The tuple parser's "Too short byte buffer" and the reader's "No more data in stream" each cover several
    // malformed.* classes: the runner answers the family (harness verdict 'coarse'). IGNITE_CPP_COARSE=0 leaves
    // the member out for a harness that does not know it yet.
    const char *coarse = std::getenv("IGNITE_CPP_COARSE");
    if (!coarse || std::string(coarse) != "0")
        caps["coarse_classes"] = {"malformed"};
    return {{"protocol", 1}, {"name", "ignite-cpp"}, {"language", "c++"},
        {"library", "Apache Ignite 3 C++ client (protocol, tuple, common) on msgpack-c"},
        {"library_version", std::string("ignite-3 ") + IGNITE_REF + ", msgpack-c " + msgpack_version()},
        {"corpus_majors", {1}}, {"capabilities", caps}};
}

} // namespace

int main() {
    std::ios::sync_with_stdio(false);
    const char *iso = std::getenv("IGNITE_CPP_ISOLATE");
    const bool isolate = !iso || std::string(iso) != "0";
    std::string line;
    while (std::getline(std::cin, line)) {
        if (line.empty())
            continue;
        json req;
        try {
            req = json::parse(line);
        } catch (const std::exception &e) {
            std::cerr << "ignite-cpp: not JSON: " << e.what() << "\n";
            return 2;
        }
        std::string cmd = req.value("cmd", "");
        if (cmd == "stop")
            return 0;
        if (cmd == "start") {
            std::cout << start_answer().dump() << "\n" << std::flush;
            continue;
        }
        auto id = req.at("id").get<unsigned long long>();
        // IGNITE_CPP_ISOLATE=0 answers in this process (only to measure what the fork costs: a client crash then
        // ends the runner).
        if (!isolate)
            std::cout << answer(req) << "\n" << std::flush;
        else
            std::cout << icpp::isolated([&] { return answer(req); }, id, CHILD_SECONDS) << "\n" << std::flush;
    }
    return 0;
}
