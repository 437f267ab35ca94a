// Typed values (schema/value.schema.json) <-> the official C++ client's own value types (ignite::primitive and
// the types it holds). Only the notation is converted here; every wire byte is read and written by the client.
#pragma once

#include <ignite/common/bytes_view.h>
#include <ignite/common/primitive.h>

#include <nlohmann/json.hpp>

#include <stdexcept>
#include <string>
#include <vector>

namespace icpp {

using json = nlohmann::json;

// The typed value has no value of the client's C++ type (an INT8 of 200, a DECIMAL scale beyond int16, a TIME
// hour beyond int_fast8_t): the client's API cannot even be called with it. Answered as 'unrepresentable'.
struct unrepresentable : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// The client has no API for this request (a float writer, a raw-ext reader, ...): answered 'skipped'.
struct no_api : std::runtime_error {
    using std::runtime_error::runtime_error;
};

std::vector<std::byte> from_hex(const std::string &hex);
std::string to_hex(ignite::bytes_view bytes);

// An upper-case Binary Tuple element (NULL, INT32, DECIMAL, ...) as the client's primitive.
ignite::primitive to_primitive(const json &element);
// A primitive the client read, as an upper-case element.
json from_primitive(const ignite::primitive &value);

// ColumnType name -> ignite_type (throws no_api for names the client has no type for).
ignite::ignite_type column_type(const std::string &name);

ignite::uuid parse_uuid(const std::string &text);
std::string format_uuid(const ignite::uuid &value);

} // namespace icpp
