// The frame layer (spec.md 11; runners/PROTOCOL.md "The frame codec: one shape in every runner"). A frame is
// [IGNI magic, handshake kinds only] + 4-byte big-endian length + that many bytes of MessagePack: a sequence of
// values laid out by the message kind. The layouts are data (registry frame_layouts, read by load()), walked both
// ways with one condition evaluator (holds): decode reads the whole sequence with codec::decode and reads each
// present field from a Cursor over the value list; encode checks the fields against the layout, lays out typed
// values in wire order (Writer) and writes them with codec::encode. The field types are the only per-type code.
// Nothing is allocated by a declared length or count: a count only bounds a loop that stops when the values run out.
#include "frames.hpp"

#include <algorithm>
#include <charconv>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>

#include "codec.hpp"
#include "errors.hpp"
#include "ignite_ext.hpp"

namespace frames {
namespace {

using ojson = nlohmann::ordered_json;
using Bytes = std::vector<std::uint8_t>;

constexpr std::uint8_t kMagic[4] = {0x49, 0x47, 0x4e, 0x49};  // "IGNI", before the length of both handshake kinds

// ---------------------------------------------------------------- layouts (registry frame_layouts)
// Each message kind's fields in wire order, as the registry gives them: {name, type, when?}. A type ending in '?'
// may be nil. Parsed once at start, so an unknown type or condition form stops the runner there, not mid-corpus.

// The field types (registry.schema.json $defs/frame_field): the scalars are one typed value of that type (long: a
// typed int of the wider range), the others a run of values (or, for error, the error object's fields).
enum class Type { Int, Long, Bool, Str, Bin, Uuid, Bitmask, Features, Extensions, UuidList, Error, Payload };
const std::pair<const char*, Type> kTypes[] = {
    {"int", Type::Int},   {"long", Type::Long}, {"bool", Type::Bool},       {"str", Type::Str},
    {"bin", Type::Bin},   {"uuid", Type::Uuid}, {"bitmask", Type::Bitmask}, {"features", Type::Features},
    {"extensions", Type::Extensions},           {"uuid-list", Type::UuidList},
    {"error", Type::Error},                     {"payload", Type::Payload}};

const char* type_name(Type type) {
    for (const auto& [name, t] : kTypes)
        if (t == type) return name;
    return "?";
}
// The typed-value type of a scalar field type (FR-INT-RANGE: int and long are both typed ints).
const char* wire_type(Type type) { return type == Type::Long ? "int" : type_name(type); }

// $defs/frame_condition: exactly one of five forms (None: the field is always present).
struct Condition {
    enum Form { None, Flags, Nil, Feature, TxForm, NotNilOrZero } form = None;
    std::string name;                     // the earlier field (nil, not_nil_or_zero) or the feature (feature, tx_form)
    std::uint64_t mask = 0, equals = 0;  // flags
    std::int64_t tx = 0;                  // tx_form
};

struct Field {
    std::string name;
    Type type;
    bool nullable;  // '?': one nil instead
    Condition when;
};
using Fields = std::vector<Field>;

struct Message {
    bool magic;
    Fields fields;
};

std::map<std::string, Message> messages;  // by kind
Fields error_object;
std::set<std::string> feature_names;      // frames.features[].name: an encoder refuses others
const Features kNoFeatures;               // the error object's layout depends on none

// The condition forms by their key: nil, feature and not_nil_or_zero name a field or feature; flags and tx_form
// are objects (the field they test is flags or tx).
const std::pair<const char*, Condition::Form> kForms[] = {
    {"flags", Condition::Flags}, {"nil", Condition::Nil}, {"feature", Condition::Feature},
    {"tx_form", Condition::TxForm}, {"not_nil_or_zero", Condition::NotNilOrZero}};

Condition condition_of(const ojson& when) {
    for (const auto& [key, form] : kForms) {
        auto it = when.find(key);
        if (it == when.end()) continue;
        Condition c;
        c.form = form;
        if (it->is_string()) {
            c.name = it->get<std::string>();
        } else if (form == Condition::Flags) {
            c.mask = it->at("mask").get<std::uint64_t>();
            c.equals = it->at("equals").get<std::uint64_t>();
        } else {
            c.name = it->at("feature").get<std::string>();
            c.tx = it->at("tx").get<std::int64_t>();
        }
        return c;
    }
    throw std::runtime_error("frame_layouts: unknown condition " + when.dump());
}

Fields fields_of(const ojson& list) {
    Fields out;
    for (const ojson& f : list) {
        std::string type = f.at("type").get<std::string>();
        bool nullable = !type.empty() && type.back() == '?';
        if (nullable) type.pop_back();
        auto t = std::find_if(std::begin(kTypes), std::end(kTypes), [&](const auto& p) { return type == p.first; });
        if (t == std::end(kTypes)) throw std::runtime_error("frame_layouts: unknown field type '" + type + "'");
        out.push_back({f.at("name").get<std::string>(), t->second, nullable,
                       f.contains("when") ? condition_of(f["when"]) : Condition()});
    }
    return out;
}

const Message& message(const std::string& kind) {
    auto it = messages.find(kind);
    if (it == messages.end()) throw Unsupported("unknown frame kind '" + kind + "'");
    return it->second;
}

// ---------------------------------------------------------------- typed values

std::string type_of(const ojson& v) {
    if (!v.is_object()) return v.type_name();
    auto t = v.find("type");
    return t != v.end() && t->is_string() ? t->get<std::string>() : "object";
}
bool typed(const ojson& v, const char* type) { return type_of(v) == type; }

// what: the field (or its member, pair, count) in words.
WireError field_type(const std::string& what, const std::string& expected, const ojson& got) {
    return WireError("frame.field-type", what + ": expected " + expected + ", got " + type_of(got));
}
void expect(const std::string& name, const ojson& v, bool ok, const std::string& expected) {
    if (!ok) throw field_type(name, expected, v);
}

// The low 64 bits (two's complement) of a typed int, whatever its size: what `flags & mask` tests.
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

// One scalar field's value after its type check and, for int and long, its range check (FR-INT-RANGE: every int
// of a layout is a Java int or long, so a typed int outside it, even one a uint64 holds, has no field to go in).
// range_class: frame.field-type on decode, unrepresentable on encode.
const ojson& scalar(const std::string& name, Type type, const ojson& v, const char* range_class) {
    expect(name, v, typed(v, wire_type(type)), type_name(type));
    if (type != Type::Int && type != Type::Long) return v;
    auto value = v.find("value");
    if (value == v.end() || (value->is_string() && value->get_ref<const std::string&>().find_first_not_of("-0123456789") != std::string::npos))
        return v;  // no decimal string: left to codec::encode
    auto n = int64_of(v);
    bool inside = n && (type == Type::Long || (*n >= std::numeric_limits<std::int32_t>::min() && *n <= std::numeric_limits<std::int32_t>::max()));
    if (!inside)
        throw WireError(range_class, name + ": " + value->dump() + " is outside the field's " + type_name(type) + " range (FR-INT-RANGE)");
    return v;
}

std::string join(const std::vector<std::string>& names) {
    std::string out;
    for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
    return out;
}

// ---------------------------------------------------------------- the one condition evaluator

// Whether a field with condition `when` is present, over the fields before it (as read, or as given to encode) and
// the negotiated features. A test on a field that is not there does not hold: encode then reports the missing field.
// flags, or tx once a tx_form's feature is negotiated, of the wrong type is frame.field-type at once: the layout
// follows from them. The field names here are the ones the forms name implicitly (flags, tx) or explicitly.
bool holds(const Condition& when, const ojson& fields, const Features& features) {
    if (when.form == Condition::None) return true;
    if (when.form == Condition::Feature) return features.count(when.name) > 0;
    if (when.form == Condition::TxForm && !features.count(when.name)) return false;
    auto it = fields.find(when.form == Condition::Flags ? "flags" : when.form == Condition::TxForm ? "tx" : when.name);
    if (it == fields.end()) return false;
    const ojson& v = *it;
    switch (when.form) {
        case Condition::Flags:
            expect("flags", v, typed(v, "int"), "int");
            return (low_bits(v) & when.mask) == when.equals;
        case Condition::Nil:
            return typed(v, "nil");
        case Condition::TxForm:
            expect("tx", v, typed(v, "int") || typed(v, "nil"), "int or nil");
            return typed(v, "int") && int64_of(v) == when.tx;
        default:  // NotNilOrZero (spec 11.7): a value of another type counts as present; its type is refused in turn
            return !typed(v, "nil") && !(typed(v, "int") && int64_of(v) == 0);
    }
}

// ---------------------------------------------------------------- decode

// features <-> bin: bit i is byte i/8, bit i%8, least significant first (java.util.BitSet.toByteArray).
ojson bits_of(const ojson& bin) {
    ojson bits = ojson::array();
    Bytes bytes = codec::from_hex(bin.at("hex").get<std::string>());
    for (std::size_t i = 0; i < bytes.size(); ++i)
        for (unsigned b = 0; b < 8; ++b)
            if (bytes[i] >> b & 1) bits.push_back(i * 8 + b);
    return bits;
}

// The frame's values in order; every read names the field it is for, so an error says where. A value holding a
// map nlohmann cannot read (codec::Unreadable) is the wrong type for every typed field; taken whole (a payload or
// extension value), the frame is declined once the walk is over, since its fields would not be nlohmann's.
class Cursor {
public:
    Cursor(const ojson& values, const codec::Unreadable& unreadable) : values_(values), unreadable_(unreadable) {}

    const ojson& next(const std::string& field) {
        if (at_ == values_.size())
            throw WireError("malformed.truncated", field + ": the frame ends before it (" + std::to_string(values_.size()) + " values)");
        declined_ = declined_ || std::binary_search(unreadable_.values.begin(), unreadable_.values.end(), at_);
        return values_[at_++];
    }
    bool at_nil() const { return at_ < values_.size() && typed(values_[at_], "nil"); }
    // A count: an int >= 0. Only bounds a loop over next(), which stops at the end of the list.
    std::uint64_t count(const std::string& field) {
        const ojson& v = next(field);
        expect(field, v, typed(v, "int"), "int");
        const std::string& s = v.at("value").get_ref<const std::string&>();
        if (s[0] == '-') throw WireError("frame.field-type", field + ": negative count " + s);
        std::uint64_t n = 0;
        std::from_chars(s.data(), s.data() + s.size(), n);  // the decoder's ints are within uint64
        return n;
    }
    ojson rest(const std::string& field) {
        ojson values = ojson::array();
        while (at_ < values_.size()) values.push_back(next(field));
        return values;
    }
    void finish(const std::string& kind) const {
        if (at_ < values_.size())
            throw WireError("frame.trailing", std::to_string(values_.size() - at_) + " value(s) after the last field of " + kind);
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

ojson read_layout(Cursor& c, const Fields& layout, const Features& features, const std::string& prefix);

// The field's value in the fields notation; name is its path in messages (error.code, extensions[1] key).
ojson read(Cursor& c, const std::string& name, Type type, bool nullable) {
    if (nullable && c.at_nil()) return c.next(name);
    switch (type) {
        case Type::Features:
            return bits_of(scalar(name, Type::Bin, c.next(name), "frame.field-type"));
        case Type::Extensions: {
            ojson pairs = ojson::array();
            for (std::uint64_t i = 0, n = c.count(name + " count"); i < n; ++i) {  // a count past the values runs out
                std::string at = name + "[" + std::to_string(i) + "]";
                const ojson& key = scalar(at + " key", Type::Str, c.next(at + " key"), "frame.field-type");
                pairs.push_back(ojson::array({key.at("value"), c.next(at + " value")}));
            }
            return pairs;
        }
        case Type::UuidList: {
            ojson uuids = ojson::array();
            for (std::uint64_t i = 0, n = c.count(name + " count"); i < n; ++i) {
                std::string at = name + "[" + std::to_string(i) + "]";
                uuids.push_back(scalar(at, Type::Uuid, c.next(at), "frame.field-type"));
            }
            return uuids;
        }
        case Type::Error:
            return read_layout(c, error_object, kNoFeatures, name + ".");
        case Type::Payload:
            return c.rest(name);
        default:
            return scalar(name, type, c.next(name), "frame.field-type");
    }
}

ojson read_layout(Cursor& c, const Fields& layout, const Features& features, const std::string& prefix) {
    ojson out = ojson::object();
    for (const Field& f : layout)
        if (holds(f.when, out, features)) out[f.name] = read(c, prefix + f.name, f.type, f.nullable);
    return out;
}

// ---------------------------------------------------------------- encode

ojson typed_int(std::uint64_t n) { return {{"type", "int"}, {"value", std::to_string(n)}}; }

// nullopt when bits is not a list of ascending bit indices. Minimal bytes: the highest set bit ends the bin.
std::optional<ojson> bin_of(const ojson& bits) {
    if (!bits.is_array()) return std::nullopt;
    std::uint64_t size = 0;
    std::optional<std::uint64_t> previous;
    for (const auto& b : bits) {
        if (!b.is_number_unsigned()) return std::nullopt;  // nlohmann reads every non-negative integer as unsigned
        if (previous && b.get<std::uint64_t>() <= *previous) return std::nullopt;  // FR-FEATURES-ORDER: ascending
        previous = b.get<std::uint64_t>();
        size = b.get<std::uint64_t>() / 8 + 1;
    }
    if (size > std::numeric_limits<std::uint32_t>::max())
        throw WireError("unrepresentable", "feature bit set longer than a bin32");
    Bytes bytes(size, 0);
    for (const auto& b : bits) {
        auto i = b.get<std::uint64_t>();
        bytes[i / 8] = static_cast<std::uint8_t>(bytes[i / 8] | 1u << (i % 8));
    }
    return ojson{{"type", "bin"}, {"hex", codec::to_hex(bytes.data(), bytes.size())}};
}

// The typed values of a frame in wire order, each checked against its field's type.
class Writer {
public:
    const ojson& values() const { return values_; }

    // Checks the whole object first (frame.fields: missing, or not in the layout given the flags, error and
    // features), then writes each wanted field in wire order (frame.field-type), as the contract orders the errors.
    void write_layout(const Fields& layout, const ojson& given, const Features& features, const std::string& prefix) {
        std::vector<const Field*> wanted;
        std::vector<std::string> missing, extra;
        for (const Field& f : layout)
            if (holds(f.when, given, features)) {
                wanted.push_back(&f);
                if (!given.contains(f.name)) missing.push_back(prefix + f.name);
            }
        if (!missing.empty()) throw WireError("frame.fields", "missing " + join(missing));
        for (const auto& item : given.items()) {
            auto named = [&](const Field& f) { return f.name == item.key(); };
            if (std::none_of(wanted.begin(), wanted.end(), [&](const Field* f) { return named(*f); }))
                extra.push_back(prefix + item.key() + (std::any_of(layout.begin(), layout.end(), named)
                                                           ? " (ruled out by the flags, error or features)" : " (unknown)"));
        }
        std::sort(extra.begin(), extra.end());
        if (!extra.empty()) throw WireError("frame.fields", "not in this layout: " + join(extra));
        for (const Field* f : wanted) write(prefix + f->name, f->type, f->nullable, given.at(f->name));
    }

    void write(const std::string& name, Type type, bool nullable, const ojson& v) {
        if (nullable && typed(v, "nil")) return values_.push_back(v);
        switch (type) {
            case Type::Features: {
                auto bin = bin_of(v);
                expect(name, v, bin.has_value(), "an array of ascending bit indices (FR-FEATURES-ORDER)");
                return values_.push_back(*bin);
            }
            case Type::Extensions:
                expect(name, v, v.is_array() && std::all_of(v.begin(), v.end(), [](const ojson& p) {
                           return p.is_array() && p.size() == 2 && p[0].is_string() && p[1].is_object();
                       }), "an array of [key, typed value] pairs");
                values_.push_back(typed_int(v.size()));
                for (const auto& pair : v) {
                    values_.push_back({{"type", "str"}, {"value", pair[0]}});
                    values_.push_back(pair[1]);
                }
                return;
            case Type::UuidList:
                expect(name, v, v.is_array(), "an array of uuids");
                values_.push_back(typed_int(v.size()));
                for (std::size_t i = 0; i < v.size(); ++i)
                    values_.push_back(scalar(name + "[" + std::to_string(i) + "]", Type::Uuid, v[i], "unrepresentable"));
                return;
            case Type::Error:
                expect(name, v, v.is_object() && !v.contains("type"), "an error object");
                return write_layout(error_object, v, kNoFeatures, name + ".");
            case Type::Payload:
                expect(name, v, v.is_array() && std::all_of(v.begin(), v.end(), [](const ojson& x) { return x.is_object(); }),
                       "an array of typed values");
                for (const auto& item : v) values_.push_back(item);
                return;
            default:
                values_.push_back(scalar(name, type, v, "unrepresentable"));
        }
    }

private:
    ojson values_ = ojson::array();
};

}  // namespace

void load(const nlohmann::ordered_json& registry) {
    const ojson& layouts = registry.at("frame_layouts");
    for (const ojson& m : layouts.at("messages"))
        messages[m.at("kind").get<std::string>()] = {m.at("magic").get<bool>(), fields_of(m.at("fields"))};
    error_object = fields_of(layouts.at("error_object"));
    for (const ojson& f : registry.at("frames").at("features")) feature_names.insert(f.at("name").get<std::string>());
}

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

// spec.md 11.1, steps 1-6 in order: magic, length, declared bytes present, values, layout, bytes after.
ojson decode(const std::string& kind, const Bytes& bytes, const Features& features) {
    const Message& m = message(kind);
    std::size_t at = 0;
    if (m.magic) {
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
    ojson fields = read_layout(cursor, m.fields, features, "");
    cursor.finish(kind);
    if (bytes.size() - at > length)
        throw WireError("frame.trailing", std::to_string(bytes.size() - at - length) + " byte(s) after the frame");
    cursor.check_readable();
    return fields;
}

Bytes encode(const std::string& kind, const ojson& fields, const Features& features) {
    const Message& m = message(kind);
    std::vector<std::string> unknown;
    for (const auto& name : features)  // a std::set: already sorted
        if (!feature_names.count(name)) unknown.push_back(name);
    if (!unknown.empty()) throw WireError("frame.fields", "unknown negotiated features (the layout cannot be known): " + join(unknown));
    if (!fields.is_object()) throw WireError("frame.fields", "'fields' is not an object");
    Writer writer;
    writer.write_layout(m.fields, fields, features, "");
    Bytes body = codec::encode(writer.values());
    if (body.size() > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
        throw WireError("unrepresentable", "the message is longer than a frame length can say");
    Bytes out;
    if (m.magic) out.assign(kMagic, kMagic + 4);
    for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<std::uint8_t>(body.size() >> shift));
    out.insert(out.end(), body.begin(), body.end());
    return out;
}

}  // namespace frames
