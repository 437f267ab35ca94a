#include "bigint.hpp"

#include <algorithm>

namespace bigint {
namespace {

constexpr std::uint32_t kChunk = 1000000000u;  // 10^9: nine decimal digits per 32-bit limb

// Magnitude as little-endian 32-bit limbs <-> big-endian bytes, and the decimal conversions on top.
std::vector<std::uint32_t> limbs_from_bytes(const std::vector<std::uint8_t>& be) {
    std::vector<std::uint32_t> limbs((be.size() + 3) / 4, 0);
    for (std::size_t i = 0; i < be.size(); ++i) {
        std::size_t bit = 8 * (be.size() - 1 - i);
        limbs[bit / 32] |= static_cast<std::uint32_t>(be[i]) << (bit % 32);
    }
    return limbs;
}

std::string decimal_from_limbs(std::vector<std::uint32_t> limbs) {
    while (!limbs.empty() && limbs.back() == 0) limbs.pop_back();
    if (limbs.empty()) return "0";
    std::vector<std::uint32_t> chunks;  // base 10^9, least significant first
    while (!limbs.empty()) {
        std::uint64_t rem = 0;
        for (std::size_t i = limbs.size(); i-- > 0;) {
            std::uint64_t cur = (rem << 32) | limbs[i];
            limbs[i] = static_cast<std::uint32_t>(cur / kChunk);
            rem = cur % kChunk;
        }
        chunks.push_back(static_cast<std::uint32_t>(rem));
        while (!limbs.empty() && limbs.back() == 0) limbs.pop_back();
    }
    std::string out = std::to_string(chunks.back());
    for (std::size_t i = chunks.size() - 1; i-- > 0;) {
        std::string part = std::to_string(chunks[i]);
        out.append(9 - part.size(), '0').append(part);
    }
    return out;
}

// Two's-complement negation in place (invert, add one), also used to turn a negative value into its magnitude.
void negate(std::vector<std::uint8_t>& be) {
    unsigned carry = 1;
    for (std::size_t i = be.size(); i-- > 0;) {
        unsigned v = static_cast<std::uint8_t>(~be[i]) + carry;
        be[i] = static_cast<std::uint8_t>(v);
        carry = v >> 8;
    }
}

}  // namespace

bool is_decimal(const std::string& text) {
    std::size_t i = (!text.empty() && text[0] == '-') ? 1 : 0;
    if (i == text.size()) return false;
    if (text[i] == '0') return text.size() == 1;  // "0" only: no leading zeros, no "-0"
    return std::all_of(text.begin() + static_cast<std::ptrdiff_t>(i), text.end(),
                       [](char c) { return c >= '0' && c <= '9'; });
}

std::string from_twos_complement(const std::uint8_t* bytes, std::size_t n) {
    std::vector<std::uint8_t> mag(bytes, bytes + n);
    bool negative = (bytes[0] & 0x80) != 0;
    if (negative) {
        mag.insert(mag.begin(), 0xff);  // room for the magnitude of the most negative value (80 -> 128)
        negate(mag);
    }
    std::string digits = decimal_from_limbs(limbs_from_bytes(mag));
    return negative ? "-" + digits : digits;
}

std::vector<std::uint8_t> to_twos_complement(const std::string& text) {
    bool negative = text[0] == '-';
    std::vector<std::uint32_t> limbs;  // little-endian base 2^32
    for (std::size_t pos = negative ? 1 : 0; pos < text.size();) {
        std::size_t len = std::min<std::size_t>(9, text.size() - pos);
        std::uint64_t mul = 1;
        for (std::size_t k = 0; k < len; ++k) mul *= 10;
        std::uint64_t carry = std::stoul(text.substr(pos, len));
        for (auto& limb : limbs) {
            std::uint64_t cur = limb * mul + carry;
            limb = static_cast<std::uint32_t>(cur);
            carry = cur >> 32;
        }
        if (carry != 0) limbs.push_back(static_cast<std::uint32_t>(carry));
        pos += len;
    }
    std::vector<std::uint8_t> be(1, 0x00);  // leading sign byte; trimmed below when redundant
    for (std::size_t i = limbs.size(); i-- > 0;)
        for (int shift = 24; shift >= 0; shift -= 8) be.push_back(static_cast<std::uint8_t>(limbs[i] >> shift));
    if (negative) negate(be);
    // Minimal form: drop a leading 00/ff while the next byte carries the same sign bit.
    std::size_t skip = 0;
    while (skip + 1 < be.size() && ((be[skip] == 0x00 && !(be[skip + 1] & 0x80)) ||
                                    (be[skip] == 0xff && (be[skip + 1] & 0x80))))
        ++skip;
    return std::vector<std::uint8_t>(be.begin() + static_cast<std::ptrdiff_t>(skip), be.end());
}

}  // namespace bigint
