using System;
using System.IO;

namespace IgniteRunner;

/// <summary>
/// Request lines from stdin, read in large blocks. It can tell whether the next line is already complete in its
/// buffer, so the protocol loop flushes its answers only before a read that could block: a window of requests is
/// answered with one write, and no answer waits for more input.
/// </summary>
sealed class StdinLines(Stream input)
{
    byte[] buf = new byte[1 << 16];
    int pos;    // start of the next line
    int scan;   // buf[pos, scan) holds no '\n'
    int end;    // bytes in buf
    bool eof;

    /// <summary>
    /// The next line without its '\n' (the last line may lack one); false at end of input. The line is a view of
    /// the buffer, valid until the next call.
    /// </summary>
    public bool Next(out ReadOnlyMemory<byte> line)
    {
        for (;;)
        {
            int nl = buf.AsSpan(scan, end - scan).IndexOf((byte)'\n');
            if (nl >= 0)
            {
                line = buf.AsMemory(pos, scan + nl - pos);
                pos = scan = scan + nl + 1;
                return true;
            }
            scan = end;   // searched: a long line arrives in many blocks, each searched once
            if (eof)
            {
                line = buf.AsMemory(pos, end - pos);
                pos = scan = end;
                return line.Length > 0;
            }
            Fill();
        }
    }

    /// <summary>True when Next can return without reading.</summary>
    public bool LineBuffered => eof || buf.AsSpan(pos, end - pos).Contains((byte)'\n');

    void Fill()
    {
        if (pos > 0)   // a long line arrives in many blocks: moved to the front once, not once a block
        {
            Buffer.BlockCopy(buf, pos, buf, 0, end - pos);
            end -= pos;
            scan -= pos;
            pos = 0;
        }
        if (end == buf.Length)
        {
            Array.Resize(ref buf, buf.Length * 2);
        }
        int n = input.Read(buf, end, buf.Length - end);
        if (n <= 0)
        {
            eof = true;
        }
        else
        {
            end += n;
        }
    }
}
