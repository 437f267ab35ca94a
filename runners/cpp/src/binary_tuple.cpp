// Structure mirrors runners/python/binary_tuple.py:
//   read_tuple / write_tuple          header, offset table, value area (era 3.0; beta1 adds the null map)
//   decode_element / encode_element   one element per ColumnType
//   read_triple / triple              the (type, scale, value) objects
//   decode / encode                   the formats
// Everything in a tuple is little-endian except the DECIMAL unscaled value (big-endian two's complement, bigint.*).
#include "binary_tuple.hpp"

#include <algorithm>
#include <array>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

#include "bigint.hpp"
#include "codec.hpp"
#include "errors.hpp"

namespace binary_tuple {
namespace {

using ojson = nlohmann::ordered_json;
using Bytes = std::vector<std::uint8_t>;

// ColumnType names by id on the 3.0 wire; 14 (BITMASK) and 19 (NUMBER) are not value types there.
constexpr std::array<const char*, 19> kTypeNames = {
    "NULL", "BOOLEAN", "INT8", "INT16", "INT32", "INT64", "FLOAT", "DOUBLE", "DECIMAL", "DATE",
    "TIME", "DATETIME", "TIMESTAMP", "UUID", "", "STRING", "BYTE_ARRAY", "PERIOD", "DURATION"};
constexpr std::int64_t kMinInstantSeconds = -31557014167219200LL;  // java.time.Instant
constexpr std::int64_t kMaxInstantSeconds = 31556889864403199LL;
constexpr std::uint8_t kEmpty = 0x80;  // varlen marker byte
// An object's DECIMAL is rescaled to its scale element (up to 2^31 digits): beyond this the runner declines.
constexpr std::size_t kMaxRescaleDigits = 100000;

int type_id(const std::string& name) {
    for (std::size_t i = 0; i < kTypeNames.size(); ++i)
        if (*kTypeNames[i] && name == kTypeNames[i]) return static_cast<int>(i);
    return -1;
}

// Widest width of an integer type (its allowed widths are the powers of two up to it), 0 for other types.
std::size_t int_width(const std::string& t) {
    return t == "INT8" ? 1 : t == "INT16" ? 2 : t == "INT32" ? 4 : t == "INT64" ? 8 : 0;
}
bool int_length_ok(const std::string& t, std::size_t n) {
    return n >= 1 && n <= int_width(t) && (n & (n - 1)) == 0;
}

void check(bool ok, const char* error_class, const std::string& message) {
    if (!ok) throw WireError(error_class, message);
}

bool fits(std::int64_t n, std::size_t size) {
    if (size >= 8) return true;
    std::int64_t half = std::int64_t{1} << (8 * size - 1);
    return n >= -half && n < half;
}

int days_in_month(std::int64_t y, std::int64_t m) {
    static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    bool leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
    return kDays[m - 1] + (m == 2 && leap ? 1 : 0);
}

std::uint64_t read_le(const std::uint8_t* p, std::size_t n) {
    std::uint64_t v = 0;
    for (std::size_t i = n; i-- > 0;) v = (v << 8) | p[i];
    return v;
}
std::int64_t signed_le(const std::uint8_t* p, std::size_t n) {  // sign-extended from n bytes
    std::uint64_t v = read_le(p, n);
    if (n < 8 && (v >> (8 * n - 1)) & 1) v |= ~std::uint64_t{0} << (8 * n);
    return static_cast<std::int64_t>(v);
}
void put_le(Bytes& out, std::uint64_t v, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}
std::string hex_be(std::uint64_t v, std::size_t n) {  // the notation's float bits: big-endian hex
    Bytes be;
    for (std::size_t i = n; i-- > 0;) be.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
    return codec::to_hex(be.data(), be.size());
}

// One element of the input: [p, p + n).
struct Span {
    const std::uint8_t* p;
    std::size_t n;
};

// ---------------------------------------------------------------- the tuple

struct Tuple {
    std::vector<Span> parts;  // n.n == 0 for a zero-length element
    std::vector<bool> nulls;  // beta1 null map (empty otherwise)
};

Tuple read_tuple(const std::uint8_t* data, std::size_t len, std::uint64_t n, bool beta1) {
    check(len >= 1, "malformed.truncated", "no header byte");
    const std::uint8_t flags = data[0];
    const std::uint8_t reserved = beta1 ? 0xf8 : 0xfc;  // beta1: bit 2 is the null-map flag
    check(!(flags & reserved), "malformed.tuple-header", "reserved header bits " + codec::to_hex(&flags, 1));
    check((flags & 3) != 3, "malformed.tuple-header", "8-byte offset entries do not exist");
    const std::size_t size = std::size_t{1} << (flags & 3);
    // Every offset entry takes at least one byte: a count beyond the input is refused before anything is sized
    // from it (an object array's count comes straight from the wire).
    check(n < len, "malformed.truncated", "offset table of " + std::to_string(n) + " entries, " +
                                              std::to_string(len) + " bytes given");
    const std::size_t nullmap = (flags & 4) ? (n + 7) / 8 : 0;
    const std::size_t base = 1 + nullmap + n * size;
    check(base <= len, "malformed.truncated",
          "header and offset table need " + std::to_string(base) + " bytes, " + std::to_string(len) + " given");
    Tuple t;
    if (nullmap)
        for (std::size_t i = 0; i < n; ++i) t.nulls.push_back((data[1 + i / 8] >> (i % 8)) & 1);
    std::uint64_t start = 0;
    for (std::size_t i = 0; i < n; ++i) {
        std::uint64_t end = read_le(data + 1 + nullmap + i * size, size);
        check(end >= start, "malformed.tuple-offsets",
              "element " + std::to_string(i) + " ends at " + std::to_string(end) + ", before its start " +
                  std::to_string(start));
        check(end <= len - base, "malformed.tuple-offsets",
              "element " + std::to_string(i) + " ends past the input");
        t.parts.push_back(Span{data + base + start, static_cast<std::size_t>(end - start)});
        start = end;
    }
    // Strict: the input is exactly one tuple (spec BT-TRAILING leaves this to the implementation).
    check(base + start == len, "malformed.tuple-offsets",
          std::to_string(len - base - start) + " bytes after the last element");
    return t;
}

// Header, (beta1: null map,) end offsets in the smallest entry size for the value area, values.
Bytes write_tuple(const std::vector<Bytes>& parts, const std::vector<bool>& nulls = {}) {
    std::size_t area = 0;
    for (const auto& p : parts) area += p.size();
    if (area > 0xffffffffu) throw WireError("unrepresentable", "value area beyond 4-byte offsets");
    const std::size_t size = area <= 0xff ? 1 : area <= 0xffff ? 2 : 4;
    const bool has_nulls = std::find(nulls.begin(), nulls.end(), true) != nulls.end();
    Bytes out = {static_cast<std::uint8_t>((size == 1 ? 0 : size == 2 ? 1 : 2) | (has_nulls ? 4 : 0))};
    if (has_nulls) {
        Bytes mask((parts.size() + 7) / 8, 0);
        for (std::size_t i = 0; i < nulls.size(); ++i)
            if (nulls[i]) mask[i / 8] = static_cast<std::uint8_t>(mask[i / 8] | (1u << (i % 8)));
        out.insert(out.end(), mask.begin(), mask.end());
    }
    std::uint64_t end = 0;
    for (const auto& p : parts) put_le(out, end += p.size(), size);
    for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
    return out;
}

// ---------------------------------------------------------------- elements: decode

void need(const std::string& t, Span b, bool ok) {
    check(ok, "invalid.tuple-length", t + " element of " + std::to_string(b.n) + " bytes");
}

void decode_time(ojson& v, Span b) {  // b.n is 4, 5 or 6
    const unsigned bits = b.n == 4 ? 10 : b.n == 5 ? 20 : 30;
    const std::uint64_t unit = b.n == 4 ? 1000000 : b.n == 5 ? 1000 : 1;
    std::uint64_t x = read_le(b.p, b.n);
    std::uint64_t frac = x & ((std::uint64_t{1} << bits) - 1);
    x >>= bits;
    std::uint64_t s = x & 63, mi = x >> 6 & 63, h = x >> 12 & 31, rest = x >> 17;
    // Strict on the unused top bits (spec BT-TIME-PADDING leaves them to the implementation; Java ignores them).
    check(rest == 0, "invalid.tuple-value", "unused TIME bits set");
    check(h <= 23 && mi <= 59 && s <= 59 && frac * unit <= 999999999, "invalid.tuple-value",
          "no time " + std::to_string(h) + ":" + std::to_string(mi) + ":" + std::to_string(s) + " + " +
              std::to_string(frac) + " x " + std::to_string(unit) + " ns");
    v["hour"] = h;
    v["minute"] = mi;
    v["second"] = s;
    v["nano"] = frac * unit;
}

void decode_date(ojson& v, const std::uint8_t* p) {
    std::uint64_t d = read_le(p, 3);
    std::int64_t y = static_cast<std::int64_t>(d >> 9);  // 15 bits, signed
    if (y & 0x4000) y -= 0x8000;
    std::int64_t m = d >> 5 & 15, day = d & 31;
    check(m >= 1 && m <= 12 && day >= 1 && day <= days_in_month(y, m), "invalid.tuple-value",
          "no date " + std::to_string(y) + "-" + std::to_string(m) + "-" + std::to_string(day));
    v["year"] = y;
    v["month"] = m;
    v["day"] = day;
}

void seconds_nanos(ojson& v, const std::string& t, Span b) {
    need(t, b, b.n == 8 || b.n == 12);
    // any int32 nanos, normalised as Java's Instant.ofEpochSecond / Duration.ofSeconds do (spec BT-TIMESTAMP,
    // BT-DURATION); a result outside int64 seconds is out of range
    std::int64_t seconds = signed_le(b.p, 8), nano = b.n == 12 ? signed_le(b.p + 8, 4) : 0;
    std::int64_t carry = nano / 1000000000;
    nano %= 1000000000;
    if (nano < 0) {
        nano += 1000000000;
        --carry;
    }
    const bool overflow = (carry > 0 && seconds > std::numeric_limits<std::int64_t>::max() - carry) ||
                          (carry < 0 && seconds < std::numeric_limits<std::int64_t>::min() - carry);
    check(!overflow, "invalid.tuple-value", "seconds outside int64 after normalising the nanos");
    seconds += carry;
    if (t == "TIMESTAMP")
        check(seconds >= kMinInstantSeconds && seconds <= kMaxInstantSeconds, "invalid.tuple-value",
              "seconds " + std::to_string(seconds) + " outside Instant");
    v["seconds"] = std::to_string(seconds);
    v["nano"] = nano;
}

Span decode_varlen(Span b) {  // strip exactly one leading 80
    return (b.n && b.p[0] == kEmpty) ? Span{b.p + 1, b.n - 1} : b;
}

// float32 -> float64 by IEEE 754 conversion (BT-DOUBLE): the cast for numbers; by hand for NaN, so the result does
// not depend on the FPU: sign and payload kept, quiet bit (float32 bit 22 -> float64 bit 51) set, as Java's cast.
std::uint64_t widen(std::uint32_t u) {
    float f;
    std::memcpy(&f, &u, sizeof f);
    if (std::isnan(f)) {
        std::uint64_t payload = (u | 0x400000) & 0x7fffff;
        return std::uint64_t{u >> 31} << 63 | std::uint64_t{0x7ff} << 52 | payload << 29;
    }
    double d = f;
    std::uint64_t bits;
    std::memcpy(&bits, &d, sizeof bits);
    return bits;
}

// The typed value of a non-empty element of column type t.
ojson decode_element(const std::string& t, Span b, bool beta1 = false) {
    ojson v = {{"type", t}};
    if (t == "BOOLEAN") {
        need(t, b, b.n == 1);
        check(b.p[0] <= 1, "invalid.tuple-value", "BOOLEAN byte " + codec::to_hex(b.p, 1));  // BT-BOOLEAN-OTHER: strict
        v["value"] = b.p[0] == 1;
    } else if (int_width(t)) {
        need(t, b, int_length_ok(t, b.n));
        v["value"] = std::to_string(signed_le(b.p, b.n));
    } else if (t == "FLOAT") {
        need(t, b, b.n == 4);
        v["bits"] = hex_be(read_le(b.p, 4), 4);
    } else if (t == "DOUBLE") {
        need(t, b, b.n == 4 || b.n == 8);
        v["bits"] = hex_be(b.n == 4 ? widen(static_cast<std::uint32_t>(read_le(b.p, 4))) : read_le(b.p, 8), 8);
    } else if (t == "DECIMAL") {
        need(t, b, b.n >= 3);
        v["unscaled"] = bigint::from_twos_complement(b.p + 2, b.n - 2);
        v["scale"] = signed_le(b.p, 2);
    } else if (t == "DATE") {
        need(t, b, b.n == 3);
        decode_date(v, b.p);
    } else if (t == "TIME") {
        need(t, b, b.n >= 4 && b.n <= 6);
        decode_time(v, b);
    } else if (t == "DATETIME") {
        need(t, b, b.n >= 7 && b.n <= 9);
        decode_date(v, b.p);
        decode_time(v, Span{b.p + 3, b.n - 3});
    } else if (t == "TIMESTAMP" || t == "DURATION") {
        seconds_nanos(v, t, b);
    } else if (t == "UUID") {
        need(t, b, b.n == 16);
        std::uint8_t text_order[16];
        std::reverse_copy(b.p, b.p + 8, text_order);  // msb, then lsb: each int64 LE
        std::reverse_copy(b.p + 8, b.p + 16, text_order + 8);
        std::string hex = codec::to_hex(text_order, 16);
        v["value"] = hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-" + hex.substr(12, 4) + "-" + hex.substr(16, 4) +
                     "-" + hex.substr(20);
    } else if (t == "STRING") {
        Span raw = beta1 ? b : decode_varlen(b);
        std::string s(reinterpret_cast<const char*>(raw.p), raw.n);
        check(codec::valid_utf8(s), "invalid.utf8", "STRING element is not well-formed UTF-8");
        v["value"] = std::move(s);
    } else if (t == "BYTE_ARRAY") {
        Span raw = beta1 ? b : decode_varlen(b);
        v["hex"] = codec::to_hex(raw.p, raw.n);
    } else if (t == "PERIOD") {
        need(t, b, b.n == 3 || b.n == 6 || b.n == 12);
        std::size_t k = b.n / 3;
        v["years"] = signed_le(b.p, k);
        v["months"] = signed_le(b.p + k, k);
        v["days"] = signed_le(b.p + 2 * k, k);
    } else if (t == "NUMBER" && beta1) {  // a beta1-only column type (spec 6.2.8): BigInteger, big-endian
        v["value"] = bigint::from_twos_complement(b.p, b.n);
    } else if (t == "NULL") {
        need(t, b, false);  // a NULL column holds zero-length elements only
    } else {
        throw Unsupported("no column type '" + t + "'");
    }
    return v;
}

// beta1 (BT-1): a zero-length element of a non-NULL column is the type's default.
std::optional<ojson> beta1_default(const std::string& t) {
    if (t == "BOOLEAN") return ojson{{"type", t}, {"value", false}};
    if (int_width(t)) return ojson{{"type", t}, {"value", "0"}};
    if (t == "FLOAT") return ojson{{"type", t}, {"bits", "00000000"}};
    if (t == "DOUBLE") return ojson{{"type", t}, {"bits", "0000000000000000"}};
    if (t == "STRING") return ojson{{"type", t}, {"value", ""}};
    if (t == "BYTE_ARRAY") return ojson{{"type", t}, {"hex", ""}};
    // zero length by value (nil UUID) or because java.time returns its constants for zero (spec 6.2.8)
    if (t == "UUID") return ojson{{"type", t}, {"value", "00000000-0000-0000-0000-000000000000"}};
    if (t == "TIME") return ojson{{"type", t}, {"hour", 0}, {"minute", 0}, {"second", 0}, {"nano", 0}};
    if (t == "TIMESTAMP" || t == "DURATION") return ojson{{"type", t}, {"seconds", "0"}, {"nano", 0}};
    if (t == "PERIOD") return ojson{{"type", t}, {"years", 0}, {"months", 0}, {"days", 0}};
    if (t == "NUMBER") return ojson{{"type", t}, {"value", "0"}};  // zero by value (appendNumberNotNull)
    // the reader's DEFAULT_DATE and DEFAULT_DATE_TIME (spec BT-BETA1)
    if (t == "DATE") return ojson{{"type", t}, {"year", 0}, {"month", 1}, {"day", 1}};
    if (t == "DATETIME")
        return ojson{{"type", t}, {"year", 0}, {"month", 1}, {"day", 1},
                     {"hour", 0}, {"minute", 0}, {"second", 0}, {"nano", 0}};
    return std::nullopt;
}

ojson decode_column(const std::string& t, Span b, bool beta1, bool is_null = false) {
    if (beta1) {
        if (is_null) return {{"type", "NULL"}};
        // the unscaled value only; its scale is the column's, not in the vector (spec BT-BETA1)
        if (t == "DECIMAL") throw Unsupported("beta1 DECIMAL is not modelled (spec 6.2.8)");
        if (!b.n) {
            auto d = beta1_default(t);
            check(d.has_value(), "invalid.tuple-length", "no beta1 default for " + t);
            return *d;
        }
    } else if (!b.n) {
        return {{"type", "NULL"}};
    }
    return decode_element(t, b, beta1);
}

// ---------------------------------------------------------------- elements: encode

const ojson& field(const ojson& v, const char* name) {
    auto it = v.find(name);
    if (it == v.end()) throw Unsupported(std::string("value lacks field '") + name + "'");
    return *it;
}

std::string text_field(const ojson& v, const char* name) {
    const ojson& f = field(v, name);
    if (!f.is_string()) throw Unsupported(std::string("field '") + name + "' is not a string");
    return f.get<std::string>();
}

// A JSON integer field as int64; nullopt when it is outside int64 (a literal beyond uint64 parses as a double).
std::optional<std::int64_t> int_field(const ojson& v, const char* name) {
    const ojson& f = field(v, name);
    if (f.is_number_unsigned())
        return f.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX)
                   ? std::nullopt
                   : std::optional<std::int64_t>(static_cast<std::int64_t>(f.get<std::uint64_t>()));
    if (f.is_number_integer()) return f.get<std::int64_t>();
    if (f.is_number()) return std::nullopt;
    throw Unsupported(std::string("field '") + name + "' is not a number");
}

std::string decimal_field(const ojson& v, const char* name) {
    std::string s = text_field(v, name);
    if (!bigint::is_decimal(s)) throw Unsupported(std::string("field '") + name + "' is not a decimal string");
    return s;
}

std::optional<std::int64_t> to_i64(const std::string& decimal) {
    Bytes b = bigint::to_twos_complement(decimal);
    if (b.size() > 8) return std::nullopt;
    std::uint64_t raw = (b[0] & 0x80) ? ~std::uint64_t{0} : 0;
    for (auto byte : b) raw = (raw << 8) | byte;
    return static_cast<std::int64_t>(raw);
}

Bytes encode_int(const std::string& t, const std::string& decimal) {
    auto n = to_i64(decimal);
    for (std::size_t size = 1; n && size <= int_width(t); size *= 2)
        if (fits(*n, size)) {
            Bytes out;
            put_le(out, static_cast<std::uint64_t>(*n), size);
            return out;
        }
    throw WireError("unrepresentable", decimal + " does not fit " + t);
}

Bytes encode_double(const std::string& bits_hex) {
    Bytes be = codec::from_hex(bits_hex);
    if (be.size() != 8) throw Unsupported("DOUBLE bits must be 16 hex digits");
    std::uint64_t bits = 0;
    for (auto b : be) bits = (bits << 8) | b;
    double x;
    std::memcpy(&x, &bits, sizeof x);
    Bytes out;
    // x == (double)(float)x; a finite x beyond FLT_MAX cannot be a float32 (and casting it would be undefined).
    if (!std::isnan(x) && (std::isinf(x) || std::fabs(x) <= FLT_MAX)) {
        float f = static_cast<float>(x);
        if (static_cast<double>(f) == x) {
            std::uint32_t u;
            std::memcpy(&u, &f, sizeof u);
            put_le(out, u, 4);
            return out;
        }
    }
    put_le(out, bits, 8);
    return out;
}

Bytes encode_date(const ojson& v) {
    auto y = int_field(v, "year"), m = int_field(v, "month"), d = int_field(v, "day");
    check(m && d && *m >= 1 && *m <= 12 && *d >= 1 && *d <= days_in_month(y.value_or(2000), *m),
          "invalid.tuple-value", "no such date");
    check(y && *y >= -16384 && *y <= 16383, "unrepresentable", "year does not fit 15 bits");
    Bytes out;
    put_le(out, static_cast<std::uint64_t>(*y * 512 + *m * 32 + *d), 3);  // 24 bits, two's complement year
    return out;
}

Bytes encode_time(const ojson& v) {
    auto h = int_field(v, "hour"), mi = int_field(v, "minute"), s = int_field(v, "second"), n = int_field(v, "nano");
    check(h && mi && s && n && *h >= 0 && *h <= 23 && *mi >= 0 && *mi <= 59 && *s >= 0 && *s <= 59 && *n >= 0 &&
              *n <= 999999999,
          "invalid.tuple-value", "no such time");
    const std::size_t size = *n % 1000 ? 6 : *n % 1000000 ? 5 : 4;
    const unsigned bits = size == 4 ? 10 : size == 5 ? 20 : 30;
    const std::int64_t unit = size == 4 ? 1000000 : size == 5 ? 1000 : 1;
    Bytes out;
    put_le(out, static_cast<std::uint64_t>(*h << 12 | *mi << 6 | *s) << bits | static_cast<std::uint64_t>(*n / unit),
           size);
    return out;
}

Bytes encode_seconds_nanos(const ojson& v, const std::string& t) {
    std::string decimal = decimal_field(v, "seconds");
    auto seconds = to_i64(decimal);
    auto nano = int_field(v, "nano");
    check(nano && *nano >= 0 && *nano <= 999999999, "invalid.tuple-value", "nano out of range");
    if (t == "TIMESTAMP")
        check(seconds && *seconds >= kMinInstantSeconds && *seconds <= kMaxInstantSeconds, "invalid.tuple-value",
              "seconds " + decimal + " outside Instant");
    check(seconds.has_value(), "unrepresentable", "seconds " + decimal + " outside int64");
    Bytes out;
    put_le(out, static_cast<std::uint64_t>(*seconds), 8);
    if (*nano) put_le(out, static_cast<std::uint64_t>(*nano), 4);
    return out;
}

Bytes encode_decimal(const std::string& unscaled, std::optional<std::int64_t> scale) {
    check(scale && fits(*scale, 2), "unrepresentable", "DECIMAL scale outside int16");
    Bytes out;
    put_le(out, static_cast<std::uint64_t>(*scale), 2);
    Bytes twos = bigint::to_twos_complement(unscaled);
    out.insert(out.end(), twos.begin(), twos.end());
    return out;
}

Bytes encode_varlen(Bytes data) {
    if (data.empty() || data[0] == kEmpty) data.insert(data.begin(), kEmpty);
    return data;
}

Bytes uuid_le(const std::string& text) {
    bool dashes = text.size() == 36 && text[8] == '-' && text[13] == '-' && text[18] == '-' && text[23] == '-';
    if (!dashes) throw Unsupported("UUID value is not canonical text");
    std::string hex = text;
    hex.erase(std::remove(hex.begin(), hex.end(), '-'), hex.end());
    Bytes b = codec::from_hex(hex);  // throws Unsupported on a bad digit
    if (b.size() != 16) throw Unsupported("UUID value is not canonical text");
    std::reverse(b.begin(), b.begin() + 8);
    std::reverse(b.begin() + 8, b.end());
    return b;
}

Bytes encode_element(const ojson& v, bool beta1 = false);

// BT-1: defaults (0, 0.0, false, empty) are zero-length; no 80 marker.
Bytes encode_element_beta1(const ojson& v) {
    const std::string t = text_field(v, "type");
    if (t == "STRING") {
        std::string s = text_field(v, "value");
        return Bytes(s.begin(), s.end());
    }
    if (t == "BYTE_ARRAY") return codec::from_hex(text_field(v, "hex"));
    auto d = beta1_default(t);
    if (!d) throw Unsupported("beta1 " + t + " is not modelled (spec 6.2.8)");
    if (v == *d) return {};
    if (t == "NUMBER") return bigint::to_twos_complement(decimal_field(v, "value"));  // BigInteger.toByteArray
    return encode_element(v);
}

Bytes encode_element(const ojson& v, bool beta1) {
    const std::string t = text_field(v, "type");
    if (t == "NULL" || t == "NO_VALUE") return {};
    if (beta1) return encode_element_beta1(v);
    if (t == "BOOLEAN") {
        const ojson& b = field(v, "value");
        if (!b.is_boolean()) throw Unsupported("BOOLEAN value is not a boolean");
        return {static_cast<std::uint8_t>(b.get<bool>() ? 1 : 0)};
    }
    if (int_width(t)) return encode_int(t, decimal_field(v, "value"));
    if (t == "FLOAT") {
        Bytes b = codec::from_hex(text_field(v, "bits"));
        if (b.size() != 4) throw Unsupported("FLOAT bits must be 8 hex digits");
        std::reverse(b.begin(), b.end());
        return b;
    }
    if (t == "DOUBLE") return encode_double(text_field(v, "bits"));
    if (t == "DECIMAL") return encode_decimal(decimal_field(v, "unscaled"), int_field(v, "scale"));
    if (t == "DATE") return encode_date(v);
    if (t == "TIME") return encode_time(v);
    if (t == "DATETIME") {
        Bytes out = encode_date(v), time = encode_time(v);
        out.insert(out.end(), time.begin(), time.end());
        return out;
    }
    if (t == "TIMESTAMP" || t == "DURATION") return encode_seconds_nanos(v, t);
    if (t == "UUID") return uuid_le(text_field(v, "value"));
    if (t == "STRING") {
        std::string s = text_field(v, "value");
        return encode_varlen(Bytes(s.begin(), s.end()));
    }
    if (t == "BYTE_ARRAY") return encode_varlen(codec::from_hex(text_field(v, "hex")));
    if (t == "PERIOD") {
        std::array<std::optional<std::int64_t>, 3> parts = {int_field(v, "years"), int_field(v, "months"),
                                                            int_field(v, "days")};
        for (std::size_t size = 1; size <= 4; size *= 2) {
            if (!std::all_of(parts.begin(), parts.end(), [&](auto p) { return p && fits(*p, size); })) continue;
            Bytes out;
            for (auto p : parts) put_le(out, static_cast<std::uint64_t>(*p), size);
            return out;
        }
        throw WireError("unrepresentable", "PERIOD field outside int32");
    }
    throw Unsupported("no element type '" + t + "'");
}

// ---------------------------------------------------------------- triples

// Java BigDecimal.stripTrailingZeros() on the decimal string; zero becomes (0, 0).
std::pair<std::string, std::int64_t> stripped(std::string unscaled, std::int64_t scale) {
    if (unscaled == "0") return {"0", 0};
    std::size_t zeros = unscaled.size() - 1 - unscaled.find_last_not_of('0');
    unscaled.resize(unscaled.size() - zeros);
    return {unscaled, scale - static_cast<std::int64_t>(zeros)};
}

std::vector<Bytes> triple(const ojson& v) {
    const std::string t = text_field(v, "type");
    if (t == "NULL") return {{}, {}, {}};
    const int id = type_id(t);
    if (id <= 0) throw Unsupported("no object type '" + t + "'");
    std::int64_t scale = 0;
    Bytes value;
    if (t == "DECIMAL") {
        std::string unscaled = decimal_field(v, "unscaled");
        auto s = int_field(v, "scale");
        check(s && fits(*s, 4), "unrepresentable", "DECIMAL scale outside int32");
        scale = *s;
        auto [su, ss] = stripped(unscaled, scale);  // the java producer profile (canonical): shrinkDecimal
        value = fits(ss, 2) ? encode_decimal(su, ss) : encode_decimal(unscaled, scale);
    } else {
        value = encode_element(v);
    }
    return {encode_int("INT32", std::to_string(id)), encode_int("INT32", std::to_string(scale)), value};
}

// An INT32 element that may not be NULL (Java reads type ids, scales and counts with intValue).
std::int64_t int_element(Span b) { return std::stoll(decode_element("INT32", b)["value"].get<std::string>()); }

// The ColumnType a type id element names, if it is a 3.0 value type.
std::string value_type(Span b, const std::string& what) {
    const std::int64_t id = int_element(b);
    const char* name = id > 0 && id < static_cast<std::int64_t>(kTypeNames.size()) ? kTypeNames[id] : "";
    check(*name, "invalid.tuple-type", what + " " + std::to_string(id) + " is not a 3.0 value type");
    return name;
}

ojson read_triple(const Span* parts) {
    const Span type_b = parts[0], scale_b = parts[1], value_b = parts[2];
    if (!type_b.n) return {{"type", "NULL"}};
    const std::string t = value_type(type_b, "type id");
    check(value_b.n > 0, "invalid.tuple-length", t + " object without a value");
    ojson v = decode_element(t, value_b);
    if (t != "DECIMAL") return v;
    // The value at the scale of the scale element, rescaled exactly (Java setScale(scale, UNNECESSARY)).
    // Java reads the scale with intValue, which refuses a zero-length element (spec BT-OBJECT-DECIMAL-SCALE).
    check(scale_b.n > 0, "invalid.tuple-length", "DECIMAL object with a NULL scale element");
    const std::int64_t want = int_element(scale_b);
    std::string unscaled = v["unscaled"].get<std::string>();
    const std::int64_t scale = v["scale"].get<std::int64_t>();
    if (unscaled != "0" && scale <= want) {
        if (static_cast<std::uint64_t>(want - scale) > kMaxRescaleDigits)
            throw Unsupported("rescaling DECIMAL by 10^" + std::to_string(want - scale) + " is beyond the runner");
        unscaled.append(static_cast<std::size_t>(want - scale), '0');
    } else if (unscaled != "0") {
        const std::uint64_t k = static_cast<std::uint64_t>(scale - want);
        const std::size_t digits = unscaled.size() - (unscaled[0] == '-' ? 1 : 0);
        const bool exact = k < digits && unscaled.find_last_not_of('0') < unscaled.size() - k;
        check(exact, "invalid.tuple-value",
              "(" + unscaled + ", " + std::to_string(scale) + ") does not rescale exactly to scale " +
                  std::to_string(want));
        unscaled.resize(unscaled.size() - static_cast<std::size_t>(k));
    }
    return {{"type", t}, {"unscaled", unscaled}, {"scale", want}};
}

// ---------------------------------------------------------------- formats

ojson msgpack_values(const Bytes& data) {
    try {
        return codec::decode(data, ignite::Era::V3_0);
    } catch (const Unsupported& e) {
        // codec declines only well-formed input holding a map with non-str keys (nlohmann's limit). No format
        // here has a map in any position (nil, int, bin, BITMASK only), so the answer is the shape error anyway.
        throw WireError("invalid.tuple-type", std::string("a map where none belongs: ") + e.what());
    }
}

Bytes bin_of(const ojson& value, const std::string& what) {
    check(value.value("type", "") == "bin", "invalid.tuple-type",
          what + ": expected a bin, got " + value.value("type", "?"));
    return codec::from_hex(value.at("hex").get<std::string>());
}

// The request's ColumnType names (binary-tuple, table-row: required).
// NUMBER is a column type of beta1 only (spec 6.2.8).
std::vector<std::string> column_names(const ojson& columns, bool beta1 = false) {
    if (!columns.is_array()) throw Unsupported("this format needs 'columns'");
    std::vector<std::string> names;
    for (const auto& c : columns) {
        if (!c.is_string() || (type_id(c.get<std::string>()) < 0 && !(beta1 && c.get<std::string>() == "NUMBER")))
            throw Unsupported("unknown column type " + c.dump());
        names.push_back(c.get<std::string>());
    }
    return names;
}

// Values as the elements of these columns: one per column, each of its column's type, NULL, or (rows) NO_VALUE.
void check_columns(const ojson& values, const std::vector<std::string>& names, bool row) {
    if (!values.is_array() || values.size() != names.size()) throw Unsupported("one value per column expected");
    for (std::size_t i = 0; i < names.size(); ++i) {
        const std::string t = text_field(values[i], "type");
        if (t != names[i] && t != "NULL" && !(row && t == "NO_VALUE"))
            throw Unsupported("value " + std::to_string(i) + " (" + t + ") is not of column type " + names[i]);
    }
}

void check_era(ignite::Era era, bool beta1_ok) {
    if (era != ignite::Era::V3_0 && !(beta1_ok && era == ignite::Era::Beta1))
        throw Unsupported(std::string("no Binary Tuple of this format in era ") + ignite::era_name(era));
}

// The bin that must follow the first MessagePack value of a collection or compute argument, alone.
Bytes one_bin_after(const ojson& outer, const std::string& what) {
    check(outer.size() == 2, "invalid.tuple-type",
          what + ": expected one bin after the first value, got " + std::to_string(outer.size() - 1) + " values");
    return bin_of(outer[1], what);
}

// Spec 6.3: element count (a MessagePack int, as text), then the tuple of type id, count, items.
ojson read_collection(const std::string& count_text, const ojson& outer) {
    check(count_text[0] != '-' && count_text.size() < 20, "invalid.tuple-type",
          "collection element count " + count_text + " is negative or too large");
    const std::uint64_t n = std::stoull(count_text);
    check(n >= 2, "invalid.tuple-type", "collection element count " + count_text + " is below 2");
    check(outer.size() > 1, "malformed.truncated", "collection: the input ends where the bin belongs");
    Bytes tuple = one_bin_after(outer, "collection");
    Tuple parts = read_tuple(tuple.data(), tuple.size(), n, false);
    const std::string t = value_type(parts.parts[0], "collection type id");
    const std::int64_t count = int_element(parts.parts[1]);
    check(count >= 0 && static_cast<std::uint64_t>(count) == n - 2, "invalid.tuple-type",
          "collection count " + std::to_string(count) + " with " + count_text + " elements (count + 2 expected)");
    ojson out = ojson::array();
    for (std::size_t i = 2; i < parts.parts.size(); ++i) {
        check(parts.parts[i].n > 0, "invalid.tuple-length", "a NULL collection item");
        out.push_back(decode_element(t, parts.parts[i]));
    }
    return out;
}

// ComputeJobDataType ids the corpus models (spec 6.4).
const char* const kComputeNative = "0";
const char* const kComputeMarshalled = "2";

// Spec 6.4: kind, then one bin holding a triple (NATIVE) or the marshaller's bytes.
ojson read_compute_arg(const std::string& kind, const ojson& outer) {
    check(kind == kComputeNative || kind == kComputeMarshalled, "invalid.tuple-type", "compute argument kind " + kind);
    check(outer.size() > 1, "malformed.truncated", "compute argument: the input ends where the bin belongs");
    Bytes data = one_bin_after(outer, "compute argument");
    if (kind == kComputeMarshalled) return ojson::array({{{"type", "MARSHALLED"}, {"hex", codec::to_hex(data.data(), data.size())}}});
    return ojson::array({read_triple(read_tuple(data.data(), data.size(), 3, false).parts.data())});
}

std::vector<Bytes> collection_parts(const ojson& values) {
    const std::string t = text_field(values[0], "type");
    std::vector<Bytes> parts;
    for (const auto& v : values) {
        check(text_field(v, "type") != "NULL", "unrepresentable", "a NULL collection item");
        check(text_field(v, "type") == t, "unrepresentable", "collection items of types " + t + " and " + text_field(v, "type"));
        parts.push_back(encode_element(v));
    }
    parts.insert(parts.begin(), {encode_int("INT32", std::to_string(type_id(t))), encode_int("INT32", std::to_string(values.size()))});
    return parts;
}

ojson bin_value(const Bytes& b) { return {{"type", "bin"}, {"hex", codec::to_hex(b.data(), b.size())}}; }

// Batched arguments (spec BT-BATCH): nil, or row length N, row count, a bool (ignored), then one bin of 3N elements
// per row; input that ends early is malformed.truncated, any other form invalid.tuple-type (BT-BATCH-FORM).
ojson read_batch(const ojson& outer) {
    ojson out = ojson::array();
    if (!outer.empty() && outer[0]["type"] == "nil") {
        check(outer.size() == 1, "invalid.tuple-type", "batched arguments: nil followed by more values");
        return out;
    }
    // input that ends where a header value or a row belongs is truncated (BT-BATCH-FORM): Java meets the end
    const char* const header[3][2] = {{"int", "row length"}, {"int", "row count"}, {"bool", "third value"}};
    for (std::size_t i = 0; i < 3; ++i) {
        check(outer.size() > i, "malformed.truncated", std::string("batched arguments: the input ends where the ") + header[i][1] + " belongs");
        check(outer[i]["type"] == header[i][0], "invalid.tuple-type", "batched arguments are a row length, a count and a bool, then the rows");
    }
    const std::string length = outer[0]["value"].get<std::string>(), count = outer[1]["value"].get<std::string>();
    check(length[0] != '-' && count[0] != '-', "invalid.tuple-type", "batched arguments: row length " + length + ", count " + count);
    const std::uint64_t n = std::stoull(length), rows = std::stoull(count);
    check(n > 0 || rows == 0, "invalid.tuple-type", "batched arguments: rows of no arguments");
    check(rows <= outer.size() - 3, "malformed.truncated",
          "batched arguments: count " + count + ", the input ends after " + std::to_string(outer.size() - 3) + " rows");
    check(rows == outer.size() - 3, "invalid.tuple-type",
          "batched arguments: count " + count + ", " + std::to_string(outer.size() - 3) + " values follow");
    for (std::size_t r = 3; r < outer.size(); ++r) {
        Bytes tuple = bin_of(outer[r], "batch row");
        // 3N entries; an N beyond the bin's length is refused by read_tuple as it is (3N could overflow).
        Tuple parts = read_tuple(tuple.data(), tuple.size(), n <= tuple.size() ? 3 * n : n, false);
        ojson items = ojson::array();
        for (std::size_t i = 0; i < parts.parts.size(); i += 3) items.push_back(read_triple(&parts.parts[i]));
        out.push_back({{"type", "array"}, {"items", std::move(items)}});
    }
    return out;
}

Bytes write_batch(const ojson& rows) {
    if (rows.empty()) return codec::encode(ojson::array({{{"type", "nil"}}}));
    ojson out = ojson::array();
    std::size_t n = 0;
    for (const auto& row : rows) {
        check(row.is_object() && row.value("type", "") == "array" && row.contains("items") && row["items"].is_array(),
              "unrepresentable", "batched arguments: every row is a typed array");
        const ojson& items = row["items"];
        if (out.empty()) n = items.size();
        check(!items.empty() && items.size() == n, "unrepresentable",
              "batched arguments: rows of " + std::to_string(n) + " and " + std::to_string(items.size()) +
                  " arguments (one row length >= 1 is written)");
        std::vector<Bytes> parts;
        for (const auto& v : items)
            for (auto& p : triple(v)) parts.push_back(std::move(p));
        out.push_back(bin_value(write_tuple(parts)));
    }
    ojson head = ojson::array({{{"type", "int"}, {"value", std::to_string(n)}},
                               {{"type", "int"}, {"value", std::to_string(rows.size())}},
                               {{"type", "bool"}, {"value", false}}});
    head.insert(head.end(), out.begin(), out.end());
    return codec::encode(head);
}

}  // namespace

bool is_format(const std::string& format) {
    return format == "binary-tuple" || format == "object" || format == "object-array" || format == "table-row" ||
           format == "collection" || format == "compute-arg" || format == "batched-arguments";
}

ojson decode(const std::string& format, const Bytes& data, ignite::Era era, const ojson& columns) {
    ojson out = ojson::array();
    if (format == "binary-tuple") {
        check_era(era, true);
        const bool beta1 = era == ignite::Era::Beta1;
        std::vector<std::string> names = column_names(columns, beta1);
        Tuple tuple = read_tuple(data.data(), data.size(), names.size(), beta1);
        for (std::size_t i = 0; i < names.size(); ++i)
            out.push_back(decode_column(names[i], tuple.parts[i], beta1, !tuple.nulls.empty() && tuple.nulls[i]));
        return out;
    }
    check_era(era, false);
    // Input that ends where a value of the form belongs is truncated (spec BT-WRAPPER, BT-COLLECTION-COUNT,
    // BT-COMPUTE-ARG-BIN): Java meets the end of its buffer, as for any cut value.
    if (data.empty()) throw WireError("malformed.truncated", format + ": no value");
    if (format == "object") {
        ojson outer = msgpack_values(data);
        check(outer.size() == 1, "invalid.tuple-type",
              "an object is one MessagePack value, not " + std::to_string(outer.size()));
        if (outer[0]["type"] == "nil") return ojson::array({{{"type", "NULL"}}});
        Bytes tuple = bin_of(outer[0], "object");
        out.push_back(read_triple(read_tuple(tuple.data(), tuple.size(), 3, false).parts.data()));
        return out;
    }
    if (format == "object-array") {
        ojson outer = msgpack_values(data);
        check(outer[0]["type"] == "int", "invalid.tuple-type", "an object array starts with its count");
        const std::string count = outer[0]["value"].get<std::string>();
        check(count[0] != '-', "invalid.tuple-type", "negative object array count " + count);
        const std::uint64_t n = std::stoull(count);
        check(n == 0 || outer.size() > 1, "malformed.truncated", "object array: the input ends where the bin belongs");
        check(outer.size() == (n ? 2u : 1u), "invalid.tuple-type", "an object array is a count and (N > 0) one bin");
        if (n == 0) return out;
        Bytes tuple = bin_of(outer[1], "object array");
        // 3N entries; an N beyond the bin's length is refused by read_tuple as it is (3N could overflow).
        Tuple parts = read_tuple(tuple.data(), tuple.size(), n <= tuple.size() ? 3 * n : n, false);
        for (std::size_t i = 0; i < parts.parts.size(); i += 3) out.push_back(read_triple(&parts.parts[i]));
        return out;
    }
    if (format == "batched-arguments") return read_batch(msgpack_values(data));
    if (format == "table-row") {
        std::vector<std::string> names = column_names(columns);
        ojson outer = msgpack_values(data);
        check(outer.size() > 1 || outer[0]["type"] != "bitmask", "malformed.truncated", "row: the input ends where the bin belongs");
        check(outer.size() == 2 && outer[0]["type"] == "bitmask", "invalid.tuple-type", "a row is a BITMASK and a bin");
        Bytes tuple = bin_of(outer[1], "row");
        Tuple parts = read_tuple(tuple.data(), tuple.size(), names.size(), false);
        std::vector<bool> no_value(names.size(), false);
        for (const auto& bit : outer[0]["bits"])  // bits at or beyond N name no column: ignored
            if (bit.get<std::uint64_t>() < names.size()) no_value[bit.get<std::size_t>()] = true;
        for (std::size_t i = 0; i < names.size(); ++i)
            out.push_back(no_value[i] ? ojson{{"type", "NO_VALUE"}} : decode_column(names[i], parts.parts[i], false));
        return out;
    }
    if (format == "collection" || format == "compute-arg") {
        ojson outer = msgpack_values(data);
        if (outer[0]["type"] == "nil") {
            check(outer.size() == 1, "invalid.tuple-type", format + ": nil followed by more values");
            return format == "collection" ? out : ojson::array({{{"type", "NULL"}}});
        }
        check(outer[0]["type"] == "int", "invalid.tuple-type", format + ": the first value is not an int");
        const std::string first = outer[0]["value"].get<std::string>();
        return format == "collection" ? read_collection(first, outer) : read_compute_arg(first, outer);
    }
    throw Unsupported("format '" + format + "'");
}

Bytes encode(const std::string& format, const ojson& values, ignite::Era era, const ojson& columns) {
    if (!values.is_array()) throw Unsupported("'values' is not a list");
    if (format == "binary-tuple") {
        check_era(era, true);
        const bool beta1 = era == ignite::Era::Beta1;
        check_columns(values, column_names(columns, beta1), false);
        std::vector<Bytes> parts;
        std::vector<bool> nulls;
        for (const auto& v : values) {
            parts.push_back(encode_element(v, beta1));
            nulls.push_back(beta1 && v["type"] == "NULL");
        }
        return write_tuple(parts, nulls);
    }
    check_era(era, false);
    if (format == "object") {
        if (values.size() != 1) throw Unsupported("an object is exactly one value");
        if (text_field(values[0], "type") == "NULL") return codec::encode(ojson::array({{{"type", "nil"}}}));
        Bytes tuple = write_tuple(triple(values[0]));
        return codec::encode(ojson::array({{{"type", "bin"}, {"hex", codec::to_hex(tuple.data(), tuple.size())}}}));
    }
    if (format == "object-array") {
        ojson out = ojson::array({{{"type", "int"}, {"value", std::to_string(values.size())}}});
        if (!values.empty()) {
            std::vector<Bytes> parts;
            for (const auto& v : values)
                for (auto& p : triple(v)) parts.push_back(std::move(p));
            Bytes tuple = write_tuple(parts);
            out.push_back({{"type", "bin"}, {"hex", codec::to_hex(tuple.data(), tuple.size())}});
        }
        return codec::encode(out);
    }
    if (format == "batched-arguments") return write_batch(values);
    if (format == "table-row") {
        check_columns(values, column_names(columns), true);
        ojson bits = ojson::array();
        std::vector<Bytes> parts;
        for (std::size_t i = 0; i < values.size(); ++i) {
            if (values[i]["type"] == "NO_VALUE") bits.push_back(i);
            parts.push_back(encode_element(values[i]));
        }
        Bytes row = write_tuple(parts);
        return codec::encode(ojson::array({{{"type", "bitmask"}, {"era", ignite::era_name(era)}, {"bits", bits}},
                                           {{"type", "bin"}, {"hex", codec::to_hex(row.data(), row.size())}}}));
    }
    if (format == "collection") {
        if (values.empty()) return codec::encode(ojson::array({{{"type", "nil"}}}));
        const Bytes tuple = write_tuple(collection_parts(values));
        return codec::encode(ojson::array({{{"type", "int"}, {"value", std::to_string(values.size() + 2)}}, bin_value(tuple)}));
    }
    if (format == "compute-arg") {
        if (values.size() != 1) throw Unsupported("a compute argument is exactly one value");
        const std::string t = text_field(values[0], "type");
        if (t == "NULL") return codec::encode(ojson::array({{{"type", "nil"}}}));
        const bool marshalled = t == "MARSHALLED";
        const ojson payload = marshalled ? ojson{{"type", "bin"}, {"hex", text_field(values[0], "hex")}}
                                         : bin_value(write_tuple(triple(values[0])));
        return codec::encode(ojson::array({{{"type", "int"}, {"value", marshalled ? kComputeMarshalled : kComputeNative}}, payload}));
    }
    throw Unsupported("format '" + format + "'");
}

}  // namespace binary_tuple
