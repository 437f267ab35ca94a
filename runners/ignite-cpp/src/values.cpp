// Typed-value notation <-> the client's value types. No wire bytes are produced or read here.
#include "values.hpp"

#include <ignite/common/big_decimal.h>
#include <ignite/common/big_integer.h>

#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <sstream>

namespace icpp {

using namespace ignite;

std::vector<std::byte> from_hex(const std::string &hex) {
    std::vector<std::byte> out(hex.size() / 2);
    for (std::size_t i = 0; i < out.size(); ++i)
        out[i] = std::byte(std::stoul(hex.substr(2 * i, 2), nullptr, 16));
    return out;
}

std::string to_hex(bytes_view bytes) {
    static const char digits[] = "0123456789abcdef";
    std::string out;
    out.reserve(bytes.size() * 2);
    for (auto b : bytes) {
        out.push_back(digits[std::to_integer<unsigned>(b) >> 4]);
        out.push_back(digits[std::to_integer<unsigned>(b) & 15]);
    }
    return out;
}

namespace {

// A JSON integer or decimal string that must fit the client's C++ type T.
template<typename T>
T fit(const json &v, const char *what) {
    long long x;
    if (v.is_string()) {
        const std::string &s = v.get_ref<const std::string &>();
        errno = 0;
        char *end = nullptr;
        x = std::strtoll(s.c_str(), &end, 10);
        if (errno == ERANGE || end == s.c_str() || *end != '\0')
            throw unrepresentable(std::string(what) + " " + s + " does not fit the client's 64-bit type");
    } else if (v.is_number_integer()) {
        if (v.is_number_unsigned() && v.get<unsigned long long>() > (unsigned long long) LLONG_MAX)
            throw unrepresentable(std::string(what) + " " + v.dump() + " does not fit the client's type");
        x = v.get<long long>();
    } else {
        throw std::invalid_argument(std::string(what) + " is not an integer");
    }
    if (x < (long long) std::numeric_limits<T>::min() || x > (long long) std::numeric_limits<T>::max())
        throw unrepresentable(std::string(what) + " " + std::to_string(x) + " does not fit the client's C++ type");
    return T(x);
}

template<typename U, typename F>
F from_bits(const std::string &hex) {
    U bits = U(std::stoull(hex, nullptr, 16));
    F f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

template<typename U, typename F>
std::string to_bits(F f) {
    U bits;
    std::memcpy(&bits, &f, sizeof bits);
    std::ostringstream os;
    os << std::hex;
    os.width(sizeof(U) * 2);
    os.fill('0');
    os << (unsigned long long) bits;
    return os.str();
}

ignite_date date_of(const json &e) {
    return {fit<std::int32_t>(e.at("year"), "year"), fit<std::int32_t>(e.at("month"), "month"),
        fit<std::int32_t>(e.at("day"), "day")};
}

ignite_time time_of(const json &e) {
    // ignite_time holds hour, minute and second as std::int_fast8_t.
    return {fit<std::int_fast8_t>(e.at("hour"), "hour"), fit<std::int_fast8_t>(e.at("minute"), "minute"),
        fit<std::int_fast8_t>(e.at("second"), "second"), fit<std::int32_t>(e.at("nano"), "nano")};
}

void put_date(json &out, const ignite_date &d) {
    out["year"] = d.get_year();
    out["month"] = int(d.get_month());
    out["day"] = int(d.get_day_of_month());
}

void put_time(json &out, const ignite_time &t) {
    out["hour"] = int(t.get_hour());
    out["minute"] = int(t.get_minute());
    out["second"] = int(t.get_second());
    out["nano"] = t.get_nano();
}

} // namespace

uuid parse_uuid(const std::string &text) {
    std::istringstream is(text);
    uuid u;
    is >> u; // the client's own parser (common/uuid.h operator>>)
    return u;
}

std::string format_uuid(const uuid &value) {
    std::ostringstream os;
    os << value; // the client's own formatter (common/uuid.h operator<<)
    return os.str();
}

ignite_type column_type(const std::string &name) {
    static const std::map<std::string, ignite_type> types = {{"BOOLEAN", ignite_type::BOOLEAN},
        {"INT8", ignite_type::INT8}, {"INT16", ignite_type::INT16}, {"INT32", ignite_type::INT32},
        {"INT64", ignite_type::INT64}, {"FLOAT", ignite_type::FLOAT}, {"DOUBLE", ignite_type::DOUBLE},
        {"DECIMAL", ignite_type::DECIMAL}, {"DATE", ignite_type::DATE}, {"TIME", ignite_type::TIME},
        {"DATETIME", ignite_type::DATETIME}, {"TIMESTAMP", ignite_type::TIMESTAMP}, {"UUID", ignite_type::UUID},
        {"STRING", ignite_type::STRING}, {"BYTE_ARRAY", ignite_type::BYTE_ARRAY}, {"PERIOD", ignite_type::PERIOD},
        {"DURATION", ignite_type::DURATION}};
    auto it = types.find(name);
    if (it == types.end())
        throw no_api("the C++ client has no column type " + name);
    return it->second;
}

primitive to_primitive(const json &e) {
    const std::string &t = e.at("type").get_ref<const std::string &>();
    if (t == "NULL")
        return {};
    if (t == "BOOLEAN")
        return e.at("value").get<bool>();
    if (t == "INT8")
        return fit<std::int8_t>(e.at("value"), "INT8");
    if (t == "INT16")
        return fit<std::int16_t>(e.at("value"), "INT16");
    if (t == "INT32")
        return fit<std::int32_t>(e.at("value"), "INT32");
    if (t == "INT64")
        return fit<std::int64_t>(e.at("value"), "INT64");
    if (t == "FLOAT")
        return from_bits<std::uint32_t, float>(e.at("bits").get<std::string>());
    if (t == "DOUBLE")
        return from_bits<std::uint64_t, double>(e.at("bits").get<std::string>());
    if (t == "DECIMAL")
        return big_decimal(big_integer(e.at("unscaled").get<std::string>()), fit<std::int16_t>(e.at("scale"), "scale"));
    if (t == "DATE")
        return date_of(e);
    if (t == "TIME")
        return time_of(e);
    if (t == "DATETIME")
        return ignite_date_time(date_of(e), time_of(e));
    if (t == "TIMESTAMP")
        return ignite_timestamp(fit<std::int64_t>(e.at("seconds"), "seconds"), fit<std::int32_t>(e.at("nano"), "nano"));
    if (t == "DURATION")
        return ignite_duration(fit<std::int64_t>(e.at("seconds"), "seconds"), fit<std::int32_t>(e.at("nano"), "nano"));
    if (t == "UUID")
        return parse_uuid(e.at("value").get<std::string>());
    if (t == "STRING")
        return e.at("value").get<std::string>();
    if (t == "BYTE_ARRAY")
        return from_hex(e.at("hex").get<std::string>());
    if (t == "PERIOD")
        return ignite_period(fit<std::int32_t>(e.at("years"), "years"), fit<std::int32_t>(e.at("months"), "months"),
            fit<std::int32_t>(e.at("days"), "days"));
    throw no_api("the C++ client has no value type for element " + t);
}

json from_primitive(const primitive &p) {
    json out;
    if (p.is_null())
        return json{{"type", "NULL"}};
    switch (p.get_type()) {
        case ignite_type::BOOLEAN:
            return json{{"type", "BOOLEAN"}, {"value", p.get<bool>()}};
        case ignite_type::INT8:
            return json{{"type", "INT8"}, {"value", std::to_string(p.get<std::int8_t>())}};
        case ignite_type::INT16:
            return json{{"type", "INT16"}, {"value", std::to_string(p.get<std::int16_t>())}};
        case ignite_type::INT32:
            return json{{"type", "INT32"}, {"value", std::to_string(p.get<std::int32_t>())}};
        case ignite_type::INT64:
            return json{{"type", "INT64"}, {"value", std::to_string(p.get<std::int64_t>())}};
        case ignite_type::FLOAT:
            return json{{"type", "FLOAT"}, {"bits", to_bits<std::uint32_t>(p.get<float>())}};
        case ignite_type::DOUBLE:
            return json{{"type", "DOUBLE"}, {"bits", to_bits<std::uint64_t>(p.get<double>())}};
        case ignite_type::DECIMAL: {
            const auto &d = p.get<big_decimal>();
            return json{{"type", "DECIMAL"}, {"unscaled", d.get_unscaled_value().to_string()},
                {"scale", d.get_scale()}};
        }
        case ignite_type::DATE:
            out["type"] = "DATE";
            put_date(out, p.get<ignite_date>());
            return out;
        case ignite_type::TIME:
            out["type"] = "TIME";
            put_time(out, p.get<ignite_time>());
            return out;
        case ignite_type::DATETIME:
            out["type"] = "DATETIME";
            put_date(out, p.get<ignite_date_time>().date());
            put_time(out, p.get<ignite_date_time>().time());
            return out;
        case ignite_type::TIMESTAMP: {
            const auto &ts = p.get<ignite_timestamp>();
            return json{{"type", "TIMESTAMP"}, {"seconds", std::to_string(ts.get_epoch_second())},
                {"nano", ts.get_nano()}};
        }
        case ignite_type::DURATION: {
            const auto &d = p.get<ignite_duration>();
            return json{{"type", "DURATION"}, {"seconds", std::to_string(d.get_seconds())}, {"nano", d.get_nano()}};
        }
        case ignite_type::UUID:
            return json{{"type", "UUID"}, {"value", format_uuid(p.get<uuid>())}};
        case ignite_type::STRING:
            return json{{"type", "STRING"}, {"value", p.get<std::string>()}};
        case ignite_type::BYTE_ARRAY:
            return json{{"type", "BYTE_ARRAY"}, {"hex", to_hex(p.get<std::vector<std::byte>>())}};
        case ignite_type::PERIOD: {
            const auto &per = p.get<ignite_period>();
            return json{{"type", "PERIOD"}, {"years", per.get_years()}, {"months", per.get_months()},
                {"days", per.get_days()}};
        }
        default:
            throw no_api("the client read a value of type id " + std::to_string(int(p.get_type())));
    }
}

} // namespace icpp
