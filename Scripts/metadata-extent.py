#!/usr/bin/env python3
"""How many bytes of each file the metadata readers need, per format (a cold scan's budget).

For every JPEG, PNG, HEIF/AVIF and MP4/MOV under the folders given, this walks the file's
own structure (markers, chunks, boxes) and reports:

  prefix   the shortest head of the file that holds every byte a reader needs when it
           reads the file from the start in one go (up to the end of the last needed
           segment: for a JPEG the SOF after the APP segments, for a PNG the chunks before
           IDAT, for a HEIF the `meta` box and the Exif item, for a movie its `moov`);
  needed   the bytes of the needed segments themselves (APP1 Exif and XMP and the SOF; the
           PNG chunks before IDAT and any text chunk after it; `meta` and the Exif item;
           `moov`), plus 8 bytes per segment header a reader must look at to skip it;
  later    whether some needed bytes sit after the image data (an Exif item in `mdat`, a
           `moov` after `mdat`, a PNG text chunk after IDAT): a reader that reads only a
           head must then make a follow-up read.

It prints one Markdown table per format: files, the median / 90th percentile / maximum of
`prefix` and `needed`, and how many files a single first read of 2, 4, 16 or 64 KiB covers.
Nothing is written; files that do not parse are counted apart.

Usage: Scripts/metadata-extent.py FOLDER...   (e.g. ../shared/corpus)
"""

import os
import statistics
import struct
import sys

JPEG = (".jpg", ".jpeg")
PNG = (".png",)
HEIF = (".heic", ".heif", ".hif", ".avif")
MOVIE = (".mp4", ".mov", ".m4v", ".3gp")


class Unreadable(Exception):
    pass


def jpeg_extent(data):
    """(prefix, needed, later) of a JPEG: segments up to the first SOF after the APPs."""
    if data[:2] != b"\xff\xd8":
        raise Unreadable("no SOI")
    position, needed, prefix = 2, 2, 2
    while position + 4 <= len(data):
        if data[position] != 0xFF:
            raise Unreadable("marker expected")
        marker = data[position + 1]
        if marker == 0xFF:
            position += 1
            continue
        if marker in (0xD9, 0xDA):
            break
        length = struct.unpack(">H", data[position + 2:position + 4])[0]
        end = position + 2 + length
        payload = data[position + 4:position + 4 + 29]
        wanted = (marker == 0xE1 and (payload.startswith(b"Exif\0")
                                       or payload.startswith(b"http://ns.adobe.com/xap/1.0/")))
        is_sof = marker in (0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD,
                            0xCE, 0xCF)
        needed += (length + 2) if (wanted or is_sof) else 4
        prefix = end if (wanted or is_sof) else max(prefix, position + 4)
        position = end
        if is_sof:
            break
    return prefix, needed, False


def png_extent(data):
    """(prefix, needed, later) of a PNG: the chunks before IDAT, and text chunks after it."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise Unreadable("no PNG signature")
    position, needed, prefix, seen_idat, later = 8, 8, 8, False, False
    while position + 12 <= len(data):
        length, kind = struct.unpack(">I4s", data[position:position + 8])
        end = position + 12 + length
        if kind == b"IEND":
            break
        if kind == b"IDAT":
            seen_idat = True
            needed += 12 if position == prefix else 0
        elif not seen_idat:
            needed += 12 + length
            prefix = end
        elif kind in (b"eXIf", b"tEXt", b"zTXt", b"iTXt", b"tIME"):
            needed += 12 + length
            later = True
        position = end
    return prefix, needed, later


def boxes(data, start, end):
    """(type, payload start, box end) of the boxes in data[start:end]."""
    position = start
    while position + 8 <= end:
        size, kind = struct.unpack(">I4s", data[position:position + 8])
        header = 8
        if size == 1:
            if position + 16 > end:
                raise Unreadable("short largesize")
            size = struct.unpack(">Q", data[position + 8:position + 16])[0]
            header = 16
        elif size == 0:
            size = end - position
        if size < header or position + size > end:
            raise Unreadable(f"box {kind!r} overruns")
        yield kind, position + header, position + size
        position += size


def exif_item_extents(data, meta_start, meta_end):
    """The (offset, length) extents of the HEIF `Exif` item, from `iinf` and `iloc`."""
    exif_ids, locations = set(), {}
    for kind, start, end in boxes(data, meta_start + 4, meta_end):  # meta is a full box
        if kind == b"iinf":
            version = data[start]
            count_size = 2 if version == 0 else 4
            position = start + 4 + count_size
            for entry_kind, entry_start, _ in boxes(data, position, end):
                if entry_kind != b"infe" or data[entry_start] < 2:
                    continue
                id_size = 2 if data[entry_start] == 2 else 4
                item_id = int.from_bytes(data[entry_start + 4:entry_start + 4 + id_size], "big")
                item_type = data[entry_start + 6 + id_size:entry_start + 10 + id_size]
                if item_type == b"Exif":
                    exif_ids.add(item_id)
        elif kind == b"iloc":
            version = data[start]
            position = start + 4
            offset_size, length_size = data[position] >> 4, data[position] & 15
            base_size, index_size = data[position + 1] >> 4, data[position + 1] & 15
            position += 2
            count_size = 2 if version < 2 else 4
            count = int.from_bytes(data[position:position + count_size], "big")
            position += count_size

            def take(size):
                nonlocal position
                value = int.from_bytes(data[position:position + size], "big")
                position += size
                return value

            for _ in range(count):
                item_id = take(2 if version < 2 else 4)
                if version in (1, 2):
                    take(2)  # construction method
                take(2)  # data reference index
                base = take(base_size)
                extents = []
                for _ in range(take(2)):
                    if version in (1, 2) and index_size:
                        take(index_size)
                    extents.append((base + take(offset_size), take(length_size)))
                locations[item_id] = extents
    return [extent for item in exif_ids for extent in locations.get(item, [])]


def heif_extent(data):
    """(prefix, needed, later) of a HEIF/AVIF: ftyp, `meta` and the Exif item's bytes."""
    prefix = needed = 0
    later = False
    exif = []
    for kind, start, end in boxes(data, 0, len(data)):
        needed += 8
        if kind in (b"ftyp", b"meta"):
            needed += end - start
            prefix = max(prefix, end)
            if kind == b"meta":
                exif = exif_item_extents(data, start, end)
        if kind == b"meta":
            break
    for offset, length in exif:
        needed += length
        if offset > prefix + 65536:
            later = True
        else:
            prefix = max(prefix, offset + length)
    return prefix, needed, later


def movie_extent(data):
    """(prefix, needed, later) of an MP4/MOV: the top-level headers up to and with `moov`."""
    needed = prefix = 0
    seen_mdat = later = False
    for kind, start, end in boxes(data, 0, len(data)):
        needed += 8
        if kind == b"mdat":
            seen_mdat = True
        if kind in (b"ftyp", b"moov"):
            needed += end - start
            if kind == b"moov" and seen_mdat:
                later = True
            else:
                prefix = max(prefix, end)
    return prefix, needed, later


READERS = [("JPEG", JPEG, jpeg_extent), ("PNG", PNG, png_extent),
           ("HEIF/AVIF", HEIF, heif_extent), ("MP4/MOV", MOVIE, movie_extent)]


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def kib(value):
    return f"{value / 1024:,.1f}"


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__.strip().splitlines()[-1])
    results = {name: [] for name, _, _ in READERS}
    failures = {name: 0 for name, _, _ in READERS}
    for folder in sys.argv[1:]:
        for directory, dirs, files in os.walk(folder):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            for name in sorted(files):
                lower = name.lower()
                for format_name, extensions, reader in READERS:
                    if lower.endswith(extensions):
                        path = os.path.join(directory, name)
                        with open(path, "rb") as handle:
                            data = handle.read()
                        try:
                            prefix, needed, later = reader(data)
                            results[format_name].append((prefix, needed, later, len(data)))
                        except (Unreadable, struct.error, IndexError):
                            failures[format_name] += 1
    print("| format | files | prefix median / p90 / max KiB | needed median / p90 / max KiB"
          " | file median KiB | first read covers 2 / 4 / 16 / 64 KiB | needed bytes after"
          " the image data | did not parse |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for format_name, _, _ in READERS:
        rows = results[format_name]
        if not rows:
            continue
        prefixes = [row[0] for row in rows]
        needs = [row[1] for row in rows]
        covered = [sum(1 for row in rows if not row[2] and row[0] <= size * 1024)
                   for size in (2, 4, 16, 64)]
        print(f"| {format_name} | {len(rows)} "
              f"| {kib(statistics.median(prefixes))} / {kib(percentile(prefixes, 0.9))} / "
              f"{kib(max(prefixes))} "
              f"| {kib(statistics.median(needs))} / {kib(percentile(needs, 0.9))} / "
              f"{kib(max(needs))} "
              f"| {kib(statistics.median(row[3] for row in rows))} "
              f"| {' / '.join(str(c) for c in covered)} "
              f"| {sum(1 for row in rows if row[2])} | {failures[format_name]} |")


if __name__ == "__main__":
    main()
