#!/usr/bin/env python3
"""Writes the fuzz seed corpora under Fuzz/Seeds/<target>/ from the repository's own
Fixtures/Library files, Tests/GroupEnumeratorTests/Resources, bytes built here and tiny
movies made with ffmpeg (Debian 12's ffmpeg 5.1 with libx264, libx265 and libvpx).
Deterministic: running it again with the same ffmpeg gives the same files. Usage: python3
Fuzz/make-seeds.py (from anywhere)."""
import os
import shutil
import struct
import subprocess
import tempfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
LIBRARY = os.path.join(HERE, "..", "Fixtures", "Library")
RESOURCES = os.path.join(HERE, "..", "Tests", "GroupEnumeratorTests", "Resources")
SEEDS = os.path.join(HERE, "Seeds")
FORMATS = os.path.join(HERE, "..", "Fixtures", "Formats")
PHONE_FORMATS = os.path.join(HERE, "..", "Fixtures", "Phones", "Formats")
SIDECARS = os.path.join(HERE, "..", "Fixtures", "Sidecars")


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


def own_files(extensions):
    """(name, bytes) of every file in Fixtures/Library and the test Resources whose
    extension (lower-cased) is in `extensions`, in path order."""
    found = []
    for prefix, root in (("fixture-", LIBRARY), ("resource-", RESOURCES)):
        for folder, dirs, files in os.walk(root):
            dirs.sort()
            for name in sorted(files):
                if os.path.splitext(name)[1].lower() not in extensions:
                    continue
                path = os.path.join(folder, name)
                with open(path, "rb") as handle:
                    data = handle.read()
                relative = os.path.relpath(path, root)
                safe = "".join(c if c.isascii() and (c.isalnum() or c in "._-@") else "_" for c in relative)
                found.append((prefix + safe, data))
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


def box(kind, payload=b"", size=None):
    """An ISO-BMFF box; `size` overrides the 32-bit size field (0, 1, 2…7, too large)."""
    return struct.pack(">I", len(payload) + 8 if size is None else size) + kind + payload


def full_box(kind, version, payload, flags=0):
    return box(kind, struct.pack(">I", (version << 24) | flags) + payload)


def mvhd(version=0, created=0, timescale=600, duration=1200):
    if version == 1:
        times = struct.pack(">QQIQ", created, created, timescale, duration)
    else:
        times = struct.pack(">IIII", created, created, timescale, duration)
    return full_box(b"mvhd", version, times + b"\0" * 80)


def tkhd(width, height):
    body = struct.pack(">IIII", 0, 0, 1, 0) + struct.pack(">I", 0) + b"\0" * 8 + b"\0" * 8
    matrix = struct.pack(">9I", 0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x40000000)
    return full_box(b"tkhd", 0, body + matrix + struct.pack(">II", width << 16, height << 16), 3)


def hdlr(handler):
    return full_box(b"hdlr", 0, b"\0" * 4 + handler + b"\0" * 12 + b"\0")


def quicktime_keys_movie(location=b"+35.6895+139.6917+040.000/", date=b"2019-05-01T12:34:56+0900"):
    keys = [b"com.apple.quicktime.location.ISO6709", b"com.apple.quicktime.creationdate",
            b"com.apple.quicktime.content.identifier"]
    key_boxes = b"".join(struct.pack(">I", len(k) + 8) + b"mdta" + k for k in keys)
    values = [location, date, b"5A2B1C3D-0000-4000-8000-000000000000"]
    items = b"".join(
        box(struct.pack(">I", index + 1), box(b"data", struct.pack(">II", 1, 0) + value))
        for index, value in enumerate(values))
    meta = box(b"meta", hdlr(b"mdta") + full_box(b"keys", 0, struct.pack(">I", len(keys)) + key_boxes)
               + box(b"ilst", items))
    track = box(b"trak", tkhd(1920, 1080) + box(b"mdia", hdlr(b"vide")))
    return box(b"ftyp", b"qt  \0\0\0\0qt  ") + box(b"moov", mvhd(created=3_639_000_000) + track + meta)


def hand_built_movies():
    ftyp = box(b"ftyp", b"isom\0\0\2\0isommp41")
    good = quicktime_keys_movie()
    udta = box(b"udta", box(b"\xa9xyz", struct.pack(">HH", 18, 0) + b"+48.8584+002.2945/"))
    nest = b"moov"
    bomb = box(b"free")
    for _ in range(64):
        bomb = box(b"moov", bomb)
    return [
        ("keys-location-date", good),
        ("udta-xyz", ftyp + box(b"moov", mvhd(version=1, created=3_639_000_000) + udta)),
        ("b1-size-zero-top", ftyp + box(b"moov", mvhd(), size=0)),
        ("b1-size-zero-nested", ftyp + box(b"moov", box(b"trak", tkhd(10, 20), size=0))),
        ("b2-largesize-max", ftyp + struct.pack(">I", 1) + b"mdat" + struct.pack(">Q", 2**64 - 1)),
        ("b2-largesize-small", ftyp + struct.pack(">I", 1) + b"moov" + struct.pack(">Q", 8)),
        ("b3-size-three", ftyp + box(b"moov", b"", size=3)),
        ("b4-past-parent", ftyp + box(b"moov", box(b"mvhd", b"\0" * 8, size=4096))),
        ("b5-nesting", ftyp + bomb),
        ("b6-free-run", ftyp + box(b"free") * 512 + box(b"moov", mvhd())),
        ("b7-mvhd-version-2", ftyp + box(b"moov", mvhd(version=2))),
        ("b7-mvhd-short", ftyp + box(b"moov", full_box(b"mvhd", 1, b"\0" * 6))),
        ("b8-timescale-zero", ftyp + box(b"moov", mvhd(timescale=0, duration=0xFFFFFFFF))),
        ("b8-duration-max", ftyp + box(b"moov", mvhd(version=1, duration=2**64 - 1))),
        ("b9-created-max", ftyp + box(b"moov", mvhd(version=1, created=2**64 - 1))),
        ("b10-moov-after-mdat", ftyp + box(b"mdat", b"\0" * 64) + box(b"moov", mvhd())),
        ("b10-no-ftyp", box(b"moov", mvhd()) + nest),
        ("iso6709-odd", quicktime_keys_movie(location=b"-90.0000+180.0000-999999.9/")),
        ("date-garbage", quicktime_keys_movie(date=b"2020-13-45T25:61:61+9999")),
    ]


def heif_item(item_id, kind):
    return full_box(b"infe", 2, struct.pack(">HH", item_id, 0) + kind + b"\0")


def hand_built_heif(tiff_bytes):
    """A HEIC with a primary `hvc1` item 1 (640x480, rotated by `irot`) and an Exif item 2
    stored in `idat`, the EXIF block `tiff_bytes` behind the usual 4-byte offset."""
    exif = struct.pack(">I", 0) + tiff_bytes
    iinf = full_box(b"iinf", 0, struct.pack(">H", 2) + heif_item(1, b"hvc1") + heif_item(2, b"Exif"))
    iloc = full_box(b"iloc", 1, bytes([0x44, 0x00]) + struct.pack(">H", 2)
                    + struct.pack(">HHH", 1, 0, 0) + struct.pack(">H", 1) + struct.pack(">II", 0, 0)
                    + struct.pack(">HHH", 2, 1, 0) + struct.pack(">H", 1) + struct.pack(">II", 0, len(exif)))
    ispe = full_box(b"ispe", 0, struct.pack(">II", 640, 480))
    irot = box(b"irot", b"\x01")
    ipco = box(b"ipco", ispe + irot)
    ipma = full_box(b"ipma", 0, struct.pack(">IH", 1, 1) + b"\x02\x81\x82")
    iref = full_box(b"iref", 0, box(b"cdsc", struct.pack(">HHH", 2, 1, 1)))
    meta = full_box(b"meta", 0, hdlr(b"pict") + full_box(b"pitm", 0, struct.pack(">H", 1)) + iinf
                    + iloc + box(b"iprp", ipco + ipma) + iref + box(b"idat", exif))
    return box(b"ftyp", b"heic\0\0\0\0mif1heic") + meta


CANON_UUID = bytes.fromhex("85c0b687820f11e08111f4ce462b6a48")


PREVIEW_UUID = bytes.fromhex("eaf42b5e1c984b88b9fbb7dc406e4d16")
# The smallest JPEG-shaped bytes: SOI, an APP0 JFIF segment, EOI.
TINY_JPEG = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00\xff\xd9"


def hand_built_cr3(ifd0, exif_ifd, gps_ifd, previews=False):
    """A CR3: Canon's uuid box in moov with the CMT blocks; with `previews`, a THMB box
    (16 bytes of fields, then a JPEG) and the preview uuid box with its PRVW box."""
    blocks = box(b"CMT1", ifd0) + box(b"CMT2", exif_ifd) + box(b"CMT4", gps_ifd)
    if previews:
        blocks += box(b"THMB", struct.pack(">IHHIHH", 0, 160, 120, len(TINY_JPEG), 1, 0) + TINY_JPEG)
    canon = box(b"uuid", CANON_UUID + box(b"CNCV", b"CanonCR3_001/00.09.00/00.00.00") + blocks)
    preview = b""
    if previews:
        fields = struct.pack(">IHHHHI", 0, 1, 1620, 1080, 1, len(TINY_JPEG))
        preview = box(b"uuid", PREVIEW_UUID + struct.pack(">Q", 1) + box(b"PRVW", fields + TINY_JPEG))
    return (box(b"ftyp", b"crx \0\0\0\1crx isom") + box(b"moov", canon + mvhd()) + preview
            + box(b"mdat", b"\0" * 16))


def png_chunk(kind, data, crc=None):
    value = zlib.crc32(kind + data) if crc is None else crc
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", value)


def png(*chunks):
    ihdr = png_chunk(b"IHDR", struct.pack(">IIBBBBB", 32, 16, 8, 2, 0, 0, 0))
    idat = png_chunk(b"IDAT", zlib.compress(b"\0" * (1 + 32 * 3) * 16))
    return b"\x89PNG\r\n\x1a\n" + ihdr + b"".join(chunks) + idat + png_chunk(b"IEND", b"")


def raw_profile(payload, name=b"exif"):
    hexed = payload.hex().encode()
    lines = b"\n".join(hexed[i:i + 72] for i in range(0, len(hexed), 72))
    return b"\n" + name + b"\n" + b"%8d" % len(payload) + b"\n" + lines + b"\n"


def hand_built_pngs(tiff_bytes):
    exif_app1 = b"Exif\0\0" + tiff_bytes
    keyword = b"Raw profile type exif\0"
    profile = raw_profile(exif_app1)
    return [
        ("exif-chunk", png(png_chunk(b"eXIf", tiff_bytes))),
        ("exif-chunk-bad-crc", png(png_chunk(b"eXIf", tiff_bytes, crc=0))),
        ("text-raw-profile", png(png_chunk(b"tEXt", keyword + profile))),
        ("ztxt-raw-profile", png(png_chunk(b"zTXt", keyword + b"\0" + zlib.compress(profile)))),
        ("itxt-compressed", png(png_chunk(b"iTXt", keyword + b"\1\0en\0\0" + zlib.compress(profile)))),
        ("itxt-plain-app1", png(png_chunk(b"iTXt", b"Raw profile type APP1\0\0\0\0\0"
                                          + raw_profile(exif_app1, b"APP1")))),
        ("ztxt-bomb", png(png_chunk(b"zTXt", keyword + b"\0" + zlib.compress(b"\n" * (8 << 20))))),
        ("profile-count-lies", png(png_chunk(b"tEXt", keyword + b"\nexif\n 9999999999\n00ff\n"))),
        ("chunk-length-huge", b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 0x7FFFFFFF) + b"eXIf" + b"\0" * 8),
        ("no-iend", png(png_chunk(b"eXIf", tiff_bytes))[:-12]),
        ("signature-only", b"\x89PNG\r\n\x1a\n"),
        ("zlib-stored", b"\x04" + zlib.compress(b"hello, world", 0)),
    ]


def riff_chunk(kind, data):
    return kind + struct.pack("<I", len(data)) + data + (b"\0" if len(data) % 2 else b"")


def webp(*chunks, size=None):
    body = b"WEBP" + b"".join(chunks)
    return b"RIFF" + struct.pack("<I", len(body) if size is None else size) + body


def hand_built_exiv2(tiffs):
    """Stills the engine hands to gexiv2: WebP (VP8X + EXIF/XMP chunks), JPEG XL in its
    container (an `Exif` box), TIFF and the vendor RAW magics around our TIFF blocks, and
    the shapes that made exiv2 throw (RIFF size 0xFFFFFFFF, bare TIFF headers)."""
    gps = tiffs["gps-west"]
    vp8x = riff_chunk(b"VP8X", bytes([0x0C, 0, 0, 0]) + struct.pack("<I", 31)[:3]
                      + struct.pack("<I", 15)[:3])
    vp8l = riff_chunk(b"VP8L", bytes([0x2F, 31, 0xC0, 0x03, 0x00]) + b"\0" * 8)
    xmp = (b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/'
           b'02/22-rdf-syntax-ns#"><rdf:Description xmlns:tiff="http://ns.adobe.com/tiff/1.0/"'
           b' tiff:Orientation="6"/></rdf:RDF></x:xmpmeta>')
    jxl_signature = bytes.fromhex("0000000c4a584c200d0a870a")
    jxl = (jxl_signature + box(b"ftyp", b"jxl \0\0\0\0jxl ")
           + box(b"Exif", struct.pack(">I", 0) + gps) + box(b"jxlc", b"\xff\x0a\0\0"))
    little = tiff([(0x0100, 3, 1, struct.pack("<HH", 32, 0)), (0x0101, 3, 1, struct.pack("<HH", 16, 0))],
                  sub_ifds=[(0x8769, [(0x9003, 2, 4, inline_ascii("x"))])])
    return [
        ("webp-vp8x-exif-xmp", webp(vp8x, riff_chunk(b"EXIF", gps), riff_chunk(b"XMP ", xmp), vp8l)),
        ("webp-exif-with-header", webp(vp8x, riff_chunk(b"EXIF", b"Exif\0\0" + gps), vp8l)),
        ("webp-vp8l-only", webp(vp8l)),
        ("webp-riff-size-max", webp(vp8x, size=0xFFFFFFFF)[:30]),
        ("webp-chunk-size-max", webp(vp8x, b"EXIF" + struct.pack("<I", 0xFFFFFFF0) + gps)),
        ("jxl-container-exif", jxl),
        ("jxl-codestream", b"\xff\x0a\xfa\x01"),
        ("tiff-size-only", little),
        ("tiff-header-mm", b"MM\0*"),
        ("tiff-header-ii", b"II*\0"),
        ("cr2-magic", b"II*\0" + struct.pack("<I", 16) + b"CR\x02\0" + little[8:]),
        ("orf-magic", b"IIRO" + little[4:]),
        ("rw2-magic", b"IIU\0" + little[4:]),
        ("bigtiff-header", b"II+\0" + struct.pack("<HHQ", 8, 0, 16) + b"\0" * 16),
    ] + [("tiff-" + name, data) for name, data in sorted(tiffs.items())]


def sidecar_files():
    """(name, bytes) of every .xmp and .json file in Fixtures/Sidecars, in path order."""
    found = []
    for folder, dirs, files in os.walk(SIDECARS):
        dirs.sort()
        for name in sorted(files):
            if os.path.splitext(name)[1].lower() not in {".xmp", ".json"}:
                continue
            with open(os.path.join(folder, name), "rb") as handle:
                data = handle.read()
            relative = os.path.relpath(os.path.join(folder, name), SIDECARS)
            safe = "".join(c if c.isascii() and (c.isalnum() or c in "._-@") else "_" for c in relative)
            found.append(("sidecar-" + safe, data))
    return found


def hand_built_xmp():
    """Packets and names that reach the edges of XMPPacket, TakeoutSidecar and the Takeout
    name forms."""
    packet = (b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/'
              b'02/22-rdf-syntax-ns#"><rdf:Description xmlns:exif="http://ns.adobe.com/exif/1.0/"'
              b' exif:DateTimeOriginal="2021-04-01T08:30:00+09:00" exif:GPSLatitude="33,51.408S"'
              b' exif:GPSLongitude="151,12.918E"/></rdf:RDF></x:xmpmeta>')
    return [
        ("name-not-utf8", b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><a xmlns:p\xcbq="1"/></x:xmpmeta>'),
        ("attribute-not-utf8", b'<a b\xcbc="1"/>'),
        ("inner-nul", b"<a>\0</a>"),
        ("utf16-be", packet.decode().encode("utf-16-be")),
        ("utf16-le-bom", b"\xff\xfe" + packet.decode().encode("utf-16-le") + b"\0\0"),
        ("utf8-trailing-nuls", packet + b"\0" * 4),
        ("doctype", b'<!DOCTYPE a [<!ENTITY e "x">]><a>&e;</a>'),
        ("takeout-name", b"img.jpg.supplemental-metadata(1).json"),
        ("takeout-cut-name", b"img.jpg.suppl.json"),
        ("takeout-minimal", b'{"title": "x.jpg", "photoTakenTime": {"timestamp": "-1"}}'),
    ]


def hand_built_motion_photos():
    """Inputs of FuzzMotionPhoto: a mode byte, then a packet (even) or 8-byte values (odd:
    file size, image end, then Item:Length/Item:Padding values whose low 3 bits choose how
    each is written)."""
    def directory(items):
        listed = b'<rdf:li rdf:parseType="Resource"><Container:Item Item:Semantic="Primary"/></rdf:li>'
        for index, (length, padding) in enumerate(items):
            semantic = b"MotionPhoto" if index == 0 else b"Depth"
            listed += (b'<rdf:li rdf:parseType="Resource"><Container:Item Item:Semantic="' + semantic
                       + b'" Item:Mime="video/mp4" Item:Length="' + length + b'" Item:Padding="'
                       + padding + b'"/></rdf:li>')
        return (b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/'
                b'02/22-rdf-syntax-ns#"><rdf:Description xmlns:GCamera="http://ns.google.com/photos/'
                b'1.0/camera/" xmlns:Container="http://ns.google.com/photos/1.0/container/" '
                b'xmlns:Item="http://ns.google.com/photos/1.0/container/item/" GCamera:MotionPhoto="1">'
                b"<Container:Directory><rdf:Seq>" + listed + b"</rdf:Seq></Container:Directory>"
                b"</rdf:Description></rdf:RDF></x:xmpmeta>")
    nines = b"9" * 18

    def values(*numbers):
        return b"\x01" + b"".join(struct.pack("<Q", n) for n in numbers)
    return [
        ("packet-overflowing-sum", b"\x00" + directory([(nines, nines)] * 12)),
        ("packet-fits", b"\x04" + directory([(b"300", b"4")])),
        ("packet-negative-length", b"\x00" + directory([(b"-5", b"0")])),
        ("packet-micro-video", b"\x00" + directory([]).replace(b'GCamera:MotionPhoto="1"',
                                                               b'GCamera:MicroVideo="1" GCamera:MicroVideoOffset="20"')),
        ("values-nines", values(2**63 - 2, 200, 3, 3, 3, 3, 3, 3)),
        ("values-plain", values(20000, 200, 5000 << 3, 0, 100 << 3, 8 << 3)),
        ("values-full-width", values(2**64 - 1, 0, 2**64 - 6, 2**64 - 7)),
    ]


def rotated(movie, matrix):
    """`movie` (a QuickTime/MP4 file ffmpeg wrote, one track) with its track header's
    display matrix replaced by `matrix` (nine 32-bit numbers): ffmpeg 5.1 writes none."""
    at = movie.index(b"tkhd") + 4
    version = movie[at]
    # version and flags; times, track ID, reserved, duration; reserved, layer, group,
    # volume, reserved: then the matrix.
    at += 4 + (32 if version == 1 else 20) + 16
    return movie[:at] + struct.pack(">9i", *matrix) + movie[at + 36:]


def ffmpeg_movies():
    """(name, bytes) of tiny movies (48 x 32, 8 frames a second, keyframes every half
    second) in each container and codec the movie path allows, made with ffmpeg from its
    own test pattern, bit-exact so that they are the same every time."""
    if shutil.which("ffmpeg") is None:
        raise SystemExit("make-seeds.py needs ffmpeg (apt-get install ffmpeg) for the movie seeds")
    pattern = ["-f", "lavfi", "-i", "testsrc2=size=48x32:rate=8:duration=1.5"]
    fading = ["-f", "lavfi", "-i", "testsrc2=size=48x32:rate=8:duration=2.5,fade=in:st=0.6:d=0.3"]
    x264 = ["-c:v", "libx264", "-preset", "ultrafast", "-g", "4", "-pix_fmt", "yuv420p", "-threads", "1"]
    x265 = ["-c:v", "libx265", "-preset", "ultrafast", "-tag:v", "hvc1", "-pix_fmt", "yuv420p",
            "-x265-params", "pools=none:frame-threads=1:keyint=4:log-level=none"]
    movies = [
        ("h264.mp4", pattern + x264 + ["-movflags", "+faststart"]),
        ("h264-moov-last.mov", pattern + x264),
        ("hevc.mp4", pattern + x265),
        ("fade-in-from-black.mp4", fading + x264),
        ("avchd.mts", pattern + x264 + ["-f", "mpegts", "-mpegts_m2ts_mode", "1"]),
        ("h264.ts", pattern + x264 + ["-f", "mpegts"]),
        ("mjpeg.avi", pattern + ["-c:v", "mjpeg", "-q:v", "12", "-pix_fmt", "yuvj420p"]),
        ("vp9.mkv", pattern + ["-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8",
                               "-threads", "1", "-g", "4"]),
        ("vp8.webm", pattern + ["-c:v", "libvpx", "-deadline", "realtime", "-cpu-used", "8",
                                "-threads", "1", "-g", "4"]),
        ("mpeg2.mpg", pattern + ["-c:v", "mpeg2video", "-g", "4", "-f", "vob"]),
        ("wmv2.wmv", pattern + ["-c:v", "wmv2", "-g", "4"]),
    ]
    found = []
    with tempfile.TemporaryDirectory() as folder:
        for name, arguments in movies:
            path = os.path.join(folder, name)
            subprocess.run(
                ["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y"] + arguments
                + ["-an", "-fflags", "+bitexact", "-flags:v", "+bitexact", "-map_metadata", "-1", path],
                check=True)
            with open(path, "rb") as handle:
                found.append((name, handle.read()))
    movies = dict(found)
    one = 1 << 16
    # A phone held upright (90 degrees clockwise), upside down, and turned the other way.
    found.append(("h264-rotated-90.mov", rotated(movies["h264-moov-last.mov"], [0, one, 0, -one, 0, 0, 0, 0, 1 << 30])))
    found.append(("h264-rotated-180.mp4", rotated(movies["h264.mp4"], [-one, 0, 0, 0, -one, 0, 0, 0, 1 << 30])))
    found.append(("hevc-rotated-270.mp4", rotated(movies["hevc.mp4"], [0, -one, 0, one, 0, 0, 0, 0, 1 << 30])))
    # Cut short: before the movie box (recorded, then the camera died), inside the media
    # data after a faststart movie box, and one transport stream packet and a half.
    moov_last = movies["h264-moov-last.mov"]
    found.append(("cut-before-moov.mov", moov_last[:moov_last.index(b"moov") - 4]))
    found.append(("cut-in-mdat.mp4", movies["h264.mp4"][:len(movies["h264.mp4"]) * 2 // 3]))
    found.append(("cut-ts.ts", movies["h264.ts"][:188 + 94]))
    return found


def write(target, name, data):
    folder = os.path.join(SEEDS, target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as handle:
        handle.write(data)


def main():
    # Made first: without ffmpeg nothing is deleted.
    movies = ffmpeg_movies()
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
    tiffs = dict(hand_built_tiffs())
    for name, data in own_files({".mov", ".mp4", ".m4v", ".3gp"}):
        write("FuzzQuickTime", name, data)
    for name, data in hand_built_movies():
        write("FuzzQuickTime", "built-" + name, data)
    for name, data in own_files({".heic", ".heif", ".avif", ".cr3"}):
        write("FuzzHEIF", name, data)
    for name in ("gps-west", "samsung-bad-thumbnail-pointer", "ifd-next-loop"):
        write("FuzzHEIF", "built-heic-" + name, hand_built_heif(tiffs[name]))
    write("FuzzHEIF", "built-cr3", hand_built_cr3(tiffs["big-endian-datetime"], tiffs["samsung-bad-thumbnail-pointer"], tiffs["gps-west"]))
    write("FuzzHEIF", "built-cr3-loops", hand_built_cr3(tiffs["ifd-next-loop"], tiffs["entry-count-ffff"], tiffs["exif-pointer-to-ifd0"]))
    write("FuzzHEIF", "built-cr3-previews", hand_built_cr3(tiffs["big-endian-datetime"], tiffs["samsung-bad-thumbnail-pointer"], tiffs["gps-west"], previews=True))
    write("FuzzHEIF", "built-heic-no-meta", box(b"ftyp", b"heic\0\0\0\0mif1heic") + box(b"mdat", b"\0" * 8))
    for name, data in own_files({".png"}):
        write("FuzzPNG", name, data)
    for name, data in hand_built_pngs(tiffs["gps-west"]):
        write("FuzzPNG", "built-" + name, data)
    for name, data in own_files({".webp", ".tif", ".tiff", ".dng", ".cr2", ".nef", ".arw", ".orf",
                                 ".rw2", ".pef", ".srw", ".raf", ".jxl"}):
        write("FuzzExiv2", name, data)
    for name, data in hand_built_exiv2(tiffs):
        write("FuzzExiv2", "built-" + name, data)
    # Our own readers of PSD, JPEG 2000, CRW, MRW and M2TS: the files of Fixtures/Formats
    # (make-formats.sh) and the phone fixtures of those formats.
    for folder, names in ((FORMATS, sorted(os.listdir(FORMATS))),
                          (PHONE_FORMATS, ["layers.psd", "still.jp2", "00001.MTS"])):
        for name in names:
            with open(os.path.join(folder, name), "rb") as handle:
                write("FuzzFormats", os.path.basename(folder) + "-" + name, handle.read())
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
    for name, data in own_files({".xmp", ".json"}) + sidecar_files():
        write("FuzzXMP", name, data)
    for name, data in hand_built_xmp():
        write("FuzzXMP", "built-" + name, data)
    for name, data in hand_built_motion_photos():
        write("FuzzMotionPhoto", "built-" + name, data)
    # The picture path: the stills make-rendering.sh made (oriented, HEIF, progressive,
    # interlaced, cut off, claiming 30000 x 30000, garbage).
    rendering = os.path.join(RESOURCES, "Rendering")
    for name in sorted(os.listdir(rendering)):
        if os.path.splitext(name)[1].lower() in {".jpg", ".png", ".heic"}:
            with open(os.path.join(rendering, name), "rb") as handle:
                write("FuzzRender", "rendering-" + name, handle.read())
    # The picture path for movies: our own movies (Fixtures/Library, the test Resources:
    # several hold metadata and no frame that decodes) and ffmpeg's tiny movies.
    for name, data in own_files({".mov", ".mp4", ".3gp", ".avi", ".mts", ".mkv", ".webm"}):
        write("FuzzMovieFrame", name, data)
    for name, data in movies:
        write("FuzzMovieFrame", "ffmpeg-" + name, data)


if __name__ == "__main__":
    main()
