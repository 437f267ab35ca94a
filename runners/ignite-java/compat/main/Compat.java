import java.util.List;
import org.apache.ignite.internal.client.proto.ClientComputeJobUnpacker;
import org.apache.ignite.internal.client.proto.ClientMessagePacker;
import org.apache.ignite.internal.client.proto.ClientMessageUnpacker;
import org.apache.ignite.internal.client.proto.StreamerReceiverSerializer;
import org.apache.ignite.internal.compute.ComputeJobDataHolder;
import org.apache.ignite.internal.compute.ComputeJobDataType;
import org.apache.ignite.internal.compute.SharedComputeUtils;

/** The calls whose signatures differ between refs: main (d46ac208937). */
final class Compat {
    private Compat() {
    }

    static void packCollection(ClientMessagePacker p, List<Object> items) {
        StreamerReceiverSerializer.serializeReceiverResultsForClient(p,
                StreamerReceiverSerializer.serializeReceiverJobResults(items, null));
    }

    static List<Object> unpackCollection(ClientMessageUnpacker u) {
        return StreamerReceiverSerializer.deserializeReceiverResultsOnClient(u, null);
    }

    /** {marshalled?, value}: the kind decides whether the user's (pass-through) marshaller is given, as a caller's code would. */
    static Object[] unpackCompute(ClientMessageUnpacker u) {
        ComputeJobDataHolder h = ClientComputeJobUnpacker.unpackJobArgumentWithoutMarshaller(u, false);
        boolean m = h != null && h.type() == ComputeJobDataType.MARSHALLED_CUSTOM;
        Object v = SharedComputeUtils.unmarshalResult(h, m ? new PassThroughMarshaller() : null, null);
        return new Object[] {m, v};
    }
}
