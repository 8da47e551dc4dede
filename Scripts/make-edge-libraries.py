#!/usr/bin/env python3
"""Makes the edge-case libraries of issue 12 (Scripts/edge-tests.sh checks the Demo on them).

Tools: Python 3's standard library only (os.link for hard links, struct for one tiny
QuickTime movie). Small on disk: the 200,000 files are hard links to a handful of empty
files, so they cost directory entries, not data blocks (ext4 allows 65,000 links per inode).

  long-names/     200,000 empty `.JPG` files, each name 255 bytes (the longest Linux allows)
  escape-codes/   file and album names with terminal escape sequences (screen clear, OSC 52
                  clipboard write, window title, BEL, C1 CSI U+009B), bidi and zero-width
                  characters, and spreadsheet formulas (`=1+1`, `=HYPERLINK(...)`, `+`, `-`,
                  `@`), each a `.JPG` and a `.txt` (an other file); plus a movie whose
                  `©xyz` location text (a string from inside the file, quoted in a problem)
                  holds escape codes
  xff-parent/\\xff/library/   a library below a folder whose name is the byte 0xFF (not UTF-8)
  deep/           a photo at the top and a chain of 300 nested folders, so that the walk
                  stops at its depth limit (256) and reports the folder it did not read

The per-file budgets' hostile files (docs/Robustness.md, "Per-file budgets"), each library
under budgets/, and each file alone (one hard link) under budgets-one/<name>/ for timing:
  png-text/       a 9 MB PNG of 262,000 one-byte `tEXt "Raw profile type exif"` chunks,
                  and 8 hard links to it (262,000 problems each, before the problem budget)
  mov-ilst/       a MOV whose `ilst` holds 200,000 items with a bad creation date
  png-ztxt/       a 4 MB PNG of 1,000 zTXt raw profiles, each inflating to just under 4 MiB
  mov-boxes/      a 33 MB MOV of 4 million empty `free` boxes
  exiv2-sparse/   16 sparse 255 MiB files with a valid TIFF header (.NEF, .webp, .tif):
                  255 MiB each to exiv2 before its input budget, ~1 KB each on disk

Usage: make-edge-libraries.py [--dir /tmp/groupenumerator-edges] [--files 200000]
Existing libraries are kept (delete a folder to make it again).
"""

import argparse
import os
import struct
import zlib

LINKS_PER_INODE = 60_000


def make_long_names(folder: str, count: int) -> None:
    if os.path.isdir(folder) and len(os.listdir(folder)) == count:
        return
    os.makedirs(folder, exist_ok=True)
    sources = os.path.join(os.path.dirname(folder), "long-names-inodes")
    os.makedirs(sources, exist_ok=True)
    for index in range(count):
        suffix = f"-{index:06d}.JPG"
        name = ("n" * (255 - len(suffix))) + suffix
        path = os.path.join(folder, name)
        if os.path.lexists(path):
            continue
        source = os.path.join(sources, f"empty-{index // LINKS_PER_INODE}")
        if not os.path.exists(source):
            open(source, "wb").close()
        os.link(source, path)


def box(kind: bytes, payload: bytes) -> bytes:
    return struct.pack(">I", 8 + len(payload)) + kind + payload


def movie_with_location_text(text: bytes) -> bytes:
    """A minimal QuickTime file: ftyp, then moov with a version-0 mvhd and udta/©xyz."""
    ftyp = box(b"ftyp", b"qt  " + struct.pack(">I", 0) + b"qt  ")
    mvhd = box(
        b"mvhd",
        struct.pack(">I", 0)  # version 0, flags
        + struct.pack(">IIII", 3_600_000_000, 3_600_000_000, 600, 600)  # times, scale, length
        + bytes(80),  # rate, volume, reserved, matrix, pre-defined, next track id
    )
    xyz = box(b"\xa9xyz", struct.pack(">HH", len(text), 0x15C7) + text)
    return ftyp + box(b"moov", mvhd + box(b"udta", xyz))


ESCAPE_NAMES = [
    b"clear-\x1b[2J\x1b[H.JPG",
    b"clipboard-\x1b]52;c;ZWNobyBwd25lZA==\x07.JPG",
    b"title-\x1b]0;pwned\x1b\\.JPG",
    b"bell-\x07\x07.JPG",
    b"c1-csi-\xc2\x9b31m-red.JPG",
    b"del-\x7f.JPG",
    b"bidi-\xe2\x80\xaeGPJ.exe.JPG",
    b"zero\xe2\x80\x8bwidth.JPG",
    b"=1+1.JPG",
    b'=HYPERLINK("https:example.invalid","click").JPG',
    b"+SUM(1,2).JPG",
    b"-2+3.JPG",
    b"@SUM(A1).JPG",
    b"\ttab-first.JPG",
    b"line\nbreak.JPG",
]


def make_escape_codes(folder: str) -> None:
    os.makedirs(folder, exist_ok=True)
    albums = [b"=1+1", b"album-\x1b[2J", b'=HYPERLINK("https:example.invalid")', b"c1-\xc2\x9b"]
    for parent in [b""] + albums:
        directory = os.path.join(os.fsencode(folder), parent)
        os.makedirs(directory, exist_ok=True)
        for name in ESCAPE_NAMES:
            # The photo, and a text file of the same name: an other file, which
            # `--include-other` lists with its name in the path and in its reason.
            for variant in [name, name[:-len(b".JPG")] + b".txt"]:
                path = os.path.join(directory, variant)
                if not os.path.exists(path):
                    open(path, "wb").close()
    movie = os.path.join(os.fsencode(folder), b"escape-in-file.MOV")
    with open(movie, "wb") as handle:
        handle.write(movie_with_location_text(b"\x1b]52;c;cHduZWQ=\x07\x1b[2J\xc2\x9b1m=1+1"))


def make_xff_parent(folder: str) -> None:
    library = os.path.join(os.fsencode(folder), b"\xff", b"library")
    os.makedirs(library, exist_ok=True)
    path = os.path.join(library, b"IMG_0001.JPG")
    if not os.path.exists(path):
        open(path, "wb").close()


def make_deep(folder: str, depth: int = 300) -> None:
    os.makedirs(folder, exist_ok=True)
    open(os.path.join(folder, "top.JPG"), "ab").close()
    chain = os.path.join(folder, *(["d"] * depth))
    os.makedirs(chain, exist_ok=True)
    open(os.path.join(chain, "bottom.JPG"), "ab").close()


def png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png_with(chunks) -> bytes:
    """Signature, an 8x8 grey IHDR, the chunks, one IDAT, IEND."""
    header = png_chunk(b"IHDR", struct.pack(">II", 8, 8) + bytes([8, 0, 0, 0, 0]))
    image = png_chunk(b"IDAT", zlib.compress(bytes(9 * 8)))
    return (b"\x89PNG\r\n\x1a\n" + header + b"".join(chunks) + image
            + png_chunk(b"IEND", b""))


def write_once(path: str, make) -> None:
    """Writes make()'s bytes to path unless it exists (the libraries are made once)."""
    if not os.path.exists(path):
        with open(path + ".part", "wb") as handle:
            handle.write(make())
        os.replace(path + ".part", path)


def make_png_text(path: str) -> bytes:
    chunk = png_chunk(b"tEXt", b"Raw profile type exif\0!")
    return png_with([chunk] * 262_000)


def make_png_ztxt(path: str) -> bytes:
    text = zlib.compress(b"a" * ((4 << 20) - 1), 9)
    chunk = png_chunk(b"zTXt", b"Raw profile type exif\0\0" + text)
    return png_with([chunk] * 1_000)


def movie(children: bytes, top: bytes = b"") -> bytes:
    ftyp = box(b"ftyp", b"qt  " + struct.pack(">I", 0) + b"qt  ")
    mvhd = box(b"mvhd", struct.pack(">I", 0) + struct.pack(">IIII", 0, 0, 600, 600) + bytes(80))
    return ftyp + top + box(b"moov", mvhd + children)


def make_mov_ilst(path: str) -> bytes:
    hdlr = box(b"hdlr", bytes(8) + b"mdta" + bytes(12) + b"\0")
    name = b"com.apple.quicktime.creationdate"
    keys = box(b"keys", struct.pack(">II", 0, 1) + box(b"mdta", name))
    data = box(b"data", struct.pack(">II", 1, 0) + b"not a date")
    item = box(struct.pack(">I", 1), data)
    return movie(box(b"meta", hdlr + keys + box(b"ilst", item * 200_000)))


def make_mov_boxes(path: str) -> bytes:
    return movie(b"", top=box(b"free", b"") * 4_000_000)


def tiff_header() -> bytes:
    """A little-endian TIFF header and an IFD0 with width, height and a date."""
    date = b"2020:01:02 03:04:05\0"
    entries = [(0x0100, 4, 1, 64), (0x0101, 4, 1, 48), (0x0132, 2, len(date), 8 + 2 + 3 * 12 + 4)]
    ifd = struct.pack("<H", len(entries))
    for tag, kind, count, value in entries:
        ifd += struct.pack("<HHII", tag, kind, count, value)
    return b"II*\0" + struct.pack("<I", 8) + ifd + struct.pack("<I", 0) + date


def make_budgets(folder: str) -> None:
    """The per-file budgets' hostile libraries (see the module documentation)."""
    libraries = os.path.join(folder, "budgets")
    alone = os.path.join(folder, "budgets-one")
    files = {
        "png-text": ("text-chunks.png", make_png_text),
        "png-ztxt": ("ztxt-chunks.png", make_png_ztxt),
        "mov-ilst": ("ilst-items.MOV", make_mov_ilst),
        "mov-boxes": ("free-boxes.MOV", make_mov_boxes),
    }
    for library, (name, make) in files.items():
        directory = os.path.join(libraries, library)
        os.makedirs(directory, exist_ok=True)
        path = os.path.join(directory, name)
        write_once(path, lambda: make(path))
        one = os.path.join(alone, library)
        os.makedirs(one, exist_ok=True)
        if not os.path.exists(os.path.join(one, name)):
            os.link(path, os.path.join(one, name))
    text = os.path.join(libraries, "png-text")
    for index in range(1, 9):
        link = os.path.join(text, f"text-chunks-link-{index}.png")
        if not os.path.exists(link):
            os.link(os.path.join(text, "text-chunks.png"), link)
    sparse = os.path.join(libraries, "exiv2-sparse")
    os.makedirs(sparse, exist_ok=True)
    for index in range(16):
        name = f"sparse-{index:02d}." + ["NEF", "webp", "tif"][index % 3]
        path = os.path.join(sparse, name)
        if not os.path.exists(path):
            with open(path, "wb") as handle:
                handle.write(tiff_header())
                handle.truncate(255 << 20)
        if index == 0:
            one = os.path.join(alone, "exiv2-sparse")
            os.makedirs(one, exist_ok=True)
            if not os.path.exists(os.path.join(one, name)):
                os.link(path, os.path.join(one, name))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", default="/tmp/groupenumerator-edges")
    parser.add_argument("--files", type=int, default=200_000)
    arguments = parser.parse_args()
    make_long_names(os.path.join(arguments.dir, "long-names"), arguments.files)
    make_escape_codes(os.path.join(arguments.dir, "escape-codes"))
    make_xff_parent(os.path.join(arguments.dir, "xff-parent"))
    make_deep(os.path.join(arguments.dir, "deep"))
    make_budgets(arguments.dir)
    print(f"edge libraries in {arguments.dir}")


if __name__ == "__main__":
    main()
