// C++ benchmark on Google Benchmark: the IEP-75 cases and the Ignite.NET Person, through nlohmann/json's plain
// MessagePack API and through the runner's type-directed codec (runners/cpp/src, linked in unchanged).
//   bench-cpp [google benchmark flags] bench/build/cases.json
// Names are <case>/<op>/<path>; each reports items_per_second per repetition (bench/collect.py takes the median).
// Before registering anything, both paths must write exactly the case's canonical bytes and read its values back.
#include <benchmark/benchmark.h>

#include <array>
#include <cstdint>
#include <fstream>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "codec.hpp"
#include "counting_iterator.hpp"

using json = nlohmann::ordered_json;
using Bytes = std::vector<std::uint8_t>;

namespace {

const std::string kSql = "select * from cars where year > ? and seats = ?";
constexpr std::int8_t kUuidExt = 3;  // Ignite's UUID ext code (3.0: msb then lsb, each little-endian)

struct Car {
    std::int64_t id;
    std::string model;
    std::int64_t year, seats;
    bool operator==(const Car& o) const { return id == o.id && model == o.model && year == o.year && seats == o.seats; }
};

struct Person {
    std::int32_t id;
    std::string name, data;
    std::uint64_t msb, lsb;  // the Guid
    bool operator==(const Person& o) const {
        return id == o.id && name == o.name && data == o.data && msb == o.msb && lsb == o.lsb;
    }
};

const Car kCar{42, "Mazda MX-5 Miata", 2006, 2};
const Person kPerson{INT32_MIN, "John Johnson", std::string(1000, 'g'), 0x6f24146a244a4018ULL, 0xa36c3e9cf5b42082ULL};

// Every top-level value of data: nlohmann reads one value per call; the counting iterator says where it stopped.
std::vector<json> read_seq(const Bytes& data) {
    std::vector<json> out;
    const char* pos = reinterpret_cast<const char*>(data.data());
    const char* end = pos + data.size();
    while (pos != end) out.push_back(json::from_msgpack(CountingIterator(pos, &pos), CountingIterator(end, &pos), false));
    return out;
}

Bytes write_primitives() {
    Bytes out;
    for (const json& v : {json(nullptr), json(false), json(true), json(2005), json(-1), json(-2147483648LL),
                          json(4294967296LL), json(0.1), json("John Johnson")})
        json::to_msgpack(v, out);
    return out;
}

Bytes write_sql() {
    Bytes out;
    json::to_msgpack(json(kSql), out);
    json::to_msgpack(json::array({2005, 2}), out);
    return out;
}

Bytes write_car_named(const Car& c) {
    return json::to_msgpack(json{{"id", c.id}, {"model", c.model}, {"year", c.year}, {"seats", c.seats}});
}

Bytes write_car_positional(const Car& c) { return json::to_msgpack(json::array({c.id, c.model, c.year, c.seats})); }

Car read_car_named(const Bytes& b) {
    json j = json::from_msgpack(b);
    return {j.at("id").get<std::int64_t>(), j.at("model").get<std::string>(), j.at("year").get<std::int64_t>(),
            j.at("seats").get<std::int64_t>()};
}

Car read_car_positional(const Bytes& b) {
    json j = json::from_msgpack(b);
    return {j.at(0).get<std::int64_t>(), j.at(1).get<std::string>(), j.at(2).get<std::int64_t>(),
            j.at(3).get<std::int64_t>()};
}

Bytes write_person(const Person& p) {
    std::vector<std::uint8_t> guid(16);
    for (int i = 0; i < 8; ++i) {
        guid[i] = static_cast<std::uint8_t>(p.msb >> (8 * i));
        guid[8 + i] = static_cast<std::uint8_t>(p.lsb >> (8 * i));
    }
    return json::to_msgpack(json::array({p.id, p.name, p.data, json::binary(std::move(guid), kUuidExt)}));
}

Person read_person(const Bytes& b) {
    json j = json::from_msgpack(b);
    const auto& guid = j.at(3).get_binary();
    if (guid.subtype() != static_cast<std::uint64_t>(kUuidExt) || guid.size() != 16) throw std::runtime_error("not a UUID");
    std::uint64_t msb = 0, lsb = 0;
    for (int i = 7; i >= 0; --i) {
        msb = (msb << 8) | guid[i];
        lsb = (lsb << 8) | guid[8 + i];
    }
    return {j.at(0).get<std::int32_t>(), j.at(1).get<std::string>(), j.at(2).get<std::string>(), msb, lsb};
}

void fail(const std::string& what) {
    std::cerr << "cpp bench: " << what << "\n";
    std::exit(1);
}

void add(const std::string& name, std::size_t bytes, std::function<void()> op) {
    benchmark::RegisterBenchmark(name.c_str(), [op, bytes](benchmark::State& state) {
        for (auto _ : state) op();
        state.SetItemsProcessed(state.iterations());
        state.counters["bytes"] = static_cast<double>(bytes);
    });
}

}  // namespace

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    if (argc != 2) fail("usage: bench-cpp [benchmark flags] cases.json");
    std::ifstream in(argv[1]);
    const json cases = json::parse(in).at("cases");

    struct Plain {
        std::function<Bytes()> write;
        std::function<bool(const Bytes&)> reads_back;   // the read path's result equals the native value
        std::function<void(const Bytes&)> read;
    };
    const std::vector<json> prim_values = read_seq(write_primitives());
    const std::vector<json> sql_values = read_seq(write_sql());
    std::map<std::string, Plain> plain = {
        {"primitives", {write_primitives, [&](const Bytes& b) { return read_seq(b) == prim_values; },
                        [](const Bytes& b) { benchmark::DoNotOptimize(read_seq(b)); }}},
        {"sql-request", {write_sql, [&](const Bytes& b) { return read_seq(b) == sql_values && sql_values[0] == kSql; },
                         [](const Bytes& b) { benchmark::DoNotOptimize(read_seq(b)); }}},
        {"pojo-named", {[] { return write_car_named(kCar); }, [](const Bytes& b) { return read_car_named(b) == kCar; },
                        [](const Bytes& b) { benchmark::DoNotOptimize(read_car_named(b)); }}},
        {"pojo-positional", {[] { return write_car_positional(kCar); },
                             [](const Bytes& b) { return read_car_positional(b) == kCar; },
                             [](const Bytes& b) { benchmark::DoNotOptimize(read_car_positional(b)); }}},
        {"person", {[] { return write_person(kPerson); }, [](const Bytes& b) { return read_person(b) == kPerson; },
                    [](const Bytes& b) { benchmark::DoNotOptimize(read_person(b)); }}},
    };

    for (const auto& [name, c] : cases.items()) {
        const Bytes canonical = codec::from_hex(c.at("hex").get<std::string>());
        const json values = c.at("values");
        const ignite::Era era = *ignite::parse_era(c.at("era").get<std::string>());
        const Plain& p = plain.at(name);
        if (p.write() != canonical) fail(name + ": plain write differs from the case's bytes");
        if (!p.reads_back(canonical)) fail(name + ": plain read does not give the value back");
        if (codec::encode(values) != canonical) fail(name + ": typed write differs from the case's bytes");
        if (codec::decode(canonical, era) != values) fail(name + ": typed read does not give the values back");
        const std::size_t n = canonical.size();
        if (name == "person") {
            add(name + "/roundtrip/plain", n, [p] { p.read(p.write()); });
            add(name + "/roundtrip/typed", n, [values, era] { benchmark::DoNotOptimize(codec::decode(codec::encode(values), era)); });
        } else {
            add(name + "/write/plain", n, [p] { benchmark::DoNotOptimize(p.write()); });
            add(name + "/read/plain", n, [p, canonical] { p.read(canonical); });
            add(name + "/write/typed", n, [values] { benchmark::DoNotOptimize(codec::encode(values)); });
            add(name + "/read/typed", n, [canonical, era] { benchmark::DoNotOptimize(codec::decode(canonical, era)); });
        }
    }
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
}
