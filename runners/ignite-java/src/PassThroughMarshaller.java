import org.apache.ignite.marshalling.Marshaller;

/** The user marshaller a MARSHALLED compute argument stands for: its bytes are the marshaller's bytes, as given. */
final class PassThroughMarshaller implements Marshaller<byte[], byte[]> {
    @Override
    public byte[] marshal(byte[] object) {
        return object;
    }

    @Override
    public byte[] unmarshal(byte[] raw) {
        return raw;
    }
}
