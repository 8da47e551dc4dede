#!/usr/bin/env python3
"""What the real files need, for choosing the per-file budgets (docs/Robustness.md).

For the folders given (the shared corpus, without its bad/ folder), prints:

  png      the most chunks (and IDAT chunks) any PNG has, and the most bytes of text
           chunks (tEXt, zTXt, iTXt) in one file;
  boxes    the most boxes any movie, HEIF or CR3 file has: top-level boxes, plus the
           children of the containers a reader walks (moov, trak, mdia, minf, stbl, udta,
           edts, dinf, meta, ilst and its items);
  exiv2    with --demo: for every file the exiv2 reader takes (TIFF, WebP, JPEG XL, RAWs),
           the smallest prefix (1 KiB, 2 KiB, 4 KiB, ... or the whole file) from which the
           Demo lists the same size, orientation, dates, location and hasThumbnail as from
           the whole file, and the largest such prefix. One Demo run over a scratch
           library of prefixes (kept with their modification times) under --scratch.

Python 3's standard library only; nothing under the folders is written.
Usage: budget-measure.py [--demo .build/release/Demo] [--scratch DIR] FOLDER...
"""

import argparse
import json
import os
import shutil
import struct
import subprocess
import tempfile

MOVIES = {"mov", "mp4", "m4v", "3gp", "heic", "heif", "hif", "avif", "cr3"}
CONTAINERS = {b"moov", b"trak", b"mdia", b"minf", b"stbl", b"udta", b"edts", b"dinf", b"meta",
              b"moof", b"traf", b"mvex"}
EXIV2 = {"tif", "tiff", "webp", "jxl", "nef", "nrw", "cr2", "dng", "arw", "sr2", "srf", "orf",
         "rw2", "raf", "pef", "srw", "3fr", "erf", "mrw", "x3f", "kdc", "dcr", "mef", "mos",
         "iiq", "rwl", "crw"}
FIELDS = ["width", "height", "orientation", "creationDate", "creationDateSource", "dateTime",
          "location", "hasThumbnail"]


def files(folders):
    for folder in folders:
        for directory, subfolders, names in os.walk(folder):
            subfolders[:] = sorted(name for name in subfolders if name != "bad")
            for name in sorted(names):
                yield os.path.join(directory, name), name.rsplit(".", 1)[-1].lower()


def png_counts(path):
    chunks = image = text = 0
    with open(path, "rb") as handle:
        if handle.read(8) != b"\x89PNG\r\n\x1a\n":
            return None
        while True:
            header = handle.read(8)
            if len(header) < 8:
                break
            length, kind = struct.unpack(">I4s", header)
            chunks += 1
            image += kind == b"IDAT"
            text += length if kind in (b"tEXt", b"zTXt", b"iTXt") else 0
            if kind == b"IEND":
                break
            handle.seek(length + 4, 1)
    return chunks, image, text


def box_count(handle, start, end, depth, items=False):
    count, position = 0, start
    while position + 8 <= end:
        handle.seek(position)
        header = handle.read(16)
        size, kind = struct.unpack(">I4s", header[:8])
        length = 8
        if size == 1 and len(header) == 16:
            size, length = struct.unpack(">Q", header[8:])[0], 16
        elif size == 0:
            size = end - position
        if size < length:
            break
        count += 1
        inner = min(end, position + size)
        if depth < 16 and (items or kind in CONTAINERS or kind == b"ilst"):
            offset = position + length
            if kind == b"meta":
                handle.seek(offset)
                offset += 4 if handle.read(4) == b"\0\0\0\0" else 0
            count += box_count(handle, offset, inner, depth + 1, items=kind == b"ilst")
        position += size
    return count


def exiv2_prefixes(demo, paths, scratch):
    plan = {}
    for index, path in enumerate(paths):
        with open(path, "rb") as handle:
            data = handle.read()
        times = os.stat(path)
        sizes, size = [], 1024
        while size < len(data):
            sizes.append(size)
            size *= 2
        sizes.append(len(data))
        for size in sizes:
            folder = os.path.join(scratch, f"{index:04d}", f"{size:010d}")
            os.makedirs(folder)
            copy = os.path.join(folder, os.path.basename(path))
            with open(copy, "wb") as handle:
                handle.write(data[:size])
            os.utime(copy, (times.st_atime, times.st_mtime))
        plan[index] = (path, sizes)
    listing = subprocess.run([demo, "--format", "json", scratch], capture_output=True,
                             check=True).stdout
    seen = {}
    for asset in json.loads(listing):
        index, size = asset["path"].split("/")[:2]
        seen[(int(index), int(size))] = [asset.get(field) for field in FIELDS]
    needs = []
    for index, (path, sizes) in plan.items():
        whole, smallest = seen.get((index, sizes[-1])), sizes[-1]
        for size in reversed(sizes):
            if seen.get((index, size)) != whole:
                break
            smallest = size
        needs.append((smallest, sizes[-1], path))
    return sorted(needs)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="+")
    parser.add_argument("--demo")
    parser.add_argument("--scratch")
    arguments = parser.parse_args()
    pngs, boxes, stills = [], [], []
    for path, extension in files(arguments.folders):
        if extension == "png" and (counts := png_counts(path)):
            pngs.append((counts, path))
        elif extension in MOVIES:
            with open(path, "rb") as handle:
                boxes.append((box_count(handle, 0, os.path.getsize(path), 0), path))
        elif extension in EXIV2:
            stills.append(path)
    if pngs:
        print(f"png: {len(pngs)} files; most chunks {max(pngs)[0][0]} ({max(pngs)[1]}); "
              f"most IDAT {max(c[1] for c, _ in pngs)}; most text bytes "
              f"{max(c[2] for c, _ in pngs)}")
    if boxes:
        print(f"boxes: {len(boxes)} files; most boxes {max(boxes)[0]} ({max(boxes)[1]})")
    if arguments.demo and stills:
        scratch = arguments.scratch or tempfile.mkdtemp(prefix="budget-measure-")
        try:
            needs = exiv2_prefixes(os.path.abspath(arguments.demo), stills, scratch)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        for need, size, path in needs[-5:]:
            print(f"  exiv2 needs {need} of {size} bytes: {path}")
        print(f"exiv2: {len(needs)} files; the largest prefix needed {needs[-1][0]} bytes")


if __name__ == "__main__":
    main()
