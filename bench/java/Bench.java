import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.File;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import org.msgpack.core.ExtensionTypeHeader;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessageUnpacker;

/**
 * msgpack-java benchmark: the IEP-75 cases and the Ignite.NET Person, through msgpack-core's plain packer/unpacker
 * and through the runner's type-directed Codec (runners/java/build/runner.jar, unchanged).
 *   java ... Bench bench/build/cases.json schema/registry.json [repeat] [seconds per repeat] [warm-up seconds]
 *
 * JMH is not packaged for Debian 12 and Maven Central is out of reach, so this is a hand-written harness that
 * follows JMH's rules: every op's result goes into a sink the JIT cannot remove, each case is warmed up (C2 has
 * compiled it) before its repeats are timed, each repeat is a fixed op count calibrated to a target time, and the
 * clock is CPU time (this thread's, plus the collectors' time), so other processes on a shared machine count less.
 * One JSON line per (case, op, path): the median, min and max ops/s of the repeats.
 */
public final class Bench {
    private static final String SQL = "select * from cars where year > ? and seats = ?";
    private static final byte UUID_EXT = 3;   // Ignite's UUID ext code (3.0: msb then lsb, each little-endian)
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final ThreadMXBean THREAD = ManagementFactory.getThreadMXBean();
    private static final List<GarbageCollectorMXBean> GCS = ManagementFactory.getGarbageCollectorMXBeans();
    static long sink;

    record Car(int id, String model, int year, int seats) { }

    record Person(int id, String name, String data, UUID guid) { }

    static final Car CAR = new Car(42, "Mazda MX-5 Miata", 2006, 2);
    static final Person PERSON = new Person(Integer.MIN_VALUE, "John Johnson", "g".repeat(1000),
            UUID.fromString("6f24146a-244a-4018-a36c-3e9cf5b42082"));
    static final MessageBufferPacker PACKER = MessagePack.newDefaultBufferPacker();

    interface Op {
        Object run() throws Exception;
    }

    interface Read {
        Object read(byte[] data) throws Exception;
    }

    record Plain(Op write, Read read, Object expected) { }

    private Bench() {
    }

    static byte[] writePrimitives() throws Exception {
        PACKER.clear();
        PACKER.packNil().packBoolean(false).packBoolean(true).packInt(2005).packInt(-1).packInt(Integer.MIN_VALUE)
                .packLong(4294967296L).packDouble(0.1).packString("John Johnson");
        return PACKER.toByteArray();
    }

    static List<Object> readPrimitives(byte[] data) throws Exception {
        try (MessageUnpacker in = MessagePack.newDefaultUnpacker(data)) {
            in.unpackNil();
            return List.of(in.unpackBoolean(), in.unpackBoolean(), in.unpackInt(), in.unpackInt(), in.unpackInt(),
                    in.unpackLong(), in.unpackDouble(), in.unpackString());
        }
    }

    static byte[] writeSql() throws Exception {
        PACKER.clear();
        PACKER.packString(SQL).packArrayHeader(2).packInt(2005).packInt(2);
        return PACKER.toByteArray();
    }

    static List<Object> readSql(byte[] data) throws Exception {
        try (MessageUnpacker in = MessagePack.newDefaultUnpacker(data)) {
            String sql = in.unpackString();
            int n = in.unpackArrayHeader();
            Object[] args = new Object[n];
            for (int i = 0; i < n; i++) {
                args[i] = in.unpackInt();
            }
            return List.of(sql, Arrays.asList(args));
        }
    }

    static byte[] writeCar(Car c, boolean named) throws Exception {
        PACKER.clear();
        if (named) {
            PACKER.packMapHeader(4).packString("id").packInt(c.id()).packString("model").packString(c.model())
                    .packString("year").packInt(c.year()).packString("seats").packInt(c.seats());
        } else {
            PACKER.packArrayHeader(4).packInt(c.id()).packString(c.model()).packInt(c.year()).packInt(c.seats());
        }
        return PACKER.toByteArray();
    }

    static Car readCarNamed(byte[] data) throws Exception {
        try (MessageUnpacker in = MessagePack.newDefaultUnpacker(data)) {
            int id = 0, year = 0, seats = 0;
            String model = null;
            for (int n = in.unpackMapHeader(); n > 0; n--) {
                switch (in.unpackString()) {
                    case "id" -> id = in.unpackInt();
                    case "model" -> model = in.unpackString();
                    case "year" -> year = in.unpackInt();
                    case "seats" -> seats = in.unpackInt();
                    default -> in.skipValue();
                }
            }
            return new Car(id, model, year, seats);
        }
    }

    static Car readCarPositional(byte[] data) throws Exception {
        try (MessageUnpacker in = MessagePack.newDefaultUnpacker(data)) {
            in.unpackArrayHeader();
            return new Car(in.unpackInt(), in.unpackString(), in.unpackInt(), in.unpackInt());
        }
    }

    static byte[] writePerson(Person p) throws Exception {
        byte[] guid = new byte[16];
        for (int i = 0; i < 8; i++) {
            guid[i] = (byte) (p.guid().getMostSignificantBits() >>> (8 * i));
            guid[8 + i] = (byte) (p.guid().getLeastSignificantBits() >>> (8 * i));
        }
        PACKER.clear();
        PACKER.packArrayHeader(4).packInt(p.id()).packString(p.name()).packString(p.data())
                .packExtensionTypeHeader(UUID_EXT, 16).writePayload(guid);
        return PACKER.toByteArray();
    }

    static Person readPerson(byte[] data) throws Exception {
        try (MessageUnpacker in = MessagePack.newDefaultUnpacker(data)) {
            in.unpackArrayHeader();
            int id = in.unpackInt();
            String name = in.unpackString();
            String text = in.unpackString();
            ExtensionTypeHeader h = in.unpackExtensionTypeHeader();
            if (h.getType() != UUID_EXT || h.getLength() != 16) {
                throw new IllegalStateException("not a UUID");
            }
            byte[] g = in.readPayload(16);
            long msb = 0, lsb = 0;
            for (int i = 7; i >= 0; i--) {
                msb = (msb << 8) | (g[i] & 0xff);
                lsb = (lsb << 8) | (g[8 + i] & 0xff);
            }
            return new Person(id, name, text, new UUID(msb, lsb));
        }
    }

    static Map<String, Plain> plain() {
        Map<String, Plain> m = new LinkedHashMap<>();
        m.put("primitives", new Plain(Bench::writePrimitives, Bench::readPrimitives,
                Arrays.asList(false, true, 2005, -1, Integer.MIN_VALUE, 4294967296L, 0.1, "John Johnson")));
        m.put("sql-request", new Plain(Bench::writeSql, Bench::readSql, List.of(SQL, List.of(2005, 2))));
        m.put("pojo-named", new Plain(() -> writeCar(CAR, true), Bench::readCarNamed, CAR));
        m.put("pojo-positional", new Plain(() -> writeCar(CAR, false), Bench::readCarPositional, CAR));
        m.put("person", new Plain(() -> writePerson(PERSON), Bench::readPerson, PERSON));
        return m;
    }

    static void consume(Object o) {
        sink += o instanceof byte[] b ? b.length + b[b.length - 1] : System.identityHashCode(o);
    }

    /** This thread's CPU time plus the collectors' time: process CPU time is tick-grained (10 ms) here. */
    static double cpuSeconds() {
        long gcMillis = 0;
        for (GarbageCollectorMXBean gc : GCS) {
            gcMillis += Math.max(0, gc.getCollectionTime());
        }
        return THREAD.getCurrentThreadCpuTime() / 1e9 + gcMillis / 1e3;
    }

    static double timeLoops(Op op, long loops) throws Exception {
        double t0 = cpuSeconds();
        for (long i = 0; i < loops; i++) {
            consume(op.run());
        }
        return cpuSeconds() - t0;
    }

    static Map<String, Object> measure(Op op, int repeat, double target, double warmup) throws Exception {
        long loops = 1;
        double t;
        double start = cpuSeconds();
        while ((t = timeLoops(op, loops)) < target / 10 || cpuSeconds() - start < warmup) {
            loops = t < target / 10 ? loops * 4 : loops;   // warm-up: run until compiled and calibrated
        }
        loops = Math.max(1, (long) (loops * target / t));
        double[] rates = new double[repeat];
        for (int r = 0; r < repeat; r++) {
            rates[r] = loops / timeLoops(op, loops);
        }
        Arrays.sort(rates);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("median", rates[repeat / 2]);
        out.put("min", rates[0]);
        out.put("max", rates[repeat - 1]);
        out.put("n", repeat);
        out.put("loops", loops);
        return out;
    }

    public static void main(String[] args) throws Exception {
        JsonNode cases = JSON.readTree(new File(args[0])).get("cases");
        Codec codec = new Codec(new IgniteExt(JSON.readTree(new File(args[1]))));
        int repeat = args.length > 2 ? Integer.parseInt(args[2]) : 7;
        double target = args.length > 3 ? Double.parseDouble(args[3]) : 0.1;
        double warmup = args.length > 4 ? Double.parseDouble(args[4]) : 0.5;
        String version = LibraryVersion.VALUE;
        Map<String, Plain> plain = plain();
        for (Iterator<Map.Entry<String, JsonNode>> it = cases.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            String name = e.getKey();
            JsonNode values = e.getValue().get("values");
            String era = e.getValue().get("era").asText();
            byte[] canonical = Hex.parse(e.getValue().get("hex").asText());
            Plain p = plain.get(name);
            List<String> bad = new ArrayList<>();
            if (!Arrays.equals((byte[]) p.write().run(), canonical)) {
                bad.add("plain write");
            }
            Object back = p.read().read(canonical);
            if (!Objects.equals(name.equals("primitives") ? ((List<?>) back) : back, p.expected())) {
                bad.add("plain read");
            }
            if (!Arrays.equals(codec.encode(values), canonical)) {
                bad.add("typed write");
            }
            if (!codec.decode(canonical, era).equals(values)) {
                bad.add("typed read");
            }
            if (!bad.isEmpty()) {
                System.err.println("java " + name + ": " + bad + " differ from the case's bytes/values");
                System.exit(1);
            }
            Map<String, Op> ops = new LinkedHashMap<>();
            if (name.equals("person")) {
                ops.put("roundtrip/plain", () -> p.read().read((byte[]) p.write().run()));
                ops.put("roundtrip/typed", () -> codec.decode(codec.encode(values), era));
            } else {
                ops.put("write/plain", p.write());
                ops.put("read/plain", () -> p.read().read(canonical));
                ops.put("write/typed", () -> codec.encode(values));
                ops.put("read/typed", () -> codec.decode(canonical, era));
            }
            for (Map.Entry<String, Op> op : ops.entrySet()) {
                ObjectNode line = JSON.createObjectNode();
                line.put("lang", "java").put("library", "msgpack-java " + version)
                        .put("timer", "hand-written (no JMH in Debian): warm-up + repeats, thread CPU + GC time");
                line.put("case", name).put("op", op.getKey().split("/")[0]).put("path", op.getKey().split("/")[1])
                        .put("bytes", canonical.length);
                line.setAll((ObjectNode) JSON.valueToTree(measure(op.getValue(), repeat, target, warmup)));
                System.out.println(JSON.writeValueAsString(line));
            }
        }
        System.err.println("sink " + sink);
    }
}
