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

    /** Read from the text's chars (a char beyond Latin-1 is no digit). */
    static byte[] parse(String text) {
        if (text.length() % 2 != 0) {
            throw new IllegalArgumentException("odd-length hex");
        }
        byte[] bytes = new byte[text.length() / 2];
        int bad = decode(text.toCharArray(), 0, bytes);
        if (bad >= 0) {
            throw new IllegalArgumentException("not a hex digit: " + text.substring(2 * bad, 2 * bad + 2));
        }
        return bytes;
    }

    /** The same from chars (a parser's buffer), or null if they are not an even number of hex digits. */
    static byte[] parseOrNull(char[] digits, int offset, int length) {
        if (length % 2 != 0) {
            return null;
        }
        byte[] bytes = new byte[length / 2];
        return decode(digits, offset, bytes) < 0 ? bytes : null;
    }

    /** Fills out from the hex digits at offset: -1, or the index of the first pair that is not two digits. */
    private static int decode(char[] digits, int offset, byte[] out) {
        for (int i = 0; i < out.length; i++) {
            int b = pair(digits[offset + 2 * i], digits[offset + 2 * i + 1]);
            if (b < 0) {
                return i;
            }
            out[i] = (byte) b;
        }
        return -1;
    }

    /** The byte two hex digits (char values) stand for, or a negative number if either is not one. */
    private static int pair(int hi, int lo) {
        return (hi | lo) > 0xff ? -1 : VALUE[hi] << 4 | VALUE[lo];
    }
}
