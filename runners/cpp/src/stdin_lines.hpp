// Request lines from stdin, read in large blocks. It can tell whether the next line is already complete in its
// buffer, so the protocol loop flushes its answers only before a read that could block: a window of requests
// is answered with one write, and no answer waits for more input.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string>
#include <string_view>

class StdinLines {
public:
    // The next line without its '\n' (the last line may lack one), valid until the next call; false at end of
    // input.
    bool next(std::string_view& line) {
        for (;;) {
            std::size_t nl = read().find('\n', scan_);
            if (nl != std::string_view::npos) {
                line = read().substr(pos_, nl - pos_);
                pos_ = scan_ = nl + 1;
                return true;
            }
            scan_ = end_;  // searched: a long line arrives in many blocks, each searched once
            if (eof_) {
                if (pos_ == end_) return false;
                line = read().substr(pos_);
                pos_ = scan_ = end_;
                return true;
            }
            fill();
        }
    }

    // True when next() can return a line without reading.
    bool line_buffered() const { return eof_ || read().find('\n', pos_) != std::string_view::npos; }

private:
    // Reads straight into buf_, which grows only for a line longer than it (and keeps its size: its pages are
    // touched once).
    void fill() {
        std::copy(buf_.begin() + static_cast<std::ptrdiff_t>(pos_), buf_.begin() + static_cast<std::ptrdiff_t>(end_),
                  buf_.begin());
        end_ -= pos_;
        scan_ -= pos_;
        pos_ = 0;
        if (buf_.size() - end_ < kBlock) buf_.resize(std::max(2 * buf_.size(), end_ + kBlock));
        ssize_t n;
        do n = ::read(0, &buf_[end_], buf_.size() - end_); while (n < 0 && errno == EINTR);
        if (n <= 0) eof_ = true;
        else end_ += static_cast<std::size_t>(n);
    }

    static constexpr std::size_t kBlock = 1 << 16;

    std::string_view read() const { return std::string_view(buf_).substr(0, end_); }
    std::string buf_;       // bytes read: buf_[0, end_)
    std::size_t end_ = 0;
    std::size_t pos_ = 0;   // start of the next line
    std::size_t scan_ = 0;  // buf_ before this holds no '\n' after pos_
    bool eof_ = false;
};
