"""A driver that misbehaves on purpose (tests/test_node.py): `hostile_driver.py MODE HOST:PORT WORKLOAD [SECONDS]`.
hang: connects, sends the handshake, then waits forever; flood: the handshake, then 8 MiB of 16 KiB heartbeats; garbage:
bytes that are not the magic; silent: never connects and never exits; chatter: many lines on stdout."""
import socket
import sys
import time

mode, address = sys.argv[1], sys.argv[2]
host, _, port = address.rpartition(":")
if mode == "silent":
    time.sleep(60)
s = socket.create_connection((host, int(port)))
if mode == "chatter":
    s.sendall(bytes.fromhex("49474e490000000703000002c40000"))
    for n in range(200000):
        print("x" * 80)
    sys.exit(0)
if mode == "hang":
    s.sendall(bytes.fromhex("49474e490000000703000002c40000"))
    time.sleep(60)
elif mode == "flood":
    s.sendall(bytes.fromhex("49474e490000000703000002c40000"))
    body = b"\x01\x05\xc5\x3e\x00" + b"\x00" * 15872           # op 1, id 5, one bin of 15,872 bytes
    frame = len(body).to_bytes(4, "big") + body
    try:
        for _ in range(512):                                         # 8 MiB
            s.sendall(frame)
    except OSError:
        pass
    time.sleep(60)
elif mode == "garbage":
    s.sendall(b"GET / HTTP/1.1\r\n\r\n" * 10)
    time.sleep(60)
