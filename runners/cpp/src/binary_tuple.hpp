// Binary Tuple (IEP-92) codec, spec.md 6.2-6.4: the formats binary-tuple, object, object-array, batched-arguments, table-row,
// collection and compute-arg, whose
// elements are ColumnType-typed values ({"type": "INT32", ...}). No library implements Binary Tuples: the tuple
// layer is written by hand here; the MessagePack around a tuple (c0, bin, int count, the no-value BITMASK) goes
// through codec::decode / codec::encode.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ignite_ext.hpp"

namespace binary_tuple {

// The formats besides "msgpack" (protocol.schema.json $defs.format).
bool is_format(const std::string& format);

// The elements of bytes in the given format. columns: the request's ColumnType names (binary-tuple, table-row;
// null when absent). Throws WireError (rejected input) or Unsupported.
nlohmann::ordered_json decode(const std::string& format, const std::vector<std::uint8_t>& bytes, ignite::Era era,
                              const nlohmann::ordered_json& columns);

// The canonical (java producer profile) bytes of the elements in the given format.
std::vector<std::uint8_t> encode(const std::string& format, const nlohmann::ordered_json& values, ignite::Era era,
                                 const nlohmann::ordered_json& columns);

}  // namespace binary_tuple
