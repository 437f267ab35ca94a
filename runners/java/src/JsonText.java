import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.Writer;
import java.util.Arrays;

/**
 * One answer's JSON value as text, in a char buffer reused from request to request. It is copied into the
 * response as a raw value: no String of a (possibly megabytes long) answer is built, inflated and copied again.
 */
final class JsonText extends Writer {
    private char[] buf = new char[1 << 16];
    private int length;

    JsonText reset() {
        length = 0;
        return this;
    }

    private void ensure(int more) {
        if (buf.length - length < more) {
            buf = Arrays.copyOf(buf, Math.max(2 * buf.length, length + more));
        }
    }

    @Override
    public void write(char[] chars, int offset, int count) {
        ensure(count);
        System.arraycopy(chars, offset, buf, length, count);
        length += count;
    }

    /** The bytes as a JSON string of lower-case hex digits (nothing in it needs escaping). */
    JsonText hexString(byte[] bytes) {
        ensure(2 * bytes.length + 2);
        buf[length++] = '"';
        Hex.write(bytes, buf, length);
        length += 2 * bytes.length;
        buf[length++] = '"';
        return this;
    }

    void writeTo(JsonGenerator out) throws IOException {
        out.writeRawValue(buf, 0, length);
    }

    char[] chars() {
        return buf;
    }

    int length() {
        return length;
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
    }
}
