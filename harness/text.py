"""Runner texts made safe to print and store: one routine, applied where a runner's text enters a verdict.

A runner may send anything a JSON string can hold: lone UTF-16 surrogates (which cannot be written as UTF-8),
control bytes (which a terminal obeys), or megabytes of message. clean() replaces the first with U+FFFD,
writes the second as \\xNN, and cuts the text to MESSAGE_LIMIT bytes of UTF-8 with a "truncated N bytes" marker.
Texts that are already clean (short, printable ASCII) are returned as they are after one quick check.
"""

from pathlib import Path

MESSAGE_LIMIT = 4096        # bytes of UTF-8 kept per runner text (runners/PROTOCOL.md, "Limits")


def clean(text, limit=MESSAGE_LIMIT):
    if len(text) <= limit and text.isascii() and text.isprintable():
        return text
    pieces, size = [], 0
    for i, ch in enumerate(text):
        code = ord(ch)
        if code < 0x20 or 0x7F <= code <= 0x9F:
            piece, n = f"\\x{code:02x}", 4
        elif 0xD800 <= code <= 0xDFFF:
            piece, n = "\ufffd", 3          # a lone surrogate: not a character, not writable as UTF-8
        else:
            piece, n = ch, (1 if code < 0x80 else 2 if code < 0x800 else 3 if code < 0x10000 else 4)
        if size + n > limit:
            dropped = len(text[i:].encode("utf-8", "surrogatepass"))
            return "".join(pieces) + f"... (truncated {dropped} bytes)"
        pieces.append(piece)
        size += n
    return "".join(pieces)


def clean_bytes(data, limit=MESSAGE_LIMIT):
    """clean() for raw bytes from a runner (invalid UTF-8 replaced); only the first bytes are decoded."""
    text = clean(data[:limit].decode("utf-8", "replace"), limit)
    return text + f"... (truncated {len(data) - limit} bytes)" if len(data) > limit else text


def first_line(error):
    """An exception's first line of text, or its class name when it has none."""
    lines = str(error).splitlines()
    return lines[0] if lines else type(error).__name__


def shown_path(path):
    """Paths under the working directory are shown relative to it (the output then reads the same anywhere)."""
    text = str(path)
    cwd = str(Path.cwd()) + "/"
    return text[len(cwd):] if text.startswith(cwd) else text
