// MessagePack bytes <-> typed value notation (schema/value.schema.json).
// Decoding goes through nlohmann/json's SAX interface; encoding is type-directed (nlohmann's to_msgpack for
// the scalars it writes exactly, msgpack-c's packer for floats and container headers).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ignite_ext.hpp"

namespace codec {

// Deepest array/map nesting a decode accepts (spec: at least 64, at most 10,000).
constexpr std::size_t kMaxDepth = 512;

// All top-level values in bytes, as a JSON array of typed values. Throws WireError (the input is rejected)
// or Unsupported (the library cannot read it).
nlohmann::ordered_json decode(const std::vector<std::uint8_t>& bytes, ignite::Era era);

// The canonical bytes of a JSON array of typed values. Throws WireError or Unsupported.
std::vector<std::uint8_t> encode(const nlohmann::ordered_json& values);

// Well-formed UTF-8 (Unicode 15, table 3-7): no overlong forms, no surrogates, nothing above U+10FFFF.
bool valid_utf8(const std::string& s);

// Bytes as lower-case hex, and back (throws Unsupported on odd length or a digit outside [0-9a-f]).
std::string to_hex(const std::uint8_t* bytes, std::size_t n);
std::vector<std::uint8_t> from_hex(const std::string& text);

}  // namespace codec
