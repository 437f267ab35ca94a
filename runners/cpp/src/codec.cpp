#include "codec.hpp"

#include <array>
#include <charconv>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include <msgpack/pack.h>  // msgpack-c's C packer: static inline functions, nothing to link

#include "bigint.hpp"
#include "counting_iterator.hpp"
#include "errors.hpp"

namespace codec {

// Well-formed UTF-8 (Unicode 15, table 3-7): no overlong forms, no surrogates, nothing above U+10FFFF.
bool valid_utf8(const std::string& s) {
    const auto* p = reinterpret_cast<const unsigned char*>(s.data());
    std::size_t n = s.size(), i = 0;
    while (i < n) {
        unsigned c = p[i];
        std::size_t extra;
        unsigned lo = 0x80, hi = 0xBF;  // allowed range of the first continuation byte
        if (c < 0x80) extra = 0;
        else if (c >= 0xC2 && c <= 0xDF) extra = 1;
        else if (c == 0xE0) extra = 2, lo = 0xA0;
        else if (c == 0xED) extra = 2, hi = 0x9F;
        else if (c >= 0xE1 && c <= 0xEF) extra = 2;
        else if (c == 0xF0) extra = 3, lo = 0x90;
        else if (c == 0xF4) extra = 3, hi = 0x8F;
        else if (c >= 0xF1 && c <= 0xF3) extra = 3;
        else return false;
        if (n - i - 1 < extra) return false;
        for (std::size_t k = 1; k <= extra; ++k) {
            unsigned b = p[i + k];
            if (k == 1 ? (b < lo || b > hi) : (b < 0x80 || b > 0xBF)) return false;
        }
        i += extra + 1;
    }
    return true;
}

namespace {

using json = nlohmann::json;
using ojson = nlohmann::ordered_json;
using Bytes = std::vector<std::uint8_t>;

// ---- decode ----------------------------------------------------------------------------------------------------

// Writes typed values as JSON text from nlohmann's SAX events, in wire order (nothing goes through a json
// document). Returning false from an event stops nlohmann at once, so the depth and declared-count checks in
// start_array/start_object run before the library recurses or reads on.
//
// nlohmann's reader gives up on a map key that is not a str (parse_error.113), although the key is an ordinary
// MessagePack value. The handler then records where that key starts and hands the open containers over to
// decode(), which calls sax_parse again at the key, one element at a time, until the containers have their
// declared counts. nlohmann still reads every byte; the runner only counts elements. So malformed input past
// such a key (c1, truncation, nesting, bad UTF-8, bad ext payloads) is still classified by the same checks.
class DecodeSax {
  public:
    DecodeSax(const Bytes& input, ignite::Era era, const char* const* position, std::string& out)
        : data_(input.data()), size_(input.size()), era_(era), position_(position), out_(out) {}

    bool null() { return scalar(R"({"type":"nil"})"); }
    bool boolean(bool b) { return scalar(b ? R"({"type":"bool","value":true})" : R"({"type":"bool","value":false})"); }
    bool number_integer(std::int64_t v) { return integer(v); }
    bool number_unsigned(std::uint64_t v) { return integer(v); }

    // nlohmann hands every float over as a double, which hides ca vs cb and quiets float32 signalling NaNs:
    // take width and bits from the raw bytes instead.
    bool number_float(double, const std::string&) {
        const std::uint8_t* v = data_ + value_start_;
        if (v[0] != 0xca && v[0] != 0xcb) return fail("malformed", "float event at a byte that is neither ca nor cb");
        begin();
        out_ += v[0] == 0xca ? R"({"type":"float32","bits":")" : R"({"type":"float64","bits":")";
        append_hex(out_, v + 1, v[0] == 0xca ? 4 : 8);
        out_ += "\"}";
        return end();
    }

    // nlohmann does not check UTF-8 in MessagePack strings.
    bool string(std::string& s) {
        if (!valid_utf8(s)) return fail("invalid.utf8", "str payload is not well-formed UTF-8");
        begin();
        out_ += R"({"type":"str","value":)";
        append_json_string(out_, s);
        out_ += '}';
        return end();
    }
    bool key(std::string& s) { return string(s); }

    // bin and ext both arrive as binary: the format byte tells them apart. nlohmann stores the ext type it read
    // as int8 in an unsigned subtype (-1 -> 255), so casting back to int8 restores the code exactly.
    bool binary(json::binary_t& b) {
        std::uint8_t format = data_[value_start_];
        if (format >= 0xc4 && format <= 0xc6) {
            begin();
            out_ += R"({"type":"bin","hex":")";
            append_hex(out_, b.data(), b.size());
            out_ += "\"}";
            return end();
        }
        auto code = static_cast<std::int8_t>(b.subtype());
        std::optional<ojson> typed;
        try {
            typed = ignite::decode_ext(code, b, era_);
        } catch (const WireError& e) {
            return fail(e.error_class, e.what());
        }
        begin();
        if (typed) {
            out_ += typed->dump();  // ASCII: names, numbers, digits
        } else {
            out_ += R"({"type":"ext","code":)" + std::to_string(code) + R"(,"hex":")";
            append_hex(out_, b.data(), b.size());
            out_ += "\"}";
        }
        return end();
    }

    bool start_array(std::size_t count) { return open(false, count, count); }
    bool start_object(std::size_t count) { return open(true, count, 2 * count); }  // a key and a value each
    bool end_array() { return close(); }
    bool end_object() { return close(); }

    // nlohmann counts bytes from the start of the current sax_parse call; the message says how far into the
    // whole input the reader got.
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) {
        const std::string where = "after " + std::to_string(consumed()) + " input bytes: ";
        switch (e.id) {
            case 110: return library_fail("malformed.truncated", where + e.what());
            case 112: return library_fail("malformed.reserved", where + e.what());  // msgpack: only c1 is invalid
            case 113: {
                // A map key that is not a str (msgpack: get_msgpack_string is the only source of 113). nlohmann
                // has read exactly its first byte; the key is read again from there, as a value of its own (never
                // through get_msgpack_string, so each resume starts further into the input than the last).
                std::size_t key_start = consumed() - 1;
                if (!non_str_key_)
                    non_str_key_ = "nlohmann's MessagePack reader accepts only str map keys (the key at offset " +
                                   std::to_string(key_start) + " starts 0x" + to_hex(data_ + key_start, 1) +
                                   ", parse_error.113)";
                if (unreadable_.empty() || unreadable_.back() != top_level_ - 1) unreadable_.push_back(top_level_ - 1);
                // Frames below a runner-driven one are runner-driven already: mark only the new ones.
                for (auto f = stack_.rbegin(); f != stack_.rend() && !f->runner_driven; ++f) f->runner_driven = true;
                resume_at_ = key_start;
                return false;
            }
            default: return library_fail("malformed", where + e.what());
        }
    }

    // Called before every sax_parse: between top-level values, or at the next element of an open container.
    void start_value() {
        value_start_ = consumed();
        resume_at_.reset();
    }
    const std::optional<WireError>& error() const { return error_; }
    // The error quotes nlohmann's message, which counts bytes from where its reader started.
    bool library_error() const { return library_error_; }
    // Where to call sax_parse again after nlohmann gave up on a non-str key (its open containers are left to
    // the runner), if that is why the last parse stopped.
    const std::optional<std::size_t>& resume_at() const { return resume_at_; }
    // Containers still waiting for elements.
    bool inside_container() const { return !stack_.empty(); }
    // Why nlohmann's own reader would have refused the input, if it met a non-str key.
    const std::optional<std::string>& non_str_key() const { return non_str_key_; }
    // The top-level values that hold such a key, ascending.
    const std::vector<std::size_t>& unreadable() const { return unreadable_; }

  private:
    struct Frame {
        bool is_map;
        std::size_t elements;        // declared elements (map: keys and values)
        std::size_t done = 0;        // elements written
        bool runner_driven = false;  // nlohmann gave up inside it: the runner closes it at its count
    };

    std::size_t consumed() const { return static_cast<std::size_t>(*position_ - reinterpret_cast<const char*>(data_)); }

    bool open(bool is_map, std::size_t count, std::size_t min_bytes) {
        if (stack_.size() >= kMaxDepth)
            return fail("limit.depth", "nesting deeper than " + std::to_string(kMaxDepth));
        // Every element needs at least one more byte: refuse a count the input cannot hold.
        if (min_bytes > size_ - consumed())
            return fail("malformed.truncated", "declared count " + std::to_string(count) + " exceeds the " +
                                                   std::to_string(size_ - consumed()) + " bytes left");
        begin();
        out_ += is_map ? R"({"type":"map","entries":[)" : R"({"type":"array","items":[)";
        stack_.push_back(Frame{is_map, min_bytes});
        value_start_ = consumed();
        return true;
    }

    bool close() {
        stack_.pop_back();
        out_ += "]}";
        return end();
    }

    bool scalar(const char* text) {
        begin();
        out_ += text;
        return end();
    }
    template <class Int>
    bool integer(Int v) {
        char digits[24];
        char* last = std::to_chars(digits, digits + sizeof digits, v).ptr;
        begin();
        out_ += R"({"type":"int","value":")";
        out_.append(digits, last);
        out_ += "\"}";
        return end();
    }

    // Around each value's text: the separators of the enclosing container (a map's entries are [key, value]
    // pairs), or of the top-level list.
    void begin() {
        if (stack_.empty()) {
            if (top_level_++) out_ += ',';
        } else if (stack_.back().is_map) {
            out_ += stack_.back().done % 2 ? "," : stack_.back().done ? ",[" : "[";
        } else if (stack_.back().done) {
            out_ += ',';
        }
    }
    bool end() {
        value_start_ = consumed();  // nlohmann reads the next value's first byte next
        if (stack_.empty()) return true;
        Frame& top = stack_.back();
        if (++top.done % 2 == 0 && top.is_map) out_ += ']';
        // nlohmann sends end_array/end_object only for the containers it is still reading.
        if (top.runner_driven && top.done == top.elements) return close();
        return true;
    }

    bool fail(const std::string& error_class, const std::string& message) {
        error_.emplace(error_class, message);
        return false;
    }
    bool library_fail(const std::string& error_class, const std::string& message) {
        library_error_ = true;
        return fail(error_class, message);
    }

    const std::uint8_t* data_;
    std::size_t size_;
    ignite::Era era_;
    const char* const* position_;
    std::string& out_;
    std::size_t value_start_ = 0;
    std::size_t top_level_ = 0;  // top-level values written
    std::vector<Frame> stack_;
    std::optional<WireError> error_;
    bool library_error_ = false;
    std::optional<std::size_t> resume_at_;
    std::optional<std::string> non_str_key_;
    std::vector<std::size_t> unreadable_;
};

// ---- encode ----------------------------------------------------------------------------------------------------

class Writer {
  public:
    Writer() { msgpack_packer_init(&packer_, &out_, append); }
    Writer(const Writer&) = delete;  // packer_ and sink_ point at out_
    Writer& operator=(const Writer&) = delete;

    // depth: how many arrays/maps enclose v.
    void value(const ojson& v, std::size_t depth) {
        if (v.is_binary()) return raw(v.get_binary());  // encoded by parse_request (below)
        const std::string& type = text(v, "type");
        if (type == "nil") return library(json(nullptr));
        if (type == "bool") return library(json(field(v, "value").get<bool>()));
        if (type == "int") return library(integer(text(v, "value")));
        if (type == "float32") return float32(text(v, "bits"));
        if (type == "float64") return float64(text(v, "bits"));
        if (type == "str") return library(json(text(v, "value")));
        if (type == "bin") return library(json::binary(from_hex(text(v, "hex"))));
        if (type == "ext") return ext(ext_code(field(v, "code")), from_hex(text(v, "hex")));
        if (type == "array") return array(field(v, "items"), depth);
        if (type == "map") return map(field(v, "entries"), depth);
        if (ignite::is_ignite_type(type)) {
            ignite::Ext e = ignite::encode_ext(v);
            return ext(e.code, std::move(e.payload));
        }
        throw Unsupported("unknown value type '" + type + "'");
    }

    Bytes take() { return std::move(out_); }
    // For a writer used again and again (RequestReader): the bytes so far, and starting over.
    const Bytes& bytes() const { return out_; }
    void clear() { out_.clear(); }

    // msgpack-c's write callback: appends to a Bytes.
    static int append(void* data, const char* buf, std::size_t len) {
        auto* out = static_cast<Bytes*>(data);
        out->insert(out->end(), buf, buf + len);
        return 0;
    }

  private:
    void raw(const Bytes& bytes) { out_.insert(out_.end(), bytes.begin(), bytes.end()); }

    static const ojson& field(const ojson& v, const char* name) {
        auto it = v.find(name);
        if (it == v.end()) throw Unsupported(std::string("value lacks field '") + name + "'");
        return *it;
    }
    static const std::string& text(const ojson& v, const char* name) {
        const ojson& f = field(v, name);
        if (!f.is_string()) throw Unsupported(std::string("field '") + name + "' is not a string");
        return f.get_ref<const std::string&>();
    }

    // nlohmann writes scalars exactly: ints in the smallest form (uint family for non-negative values, int
    // family for negative), str/bin with the smallest header, ext with fixext/ext8/16/32 by payload length.
    void library(const json& scalar) { json::to_msgpack(scalar, sink_); }

    // int64 or uint64 by value; anything outside -2^63 .. 2^64-1 has no MessagePack form.
    static json integer(const std::string& decimal) {
        if (!bigint::is_decimal(decimal)) throw Unsupported("int value is not a decimal string");
        const char* last = decimal.data() + decimal.size();
        if (decimal[0] == '-') {
            std::int64_t v;
            auto [end, ec] = std::from_chars(decimal.data(), last, v);
            if (ec == std::errc() && end == last) return json(v);
        } else {
            std::uint64_t v;
            auto [end, ec] = std::from_chars(decimal.data(), last, v);
            if (ec == std::errc() && end == last) return json(v);
        }
        throw WireError("unrepresentable", "integer " + decimal + " is outside -2^63 .. 2^64-1");
    }

    // nlohmann writes a double as float32 whenever the value survives the narrowing (1.5 -> ca), and
    // msgpack-cxx's pack_float/pack_double write integral values as ints (1.0 -> 01): msgpack-c's C packer is
    // the one writer here that keeps the requested width and every bit.
    void float32(const std::string& bits) {
        Bytes b = from_hex(bits);
        if (b.size() != 4) throw Unsupported("float32 bits must be 8 hex digits");
        std::uint32_t u = 0;
        for (auto byte : b) u = (u << 8) | byte;
        float f;
        std::memcpy(&f, &u, sizeof f);
        msgpack_pack_float(&packer_, f);
    }
    void float64(const std::string& bits) {
        Bytes b = from_hex(bits);
        if (b.size() != 8) throw Unsupported("float64 bits must be 16 hex digits");
        std::uint64_t u = 0;
        for (auto byte : b) u = (u << 8) | byte;
        double d;
        std::memcpy(&d, &u, sizeof d);
        msgpack_pack_double(&packer_, d);
    }

    static std::int8_t ext_code(const ojson& code) {
        if (!code.is_number_integer()) throw Unsupported("ext code is not an integer");
        if (code.is_number_unsigned() ? code.get<std::uint64_t>() > 127
                                      : (code.get<std::int64_t>() < -128 || code.get<std::int64_t>() > 127))
            throw WireError("unrepresentable", "ext code " + code.dump() + " is outside -128..127");
        return static_cast<std::int8_t>(code.get<std::int64_t>());
    }

    // nlohmann's binary subtype is unsigned; it writes its low byte as the type, so -1 goes in as 255.
    void ext(std::int8_t code, Bytes payload) {
        if (payload.size() > std::numeric_limits<std::uint32_t>::max())
            throw WireError("unrepresentable", "ext payload longer than ext32 allows");
        library(json::binary(std::move(payload), static_cast<std::uint8_t>(code)));
    }

    // nlohmann can only write whole containers, and maps only with string keys: msgpack-c writes the headers
    // (smallest of fix/16/32) and the elements follow type-directed.
    void array(const ojson& items, std::size_t depth) {
        if (!items.is_array() && !items.is_binary()) throw Unsupported("array 'items' is not a list");
        too_deep(depth + 1);
        if (items.is_binary()) return raw(items.get_binary());  // header and items, encoded by parse_request
        msgpack_pack_array(&packer_, items.size());
        for (const auto& item : items) value(item, depth + 1);
    }
    void map(const ojson& entries, std::size_t depth) {
        if (!entries.is_array() && !entries.is_binary()) throw Unsupported("map 'entries' is not a list");
        too_deep(depth + 1);
        if (entries.is_binary()) return raw(entries.get_binary());  // header and entries, encoded by parse_request
        for (const auto& e : entries)
            if (!e.is_binary() && (!e.is_array() || e.size() != 2))
                throw Unsupported("map entry is not a [key, value] pair");
        msgpack_pack_map(&packer_, entries.size());
        for (const auto& e : entries) {
            if (e.is_binary()) {  // a pair parse_request encoded
                raw(e.get_binary());
                continue;
            }
            value(e[0], depth + 1);
            value(e[1], depth + 1);
        }
    }

    // The writer recurses once per level: the decoder's nesting limit bounds it too.
    static void too_deep(std::size_t depth) {
        if (depth > kMaxDepth) throw WireError("limit.depth", "value nests deeper than " + std::to_string(kMaxDepth));
    }

    Bytes out_;
    msgpack_packer packer_;
    nlohmann::detail::output_adapter<std::uint8_t> sink_{out_};  // to_msgpack's view of out_, made once
};

// ---- request lines ---------------------------------------------------------------------------------------------

// Builds the document from nlohmann's SAX events as nlohmann's own parser does (a repeated key keeps its last
// value), and encodes the typed values of "values" on the way (codec.hpp, parse_request). Each open container has
// a role: typed values are the objects in "values", in an "items" list, or in a pair of an "entries" list, and
// their nesting depth follows from the path, so each is encoded exactly as encode() would encode it there.
//
// A list folds its elements: while every element so far was encoded, their bytes go to the list's run and no
// node is kept. A complete "items" / "entries" list becomes one binary node, header included (Writer::array /
// Writer::map write it as it is); a complete pair becomes one binary node, key and value. At the first element
// that is not encoded (its encoding failed, or it is no typed value), the run goes back into the list as one
// binary node per element, and the list, and so each value around it, stays a document for encode() to read.
//
// Strings that parse_request cut out of the text nlohmann reads (below) arrive as ""; the reader puts their text
// back, counting strings (keys included) in the order nlohmann reports them, which is the order of the text.
struct Cut {
    std::size_t string;     // the how-manieth string of the line (from 0)
    std::string_view text;  // its characters, in the line
};
class RequestReader {
  public:
    explicit RequestReader(std::vector<Cut> cuts) : cuts_(std::move(cuts)) {}
    ojson& document() { return root_; }
    // A non-msgpack "format" came after "values" had been encoded: those were not MessagePack typed values.
    bool encoded_too_early() const { return encoded_too_early_; }

    bool null() { return put(nullptr); }
    bool boolean(bool b) { return put(b); }
    bool number_integer(std::int64_t v) { return put(v); }
    bool number_unsigned(std::uint64_t v) { return put(v); }
    bool number_float(double v, const std::string&) { return put(v); }
    bool string(std::string& s) {
        restore(s);
        if (stack_.size() == 1 && stack_[0].node->is_object() && key_ == "format" && s != "msgpack") {
            msgpack_ = false;
            encoded_too_early_ = values_seen_;
        }
        return put(std::move(s));
    }
    bool binary(json::binary_t&) { return false; }  // JSON text has none
    bool key(std::string& k) {
        restore(k);
        key_ = std::move(k);
        return true;
    }
    bool start_object(std::size_t) {
        if (!spare_.is_object()) {
            spare_ = ojson::object();
            spare_.get_ref<ojson::object_t&>().reserve(4);  // a typed value's keys: one allocation, not three
        }
        spare_.get_ref<ojson::object_t&>().clear();
        return open(std::move(spare_));
    }
    bool start_array(std::size_t) { return open(ojson::array()); }

    bool end_object() {
        Frame f = std::move(stack_.back());
        stack_.pop_back();
        if (f.role != Role::Value || !f.complete) return done(*f.node, nullptr);
        try {
            writer_.clear();
            writer_.value(*f.node, f.depth);
            return done(*f.node, &writer_.bytes());
        } catch (const WireError&) {  // left for encode() to meet in order
        } catch (const Unsupported&) {
        } catch (const nlohmann::json::exception&) {
        }
        return done(*f.node, nullptr);
    }

    bool end_array() {
        Frame f = std::move(stack_.back());
        stack_.pop_back();
        if (f.role == Role::Pair && f.complete && f.ends.size() != 2) unfold(f);  // not a [key, value] pair
        if (!f.complete || (f.role != Role::Items && f.role != Role::Entries && f.role != Role::Pair)) {
            if (f.role == Role::Items || f.role == Role::Entries) stack_.back().complete = false;  // its Value
            return done(*f.node, nullptr);
        }
        if (f.role == Role::Pair) return done(*f.node, &f.run);
        Bytes header;
        msgpack_packer packer;
        msgpack_packer_init(&packer, &header, Writer::append);
        if (f.role == Role::Items) msgpack_pack_array(&packer, f.ends.size());
        else msgpack_pack_map(&packer, f.ends.size());
        f.run.insert(f.run.begin(), header.begin(), header.end());
        *f.node = ojson::binary(std::move(f.run));
        return done(*f.node, nullptr);
    }

    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) { return false; }

  private:
    enum class Role { Other, Root, Values, Value, Items, Entries, Pair };
    struct Frame {
        ojson* node;
        Role role;
        std::size_t depth;               // Value: the arrays and maps around it; a list: of its typed values
        bool complete = true;            // Value: its lists are; a list: every element so far was encoded
        Bytes run;                       // a list while complete: its elements' bytes
        std::vector<std::size_t> ends;   // where each element ends in run
    };

    // s is the next string of the line: give it back its text if it was cut out.
    void restore(std::string& s) {
        if (next_cut_ < cuts_.size() && cuts_[next_cut_].string == strings_) s.assign(cuts_[next_cut_++].text);
        ++strings_;
    }

    // A container's role follows from the enclosing one and, in an object, from the key.
    bool open(ojson container) {
        Role role = Role::Other;
        std::size_t depth = 0;
        if (stack_.empty()) {
            role = Role::Root;
        } else {
            const Frame& up = stack_.back();
            switch (up.role) {
                case Role::Root:
                    if (key_ == "values" && msgpack_ && container.is_array()) role = Role::Values;
                    values_seen_ = values_seen_ || role == Role::Values;
                    break;
                case Role::Values:
                case Role::Items:
                case Role::Pair:
                    if (container.is_object()) role = Role::Value, depth = up.depth;
                    break;
                case Role::Value:
                    if ((key_ == "items" || key_ == "entries") && container.is_array()) {
                        role = key_ == "items" ? Role::Items : Role::Entries;
                        depth = up.depth + 1;
                    }
                    break;
                case Role::Entries:
                    if (container.is_array()) role = Role::Pair, depth = up.depth;
                    break;
                case Role::Other: break;
            }
        }
        stack_.push_back(Frame{place(std::move(container)), role, depth, true, {}, {}});
        return true;
    }

    bool put(ojson v) { return done(*place(std::move(v)), nullptr); }

    ojson* place(ojson v) {
        if (stack_.empty()) {
            root_ = std::move(v);
            return &root_;
        }
        ojson& top = *stack_.back().node;
        if (top.is_array()) {
            top.push_back(std::move(v));
            return &top.back();
        }
        ojson& slot = top[key_];
        slot = std::move(v);
        return &slot;
    }

    // v, the last node placed, is complete; encoded: its bytes, if it is a typed value (or pair) that encoded.
    bool done(ojson& v, const Bytes* encoded) {
        if (stack_.empty()) return true;
        Frame& top = stack_.back();
        const bool list = top.role == Role::Items || top.role == Role::Entries || top.role == Role::Pair;
        if (list && top.complete && encoded) {  // folded into the run: no node
            top.run.insert(top.run.end(), encoded->begin(), encoded->end());
            top.ends.push_back(top.run.size());
            // The object is kept for the next one: nlohmann destroys an object through a stack it allocates.
            if (v.is_object()) spare_ = std::move(v);
            top.node->get_ref<ojson::array_t&>().pop_back();
            return true;
        }
        if (encoded) v = ojson::binary(*encoded);  // Writer::value / Writer::map write it as it is
        if (list && top.complete && !v.is_binary()) unfold(top);
        return true;
    }

    // The elements folded into the run go back into the list as binary nodes, before the one just placed.
    void unfold(Frame& f) {
        std::vector<ojson> nodes;
        std::size_t start = 0;
        for (std::size_t end : f.ends) {
            nodes.push_back(ojson::binary(Bytes(f.run.begin() + static_cast<std::ptrdiff_t>(start),
                                                f.run.begin() + static_cast<std::ptrdiff_t>(end))));
            start = end;
        }
        ojson::array_t& list = f.node->get_ref<ojson::array_t&>();
        list.insert(list.begin(), std::make_move_iterator(nodes.begin()), std::make_move_iterator(nodes.end()));
        f.run.clear();
        f.ends.clear();
        f.complete = false;
    }

    ojson root_;
    std::vector<Frame> stack_;
    Writer writer_;  // encodes each typed value (its buffer is reused)
    ojson spare_;    // the object of the last typed value folded into a run, to be reused
    std::string key_;  // the last key read
    bool msgpack_ = true;
    bool values_seen_ = false;
    bool encoded_too_early_ = false;
    std::vector<Cut> cuts_;
    std::size_t next_cut_ = 0;  // the next cut string to restore
    std::size_t strings_ = 0;   // strings read
};

const char* find(const char* first, const char* last, char c) {
    const void* at = std::memchr(first, c, static_cast<std::size_t>(last - first));
    return at ? static_cast<const char*>(at) : last;
}

// The '"' that ends a JSON string whose characters start at first (escaped characters skipped), or last.
const char* string_end(const char* first, const char* last) {
    for (; first != last && *first != '"'; ++first)
        if (*first == '\\' && ++first == last) break;
    return first;
}

bool printable_ascii(const char* first, const char* last) {
    unsigned char outside = 0;  // no early exit: the loop vectorizes
    for (; first != last; ++first) {
        auto c = static_cast<unsigned char>(*first);
        outside |= (c < 0x20) | (c > 0x7e);
    }
    return !outside;
}

// Strings at least this long are cut out of the text nlohmann lexes (parse_request).
constexpr std::size_t kCutAt = 64;

}  // namespace

void append_json_string(std::string& out, const std::string& s) {
    static const char* kHex = "0123456789abcdef";
    out += '"';
    std::size_t run = 0;  // start of the characters not yet appended
    for (std::size_t i = 0; i < s.size(); ++i) {
        auto c = static_cast<unsigned char>(s[i]);
        if (c >= 0x20 && c != '"' && c != '\\') continue;
        out.append(s, run, i - run);
        run = i + 1;
        if (c == '"' || c == '\\') {
            out += '\\';
            out += static_cast<char>(c);
        } else {
            out += "\\u00";
            out += kHex[c >> 4];
            out += kHex[c & 15];
        }
    }
    out.append(s, run, std::string::npos);
    out += '"';
}

void append_hex(std::string& out, const std::uint8_t* bytes, std::size_t n) {
    static const char* kHex = "0123456789abcdef";
    std::size_t at = out.size();
    out.resize(at + 2 * n);
    for (std::size_t i = 0; i < n; ++i) {
        out[at + 2 * i] = kHex[bytes[i] >> 4];
        out[at + 2 * i + 1] = kHex[bytes[i] & 15];
    }
}

std::string to_hex(const std::uint8_t* bytes, std::size_t n) {
    std::string out;
    append_hex(out, bytes, n);
    return out;
}

Bytes from_hex(const std::string& text) {
    static const auto kNibble = [] {  // a digit's value, or 16 for a character that is none
        std::array<std::uint8_t, 256> t;
        t.fill(16);
        for (int i = 0; i < 10; ++i) t['0' + i] = static_cast<std::uint8_t>(i);
        for (int i = 0; i < 6; ++i) t['a' + i] = static_cast<std::uint8_t>(10 + i);
        return t;
    }();
    if (text.size() % 2) throw Unsupported("odd-length hex");
    const auto* in = reinterpret_cast<const unsigned char*>(text.data());
    const std::size_t n = text.size() / 2;
    Bytes out(n);
    std::uint8_t* bytes = out.data();  // not out[i]: a byte store could alias out's own pointers
    unsigned bad = 0;                  // checked once at the end: the loop has no branch
    for (std::size_t i = 0; i < n; ++i) {
        unsigned hi = kNibble[in[2 * i]], lo = kNibble[in[2 * i + 1]];
        bad |= hi | lo;
        bytes[i] = static_cast<std::uint8_t>(hi << 4 | lo);
    }
    if (bad & 16) throw Unsupported("bad hex digit");
    return out;
}

namespace {

using Adapter = nlohmann::detail::iterator_input_adapter<CountingIterator>;  // what json::sax_parse makes of them
using Reader = nlohmann::detail::binary_reader<json, Adapter, DecodeSax>;

// Writes the values of bytes to out (see decode) and sets error if the input is rejected. nlohmann reads one
// value per call (strict=false: no end-of-input check); the counting iterator tells where the next one starts.
// After a non-str key, each call reads the next element of the containers nlohmann left open.
//
// json::sax_parse builds a new binary_reader per call, whose constructor costs about a thousand instructions
// (among its members is a table of 11 strings for another format): more than a small value, and a map with
// non-str keys is read one element per call. With shared_reader, one reader reads on as long as it can (until
// the runner moves it back to a non-str key). But nlohmann's messages count bytes from where its reader
// started: when one comes from a reader that started at an earlier value, read_values returns false, and the
// input is read again with a reader per value, as json::sax_parse would.
bool read_values(const Bytes& bytes, ignite::Era era, bool shared_reader, std::string& out,
                 std::optional<WireError>& error, Unreadable* unreadable) {
    const char* begin = reinterpret_cast<const char*>(bytes.data());
    const char* end = begin + bytes.size();
    const char* position = begin;
    out += '[';
    DecodeSax sax(bytes, era, &position, out);
    std::optional<Reader> reader;
    while (position != end) {
        sax.start_value();
        const bool read_before = reader && shared_reader;  // the reader read an earlier value
        if (!read_before)
            reader.emplace(Adapter(CountingIterator(position, &position), CountingIterator(end, &position)),
                           json::input_format_t::msgpack);
        if (reader->sax_parse(json::input_format_t::msgpack, &sax, /*strict=*/false)) continue;
        if (sax.error() && sax.library_error() && read_before) return false;
        if (sax.error()) {
            error = sax.error();
            return true;
        }
        if (sax.resume_at()) {
            position = begin + *sax.resume_at();
            reader.reset();
            continue;
        }
        error = WireError("malformed", "nlohmann stopped without reporting an error");
        return true;
    }
    if (sax.inside_container()) {
        error = WireError("malformed.truncated", "input ends inside an array or map");
        return true;
    }
    // The whole input is well-formed, but a reader built on nlohmann cannot accept it: say so rather than
    // answer with values nlohmann's own map reading would never produce.
    if (sax.non_str_key() && !unreadable) throw Unsupported(*sax.non_str_key());
    if (sax.non_str_key()) *unreadable = Unreadable{sax.unreadable(), *sax.non_str_key()};
    out += ']';
    return true;
}

std::optional<WireError> decode(const Bytes& bytes, ignite::Era era, std::string& out, Unreadable* unreadable) {
    const std::size_t start = out.size();
    std::optional<WireError> error;
    if (read_values(bytes, era, /*shared_reader=*/true, out, error, unreadable)) return error;
    out.resize(start);
    read_values(bytes, era, /*shared_reader=*/false, out, error, unreadable);
    return error;
}

}  // namespace

std::optional<WireError> decode(const Bytes& bytes, ignite::Era era, std::string& out) {
    return decode(bytes, era, out, nullptr);
}

ojson decode(const Bytes& bytes, ignite::Era era) {
    std::string text;
    if (auto error = decode(bytes, era, text)) throw *error;
    return ojson::parse(text);
}

ojson decode(const Bytes& bytes, ignite::Era era, Unreadable& unreadable) {
    std::string text;
    if (auto error = decode(bytes, era, text, &unreadable)) throw *error;
    return ojson::parse(text);
}

// nlohmann's JSON lexer spends about 60 instructions on each character of a string (it copies each one into the
// token and into the text its error messages quote): lexing the hex of a big request cost more than decoding
// it. So a long string of printable ASCII without a backslash (characters the lexer takes as they are) is cut
// out of the text nlohmann reads, which has "" in its place, and RequestReader puts the text back. Outside a
// string a '"' always opens one, so one pass over the quotes finds every string; nlohmann accepts the shortened
// line exactly when it accepts the line, since what was cut is valid anywhere inside a string.
std::optional<ojson> parse_request(const char* begin, const char* end) {
    std::vector<Cut> cuts;
    std::string shortened;        // the line without the cut strings' characters, if any are cut
    const char* copied = begin;  // the line before this is in shortened
    const char* open = find(begin, end, '"');
    for (std::size_t n = 0; open != end; ++n) {
        const char* close = find(open + 1, end, '"');
        if (find(open + 1, close, '\\') != close) {
            close = string_end(open + 1, end);
        } else if (close != end && static_cast<std::size_t>(close - open - 1) >= kCutAt &&
                   printable_ascii(open + 1, close)) {
            shortened.append(copied, open + 1);
            cuts.push_back(Cut{n, std::string_view(open + 1, static_cast<std::size_t>(close - open - 1))});
            copied = close;
        }
        if (close == end) break;
        open = find(close + 1, end, '"');
    }
    if (!cuts.empty()) shortened.append(copied, end);
    const char* first = cuts.empty() ? begin : shortened.data();
    const char* last = cuts.empty() ? end : shortened.data() + shortened.size();
    RequestReader reader(std::move(cuts));
    if (!json::sax_parse(first, last, &reader)) return std::nullopt;
    if (reader.encoded_too_early()) return ojson::parse(begin, end);
    return std::move(reader.document());
}

Bytes encode(const ojson& values) {
    if (!values.is_array()) throw Unsupported("'values' is not a list");
    Writer w;
    for (const auto& v : values) w.value(v, 0);
    return w.take();
}

}  // namespace codec
