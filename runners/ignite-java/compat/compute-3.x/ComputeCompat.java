import org.apache.ignite.internal.client.proto.ClientComputeJobUnpacker;
import org.apache.ignite.internal.client.proto.ClientMessageUnpacker;
import org.apache.ignite.internal.compute.ComputeJobDataHolder;
import org.apache.ignite.internal.compute.ComputeJobDataType;
import org.apache.ignite.internal.compute.SharedComputeUtils;

/** The compute result reader (format compute-arg) at 3.0.0 and 3.1.0: unpackJobArgumentWithoutMarshaller(unpacker), SharedComputeUtils.unmarshalArgOrResult. */
final class ComputeCompat {
    private ComputeCompat() {
    }

    /** {marshalled?, value}: the kind decides whether the user's (pass-through) marshaller is given, as a caller's code would. */
    static Object[] unpackCompute(ClientMessageUnpacker u) {
        ComputeJobDataHolder h = ClientComputeJobUnpacker.unpackJobArgumentWithoutMarshaller(u);
        boolean m = h != null && h.type() == ComputeJobDataType.MARSHALLED_CUSTOM;
        Object v = SharedComputeUtils.unmarshalArgOrResult(h, m ? new PassThroughMarshaller() : null, null);
        return new Object[] {m, v};
    }
}
