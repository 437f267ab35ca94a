// Arbitrary-precision integers as the Ignite NUMBER/DECIMAL payloads carry them (Java BigInteger.toByteArray:
// two's complement, big-endian, minimal) <-> the decimal strings of the typed value notation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace bigint {

// True for "0" or an optional '-' and digits without a leading zero ("-0" excluded): value.schema.json "bigint".
bool is_decimal(const std::string& text);

// Decimal string of the two's-complement big-endian integer in bytes[0..n). n must be >= 1.
std::string from_twos_complement(const std::uint8_t* bytes, std::size_t n);

// Minimal two's-complement big-endian bytes (always >= 1 byte) of a decimal string accepted by is_decimal.
std::vector<std::uint8_t> to_twos_complement(const std::string& text);

}  // namespace bigint
