// Ignite extension types: which codes an era assigns (schema/registry.json ext_types) and their payload layouts.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ignite {

enum class Era { Msgpack, Alpha3, Alpha4, Alpha5, Beta1, V3_0 };

std::optional<Era> parse_era(const std::string& name);
const char* era_name(Era era);
const std::vector<std::string>& all_era_names();

// Typed value of an ext that the era assigns, validated (throws WireError invalid.ext-length / invalid.ext-value);
// nullopt when the era gives the code no Ignite meaning, so the caller keeps it as a raw ext.
std::optional<nlohmann::ordered_json> decode_ext(std::int8_t code, const std::vector<std::uint8_t>& payload, Era era);

// The 'type' names of the Ignite values in value.schema.json.
bool is_ignite_type(const std::string& type);

struct Ext {
    std::int8_t code;
    std::vector<std::uint8_t> payload;
};

// Code and payload of an Ignite typed value, laid out for the value's own "era" (throws WireError
// unrepresentable / invalid.ext-value, or Unsupported for a value that does not follow value.schema.json).
Ext encode_ext(const nlohmann::ordered_json& value);

}  // namespace ignite
