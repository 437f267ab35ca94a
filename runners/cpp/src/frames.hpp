// The frame layer (spec.md 11): one Ignite 3 client/server message as named fields <-> its framed bytes
// (IGNI magic for the handshake kinds, a 4-byte big-endian length, then a sequence of MessagePack values laid out by
// the message kind, as the registry's frame_layouts say: runners/PROTOCOL.md section 4). Every value goes through this runner's own codec (codec::decode / codec::encode, era 3.0).
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace frames {

// Reads the message layouts (registry frame_layouts) and the feature names (frames.features) from the registry, once
// at start. Throws (nlohmann or std::runtime_error) when they do not follow registry.schema.json.
void load(const nlohmann::ordered_json& registry);

// The feature names (registry frames.features[].name) the connection negotiated.
using Features = std::set<std::string>;

// The request's "features" member (null when absent). Throws Unsupported when it is not a list of names.
Features features_of(const nlohmann::ordered_json& names);

// The fields of the one frame in bytes. Throws WireError (rejected input) or Unsupported (unknown kind, or a
// value the runner's library cannot read).
nlohmann::ordered_json decode(const std::string& kind, const std::vector<std::uint8_t>& bytes, const Features& features);

// The canonical bytes of the frame of that kind holding fields. Throws WireError or Unsupported.
std::vector<std::uint8_t> encode(const std::string& kind, const nlohmann::ordered_json& fields, const Features& features);

}  // namespace frames
