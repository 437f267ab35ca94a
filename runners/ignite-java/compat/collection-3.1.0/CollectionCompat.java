import java.util.List;
import org.apache.ignite.internal.client.proto.ClientMessagePacker;
import org.apache.ignite.internal.client.proto.ClientMessageUnpacker;
import org.apache.ignite.internal.client.proto.StreamerReceiverSerializer;

/** The streamer receiver results calls (format collection) at 3.1.0 (0ed2eab1ff1) and main: both take a results Marshaller since 0cac806efaf. */
final class CollectionCompat {
    private CollectionCompat() {
    }

    static void packCollection(ClientMessagePacker p, List<Object> items) {
        StreamerReceiverSerializer.serializeReceiverResultsForClient(p,
                StreamerReceiverSerializer.serializeReceiverJobResults(items, null));
    }

    static List<Object> unpackCollection(ClientMessageUnpacker u) {
        return StreamerReceiverSerializer.deserializeReceiverResultsOnClient(u, null);
    }
}
