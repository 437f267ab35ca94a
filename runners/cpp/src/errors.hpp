// The two ways a request can fail, as the protocol answers them.
#pragma once

#include <stdexcept>
#include <string>

// The input is rejected: an error response with a registry.json error class.
struct WireError : std::runtime_error {
    WireError(std::string error_class, const std::string& message)
        : std::runtime_error(message), error_class(std::move(error_class)) {}
    std::string error_class;
};

// The runner cannot perform the request (its library cannot express it, or the request is not well-formed):
// a 'skipped' response, which the harness judges.
struct Unsupported : std::runtime_error {
    using std::runtime_error::runtime_error;
};
