import java.util.List;
import org.apache.ignite.internal.client.proto.ClientMessagePacker;
import org.apache.ignite.internal.client.proto.ClientMessageUnpacker;
import org.apache.ignite.internal.client.proto.StreamerReceiverSerializer;

/** The streamer receiver results calls (format collection) at 3.0.0 (947054a9148): serializeReceiverJobResults(List) and deserializeReceiverResultsOnClient(unpacker). */
final class CollectionCompat {
    private CollectionCompat() {
    }

    static void packCollection(ClientMessagePacker p, List<Object> items) {
        StreamerReceiverSerializer.serializeReceiverResultsForClient(p,
                StreamerReceiverSerializer.serializeReceiverJobResults(items));
    }

    static List<Object> unpackCollection(ClientMessageUnpacker u) {
        return StreamerReceiverSerializer.deserializeReceiverResultsOnClient(u);
    }
}
