import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** Lower-case hex, as the protocol carries bytes. */
final class Hex {
    private static final byte[] DIGITS = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] VALUE = new byte[256]; // digit value of a byte, -1 if it is not a hex digit

    static {
        Arrays.fill(VALUE, (byte) -1);
        for (int d = 0; d < 16; d++) {
            VALUE["0123456789abcdef".charAt(d)] = (byte) d;
            VALUE["0123456789ABCDEF".charAt(d)] = (byte) d;
        }
    }

    private Hex() {
    }

    /** Built as Latin-1 bytes: the String keeps them as they are (no char[] to compress). */
    static String of(byte[] bytes) {
        byte[] text = new byte[bytes.length * 2];
        for (int i = 0; i < bytes.length; i++) {
            text[2 * i] = DIGITS[(bytes[i] >> 4) & 0xf];
            text[2 * i + 1] = DIGITS[bytes[i] & 0xf];
        }
        return new String(text, StandardCharsets.ISO_8859_1);
    }

    /** The low {@code digits} hex digits of bits, zero-padded (String.format parses its pattern on every call). */
    static String of(long bits, int digits) {
        byte[] text = new byte[digits];
        for (int i = digits - 1; i >= 0; i--, bits >>>= 4) {
            text[i] = DIGITS[(int) (bits & 0xf)];
        }
        return new String(text, StandardCharsets.ISO_8859_1);
    }

    /** The bytes' hex digits written as chars into out from index at (it has room for 2 * bytes.length). */
    static void write(byte[] bytes, char[] out, int at) {
        for (byte b : bytes) {
            out[at++] = (char) DIGITS[(b >> 4) & 0xf];
            out[at++] = (char) DIGITS[b & 0xf];
        }
    }

    /** Read from the text's Latin-1 bytes (one copy; a char beyond Latin-1 becomes '?', not a digit). */
    static byte[] parse(String text) {
        if (text.length() % 2 != 0) {
            throw new IllegalArgumentException("odd-length hex");
        }
        byte[] digits = text.getBytes(StandardCharsets.ISO_8859_1);
        byte[] bytes = new byte[digits.length / 2];
        for (int i = 0; i < bytes.length; i++) {
            int b = pair(digits[2 * i] & 0xff, digits[2 * i + 1] & 0xff);
            if (b < 0) {
                throw new IllegalArgumentException("not a hex digit: " + text.substring(2 * i, 2 * i + 2));
            }
            bytes[i] = (byte) b;
        }
        return bytes;
    }

    /** The same from chars (a parser's buffer), or null if they are not an even number of hex digits. */
    static byte[] parseOrNull(char[] digits, int offset, int length) {
        if (length % 2 != 0) {
            return null;
        }
        byte[] bytes = new byte[length / 2];
        for (int i = 0; i < bytes.length; i++) {
            int b = pair(digits[offset + 2 * i], digits[offset + 2 * i + 1]);
            if (b < 0) {
                return null;
            }
            bytes[i] = (byte) b;
        }
        return bytes;
    }

    /** The byte two hex digits (char values) stand for, or a negative number if either is not one. */
    private static int pair(int hi, int lo) {
        return (hi | lo) > 0xff ? -1 : VALUE[hi] << 4 | VALUE[lo];
    }
}
