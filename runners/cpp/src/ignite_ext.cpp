#include "ignite_ext.hpp"

#include <algorithm>
#include <array>
#include <limits>

#include "bigint.hpp"
#include "counting_iterator.hpp"
#include "errors.hpp"

namespace ignite {
namespace {

using ojson = nlohmann::ordered_json;
using Bytes = std::vector<std::uint8_t>;

enum class Layout {
    Number, DecimalInt32Scale, DecimalVarintScale, UuidBe, UuidLe, Date, Time, DateTime, Timestamp, Bitmask,
    IgniteUuid, NoValue
};

const std::array<const char*, 6> kEraNames = {"msgpack", "alpha3", "alpha4", "alpha5", "beta1", "3.0"};

// registry.json ext_types[].layouts, by code and era.
std::optional<Layout> layout_for(int code, Era era) {
    const bool a3 = era == Era::Alpha3, a4 = era == Era::Alpha4, a5 = era == Era::Alpha5;
    const bool iep75 = a3 || a4 || a5;  // the alpha eras: codes 1-10 of IEP-75
    switch (code) {
        case 1: if (iep75) return Layout::Number; break;
        case 2: if (a3 || a4) return Layout::DecimalInt32Scale; if (a5) return Layout::DecimalVarintScale; break;
        case 3: if (iep75) return Layout::UuidBe; if (era != Era::Msgpack) return Layout::UuidLe; break;
        case 4: if (iep75) return Layout::Date; break;
        case 5: if (iep75) return Layout::Time; break;
        case 6: if (iep75) return Layout::DateTime; break;
        case 7: if (iep75) return Layout::Timestamp; break;
        case 8: if (era != Era::Msgpack) return Layout::Bitmask; break;
        case 9: if (a3 || a4) return Layout::IgniteUuid; break;
        case 10: if (a4 || a5) return Layout::NoValue; break;
        default: break;
    }
    return std::nullopt;
}

constexpr std::array<const char*, 10> kTypeByCode = {"number", "decimal", "uuid", "date", "time",
                                                       "datetime", "timestamp", "bitmask", "ignite_uuid", "no_value"};

// java.time.Instant's range in epoch seconds, and LocalDate's year range.
constexpr std::int64_t kMinInstantSeconds = -31557014167219200LL;
constexpr std::int64_t kMaxInstantSeconds = 31556889864403199LL;
constexpr std::int64_t kMaxYear = 999999999;

// ---- field checks shared by decode and encode --------------------------------------------------------------

bool is_leap(std::int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

bool valid_date(std::int64_t y, std::int64_t m, std::int64_t d) {
    static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (y < -kMaxYear || y > kMaxYear || m < 1 || m > 12 || d < 1) return false;
    return d <= kDays[m - 1] + ((m == 2 && is_leap(y)) ? 1 : 0);
}

bool valid_time(std::int64_t h, std::int64_t m, std::int64_t s, std::int64_t nano) {
    return h >= 0 && h <= 23 && m >= 0 && m <= 59 && s >= 0 && s <= 59 && nano >= 0 && nano <= 999999999;
}

// ---- payload reading -------------------------------------------------------------------------------------------

std::uint64_t read_be(const std::uint8_t* p, int n) {
    std::uint64_t v = 0;
    for (int i = 0; i < n; ++i) v = (v << 8) | p[i];
    return v;
}
std::int32_t read_i32(const std::uint8_t* p) { return static_cast<std::int32_t>(read_be(p, 4)); }
std::int64_t read_i64(const std::uint8_t* p) { return static_cast<std::int64_t>(read_be(p, 8)); }

void need_length(const Bytes& payload, std::size_t length, const char* what) {
    if (payload.size() != length)
        throw WireError("invalid.ext-length", std::string(what) + " payload must be " + std::to_string(length) +
                                                  " bytes, got " + std::to_string(payload.size()));
}

std::string uuid_text(const std::uint8_t* p) {  // 16 bytes in text order
    static const char* kHex = "0123456789abcdef";
    std::string out;
    for (int i = 0; i < 16; ++i) {
        if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
        out += kHex[p[i] >> 4];
        out += kHex[p[i] & 15];
    }
    return out;
}

// uuid-le stores msb and lsb as little-endian int64s: reversing each half turns either order into the other.
void swap_halves(std::uint8_t* p) {
    std::reverse(p, p + 8);
    std::reverse(p + 8, p + 16);
}

ojson date_fields(ojson v, const std::uint8_t* p) {
    std::int64_t y = read_i32(p), m = p[4], d = p[5];
    if (!valid_date(y, m, d))
        throw WireError("invalid.ext-value", "no such date " + std::to_string(y) + "-" + std::to_string(m) + "-" +
                                                 std::to_string(d));
    v["year"] = y;
    v["month"] = m;
    v["day"] = d;
    return v;
}

ojson time_fields(ojson v, const std::uint8_t* p) {
    std::int64_t h = p[0], m = p[1], s = p[2], nano = read_i32(p + 3);
    if (!valid_time(h, m, s, nano))
        throw WireError("invalid.ext-value", "no such time " + std::to_string(h) + ":" + std::to_string(m) + ":" +
                                                 std::to_string(s) + "." + std::to_string(nano));
    v["hour"] = h;
    v["minute"] = m;
    v["second"] = s;
    v["nano"] = nano;
    return v;
}

// The alpha5 DECIMAL scale is a complete MessagePack int at the start of the payload (Java read it with
// unpackInt()); nlohmann reads it, and any event other than one integer stops the parse.
struct ScaleSax {
    using json = nlohmann::json;
    std::optional<std::int64_t> value;
    bool number_integer(std::int64_t v) {
        value = v;
        return true;
    }
    bool number_unsigned(std::uint64_t v) {
        if (v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return false;
        value = static_cast<std::int64_t>(v);
        return true;
    }
    bool null() { return false; }
    bool boolean(bool) { return false; }
    bool number_float(double, const std::string&) { return false; }
    bool string(std::string&) { return false; }
    bool binary(json::binary_t&) { return false; }
    bool start_object(std::size_t) { return false; }
    bool key(std::string&) { return false; }
    bool end_object() { return false; }
    bool start_array(std::size_t) { return false; }
    bool end_array() { return false; }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) { return false; }
};

ojson decode_varint_decimal(ojson v, const Bytes& payload) {
    if (payload.size() < 2) throw WireError("invalid.ext-length", "alpha5 DECIMAL payload needs >= 2 bytes");
    const char* begin = reinterpret_cast<const char*>(payload.data());
    const char* position = begin;
    ScaleSax sax;
    bool ok = nlohmann::json::sax_parse(CountingIterator(begin, &position),
                                        CountingIterator(begin + payload.size(), &position), &sax,
                                        nlohmann::json::input_format_t::msgpack, /*strict=*/false);
    if (!ok || !sax.value)
        throw WireError("invalid.ext-value", "DECIMAL scale is not a complete MessagePack int");
    if (*sax.value < std::numeric_limits<std::int32_t>::min() || *sax.value > std::numeric_limits<std::int32_t>::max())
        throw WireError("invalid.ext-value", "DECIMAL scale outside int32");
    std::size_t used = static_cast<std::size_t>(position - begin);
    if (used >= payload.size()) throw WireError("invalid.ext-value", "DECIMAL has no unscaled bytes after the scale");
    v["unscaled"] = bigint::from_twos_complement(payload.data() + used, payload.size() - used);
    v["scale"] = *sax.value;
    return v;
}

// ---- encode helpers --------------------------------------------------------------------------------------------

const ojson& field(const ojson& v, const char* name) {
    auto it = v.find(name);
    if (it == v.end()) throw Unsupported(std::string("value lacks field '") + name + "'");
    return *it;
}

// A JSON integer field as int64, or nullopt when it is outside int64 (or not an integer at all).
std::optional<std::int64_t> int_field(const ojson& v, const char* name) {
    const ojson& f = field(v, name);
    if (f.is_number_unsigned()) {
        auto u = f.get<std::uint64_t>();
        if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return std::nullopt;
        return static_cast<std::int64_t>(u);
    }
    if (f.is_number_integer()) return f.get<std::int64_t>();
    if (f.is_number()) return std::nullopt;  // an integer literal beyond uint64 parses as a double
    throw Unsupported(std::string("field '") + name + "' is not a number");
}

// A bigint string field as int64, or nullopt when outside int64.
std::optional<std::int64_t> bigint_field_i64(const ojson& v, const char* name) {
    const ojson& f = field(v, name);
    if (!f.is_string() || !bigint::is_decimal(f.get<std::string>()))
        throw Unsupported(std::string("field '") + name + "' is not a decimal string");
    const std::string s = f.get<std::string>();
    Bytes b = bigint::to_twos_complement(s);
    if (b.size() > 8) return std::nullopt;
    std::uint64_t raw = (b[0] & 0x80) ? ~std::uint64_t{0} : 0;  // sign-extend
    for (auto byte : b) raw = (raw << 8) | byte;
    return static_cast<std::int64_t>(raw);
}

std::string bigint_field(const ojson& v, const char* name) {
    const ojson& f = field(v, name);
    if (!f.is_string() || !bigint::is_decimal(f.get<std::string>()))
        throw Unsupported(std::string("field '") + name + "' is not a decimal string");
    return f.get<std::string>();
}

void put_be(Bytes& out, std::uint64_t v, int n) {
    for (int i = n - 1; i >= 0; --i) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}

Bytes uuid_bytes(const ojson& v, const char* name) {
    const ojson& f = field(v, name);
    std::string text = f.is_string() ? f.get<std::string>() : "";
    Bytes out;
    auto nibble = [](char c) { return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1; };
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (i == 8 || i == 13 || i == 18 || i == 23) {
            if (text[i] != '-') break;
            continue;
        }
        int hi = nibble(text[i]), lo = i + 1 < text.size() ? nibble(text[i + 1]) : -1;
        if (hi < 0 || lo < 0) break;
        out.push_back(static_cast<std::uint8_t>(hi << 4 | lo));
        ++i;
    }
    if (text.size() != 36 || out.size() != 16) throw Unsupported(std::string("field '") + name + "' is not a UUID");
    return out;
}

Bytes date_payload(const ojson& v) {
    auto y = int_field(v, "year"), m = int_field(v, "month"), d = int_field(v, "day");
    if (!y || !m || !d || !valid_date(*y, *m, *d)) throw WireError("invalid.ext-value", "date out of range");
    Bytes out;
    put_be(out, static_cast<std::uint32_t>(*y), 4);
    out.push_back(static_cast<std::uint8_t>(*m));
    out.push_back(static_cast<std::uint8_t>(*d));
    return out;
}

Bytes time_payload(const ojson& v) {
    auto h = int_field(v, "hour"), m = int_field(v, "minute"), s = int_field(v, "second"), n = int_field(v, "nano");
    if (!h || !m || !s || !n || !valid_time(*h, *m, *s, *n)) throw WireError("invalid.ext-value", "time out of range");
    Bytes out = {static_cast<std::uint8_t>(*h), static_cast<std::uint8_t>(*m), static_cast<std::uint8_t>(*s)};
    put_be(out, static_cast<std::uint32_t>(*n), 4);
    return out;
}

std::int32_t scale_field(const ojson& v) {
    auto scale = int_field(v, "scale");
    if (!scale || *scale < std::numeric_limits<std::int32_t>::min() || *scale > std::numeric_limits<std::int32_t>::max())
        throw WireError("unrepresentable", "DECIMAL scale outside int32");
    return static_cast<std::int32_t>(*scale);
}

Bytes bitmask_payload(const ojson& v) {
    const ojson& bits = field(v, "bits");
    if (!bits.is_array()) throw Unsupported("bitmask 'bits' is not an array");
    std::uint64_t max_index = 0;
    for (const auto& b : bits) {
        if (!b.is_number_unsigned())  // nlohmann parses every non-negative integer literal as unsigned
            throw Unsupported("bitmask index is not a non-negative integer");
        max_index = std::max(max_index, b.get<std::uint64_t>());
    }
    if (bits.empty()) return {};  // BitSet.toByteArray of the empty set: zero bytes
    if (max_index / 8 >= std::numeric_limits<std::uint32_t>::max())
        throw WireError("unrepresentable", "bitmask longer than an ext32 payload");
    Bytes out(max_index / 8 + 1, 0);  // the highest set bit ends the payload: trailing zero bytes trimmed
    for (const auto& b : bits) {
        auto i = b.get<std::uint64_t>();
        out[i / 8] = static_cast<std::uint8_t>(out[i / 8] | (1u << (i % 8)));
    }
    return out;
}

}  // namespace

std::optional<Era> parse_era(const std::string& name) {
    for (std::size_t i = 0; i < kEraNames.size(); ++i)
        if (name == kEraNames[i]) return static_cast<Era>(i);
    return std::nullopt;
}

const char* era_name(Era era) { return kEraNames[static_cast<std::size_t>(era)]; }

const std::vector<std::string>& all_era_names() {
    static const std::vector<std::string> names(kEraNames.begin(), kEraNames.end());
    return names;
}

bool is_ignite_type(const std::string& type) {
    for (const char* t : kTypeByCode)
        if (type == t) return true;
    return false;
}

std::optional<ojson> decode_ext(std::int8_t code, const Bytes& payload, Era era) {
    auto layout = layout_for(code, era);
    if (!layout) return std::nullopt;
    ojson v = {{"type", kTypeByCode[static_cast<std::size_t>(code - 1)]}, {"era", era_name(era)}};
    const std::uint8_t* p = payload.data();
    switch (*layout) {
        case Layout::Number:
            if (payload.empty()) throw WireError("invalid.ext-length", "NUMBER payload is empty");
            v["value"] = bigint::from_twos_complement(p, payload.size());
            return v;
        case Layout::DecimalInt32Scale:
            if (payload.size() < 5) throw WireError("invalid.ext-length", "DECIMAL payload needs >= 5 bytes");
            v["unscaled"] = bigint::from_twos_complement(p + 4, payload.size() - 4);
            v["scale"] = read_i32(p);
            return v;
        case Layout::DecimalVarintScale:
            return decode_varint_decimal(v, payload);
        case Layout::UuidBe:
        case Layout::UuidLe: {
            need_length(payload, 16, "UUID");
            Bytes text_order = payload;
            if (*layout == Layout::UuidLe) swap_halves(text_order.data());
            v["value"] = uuid_text(text_order.data());
            return v;
        }
        case Layout::Date:
            need_length(payload, 6, "DATE");
            return date_fields(v, p);
        case Layout::Time:
            need_length(payload, 7, "TIME");
            return time_fields(v, p);
        case Layout::DateTime:
            need_length(payload, 13, "DATETIME");
            return time_fields(date_fields(v, p), p + 6);
        case Layout::Timestamp: {
            need_length(payload, 12, "TIMESTAMP");
            std::int64_t seconds = read_i64(p), nano = read_i32(p + 8);
            if (seconds < kMinInstantSeconds || seconds > kMaxInstantSeconds)
                throw WireError("invalid.ext-value", "TIMESTAMP seconds outside java.time.Instant's range");
            if (nano < 0 || nano > 999999999) throw WireError("invalid.ext-value", "TIMESTAMP nano out of range");
            v["seconds"] = std::to_string(seconds);
            v["nano"] = nano;
            return v;
        }
        case Layout::Bitmask: {
            ojson bits = ojson::array();
            for (std::size_t i = 0; i < payload.size(); ++i)
                for (unsigned j = 0; j < 8; ++j)
                    if (p[i] & (1u << j)) bits.push_back(8 * i + j);
            v["bits"] = std::move(bits);
            return v;
        }
        case Layout::IgniteUuid:
            need_length(payload, 24, "IGNITE_UUID");
            v["global"] = uuid_text(p);
            v["local"] = std::to_string(read_i64(p + 16));
            return v;
        case Layout::NoValue:
            need_length(payload, 1, "NO_VALUE");  // the byte's value is ignored
            return v;
    }
    return std::nullopt;
}

Ext encode_ext(const ojson& value) {
    const std::string type = field(value, "type").get<std::string>();
    int code = 0;
    while (code < 10 && type != kTypeByCode[static_cast<std::size_t>(code)]) ++code;
    ++code;
    const ojson& era_field = field(value, "era");
    auto era = era_field.is_string() ? parse_era(era_field.get<std::string>()) : std::nullopt;
    if (!era || *era == Era::Msgpack) throw Unsupported("value has no Ignite era");
    auto layout = layout_for(code, *era);
    if (!layout) throw WireError("unrepresentable", type + " does not exist in era " + era_name(*era));

    Ext ext{static_cast<std::int8_t>(code), {}};
    Bytes& out = ext.payload;
    switch (*layout) {
        case Layout::Number:
            out = bigint::to_twos_complement(bigint_field(value, "value"));
            break;
        case Layout::DecimalInt32Scale: {
            std::int32_t scale = scale_field(value);
            put_be(out, static_cast<std::uint32_t>(scale), 4);
            Bytes unscaled = bigint::to_twos_complement(bigint_field(value, "unscaled"));
            out.insert(out.end(), unscaled.begin(), unscaled.end());
            break;
        }
        case Layout::DecimalVarintScale: {
            std::int32_t scale = scale_field(value);
            std::string unscaled_text = bigint_field(value, "unscaled");
            // nlohmann writes the scale as the smallest MessagePack int, as the spec asks.
            nlohmann::json::to_msgpack(nlohmann::json(static_cast<std::int64_t>(scale)), out);
            Bytes unscaled = bigint::to_twos_complement(unscaled_text);
            out.insert(out.end(), unscaled.begin(), unscaled.end());
            break;
        }
        case Layout::UuidBe:
        case Layout::UuidLe:
            out = uuid_bytes(value, "value");
            if (*layout == Layout::UuidLe) swap_halves(out.data());
            break;
        case Layout::Date:
            out = date_payload(value);
            break;
        case Layout::Time:
            out = time_payload(value);
            break;
        case Layout::DateTime: {
            out = date_payload(value);
            Bytes time = time_payload(value);
            out.insert(out.end(), time.begin(), time.end());
            break;
        }
        case Layout::Timestamp: {
            auto seconds = bigint_field_i64(value, "seconds");
            auto nano = int_field(value, "nano");
            if (!seconds || *seconds < kMinInstantSeconds || *seconds > kMaxInstantSeconds)
                throw WireError("invalid.ext-value", "TIMESTAMP seconds outside java.time.Instant's range");
            if (!nano || *nano < 0 || *nano > 999999999)
                throw WireError("invalid.ext-value", "TIMESTAMP nano out of range");
            put_be(out, static_cast<std::uint64_t>(*seconds), 8);
            put_be(out, static_cast<std::uint32_t>(*nano), 4);
            break;
        }
        case Layout::Bitmask:
            out = bitmask_payload(value);
            break;
        case Layout::IgniteUuid: {
            out = uuid_bytes(value, "global");
            auto local = bigint_field_i64(value, "local");
            if (!local) throw WireError("unrepresentable", "IGNITE_UUID local id outside int64");
            put_be(out, static_cast<std::uint64_t>(*local), 8);
            break;
        }
        case Layout::NoValue:
            out = {0x00};
            break;
    }
    return ext;
}

}  // namespace ignite
