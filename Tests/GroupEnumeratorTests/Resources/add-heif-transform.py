#!/usr/bin/env python3
"""For make-rendering.sh: adds an `irot` or `imir` property to the primary item of a HEIF
file libheif wrote (meta before mdat, item data in the file), shifting iloc's offsets."""
import struct
import sys


def children(data, start, end):
    index = start
    while index + 8 <= end:
        size, kind = struct.unpack_from(">I4s", data, index)
        yield kind, index, size
        index += size


def main(source, target, kind, value):
    data = bytearray(open(source, "rb").read())
    meta = next(i for k, i, s in children(data, 0, len(data)) if k == b"meta")
    meta_size = struct.unpack_from(">I", data, meta)[0]
    parts = {k: (i, s) for k, i, s in children(data, meta + 12, meta + meta_size)}
    pitm, _ = parts[b"pitm"]
    version = data[pitm + 8]
    primary = struct.unpack_from(">H" if version == 0 else ">I", data, pitm + 12)[0]
    iprp, iprp_size = parts[b"iprp"]
    inner = {k: (i, s) for k, i, s in children(data, iprp + 8, iprp + iprp_size)}
    ipco, ipco_size = inner[b"ipco"]
    ipma, ipma_size = inner[b"ipma"]
    properties = len(list(children(data, ipco + 8, ipco + ipco_size)))
    new_property = struct.pack(">I4sB", 9, kind.encode(), value)
    index = properties + 1
    # ipma: version/flags, entry count, then item id, association count, associations.
    ipma_version, flags = data[ipma + 8], int.from_bytes(data[ipma + 9:ipma + 12], "big")
    wide = flags & 1
    entries = struct.unpack_from(">I", data, ipma + 12)[0]
    cursor = ipma + 16
    insert_at = None
    for _ in range(entries):
        if ipma_version < 1:
            item = struct.unpack_from(">H", data, cursor)[0]
            cursor += 2
        else:
            item = struct.unpack_from(">I", data, cursor)[0]
            cursor += 4
        count = data[cursor]
        if item == primary:
            data[cursor] = count + 1
            insert_at = cursor + 1 + count * (2 if wide else 1)
        cursor += 1 + count * (2 if wide else 1)
    association = struct.pack(">H", 0x8000 | index) if wide else bytes([0x80 | index])
    delta = len(new_property) + len(association)
    # The boxes' sizes first (their headers do not move), then the insertions, the later
    # one first.
    for offset, grow in ((meta, delta), (iprp, delta), (ipco, len(new_property)),
                         (ipma, len(association))):
        struct.pack_into(">I", data, offset, struct.unpack_from(">I", data, offset)[0] + grow)
    data[insert_at:insert_at] = association
    data[ipco + ipco_size:ipco + ipco_size] = new_property
    # iloc lies before iprp here (checked), so its position is unchanged; shift offsets.
    iloc, _ = parts[b"iloc"]
    assert iloc < iprp
    version = data[iloc + 8]
    sizes = data[iloc + 12], data[iloc + 13]
    offset_size, length_size = sizes[0] >> 4, sizes[0] & 15
    base_size, index_size = sizes[1] >> 4, sizes[1] & 15
    cursor = iloc + 14
    count = struct.unpack_from(">H" if version < 2 else ">I", data, cursor)[0]
    cursor += 2 if version < 2 else 4

    def field(size):
        nonlocal cursor
        value = int.from_bytes(data[cursor:cursor + size], "big") if size else 0
        position = cursor
        cursor += size
        return value, position

    for _ in range(count):
        field(2 if version < 2 else 4)
        method = field(2)[0] & 15 if version in (1, 2) else 0
        field(2)
        base, base_at = field(base_size)
        extents = field(2)[0]
        if method == 0 and base_size:
            data[base_at:base_at + base_size] = (base + delta).to_bytes(base_size, "big")
        for _ in range(extents):
            if version in (1, 2) and index_size:
                field(index_size)
            offset, offset_at = field(offset_size)
            field(length_size)
            if method == 0 and not base_size and offset_size:
                data[offset_at:offset_at + offset_size] = (offset + delta).to_bytes(
                    offset_size, "big")
    open(target, "wb").write(data)


# Usage: add-heif-transform.py SOURCE.heic TARGET.heic irot|imir VALUE
main(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]))
