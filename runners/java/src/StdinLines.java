import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

/**
 * Request lines from stdin, read in large blocks. A line is handed out in place (buffer()[lineStart,
 * lineEnd), valid until the next call of next()), not copied. It can tell whether the next line is already
 * complete in its buffer, so the protocol loop flushes its answers only before a read that could block: a
 * window of requests is answered with one write, and no answer waits for more input.
 */
final class StdinLines {
    private final InputStream in;
    private byte[] buf = new byte[1 << 16];
    private int pos;   // start of the next line
    private int scan;  // buf[pos, scan) holds no '\n'
    private int end;   // bytes in buf
    private boolean eof;
    private int lineStart;
    private int lineEnd;

    StdinLines(InputStream in) {
        this.in = in;
    }

    /** Moves to the next line (its '\n' not included; the last line may lack one); false at end of input. */
    boolean next() throws IOException {
        for (;;) {
            int nl = indexOfNewline(scan);
            if (nl >= 0) {
                lineStart = pos;
                lineEnd = nl;
                pos = scan = nl + 1;
                return true;
            }
            scan = end; // searched: a long line arrives in many blocks, each searched once
            if (eof) {
                if (pos == end) {
                    return false;
                }
                lineStart = pos;
                lineEnd = end;
                pos = scan = end;
                return true;
            }
            fill();
        }
    }

    byte[] buffer() {
        return buf;
    }

    int lineStart() {
        return lineStart;
    }

    int lineLength() {
        return lineEnd - lineStart;
    }

    /** True when next() can return without reading. */
    boolean lineBuffered() {
        int nl = indexOfNewline(scan);
        scan = nl >= 0 ? nl : end; // next() does not search these bytes again
        return eof || nl >= 0;
    }

    private int indexOfNewline(int from) {
        for (int i = from; i < end; i++) {
            if (buf[i] == '\n') {
                return i;
            }
        }
        return -1;
    }

    private void fill() throws IOException {
        System.arraycopy(buf, pos, buf, 0, end - pos);
        end -= pos;
        scan -= pos;
        pos = 0;
        if (end == buf.length) {
            buf = Arrays.copyOf(buf, buf.length * 2);
        }
        int n = in.read(buf, end, buf.length - end);
        if (n < 0) {
            eof = true;
        } else {
            end += n;
        }
    }
}
