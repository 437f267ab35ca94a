// An input iterator over a byte buffer that tells where nlohmann's reader is. The SAX interface reports no
// byte offsets (only parse_error gets one), but the runner needs them: to read float widths, ext containers
// and remaining-byte counts from the raw input. nlohmann reads strictly one byte at a time (no look-ahead),
// so after every SAX event *position() is the offset just past the last byte the event consumed.
#pragma once

#include <cstddef>
#include <iterator>

class CountingIterator {
  public:
    using iterator_category = std::input_iterator_tag;
    using value_type = char;  // one-byte value_type: nlohmann picks its plain iterator_input_adapter
    using difference_type = std::ptrdiff_t;
    using pointer = const char*;
    using reference = const char&;

    CountingIterator(const char* at, const char** position) : at_(at), position_(position) {}

    reference operator*() const { return *at_; }
    CountingIterator& operator++() {
        *position_ = ++at_;
        return *this;
    }
    CountingIterator operator++(int) {
        CountingIterator before = *this;
        ++*this;
        return before;
    }
    bool operator==(const CountingIterator& other) const { return at_ == other.at_; }
    bool operator!=(const CountingIterator& other) const { return at_ != other.at_; }

  private:
    const char* at_;
    const char** position_;
};
