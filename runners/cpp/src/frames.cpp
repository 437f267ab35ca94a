// The frame layer (FRAMES.md). Each message kind's layout is written once, as a function template over the
// direction: a Reader walks it over the decoded value list (a Cursor), a Writer walks it over the request's fields
// and appends typed values in layout order. Both offer the same field types (FRAMES.md section 2), so a layout reads
// like the contract's table. Every value goes through codec::decode / codec::encode (era 3.0); nothing is
// allocated by a declared length or count: a count only bounds a loop that stops when the value list runs out.
#include "frames.hpp"

#include <algorithm>
#include <charconv>
#include <iterator>
#include <limits>
#include <optional>

#include "codec.hpp"
#include "errors.hpp"
#include "ignite_ext.hpp"

namespace frames {
namespace {

using ojson = nlohmann::ordered_json;
using Bytes = std::vector<std::uint8_t>;

// Registry values (schema/registry.json frames).
constexpr std::uint8_t kMagic[4] = {0x49, 0x47, 0x4e, 0x49};  // "IGNI"
constexpr std::uint64_t kPartitionAssignment = 1;           // response_flags
constexpr std::uint64_t kNotification = 2;                  // adds no field: named for the record only
constexpr std::uint64_t kError = 4;
constexpr std::uint64_t kServerOp = 8;
constexpr std::uint64_t kServerOpResponseError = 4;         // server_op_response_flags
const char* const kSqlDirectTxMapping = "SQL_DIRECT_TX_MAPPING";  // features
const char* const kSqlMultistatementSupport = "SQL_MULTISTATEMENT_SUPPORT";
const char* const kSqlPartitionAwareness = "SQL_PARTITION_AWARENESS";
// The features that bring the direct-mapping forms of tx (spec 11.6), and the tx values that start them
// (frames.tx_ids FIRST_DIRECT and DIRECT).
const char* const kTxPiggyback = "TX_PIGGYBACK";
const char* const kTxDirectMapping = "TX_DIRECT_MAPPING";
constexpr std::int64_t kTxFirstDirect = -1;
constexpr std::int64_t kTxDirect = 0;
// Every feature a connection can negotiate (frames.features[].name): an encoder meeting another name cannot know
// the layout that name would change.
const char* const kFeatureNames[] = {
    "USER_ATTRIBUTES", "TABLE_GET_REQS_USE_QUALIFIED_NAME", "TX_DIRECT_MAPPING", "PLATFORM_COMPUTE_JOB",
    "PLATFORM_COMPUTE_EXECUTOR", "STREAMER_RECEIVER_EXECUTION_OPTIONS", "TX_DELAYED_ACKS", "TX_PIGGYBACK",
    "TX_ALLOW_NOOP_ENLIST", "SQL_PARTITION_AWARENESS", "SQL_DIRECT_TX_MAPPING", "COMPUTE_TASK_ID",
    "TX_CLIENT_GETALL_SUPPORTS_TX_OPTIONS", "SQL_MULTISTATEMENT_SUPPORT", "COMPUTE_OBSERVABLE_TS",
    "TX_DIRECT_MAPPING_SEND_REMOTE_WRITES", "SQL_PARTITION_AWARENESS_TABLE_NAME", "TX_DIRECT_MAPPING_SEND_DISCARD",
    "SQL_UPDATE_COUNTERS_2"};

// Typed value types of the scalar field types.
const char* const kInt = "int";
// FR-INT-RANGE: kInt is what Java reads with unpackInt, kLong with unpackLong (both typed ints); a count is any int.
const char* const kLong = "long";
const char* const kCount = "count";
const char* const kBool = "bool";
const char* const kStr = "str";
const char* const kBin = "bin";
const char* const kUuid = "uuid";
const char* const kBitmask = "bitmask";
const char* const kNil = "nil";

// The error object's members, in wire order (message, stack_trace: str?; extensions: error-extensions).
const char* const kErrorMembers[] = {"trace_id", "code", "class_name", "message", "stack_trace", "extensions"};

std::string type_of(const ojson& v) {
    if (!v.is_object()) return v.type_name();
    auto t = v.find("type");
    return t != v.end() && t->is_string() ? t->get<std::string>() : "object";
}
bool typed(const ojson& v, const char* type) { return type_of(v) == type; }
// Whether arguments_tuple follows this arguments_count: neither nil nor the int 0 (spec 11.7); a count of the
// wrong type brings it too (its type is refused in turn).
bool brings_tuple(const ojson& count) {
    if (typed(count, kNil)) return false;
    if (!typed(count, "int")) return true;
    auto v = count.find("value");
    return !(v != count.end() && v->is_string() && v->get<std::string>() == "0");
}
// The typed type of a field type.
const char* wire_type(const char* type) {
    return std::string(type) == kLong || std::string(type) == kCount ? kInt : type;
}

// The low 64 bits (two's complement) of a typed int, whatever its size: what `flags & bit` tests.
std::uint64_t low_bits(const ojson& v) {
    const ojson& value = v.at("value");
    if (value.is_number_unsigned()) return value.get<std::uint64_t>();
    if (value.is_number_integer()) return static_cast<std::uint64_t>(value.get<std::int64_t>());
    if (!value.is_string()) return 0;
    const std::string& s = value.get_ref<const std::string&>();
    bool negative = !s.empty() && s[0] == '-';
    std::uint64_t bits = 0;
    for (std::size_t i = negative ? 1 : 0; i < s.size(); ++i)
        if (s[i] >= '0' && s[i] <= '9') bits = bits * 10 + static_cast<std::uint64_t>(s[i] - '0');  // mod 2^64
    return negative ? ~bits + 1 : bits;
}

std::string quote(const std::string& name) { return "field '" + name + "'"; }

std::string join(const std::vector<std::string>& names) {
    std::string out;
    for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
    return out;
}

// A typed int's value as int64; nullopt when it is outside int64 (or no decimal string: codec::encode says why).
std::optional<std::int64_t> int64_of(const ojson& v) {
    auto value = v.find("value");
    if (value != v.end() && value->is_number_integer() && !value->is_number_unsigned()) return value->get<std::int64_t>();
    if (value != v.end() && value->is_number_unsigned()) {
        auto n = value->get<std::uint64_t>();
        if (n > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return std::nullopt;
        return static_cast<std::int64_t>(n);
    }
    if (value == v.end() || !value->is_string()) return std::nullopt;
    const std::string& s = value->get_ref<const std::string&>();
    std::int64_t n;
    if (std::from_chars(s.data(), s.data() + s.size(), n).ec != std::errc()) return std::nullopt;
    return n;
}

// Every int field of a layout is a Java int or long (FR-INT-RANGE): a typed int outside its field type's range
// (even one a uint64 holds) has no field to go in; cls is frame.field-type on decode, unrepresentable on encode.
void check_range(const std::string& name, const ojson& v, const char* type, const char* cls) {
    bool is_int = std::string(type) == kInt, is_long = std::string(type) == kLong;
    if (!is_int && !is_long) return;
    auto value = v.find("value");
    if (value == v.end() || (value->is_string() && value->get_ref<const std::string&>().find_first_not_of("-0123456789") != std::string::npos))
        return;  // no decimal string: left to codec::encode
    auto n = int64_of(v);
    bool inside = n && (is_long || (*n >= std::numeric_limits<std::int32_t>::min() && *n <= std::numeric_limits<std::int32_t>::max()));
    if (!inside) throw WireError(cls, quote(name) + ": " + value->dump() + " is outside the field's " + type + " range");
}

// what: the field (or its member, pair, count) in words.
WireError field_type(const std::string& what, const std::string& expected, const ojson& got) {
    return WireError("frame.field-type", what + " must be " + expected + ", not " + type_of(got));
}

ojson typed_int(std::uint64_t n) { return {{"type", kInt}, {"value", std::to_string(n)}}; }

// features <-> bin: bit i is byte i/8, bit i%8, least significant first (java.util.BitSet.toByteArray).
ojson bits_of(const ojson& bin) {
    ojson bits = ojson::array();
    Bytes bytes = codec::from_hex(bin.at("hex").get<std::string>());
    for (std::size_t i = 0; i < bytes.size(); ++i)
        for (unsigned b = 0; b < 8; ++b)
            if (bytes[i] >> b & 1) bits.push_back(i * 8 + b);
    return bits;
}
// nullopt when bits is not a list of bit indices. Minimal bytes: the highest set bit ends the bin.
std::optional<ojson> bin_of(const ojson& bits) {
    if (!bits.is_array()) return std::nullopt;
    std::uint64_t size = 0;
    std::optional<std::uint64_t> previous;
    for (const auto& b : bits) {
        if (!b.is_number_unsigned()) return std::nullopt;  // nlohmann reads every non-negative integer as unsigned
        if (previous && b.get<std::uint64_t>() <= *previous) return std::nullopt;  // FR-FEATURES-ORDER: ascending
        previous = b.get<std::uint64_t>();
        size = std::max(size, b.get<std::uint64_t>() / 8 + 1);
    }
    if (size > std::numeric_limits<std::uint32_t>::max())
        throw WireError("unrepresentable", "feature bit set longer than a bin32");
    Bytes bytes(size, 0);
    for (const auto& b : bits) {
        auto i = b.get<std::uint64_t>();
        bytes[i / 8] = static_cast<std::uint8_t>(bytes[i / 8] | 1u << (i % 8));
    }
    return ojson{{"type", kBin}, {"hex", codec::to_hex(bytes.data(), bytes.size())}};
}

// The decoded value list of a frame, taken one field at a time. A value holding a map nlohmann cannot read
// (codec::Unreadable) is the wrong type for every typed field; taken whole (a payload or extension value), the
// frame is declined once the walk is over, since its fields would not be nlohmann's.
class Cursor {
public:
    Cursor(const ojson& values, const codec::Unreadable& unreadable) : values_(values), unreadable_(unreadable) {}

    const ojson& next(const std::string& field) {
        if (at_ == values_.size()) throw WireError("malformed.truncated", "the frame ends before " + field);
        declined_ = declined_ || std::binary_search(unreadable_.values.begin(), unreadable_.values.end(), at_);
        return values_[at_++];
    }
    const ojson& next(const std::string& field, const char* type) {
        const ojson& v = next(field);
        if (!typed(v, wire_type(type))) throw field_type(field, type, v);
        check_range(field, v, type, "frame.field-type");
        return v;
    }
    const ojson& nullable(const std::string& field, const char* type) {
        const ojson& v = next(field);
        if (!typed(v, kNil) && !typed(v, wire_type(type))) throw field_type(field, std::string(type) + " or nil", v);
        if (!typed(v, kNil)) check_range(field, v, type, "frame.field-type");
        return v;
    }
    bool at_nil() const { return at_ < values_.size() && typed(values_[at_], kNil); }
    // A count: an int >= 0. Only bounds a loop over next(), which stops at the end of the list.
    std::uint64_t count(const std::string& field) {
        const std::string& s = next(field, kCount).at("value").get_ref<const std::string&>();
        if (s[0] == '-') throw WireError("frame.field-type", field + " is negative (" + s + ")");
        std::uint64_t n = 0;
        std::from_chars(s.data(), s.data() + s.size(), n);  // the decoder's ints are within uint64
        return n;
    }
    ojson rest() {
        ojson values = ojson::array();
        while (at_ < values_.size()) values.push_back(next("the payload"));
        return values;
    }
    void finish() const {
        if (at_ < values_.size())
            throw WireError("frame.trailing", std::to_string(values_.size() - at_) + " value(s) after the message's last field");
    }

    void check_readable() const {
        if (declined_) throw Unsupported(unreadable_.reason);
    }

private:
    const ojson& values_;
    const codec::Unreadable& unreadable_;
    std::size_t at_ = 0;
    bool declined_ = false;
};

// Reads a layout: each field's value into fields, from the cursor.
class Reader {
public:
    explicit Reader(Cursor& c) : c_(c) {}
    ojson& fields() { return fields_; }

    void value(const char* name, const char* type) { fields_[name] = c_.next(quote(name), type); }
    bool nullable(const char* name, const char* type) {
        fields_[name] = c_.nullable(quote(name), type);
        return !typed(fields_[name], kNil);
    }
    // arguments_count (int?): true when arguments_tuple follows.
    bool arguments_count(const char* name) {
        nullable(name, kInt);
        return brings_tuple(fields_[name]);
    }
    std::uint64_t flags(const char* name) {
        fields_[name] = c_.next(quote(name), kInt);
        return low_bits(fields_[name]);
    }
    // tx (long?); its value when an int (the direct-mapping forms follow from it, spec 11.6).
    std::optional<std::int64_t> tx(const char* name, bool) {
        return nullable(name, kLong) ? int64_of(fields_[name]) : std::nullopt;
    }
    void features(const char* name) { fields_[name] = bits_of(c_.next(quote(name), kBin)); }
    void extensions(const char* name) { fields_[name] = pairs(name); }
    void uuid_list(const char* name) {
        ojson uuids = ojson::array();
        for (std::uint64_t i = 0, n = c_.count("the count of " + quote(name)); i < n; ++i)
            uuids.push_back(c_.next("uuid " + std::to_string(i) + " of " + quote(name), kUuid));
        fields_[name] = std::move(uuids);
    }
    void error(const char* name) { fields_[name] = error_object(name); }
    // handshake-response: nil on success (true), else the error object.
    bool nil_or_error(const char* name) {
        if (c_.at_nil()) {
            fields_[name] = c_.next(quote(name));
            return true;
        }
        error(name);
        return false;
    }
    void payload(const char* name) { fields_[name] = c_.rest(); }

private:
    // extensions: a count, then that many (str key, any value) pairs.
    ojson pairs(const std::string& name) {
        ojson out = ojson::array();
        std::uint64_t n = c_.count("the count of " + quote(name));
        for (std::uint64_t i = 0; i < n; ++i) {
            std::string pair = "pair " + std::to_string(i) + " of " + quote(name) + " (count " + std::to_string(n) + ")";
            const ojson& key = c_.next("the key of " + pair, kStr);
            out.push_back(ojson::array({key.at("value"), c_.next("the value of " + pair)}));
        }
        return out;
    }
    ojson error_object(const std::string& name) {
        auto member = [&](const char* m) { return "member '" + std::string(m) + "' of error " + quote(name); };
        ojson e = ojson::object();
        e["trace_id"] = c_.next(member("trace_id"), kUuid);
        e["code"] = c_.next(member("code"), kInt);  // an int field: int32
        e["class_name"] = c_.next(member("class_name"), kStr);
        e["message"] = c_.nullable(member("message"), kStr);
        e["stack_trace"] = c_.nullable(member("stack_trace"), kStr);
        e["extensions"] = c_.at_nil() ? c_.next(member("extensions")) : pairs(name + ".extensions");
        return e;
    }

    Cursor& c_;
    ojson fields_ = ojson::object();
};

// Writes a layout, in two walks (FRAMES.md section 4: frame.fields before frame.field-type). The first walk only
// names the fields the layout wants, given the flags, error and features of the request's fields (flags of the
// wrong type is frame.field-type at once: no layout follows from it); then a missing or unknown field is
// frame.fields. The second walk checks each field's type, in wire order, and appends its typed values.
class Writer {
public:
    explicit Writer(const ojson& fields) : fields_(fields) {}

    // Ends the first walk.
    void check_names() {
        if (!missing_.empty()) throw WireError("frame.fields", "missing " + join(missing_));
        std::vector<std::string> extra;
        for (const auto& item : fields_.items())
            if (!wanted_.count(item.key())) extra.push_back(item.key());
        if (!extra.empty())
            throw WireError("frame.fields", "not in this layout (or ruled out by the flags, error or features): " + join(extra));
        naming_ = false;
    }
    // After the second walk: the typed values in layout order.
    const ojson& values() const { return values_; }

    void value(const char* name, const char* type) {
        const ojson* v = take(name);
        if (!naming_) push(name, *v, typed(*v, wire_type(type)), type);
    }
    bool nullable(const char* name, const char* type) {
        const ojson* v = take(name);
        if (!naming_) push(name, *v, typed(*v, kNil) || typed(*v, wire_type(type)), type, true);
        return v && !typed(*v, kNil);
    }
    // arguments_count (int?): true when arguments_tuple follows.
    bool arguments_count(const char* name) {
        const ojson* v = take(name);
        if (!naming_) push(name, *v, typed(*v, kNil) || typed(*v, kInt), kInt, true);
        return v && brings_tuple(*v);
    }
    std::uint64_t flags(const char* name) {
        const ojson* v = take(name);
        if (!v) return 0;
        push(name, *v, typed(*v, kInt), kInt);
        return low_bits(*v);
    }
    // tx (long?): with a direct-mapping feature (deciding) its value decides the layout, so a tx neither int nor
    // nil is frame.field-type at once, as flags of the wrong type.
    std::optional<std::int64_t> tx(const char* name, bool deciding) {
        const ojson* v = take(name);
        if (!v) return std::nullopt;
        if (deciding) expect(name, *v, typed(*v, kInt) || typed(*v, kNil), "long or nil");
        if (!naming_) push(name, *v, typed(*v, kNil) || typed(*v, kInt), kLong, true);
        return typed(*v, kInt) ? int64_of(*v) : std::nullopt;
    }
    void features(const char* name) {
        const ojson* v = take(name);
        if (naming_) return;
        auto bin = bin_of(*v);
        push(name, bin ? *bin : *v, bin.has_value(), "a list of feature bit indices");
    }
    void extensions(const char* name) {
        const ojson* v = take(name);
        if (!naming_) pairs(name, *v);
    }
    void uuid_list(const char* name) {
        const ojson* v = take(name);
        if (naming_) return;
        expect(name, *v, v->is_array(), "a list of typed uuids");
        values_.push_back(typed_int(v->size()));
        for (std::size_t i = 0; i < v->size(); ++i) push(name + ("[" + std::to_string(i) + "]"), (*v)[i], typed((*v)[i], kUuid), kUuid);
    }
    void error(const char* name) {
        const ojson* v = take(name);
        if (!naming_) error_object(name, *v);
    }
    bool nil_or_error(const char* name) {
        const ojson* v = take(name);
        bool ok = v && typed(*v, kNil);
        if (!naming_ && ok) values_.push_back(*v);
        else if (!naming_) error_object(name, *v);
        return ok;
    }
    void payload(const char* name) {
        const ojson* v = take(name);
        if (naming_) return;
        expect(name, *v, v->is_array() && std::all_of(v->begin(), v->end(), [](const ojson& x) { return x.is_object(); }),
               "a list of typed values");
        for (const auto& item : *v) values_.push_back(item);
    }

private:
    // The field's value; in the first walk also marks it wanted (nullptr when missing: only the first walk meets it).
    const ojson* take(const std::string& name) {
        auto it = fields_.find(name);
        if (naming_) {
            wanted_.insert(name);
            if (it == fields_.end()) missing_.push_back(name);
        }
        return it == fields_.end() ? nullptr : &*it;
    }
    static void expect(const std::string& name, const ojson& v, bool ok, const std::string& expected) {
        if (!ok) throw field_type(quote(name), expected, v);
    }
    // A field's (or error member's) value, after its type check and, for an int, its field type's range check
    // (second walk only: the flags are type-checked in the first, since the layout follows from them).
    void push(const std::string& name, const ojson& v, bool ok, const std::string& type, bool nullable = false) {
        expect(name, v, ok, nullable ? type + " or nil" : type);
        if (naming_) return;
        if (typed(v, kInt)) check_range(name, v, type.c_str(), "unrepresentable");
        values_.push_back(v);
    }
    void pairs(const std::string& name, const ojson& v) {
        expect(name, v, v.is_array() && std::all_of(v.begin(), v.end(), [](const ojson& p) {
                   return p.is_array() && p.size() == 2 && p[0].is_string() && p[1].is_object();
               }), "a list of [key, typed value] pairs");
        values_.push_back(typed_int(v.size()));
        for (const auto& pair : v) {
            values_.push_back({{"type", kStr}, {"value", pair[0]}});
            values_.push_back(pair[1]);
        }
    }
    // The error object: a JSON object with exactly the six members (a typed value in its place is the wrong type);
    // its members are checked like a layout's fields: names first, then types.
    void error_object(const std::string& name, const ojson& e) {
        expect(name, e, e.is_object() && !e.contains("type"), "an error object");
        std::vector<std::string> missing;
        for (const char* m : kErrorMembers)
            if (!e.contains(m)) missing.push_back(name + "." + m);
        if (!missing.empty()) throw WireError("frame.fields", "missing " + join(missing));
        if (e.size() != std::size(kErrorMembers))
            throw WireError("frame.fields", name + " has members besides trace_id, code, class_name, message, "
                                                   "stack_trace and extensions");
        auto member = [&](const char* m, const char* type, bool nullable) {
            const ojson& v = e.at(m);
            push(name + "." + m, v, typed(v, type) || (nullable && typed(v, kNil)), type, nullable);
        };
        member("trace_id", kUuid, false);
        member("code", kInt, false);
        member("class_name", kStr, false);
        member("message", kStr, true);
        member("stack_trace", kStr, true);
        const ojson& ext = e.at("extensions");
        if (typed(ext, kNil)) values_.push_back(ext);
        else pairs(name + ".extensions", ext);
    }

    const ojson& fields_;
    bool naming_ = true;
    std::set<std::string> wanted_;
    std::vector<std::string> missing_;
    ojson values_ = ojson::array();
};

// The layouts (FRAMES.md section 3), in wire order.

template <class W>
void protocol_version(W& w) {  // both handshake messages start with it
    w.value("version_major", kInt);
    w.value("version_minor", kInt);
    w.value("version_patch", kInt);
}

template <class W>
void handshake_request(W& w, const Features&) {
    protocol_version(w);
    w.value("client_code", kInt);
    w.features("features");
    w.extensions("extensions");
}

template <class W>
void handshake_response(W& w, const Features&) {
    protocol_version(w);
    if (!w.nil_or_error("error")) return;  // a failed handshake ends with its error
    w.value("idle_timeout", kLong);
    w.value("node_id", kUuid);
    w.value("node_name", kStr);
    w.uuid_list("cluster_ids");
    w.value("cluster_name", kStr);
    w.value("observable_timestamp", kLong);
    w.value("product_major", kInt);
    w.value("product_minor", kInt);
    w.value("product_maintenance", kInt);
    w.nullable("product_patch", kInt);
    w.nullable("product_pre_release", kStr);
    w.features("features");
    w.extensions("extensions");
}

template <class W>
void request(W& w, const Features&) {
    w.value("op", kInt);
    w.value("request_id", kLong);
    w.payload("payload");
}

// The header of every server -> client response; returns its flags.
template <class W>
std::uint64_t response_header(W& w) {
    w.value("request_id", kLong);
    std::uint64_t flags = w.flags("flags");
    if (flags & kPartitionAssignment) w.value("partition_assignment_timestamp", kLong);
    w.value("observable_timestamp", kLong);
    if (flags & kError) w.error("error");
    return flags;
}

template <class W>
void response(W& w, const Features&) {
    std::uint64_t flags = response_header(w);
    if (flags & kError) return;
    if (flags & kServerOp) w.value("server_op", kInt);
    w.payload("payload");
}

template <class W>
void server_op_response(W& w, const Features&) {
    w.value("op", kInt);
    w.value("request_id", kLong);
    if (w.flags("flags") & kServerOpResponseError) w.error("error");
    else w.payload("payload");
}

// tx, then the fields its direct-mapping form brings (spec 11.6).
template <class W>
void tx(W& w, const Features& features) {
    bool piggyback = features.count(kTxPiggyback), direct = features.count(kTxDirectMapping);
    std::optional<std::int64_t> id = w.tx("tx", piggyback || direct);
    if (id == kTxFirstDirect && piggyback) {
        w.value("tx_observable_timestamp", kLong);
        w.value("tx_read_only", kBool);
        w.value("tx_timeout", kLong);
    } else if (id == kTxDirect && direct) {
        w.value("tx_enlistment_token", kLong);
        w.value("tx_id", kUuid);
        w.value("tx_commit_table_id", kInt);
        w.value("tx_commit_partition", kInt);
        w.value("tx_coordinator_id", kUuid);
        w.value("tx_timeout", kLong);
    }
}

template <class W>
void tuple_request(W& w, const Features& features) {
    w.value("op", kInt);
    w.value("request_id", kLong);
    w.value("table_id", kInt);
    tx(w, features);
    w.value("schema_version", kInt);
    w.value("no_value_set", kBitmask);
    w.value("tuple", kBin);
}

template <class W>
void tuple_upsert_response(W& w, const Features&) {
    if (response_header(w) & kError) return;
    w.value("schema_version", kInt);
}

template <class W>
void tuple_get_response(W& w, const Features&) {
    if (response_header(w) & kError) return;
    w.value("schema_version", kInt);
    w.nullable("tuple", kBin);
}

// The responses to a request whose tx was -1 (piggyback) or 0 (direct): writeTxMeta's fields, then the op's payload.
template <class W>
void tx_piggyback_response(W& w, const Features&) {
    if (response_header(w) & kError) return;
    w.value("tx_resource_id", kLong);
    w.value("tx_id", kUuid);
    w.value("tx_coordinator_id", kUuid);
    w.value("tx_timeout", kLong);
    w.payload("payload");
}

template <class W>
void tx_direct_response(W& w, const Features&) {
    if (response_header(w) & kError) return;
    w.value("tx_primary_node", kStr);
    w.value("tx_enlistment_token", kLong);
    w.value("tx_noop", kBool);
    w.payload("payload");
}

template <class W>
void sql_execute_request(W& w, const Features& features) {
    w.value("op", kInt);
    w.value("request_id", kLong);
    if (features.count(kSqlDirectTxMapping)) w.value("direct_tx_mapping", kBool);
    tx(w, features);
    w.nullable("schema", kStr);
    w.nullable("page_size", kInt);
    w.nullable("query_timeout", kLong);
    w.nullable("idle_timeout", kLong);
    w.nullable("time_zone", kStr);
    w.value("property_count", kInt);
    w.value("properties", kBin);
    if (features.count(kSqlMultistatementSupport)) w.value("query_modifiers", kInt);
    w.value("statement", kStr);
    if (w.arguments_count("arguments_count")) w.value("arguments_tuple", kBin);
    w.value("observable_timestamp", kLong);
    if (features.count(kSqlPartitionAwareness)) w.value("partition_awareness", kBool);
}

struct Kind {
    const char* name;
    bool magic;  // the handshake kinds start with IGNI
    void (*read)(Reader&, const Features&);
    void (*write)(Writer&, const Features&);
};

#define FRAME_KIND(name, magic, layout) {name, magic, layout<Reader>, layout<Writer>}
const Kind kKinds[] = {
    FRAME_KIND("handshake-request", true, handshake_request),
    FRAME_KIND("handshake-response", true, handshake_response),
    FRAME_KIND("request", false, request),
    FRAME_KIND("response", false, response),
    FRAME_KIND("server-op-response", false, server_op_response),
    FRAME_KIND("tuple-request", false, tuple_request),
    FRAME_KIND("tuple-upsert-response", false, tuple_upsert_response),
    FRAME_KIND("tuple-get-response", false, tuple_get_response),
    FRAME_KIND("sql-execute-request", false, sql_execute_request),
    FRAME_KIND("tx-piggyback-response", false, tx_piggyback_response),
    FRAME_KIND("tx-direct-response", false, tx_direct_response),
};
#undef FRAME_KIND

const Kind& kind_of(const std::string& name) {
    for (const Kind& k : kKinds)
        if (name == k.name) return k;
    throw Unsupported("unknown frame kind '" + name + "'");
}

}  // namespace

Features features_of(const ojson& names) {
    Features out;
    if (names.is_null()) return out;
    if (!names.is_array()) throw Unsupported("'features' is not a list of feature names");
    for (const auto& n : names) {
        if (!n.is_string()) throw Unsupported("'features' is not a list of feature names");
        out.insert(n.get<std::string>());
    }
    return out;
}

// FRAMES.md section 4, steps 1-6 in order.
ojson decode(const std::string& kind_name, const Bytes& bytes, const Features& features) {
    const Kind& kind = kind_of(kind_name);
    std::size_t at = 0;
    if (kind.magic) {
        if (bytes.size() < 4) throw WireError("malformed.truncated", "the input ends inside the magic");
        if (!std::equal(kMagic, kMagic + 4, bytes.begin()))
            throw WireError("frame.magic", "a handshake frame starts with 49474e49 (IGNI), not " + codec::to_hex(bytes.data(), 4));
        at = 4;
    }
    if (bytes.size() - at < 4) throw WireError("malformed.truncated", "the input ends inside the 4-byte length");
    std::uint32_t length = 0;
    for (int i = 0; i < 4; ++i) length = length << 8 | bytes[at++];
    if (length >> 31) throw WireError("frame.length", "the frame length " + codec::to_hex(&bytes[at - 4], 4) + " is negative");
    if (bytes.size() - at < length)
        throw WireError("malformed.truncated", "the frame declares " + std::to_string(length) + " bytes, " +
                                                   std::to_string(bytes.size() - at) + " follow");
    codec::Unreadable unreadable;
    const ojson values = codec::decode(Bytes(bytes.begin() + at, bytes.begin() + at + length), ignite::Era::V3_0, unreadable);
    Cursor cursor(values, unreadable);
    Reader reader(cursor);
    kind.read(reader, features);
    cursor.finish();
    if (bytes.size() - at > length)
        throw WireError("frame.trailing", std::to_string(bytes.size() - at - length) + " byte(s) after the frame");
    cursor.check_readable();
    return std::move(reader.fields());
}

Bytes encode(const std::string& kind_name, const ojson& fields, const Features& features) {
    const Kind& kind = kind_of(kind_name);
    std::vector<std::string> unknown;
    for (const auto& name : features)  // a std::set: already sorted
        if (std::find(std::begin(kFeatureNames), std::end(kFeatureNames), name) == std::end(kFeatureNames))
            unknown.push_back(name);
    if (!unknown.empty()) throw WireError("frame.fields", "unknown feature names: " + join(unknown));
    if (!fields.is_object()) throw WireError("frame.fields", "'fields' is not an object");
    Writer writer(fields);
    kind.write(writer, features);  // first walk: the names
    writer.check_names();
    kind.write(writer, features);  // second walk: the types and values
    Bytes body = codec::encode(writer.values());
    if (body.size() > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
        throw WireError("unrepresentable", "the message is longer than a frame length can say");
    Bytes out;
    if (kind.magic) out.assign(kMagic, kMagic + 4);
    for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<std::uint8_t>(body.size() >> shift));
    out.insert(out.end(), body.begin(), body.end());
    return out;
}

}  // namespace frames
