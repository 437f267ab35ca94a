/** Lower-case hex, as the protocol carries bytes. */
final class Hex {
    private static final char[] DIGITS = "0123456789abcdef".toCharArray();

    private Hex() {
    }

    static String of(byte[] bytes) {
        char[] text = new char[bytes.length * 2];
        for (int i = 0; i < bytes.length; i++) {
            text[2 * i] = DIGITS[(bytes[i] >> 4) & 0xf];
            text[2 * i + 1] = DIGITS[bytes[i] & 0xf];
        }
        return new String(text);
    }

    static byte[] parse(String text) {
        if (text.length() % 2 != 0) {
            throw new IllegalArgumentException("odd-length hex");
        }
        byte[] bytes = new byte[text.length() / 2];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) (digit(text.charAt(2 * i)) << 4 | digit(text.charAt(2 * i + 1)));
        }
        return bytes;
    }

    private static int digit(char c) {
        int d = Character.digit(c, 16);
        if (d < 0) {
            throw new IllegalArgumentException("not a hex digit: " + c);
        }
        return d;
    }
}
