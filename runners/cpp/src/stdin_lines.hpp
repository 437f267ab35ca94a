// Request lines from stdin, read in large blocks. It can tell whether the next line is already complete in its
// buffer, so the protocol loop flushes its answers only before a read that could block: a window of requests
// is answered with one write, and no answer waits for more input.
#pragma once

#include <unistd.h>

#include <cerrno>
#include <string>

class StdinLines {
public:
    // The next line without its '\n' (the last line may lack one); false at end of input.
    bool next(std::string& line) {
        for (;;) {
            std::size_t nl = buf_.find('\n', scan_);
            if (nl != std::string::npos) {
                line.assign(buf_, pos_, nl - pos_);
                pos_ = scan_ = nl + 1;
                return true;
            }
            scan_ = buf_.size();  // searched: a long line arrives in many blocks, each searched once
            if (eof_) {
                if (pos_ == buf_.size()) return false;
                line.assign(buf_, pos_, std::string::npos);
                pos_ = scan_ = buf_.size();
                return true;
            }
            fill();
        }
    }

    // True when next() can return a line without reading.
    bool line_buffered() const { return eof_ || buf_.find('\n', pos_) != std::string::npos; }

private:
    void fill() {
        buf_.erase(0, pos_);
        scan_ -= pos_;
        pos_ = 0;
        char block[1 << 16];
        ssize_t n;
        do n = ::read(0, block, sizeof block); while (n < 0 && errno == EINTR);
        if (n <= 0) eof_ = true;
        else buf_.append(block, static_cast<std::size_t>(n));
    }

    std::string buf_;
    std::size_t pos_ = 0;   // start of the next line
    std::size_t scan_ = 0;  // buf_ before this holds no '\n' after pos_
    bool eof_ = false;
};
