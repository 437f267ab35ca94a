// Each format's encode and decode, as calls into the official C++ client's own code.
#pragma once

#include "values.hpp"

namespace icpp {

// The formats claimed in the start answer.
const std::vector<std::string> &claimed_formats();

// Encode request -> the bytes the client wrote. Throws what the client throws, or no_api / unrepresentable.
std::vector<std::byte> encode(const json &request);

// Decode request -> the values the client read. Throws what the client throws, or no_api.
json decode(const json &request);

// The one judgement of the adapter: which error class an exception of the client means (README "Error
// classes"). Returns false (and sets `why`) when the exception is not a deliberate rejection by the client: the
// request is then answered 'skipped' with the exception's type and message.
bool error_class(const std::exception &e, const std::string &format, std::string &cls, std::string &why);

} // namespace icpp
