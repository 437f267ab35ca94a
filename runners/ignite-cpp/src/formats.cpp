// The formats, each through the client's own reader, writer, Binary Tuple builder/parser and row writer.
// Paths are inside modules/platforms/cpp/ignite of the apache/ignite-3 tree (README.md cites lines per ref).
#include "formats.hpp"
#include "isolate.hpp"

#include <ignite/client/detail/table/schema.h>
#include <ignite/client/table/ignite_tuple.h>
#include <ignite/common/big_decimal.h>
#include <ignite/common/detail/bits.h>
#include <ignite/common/ignite_error.h>
#include <ignite/protocol/bitset_span.h>
#include <ignite/protocol/buffer_adapter.h>
#include <ignite/protocol/messages.h>
#include <ignite/protocol/reader.h>
#include <ignite/protocol/utils.h>
#include <ignite/protocol/writer.h>
#include <ignite/tuple/binary_tuple_builder.h>
#include <ignite/tuple/binary_tuple_parser.h>

#include <msgpack.h>

#if __has_include(<ignite/protocol/bitmask_feature.h>)
#include <ignite/protocol/bitmask_feature.h>
#define ICPP_HAS_FEATURES 1
#endif

#include <cxxabi.h>

#include <cerrno>
#include <cstdlib>
#include <typeinfo>
#include <variant>

// client/detail/utils.cpp: the row writer (declared in client/detail/utils.h, whose other includes pull in the
// networked client; the declaration is repeated here, the definition is upstream's).
namespace ignite {
class transaction;
namespace protocol {
class writer;
}
namespace detail {
void write_tuple(protocol::writer &writer, const schema &sch, const ignite_tuple &tuple, bool key_only);
}
} // namespace ignite

namespace icpp {

using namespace ignite;

namespace {

std::string type_of(const json &v) { return v.at("type").get<std::string>(); }

// The message bytes, followed by one zero byte that is not part of them: in the client a tuple or value always
// sits inside a larger receive buffer, so a reader that looks one byte too far reads memory, as it would there.
struct message {
    std::vector<std::byte> storage;
    bytes_view bytes;
    explicit message(const std::string &hex)
        : storage(from_hex(hex)) {
        std::size_t n = storage.size();
        storage.push_back(std::byte{0});
        bytes = bytes_view(storage.data(), n);
    }
};

// ---- msgpack (era 3.0): protocol/reader.h, protocol/writer.h ----

// A shadow of the reader's current msgpack-c object: the same msgpack_unpack_next calls in the same order as the
// reader makes them (reader.cpp: one in the constructor, one per value read), so its object type is the reader's
// own, stale object after MSGPACK_UNPACK_CONTINUE included. It only chooses which of the client's readers to call.
struct shadow {
    const message &m;
    msgpack_unpacked obj;
    std::size_t offset{0};
    msgpack_unpack_return res;
    explicit shadow(const message &m)
        : m(m) {
        msgpack_unpacked_init(&obj);
        next();
    }
    ~shadow() { msgpack_unpacked_destroy(&obj); }
    void next() {
        res = msgpack_unpack_next(&obj, reinterpret_cast<const char *>(m.bytes.data()), m.bytes.size(), &offset);
    }
};

json read_msgpack(const message &m) {
    json values = json::array();
    calling("protocol::reader::reader");
    protocol::reader reader(m.bytes);
    shadow sh(m);
    while (reader.position() < m.bytes.size()) {
        std::size_t before = reader.position();
        if (sh.res < 0) {
            calling("protocol::reader::skip");
            reader.skip(); // the client's check_data_in_stream() rejects what msgpack-c could not parse
        }
        const msgpack_object &o = sh.obj.data;
        switch (o.type) {
            case MSGPACK_OBJECT_NIL:
                calling("protocol::reader::try_read_nil");
                if (!reader.try_read_nil())
                    throw no_api("reader.try_read_nil() refused a nil");
                values.push_back({{"type", "nil"}});
                break;
            case MSGPACK_OBJECT_BOOLEAN:
                calling("protocol::reader::read_bool");
                values.push_back({{"type", "bool"}, {"value", reader.read_bool()}});
                break;
            case MSGPACK_OBJECT_POSITIVE_INTEGER:
                if (o.via.u64 > std::uint64_t(INT64_MAX)) {
                    calling("protocol::reader::read_object<std::uint64_t>");
                    values.push_back({{"type", "int"}, {"value", std::to_string(reader.read_object<std::uint64_t>())}});
                    break;
                }
                [[fallthrough]];
            case MSGPACK_OBJECT_NEGATIVE_INTEGER:
                calling("protocol::reader::read_int64");
                values.push_back({{"type", "int"}, {"value", std::to_string(reader.read_int64())}});
                break;
            case MSGPACK_OBJECT_STR:
                calling("protocol::reader::read_string");
                values.push_back({{"type", "str"}, {"value", reader.read_string()}});
                break;
            case MSGPACK_OBJECT_BIN:
                calling("protocol::reader::read_binary");
                values.push_back({{"type", "bin"}, {"hex", to_hex(reader.read_binary())}});
                break;
            case MSGPACK_OBJECT_EXT:
                if (o.via.ext.type != std::int8_t(protocol::extension_type::UUID))
                    throw no_api("the C++ client's reader (protocol/reader.h) reads no extension but UUID (code 3)");
                calling("protocol::reader::read_uuid");
                values.push_back({{"type", "uuid"}, {"era", "3.0"}, {"value", format_uuid(reader.read_uuid())}});
                break;
            case MSGPACK_OBJECT_FLOAT32:
            case MSGPACK_OBJECT_FLOAT64:
                throw no_api("the C++ client's reader (protocol/reader.h) has no float reader");
            case MSGPACK_OBJECT_ARRAY:
            case MSGPACK_OBJECT_MAP:
                throw no_api("the C++ client's reader (protocol/reader.h) has no array or map reader");
            default:
                throw no_api("msgpack-c object type " + std::to_string(int(o.type)));
        }
        sh.next();
        // The reader did not move (msgpack-c's MSGPACK_UNPACK_CONTINUE that consumed nothing): the client would
        // read the same object forever; the adapter stops and answers what was read.
        if (reader.position() == before)
            break;
    }
    return values;
}

void write_msgpack_value(protocol::writer &w, const json &v) {
    std::string t = type_of(v);
    if (t == "nil") {
        calling("protocol::writer::write_nil");
        w.write_nil();
    } else if (t == "bool") {
        calling("protocol::writer::write_bool");
        w.write_bool(v.at("value").get<bool>());
    } else if (t == "int") {
        const std::string &s = v.at("value").get_ref<const std::string &>();
        errno = 0;
        long long x = std::strtoll(s.c_str(), nullptr, 10);
        if (errno == ERANGE) {
            errno = 0;
            std::strtoull(s.c_str(), nullptr, 10);
            if (s[0] != '-' && errno == 0)
                throw no_api("the C++ client's writer has no uint64 write (protocol/writer.h)");
            throw unrepresentable("integer " + s + " is outside int64 and uint64");
        }
        calling("protocol::writer::write(std::int64_t)");
        w.write(std::int64_t(x));
    } else if (t == "str") {
        calling("protocol::writer::write(std::string_view)");
        w.write(std::string_view(v.at("value").get_ref<const std::string &>()));
    } else if (t == "bin") {
        auto bytes = from_hex(v.at("hex").get<std::string>());
        calling("protocol::writer::write_binary");
        w.write_binary(bytes);
    } else if (t == "uuid" && v.at("era") == "3.0") {
        auto u = parse_uuid(v.at("value").get<std::string>());
        calling("protocol::writer::write(uuid)");
        w.write(u);
    } else if (t == "bitmask" && v.at("era") == "3.0") {
        std::size_t bits = 0;
        for (const auto &b : v.at("bits"))
            bits = std::max(bits, b.get<std::size_t>() + 1);
        if (bits > (std::size_t(1) << 24))
            throw no_api("a bitmask this large is not a no-value set of any table");
        // As write_tuple (client/detail/utils.cpp) builds the no-value set: bytes_for_bits + bitset_span::set.
        std::vector<std::byte> mask(detail::bytes_for_bits(bits));
        protocol::bitset_span span(mask.data(), mask.size());
        for (const auto &b : v.at("bits"))
            span.set(b.get<std::size_t>());
        calling("protocol::writer::write_bitset");
        w.write_bitset(mask);
    } else {
        throw no_api("the C++ client's writer (protocol/writer.h) has no API for a " + t);
    }
}

// ---- binary-tuple: tuple/binary_tuple_builder.h, tuple/binary_tuple_parser.cpp, protocol/utils.cpp ----

json read_tuple_elements(bytes_view tuple, const json &columns) {
    auto n = std::int32_t(columns.size());
    calling("binary_tuple_parser::binary_tuple_parser");
    binary_tuple_parser parser(n, tuple);
    json values = json::array();
    for (std::int32_t i = 0; i < n; ++i) {
        auto typ = column_type(columns[i].get<std::string>());
        if (typ == ignite_type::DECIMAL) {
            // The column scale is not on the wire (the format returns the stored pair as is): the parser's
            // one-argument get_decimal, not read_next_column's rescaling two-argument one.
            calling("binary_tuple_parser::get_next");
            auto val = parser.get_next();
            calling("binary_tuple_parser::get_decimal");
            values.push_back(val.empty() ? json{{"type", "NULL"}} : from_primitive(binary_tuple_parser::get_decimal(val)));
        } else {
            calling("protocol::read_next_column");
            values.push_back(from_primitive(protocol::read_next_column(parser, typ, 0)));
        }
    }
    return values;
}

// The builder's claim/append call for a value, by its type (the builder API of tuple/binary_tuple_builder.h).
template<bool Claim>
void put(binary_tuple_builder &b, const primitive &p) {
    if (p.is_null())
        return Claim ? b.claim_null() : b.append_null();
#define ICPP_PUT(TYPE, CPP, FN)                                                                                       \
    case ignite_type::TYPE:                                                                                           \
        if constexpr (Claim)                                                                                          \
            b.claim_##FN(p.get<CPP>());                                                                               \
        else                                                                                                          \
            b.append_##FN(p.get<CPP>());                                                                              \
        return;
    switch (p.get_type()) {
        ICPP_PUT(BOOLEAN, bool, bool)
        ICPP_PUT(INT8, std::int8_t, int8)
        ICPP_PUT(INT16, std::int16_t, int16)
        ICPP_PUT(INT32, std::int32_t, int32)
        ICPP_PUT(INT64, std::int64_t, int64)
        ICPP_PUT(FLOAT, float, float)
        ICPP_PUT(DOUBLE, double, double)
        ICPP_PUT(DECIMAL, big_decimal, number)
        ICPP_PUT(DATE, ignite_date, date)
        ICPP_PUT(TIME, ignite_time, time)
        ICPP_PUT(DATETIME, ignite_date_time, date_time)
        ICPP_PUT(TIMESTAMP, ignite_timestamp, timestamp)
        ICPP_PUT(UUID, uuid, uuid)
        ICPP_PUT(PERIOD, ignite_period, period)
        ICPP_PUT(DURATION, ignite_duration, duration)
        case ignite_type::STRING:
            return Claim ? b.claim_varlen(p.get<std::string>()) : b.append_varlen(p.get<std::string>());
        case ignite_type::BYTE_ARRAY:
            return Claim ? b.claim_varlen(p.get<std::vector<std::byte>>())
                         : b.append_varlen(p.get<std::vector<std::byte>>());
        default:
            throw no_api("the builder has no writer for type id " + std::to_string(int(p.get_type())));
    }
#undef ICPP_PUT
}

std::vector<std::byte> build_tuple(const std::vector<primitive> &elements) {
    calling("binary_tuple_builder");
    binary_tuple_builder b(std::int32_t(elements.size()));
    b.start();
    for (const auto &e : elements)
        put<true>(b, e);
    b.layout();
    for (const auto &e : elements)
        put<false>(b, e);
    return b.build();
}

// ---- object, object-array, compute-arg: protocol/utils.cpp claim/append_primitive_with_type, read_next_column,
// composed as client/detail/compute/compute_impl.cpp and client/detail/sql/sql_impl.cpp compose them (those two
// files need the networked client to compile; README "What is called").

void write_objects(protocol::writer &w, const std::vector<primitive> &objects) {
    calling("binary_tuple_builder (objects)");
    binary_tuple_builder b(std::int32_t(objects.size() * 3));
    b.start();
    calling("protocol::claim_primitive_with_type");
    for (const auto &o : objects)
        protocol::claim_primitive_with_type(b, o);
    b.layout();
    calling("protocol::append_primitive_with_type");
    for (const auto &o : objects)
        protocol::append_primitive_with_type(b, o);
    calling("protocol::writer::write_binary");
    w.write_binary(b.build());
}

json read_object(protocol::reader &reader) {
    calling("protocol::reader::read_binary");
    auto data = reader.read_binary();
    calling("binary_tuple_parser::binary_tuple_parser");
    binary_tuple_parser parser(3, data);
    calling("binary_tuple_parser::get_int32 (type id)");
    auto typ = static_cast<ignite_type>(binary_tuple_parser::get_int32(parser.get_next()));
    calling("binary_tuple_parser::get_int32 (scale)");
    auto scale = binary_tuple_parser::get_int32(parser.get_next());
    calling("protocol::read_next_column");
    return from_primitive(protocol::read_next_column(parser, typ, scale));
}

std::vector<primitive> elements(const json &values) {
    std::vector<primitive> out;
    for (const auto &v : values)
        out.push_back(to_primitive(v));
    return out;
}

// ---- table-row: client/detail/utils.cpp write_tuple (the no-value set, then the row tuple) ----

void write_row(protocol::writer &w, const json &columns, const json &values) {
    std::vector<detail::column> cols;
    ignite_tuple tuple;
    for (std::size_t i = 0; i < columns.size(); ++i) {
        detail::column c;
        c.name = "C" + std::to_string(i);
        c.type = column_type(columns[i].get<std::string>());
        const json &v = values.at(i);
        if (type_of(v) == "NO_VALUE") {
            cols.push_back(std::move(c));
            continue; // not set in the tuple: write_tuple marks it in the no-value set
        }
        auto p = to_primitive(v);
        if (c.type == ignite_type::DECIMAL && !p.is_null())
            c.scale = p.get<big_decimal>().get_scale(); // the schema's scale is the stored value's own
        tuple.set(c.name, std::move(p));
        cols.push_back(std::move(c));
    }
    auto sch = detail::schema::create_instance(1, std::move(cols));
    calling("detail::write_tuple (client/detail/utils.cpp)");
    detail::write_tuple(w, *sch, tuple, false);
}

// ---- frame: protocol/messages.cpp (make_handshake_request, parse_handshake_response with read_error) ----

// The feature bits make_handshake_request writes: the client's own (3.0.0: none), never the caller's.
std::vector<std::size_t> client_feature_bits() {
    std::vector<std::size_t> bits;
#ifdef ICPP_HAS_FEATURES
    auto bytes = protocol::all_supported_bitmask_features();
    protocol::bitset_span span(bytes.data(), bytes.size());
    for (std::size_t i = 0; i < bytes.size() * 8; ++i)
        if (span.test(i))
            bits.push_back(i);
#endif
    return bits;
}

std::vector<std::byte> write_frame(const json &req) {
    const std::string kind = req.at("frame").get<std::string>();
    if (kind != "handshake-request")
        throw no_api("the C++ client writes a " + kind + " only through its networked connection "
                     "(client/detail/node_connection.cpp), not reachable without a socket");
    const json &f = req.at("fields");
    auto int_field = [&](const char *name) -> const json & { return f.at(name).at("value"); };
    std::vector<std::size_t> wanted;
    for (const auto &b : f.at("features"))
        wanted.push_back(b.get<std::size_t>());
    if (wanted != client_feature_bits())
        throw no_api("make_handshake_request writes the client's own feature bits (bitmask_feature.h), not the "
                     "requested ones");
    std::map<std::string, std::string> extensions;
    for (const auto &pair : f.at("extensions")) {
        if (pair.at(1).at("type") != "str")
            throw no_api("make_handshake_request takes string extension values only (std::map<std::string, "
                         "std::string>)");
        extensions[pair.at(0).get<std::string>()] = pair.at(1).at("value").get<std::string>();
    }
    if (extensions.size() != f.at("extensions").size())
        throw no_api("make_handshake_request takes a std::map: a repeated extension key cannot be written");
    auto fit16 = [&](const char *name) {
        json e = {{"type", "INT16"}, {"value", int_field(name)}};
        return to_primitive(e).get<std::int16_t>();
    };
    json code = {{"type", "INT8"}, {"value", int_field("client_code")}};
    protocol::protocol_version ver(fit16("version_major"), fit16("version_minor"), fit16("version_patch"));
    auto client_code = to_primitive(code).get<std::int8_t>();
    calling("protocol::make_handshake_request");
    return protocol::make_handshake_request(client_code, ver, extensions);
}

json read_frame(const json &req, const message &m) {
    const std::string kind = req.at("frame").get<std::string>();
    if (kind != "handshake-response")
        throw no_api("the C++ client reads a " + kind + " only in its networked connection "
                     "(client/detail/node_connection.cpp), not reachable without a socket");
    // The magic and the length prefix are read by node_connection.cpp (socket code): the adapter hands
    // parse_handshake_response what follows them, unchecked.
    std::size_t skip = std::min<std::size_t>(8, m.bytes.size());
    calling("protocol::parse_handshake_response");
    auto res = protocol::parse_handshake_response(m.bytes.substr(skip));
    if (res.error)
        throw no_api("read as an error response (parse_handshake_response, read_error); read_error joins the class "
                     "name and the message into one string, so the error object's fields cannot be answered");
    throw no_api("accepted by parse_handshake_response; it keeps no node_id, node_name or extensions, so the "
                 "fields cannot be answered");
}

} // namespace

const std::vector<std::string> &claimed_formats() {
    static const std::vector<std::string> formats = {
        "msgpack", "binary-tuple", "object", "object-array", "table-row", "compute-arg", "frame"};
    return formats;
}

std::vector<std::byte> encode(const json &req) {
    std::string format = req.value("format", "msgpack");
    if (format == "frame")
        return write_frame(req);
    const json &values = req.at("values");
    if (format == "binary-tuple")
        return build_tuple(elements(values));

    std::vector<std::byte> out;
    protocol::buffer_adapter buffer(out);
    protocol::writer w(buffer);
    if (format == "msgpack") {
        for (const auto &v : values)
            write_msgpack_value(w, v);
    } else if (format == "object") {
        auto p = to_primitive(values.at(0));
        if (p.is_null()) {
            calling("protocol::writer::write_nil");
            w.write_nil(); // compute_impl.cpp pack_compute_argument: a null object is nil
        } else {
            write_objects(w, {p});
        }
    } else if (format == "compute-arg") {
        if (type_of(values.at(0)) == "MARSHALLED")
            throw no_api("the C++ client 3.x writes only native compute arguments (compute_impl.cpp "
                         "pack_compute_argument): no marshaller API");
        auto p = to_primitive(values.at(0));
        if (p.is_null()) {
            calling("protocol::writer::write_nil");
            w.write_nil();
        } else {
            calling("protocol::writer::write(std::int32_t) (job kind NATIVE)");
            w.write(std::int32_t(0));
            write_objects(w, {p});
        }
    } else if (format == "object-array") {
        auto objects = elements(values);
        if (objects.empty()) {
            calling("protocol::writer::write_nil");
            w.write_nil(); // sql_impl.cpp write_args: no arguments is nil
        } else {
            calling("protocol::writer::write(std::int32_t) (count)");
            w.write(std::int32_t(objects.size()));
            write_objects(w, objects);
        }
    } else if (format == "table-row") {
        write_row(w, req.at("columns"), values);
    } else {
        throw no_api("format " + format + " is not claimed");
    }
    return out;
}

json decode(const json &req) {
    std::string format = req.value("format", "msgpack");
    message m(req.at("hex").get<std::string>());
    if (format == "msgpack")
        return read_msgpack(m);
    if (format == "binary-tuple")
        return read_tuple_elements(m.bytes, req.at("columns"));
    if (format == "frame")
        return read_frame(req, m);
    if (format == "object") {
        calling("protocol::reader::reader");
        protocol::reader reader(m.bytes);
        calling("protocol::reader::try_read_nil");
        if (reader.try_read_nil())
            return json::array({{{"type", "NULL"}}});
        return json::array({read_object(reader)});
    }
    if (format == "compute-arg") {
        // compute_impl.cpp unpack_compute_result: the job kind, then a native result's object.
        calling("protocol::reader::reader");
        protocol::reader reader(m.bytes);
        calling("protocol::reader::read_int32 (job kind)");
        auto kind = reader.read_int32();
        if (kind == 1 || kind == 2) // compute_impl.cpp from_type_id: MARSHALLED_TUPLE, MARSHALLED_OBJECT
            throw no_api("the C++ client 3.x reads only native compute results (compute_impl.cpp "
                         "unpack_compute_result refuses kinds 1 and 2)");
        return json::array({read_object(reader)});
    }
    if (format == "object-array" || format == "table-row")
        throw no_api("the C++ client never reads a" + std::string(format == "table-row" ? " table row with a no-value "
            "set (rows from the server are bare tuples, detail::read_tuple)" : "n object array (it only writes "
            "one: sql_impl.cpp write_args)"));
    throw no_api("format " + format + " is not claimed");
}

// The error-class table (README "Error classes"): exception type and message -> class.
bool error_class(const std::exception &e, const std::string &format, std::string &cls, std::string &why) {
    std::string msg = e.what();
    auto starts = [&](const char *p) { return msg.rfind(p, 0) == 0; };
    bool wrapped = format == "object" || format == "object-array" || format == "compute-arg" || format == "table-row";
    if (dynamic_cast<const unrepresentable *>(&e)) {
        cls = "unrepresentable";
    } else if (dynamic_cast<const std::out_of_range *>(&e)) {
        if (starts("Too short byte buffer"))
            cls = "malformed"; // a cut offset table and a cut value area alike: coarse_classes
        else if (starts("Bad element size"))
            cls = "invalid.tuple-length";
        else if (starts("Invalid scale, expected"))
            cls = "invalid.tuple-value";
    } else if (dynamic_cast<const ignite_error *>(&e)) {
        if (starts("No more data in stream"))
            cls = "malformed"; // msgpack-c's parse error; the reader says the same for every such input
        else if (starts("Unexpected UUID size"))
            cls = "invalid.ext-length";
        else if (wrapped
            && (starts("The value in stream is not") || starts("The number in stream is too")
                || starts("Type with id") || starts("Unsupported type")))
            cls = "invalid.tuple-type";
    }
    if (cls.empty() && format == "frame" && dynamic_cast<const ignite_error *>(&e)
        && (starts("The value in stream is not") || starts("The number in stream is too")
            || starts("Unexpected cluster ids count")))
        cls = "frame.field-type";
    if (!cls.empty())
        return true;
    if (dynamic_cast<const json::exception *>(&e)) {
        // Not the client: the request's values or fields do not give what the client's API takes.
        why = "the adapter cannot call the client with this request: " + msg;
        return false;
    }
    int status = 0;
    char *name = abi::__cxa_demangle(typeid(e).name(), nullptr, nullptr, &status);
    why = std::string("official client threw ") + (status == 0 && name ? name : typeid(e).name()) + " (" + msg
        + ") in " + current_call();
    std::free(name);
    return false;
}

} // namespace icpp
