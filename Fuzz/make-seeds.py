#!/usr/bin/env python3
"""Writes the fuzz seed corpora under Fuzz/Seeds/<target>/ from the repository's own
Fixtures/Library files and from bytes built here. Deterministic: running it again gives
the same files. Usage: python3 Fuzz/make-seeds.py (from anywhere)."""
import os
import shutil
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
LIBRARY = os.path.join(HERE, "..", "Fixtures", "Library")
SEEDS = os.path.join(HERE, "Seeds")


def fixture_jpegs():
    """(name, bytes) of every JPEG in Fixtures/Library, by content, in path order."""
    found = []
    for folder, dirs, files in os.walk(LIBRARY):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(folder, name)
            with open(path, "rb") as handle:
                data = handle.read()
            if data[:3] == b"\xff\xd8\xff":
                relative = os.path.relpath(path, LIBRARY)
                safe = "".join(c if c.isascii() and (c.isalnum() or c in "._-@") else "_" for c in relative)
                found.append(("fixture-" + safe, data))
    return found


def exif_payloads(jpeg):
    """The TIFF bytes of each APP1 Exif segment of a JPEG (markers walked simply)."""
    out = []
    i = 2
    while i + 4 <= len(jpeg) and jpeg[i] == 0xFF:
        marker = jpeg[i + 1]
        if marker in (0xD9, 0xDA):
            break
        length = struct.unpack(">H", jpeg[i + 2:i + 4])[0]
        body = jpeg[i + 4:i + 2 + length]
        if marker == 0xE1 and body.startswith(b"Exif\0\0"):
            out.append(body[6:])
        i += 2 + length
    return out


def tiff(entries_ifd0, sub_ifds=(), big_endian=False, next_ifd=0):
    """A TIFF block: IFD0 at 8 with `entries_ifd0` [(tag, type, count, value4)], then
    each sub-IFD in `sub_ifds` (pointer tag, entries) placed after it. Values are given
    as their raw 4-byte field, so offsets may point anywhere (that is the point)."""
    e = ">" if big_endian else "<"

    def ifd(entries, at, next_offset):
        data = struct.pack(e + "H", len(entries))
        for tag, kind, count, value in entries:
            data += struct.pack(e + "HHI", tag, kind, count) + value
        return data + struct.pack(e + "I", next_offset)

    header = (b"MM\0*" if big_endian else b"II*\0") + struct.pack(e + "I", 8)
    ifd0_size = 2 + 12 * (len(entries_ifd0) + len(sub_ifds)) + 4
    offset = 8 + ifd0_size
    pointers = []
    blobs = b""
    for tag, entries in sub_ifds:
        pointers.append((tag, 4, 1, struct.pack(e + "I", offset + len(blobs))))
        blobs += ifd(entries, offset + len(blobs), 0)
    return header + ifd(list(entries_ifd0) + pointers, 8, next_ifd) + blobs


def inline_ascii(text):
    raw = text.encode("latin-1")
    return raw + b"\0" * (4 - len(raw))


def jpeg_with_exif(tiff_bytes):
    body = b"Exif\0\0" + tiff_bytes
    app1 = b"\xff\xe1" + struct.pack(">H", len(body) + 2) + body
    sof = b"\xff\xc0\x00\x0b\x08\x00\x10\x00\x20\x01\x01\x11\x00"
    return b"\xff\xd8" + app1 + sof + b"\xff\xda\x00\x02\xff\xd9"


def hand_built_tiffs():
    date = b"2019:05:01 12:34:56\0"
    # Values past the IFD need offsets; put the date string right after a 1-entry IFD.
    samsung = tiff(
        [(0x010F, 2, 4, inline_ascii("Sam")), (0x0201, 4, 1, struct.pack("<I", 0xFFFFFF))],
        sub_ifds=[(0x8769, [(0x9003, 2, 20, struct.pack("<I", 0x60))])])
    samsung = samsung + b"\0" * (0x60 - len(samsung)) + date
    gps_entries = [
        (0x0001, 2, 2, b"N\0\0\0"), (0x0002, 5, 3, struct.pack("<I", 0x80)),
        (0x0003, 2, 2, b"W\0\0\0"), (0x0004, 5, 3, struct.pack("<I", 0x98)),
    ]
    gps = tiff([(0x0112, 3, 1, struct.pack("<HH", 6, 0))], sub_ifds=[(0x8825, gps_entries)])
    rationals = struct.pack("<6I", 35, 1, 30, 1, 0, 0) + struct.pack("<6I", 139, 1, 0, 0, 0, 0)
    gps = gps + b"\0" * (0x80 - len(gps)) + rationals
    loop = tiff([(0x0112, 3, 1, struct.pack("<HH", 1, 0))], next_ifd=8)
    self_pointer = tiff([(0x8769, 4, 1, struct.pack("<I", 8))])
    huge_count = b"II*\0" + struct.pack("<IH", 8, 0xFFFF) + struct.pack("<HHI", 0x010F, 2, 64)
    big = tiff([(0x0132, 2, 20, struct.pack(">I", 0x1A))], big_endian=True) + date
    return [("samsung-bad-thumbnail-pointer", samsung), ("gps-west", gps), ("ifd-next-loop", loop),
            ("exif-pointer-to-ifd0", self_pointer), ("entry-count-ffff", huge_count),
            ("big-endian-datetime", big)]


def write(target, name, data):
    folder = os.path.join(SEEDS, target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as handle:
        handle.write(data)


def main():
    shutil.rmtree(SEEDS, ignore_errors=True)
    jpegs = fixture_jpegs()
    for name, data in jpegs:
        write("FuzzJPEG", name, data)
        for index, payload in enumerate(exif_payloads(data)):
            write("FuzzTIFFWalker", f"{name}-app1-{index}", payload)
    for name, data in hand_built_tiffs():
        write("FuzzTIFFWalker", name, data)
        write("FuzzJPEG", "built-" + name, jpeg_with_exif(data))
    write("FuzzJPEG", "soi-only", b"\xff\xd8")
    write("FuzzJPEG", "app1-length-past-end", b"\xff\xd8\xff\xe1\xff\xffExif\0\0II*\0")
    write("FuzzJPEG", "fill-bytes-and-rst", b"\xff\xd8\xff\xff\xff\xd0\xff\x01\xff\xd9")
    dates = {
        "exif": b"2019:05:01 12:34:56\0",
        "exif-subsec-offset": b"2019:05:01 12:34:56\n120\n+09:00",
        "iso-zulu": b"2023-09-27T14:32:53Z",
        "iso-offset": b"2023-09-27T14:32:53-0230\n\n-02:30",
        "placeholder-zeros": b"0000:00:00 00:00:00",
        "blanks": b"    :  :     :  :  \0",
        "impossible": b"2020:13:45 25:61:61",
        "february-30": b"2020:02:30 00:00:00",
        "leap-second": b"2016:12:31 23:59:60\n  5  \n-00:00",
        "year-only": b"2020",
        "trailing-garbage": b"2020:01:01 00:00:00 junk",
        "not-utf8": b"2020:01:01 00:00:\xff\xfe",
        "max": b"9999:12:31 23:59:59\n999999\n+18:00",
    }
    for name, data in dates.items():
        write("FuzzDates", name, data)


if __name__ == "__main__":
    main()
