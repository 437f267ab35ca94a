// MessagePack bytes <-> typed value notation (schema/value.schema.json).
// Decoding goes through nlohmann/json's SAX interface and writes the typed values as JSON text; encoding is
// type-directed (nlohmann's to_msgpack for the scalars it writes exactly, msgpack-c's packer for floats and
// container headers).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "errors.hpp"
#include "ignite_ext.hpp"

namespace codec {

// Deepest array/map nesting a decode accepts (spec: at least 64, at most 10,000).
constexpr std::size_t kMaxDepth = 512;

// Appends all top-level values in bytes to out, as a JSON array of typed values. Returns the error when the input
// is rejected (out then ends in a partial answer, for the caller to drop); throws Unsupported when the library
// cannot read it.
std::optional<WireError> decode(const std::vector<std::uint8_t>& bytes, ignite::Era era, std::string& out);

// The same values as a JSON document (the Binary Tuple formats read the few values around a tuple from it).
// Throws WireError or Unsupported.
nlohmann::ordered_json decode(const std::vector<std::uint8_t>& bytes, ignite::Era era);

// The top-level values that hold a map nlohmann's reader refuses (a key that is not a str, README finding 1), in a
// well-formed input, and why: their own type is what nlohmann read (their header); their contents only the runner's
// resumed reads give (finding 1), so a caller must not answer with them.
struct Unreadable {
    std::vector<std::size_t> values;  // indices, ascending
    std::string reason;
};

// The same, but a well-formed input with such maps is not declined: unreadable names them, for a caller that needs
// only their type (the frame layer's typed fields). Throws WireError.
nlohmann::ordered_json decode(const std::vector<std::uint8_t>& bytes, ignite::Era era, Unreadable& unreadable);

// The canonical bytes of a JSON array of typed values. Throws WireError or Unsupported.
std::vector<std::uint8_t> encode(const nlohmann::ordered_json& values);

// A request line as a JSON document, or nullopt when it is not JSON. Unlike ojson::parse, it encodes each
// typed value under "values" of a MessagePack request as soon as the value's closing brace is read, and keeps
// only its bytes, as a binary node (JSON text has no binary values: nothing else is one); encode() writes such a
// node as it is. A big value then never exists as a document of small objects (a few hundred bytes of heap per
// typed value, touched once: the runner's largest cost). A value whose encoding fails stays as it was read, and
// so does every value around it: encode() meets it in the usual order and reports the same error.
std::optional<nlohmann::ordered_json> parse_request(const char* begin, const char* end);

// Well-formed UTF-8 (Unicode 15, table 3-7): no overlong forms, no surrogates, nothing above U+10FFFF.
bool valid_utf8(const std::string& s);

// s, well-formed UTF-8, as a JSON string literal appended to out.
void append_json_string(std::string& out, const std::string& s);

// Bytes as lower-case hex (appended to out), and back (throws Unsupported on odd length or a digit outside [0-9a-f]).
std::string to_hex(const std::uint8_t* bytes, std::size_t n);
void append_hex(std::string& out, const std::uint8_t* bytes, std::size_t n);
std::vector<std::uint8_t> from_hex(const std::string& text);

}  // namespace codec
