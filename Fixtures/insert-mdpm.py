#!/usr/bin/env python3
"""Puts an AVCHD `MDPM` record into a raw H.264 stream, as camcorders write it.

Usage: insert-mdpm.py STREAM TAG=HEX...

STREAM is a raw H.264 file (x264's `-f h264`), rewritten in place. Each TAG=HEX is one
5-byte MDPM entry: the tag byte, then its four value bytes (e.g. `18=02200812`: tag 0x18,
zone byte 0x02, year 20 08, month 12; the date and time tags hold BCD). The record goes
in an SEI unit of unregistered user data (payload type 5, the MDPM UUID) before the first
IDR slice (NAL type 5), with the emulation prevention bytes H.264 7.4.1 asks for.

Used by Fixtures/make-formats.sh and Tests/GroupEnumeratorTests/Resources/make-edge-formats.sh.
"""
import sys

MDPM_UUID = bytes.fromhex("17ee8c60f84d11d98cd60800200c9a66")


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    path = sys.argv[1]
    entries = []
    for argument in sys.argv[2:]:
        tag, value = argument.split("=")
        entries.append(bytes([int(tag, 16)]) + bytes.fromhex(value))
        if len(entries[-1]) != 5:
            sys.exit(f"insert-mdpm.py: {argument}: an entry is a tag and four bytes")
    data = open(path, "rb").read()
    payload = MDPM_UUID + b"MDPM" + bytes([len(entries)]) + b"".join(entries)
    sei = bytes([5, len(payload)]) + payload + b"\x80"  # type 5, size, rbsp trailing bits
    rbsp, zeros = bytearray(), 0
    for byte in sei:
        if zeros >= 2 and byte <= 3:
            rbsp.append(3)
            zeros = 0
        rbsp.append(byte)
        zeros = zeros + 1 if byte == 0 else 0
    unit = b"\x00\x00\x00\x01\x06" + bytes(rbsp)
    index = 0
    while True:
        index = data.index(b"\x00\x00\x01", index) + 3
        if data[index] & 0x1F == 5:
            start = index - 4 if data[index - 4] == 0 else index - 3
            break
    open(path, "wb").write(data[:start] + unit + data[start:])


main()
