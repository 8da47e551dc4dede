#!/usr/bin/env bash
# Makes Resources/EdgeFormats: small files in the forms real cameras and phones write that
# the readers' first versions got wrong, each named after what it shows:
#   idit-asctime.avi    an AVI whose header list has IDIT "MON SEP 10 20:52:00 2012\n"
#                       (and an INFO ICRD of another day, which IDIT beats)
#   idit-exif.avi       IDIT "2012:09:10 20:52:00"
#   icrd-date-only.avi  no IDIT; INFO ICRD "2012-09-10" (a day, no time)
#   icrd-time.avi       no IDIT; INFO ICRD "2013-04-05 06:07:08"
#   3gpp-date.mp4       udta/date "2020-11-20T15:04:02+0100" and an mvhd time 34 s later
#   Audio/tone.*        0.2 s of 440 Hz as MP3 (with and without ID3), WAV, ADTS AAC, FLAC,
#                       Ogg Vorbis, Opus, M4A (brand M4A), and .m4a files of the general
#                       brands isom and qt (sound tracks only, which their moov tells)
#   Images/image.*      24x12 pictures FFmpeg writes in formats no reader here takes: PCX,
#                       TGA, SGI, PBM, PGM, PPM, PAM, QOI; pcx-named.jpg is the PCX again
#   xmp-day.png         a 24x12 PNG whose only date is XMP xmp:CreateDate "2019-09-02"
#   xmp-day-and-time.png  photoshop:DateCreated "2019-09-02" and xmp:CreateDate
#                       "2019-09-03T10:11:12" (the time wins over the earlier property's day)
#   htc-gps-first.jpg   EXIF IFD0 whose GPS pointer (out of range) is written before Make
#                       "HTC" and Model "HTC One_M8" (libexif stops at it); EXIF IFD with
#                       DateTimeOriginal 2016:05:04 03:02:01
#   htc-gps-bad.jpg     the same tags in order, the GPS IFD's latitude claiming 2^30 values
#   htc-no-camera-name.jpg  a clean block without Make and Model (IFD0 ImageWidth/Length)
#   gopro-max.mp4       FFmpeg's MP4 with a GoPro udta: FIRM "H19.03.02.00.00", CAME and a
#                       GPMF box whose DEVC holds DVNM "Global Settings" and MINF "GoPro Max"
#   sony.MTS            an AVCHD stream whose MDPM has the maker code 0x0108 (Sony), the
#                       model "ILCE-7M3" (tags 0xe4-0xe6) and 2019-03-04 05:06:07 +09:00
#   heic-motion.heic    Exiv2/south-east.heic (made by make-stills.sh) with a Samsung-style
#                       motion photo XMP (GCamera:MotionPhoto, a Container directory whose
#                       video Item:Length, 80, is not the video's) and a top-level mpvd box
#                       at its end holding a 0.4 s MP4 (mvhd 2022-03-04T05:06:08Z)
#   ultra-hdr.jpg       a Pixel-style Ultra HDR JPEG: XMP Container directory of a Primary
#                       and a GainMap item, the gain map JPEG after the primary's EOI, no video
#   avis-date.avif      a 16x16 AVIF image sequence (brand avis: a meta item and a moov)
#                       of two frames, no EXIF or XMP, mvhd 2021-05-06T07:08:09Z
#   dnl.jpg             a 24x12 baseline JPEG whose SOF0 height is 0 and whose DNL segment
#                       (FF DC, after the scan) gives 12; Python rewrites FFmpeg's JPEG
# FFmpeg writes the AVIs (its muxer puts `-metadata date=` in INFO/ICRD); no tool here
# writes IDIT, so Python puts it where FFmpeg's header list keeps a JUNK chunk, in the
# same bytes, so no other offset moves. ExifTool writes udta/date.
#
# FFmpeg's libaom-av1 writes the AVIF sequence.
#
# Tools (Debian 12): FFmpeg 5.1, ExifTool 12.57, Python 3. Deterministic: bit-exact flags.
set -euo pipefail
export LC_ALL=C.UTF-8 TZ=UTC
cd "$(dirname "$0")"
OUT=EdgeFormats
mkdir -p "$OUT"
TMPDIR_EDGE=$(mktemp -d)
trap 'rm -rf -- "$TMPDIR_EDGE"' EXIT

ff() { ffmpeg -nostdin -hide_banner -loglevel error -y "$@"; }
avi() {
  out=$1
  shift
  ff -f lavfi -i "color=c=teal:size=32x16:rate=5:duration=0.4" -c:v mjpeg -q:v 20 \
    -fflags +bitexact -flags:v +bitexact -map_metadata -1 "$@" -f avi "$out"
}

# Replaces the JUNK chunk directly inside hdrl by an IDIT chunk holding $2 and a shorter
# JUNK chunk, the same number of bytes in all.
put_idit() {
  python3 - "$1" "$2" <<'PY'
import struct, sys
path, text = sys.argv[1], sys.argv[2].encode().decode("unicode_escape").encode("latin-1")
data = bytearray(open(path, "rb").read())
assert data[0:4] == b"RIFF" and data[12:16] == b"LIST" and data[20:24] == b"hdrl"
end = 20 + struct.unpack("<I", data[16:20])[0]
offset = 24
while offset + 8 <= end:
    kind, size = data[offset:offset + 4], struct.unpack("<I", data[offset + 4:offset + 8])[0]
    if kind == b"JUNK":
        break
    offset += 8 + size + (size & 1)
else:
    sys.exit("no JUNK chunk in hdrl")
body = text + (b"\0" if len(text) % 2 else b"")
left = size - 8 - len(body)
assert left >= 0
chunk = b"IDIT" + struct.pack("<I", len(text)) + body
chunk += b"JUNK" + struct.pack("<I", left) + bytes(left)
data[offset:offset + 8 + size] = chunk
open(path, "wb").write(data)
PY
}

avi "$OUT/idit-asctime.avi" -metadata date=2001-02-03
put_idit "$OUT/idit-asctime.avi" 'MON SEP 10 20:52:00 2012\n'
avi "$OUT/idit-exif.avi"
put_idit "$OUT/idit-exif.avi" '2012:09:10 20:52:00'
avi "$OUT/icrd-date-only.avi" -metadata date=2012-09-10
avi "$OUT/icrd-time.avi" -metadata 'date=2013-04-05 06:07:08'

ff -f lavfi -i "color=c=teal:size=16x16:rate=5:duration=0.2" -c:v libx264 -preset veryslow \
  -crf 45 -pix_fmt yuv420p -threads 1 -x264-params threads=1 -fflags +bitexact \
  -flags:v +bitexact -map_metadata -1 -metadata creation_time=2020-11-20T14:04:36Z \
  -f mp4 "$OUT/3gpp-date.mp4"
exiftool -q -overwrite_original '-UserData:DateTimeOriginal=2020:11:20 15:04:02+01:00' \
  "$OUT/3gpp-date.mp4"

mkdir -p "$OUT/Audio" "$OUT/Images"
tone() { ff -f lavfi -i "sine=frequency=440:duration=0.2" -fflags +bitexact -map_metadata -1 "$@"; }
tone -id3v2_version 4 "$OUT/Audio/tone.mp3"
tone -id3v2_version 0 "$OUT/Audio/tone-no-id3.mp3"
tone "$OUT/Audio/tone.wav"
tone "$OUT/Audio/tone.aac"
tone "$OUT/Audio/tone.flac"
tone -c:a libvorbis "$OUT/Audio/tone.ogg"
tone -c:a libopus "$OUT/Audio/tone.opus"
tone -c:a aac "$OUT/Audio/tone.m4a"
tone -c:a aac -f mp4 "$OUT/Audio/tone-isom.m4a"
tone -c:a aac -f mov "$OUT/Audio/tone-qt.m4a"

for ext in pcx tga sgi pbm pgm ppm pam qoi; do
  ff -f lavfi -i "testsrc=size=24x12:rate=1:duration=1" -frames:v 1 -fflags +bitexact \
    -flags +bitexact -update 1 "$OUT/Images/image.$ext"
done
cp "$OUT/Images/image.pcx" "$OUT/Images/pcx-named.jpg"

ff -f lavfi -i "testsrc=size=24x12:rate=1:duration=1" -frames:v 1 -fflags +bitexact \
  -flags +bitexact -update 1 "$OUT/xmp-day.png"
cp "$OUT/xmp-day.png" "$OUT/xmp-day-and-time.png"
exiftool -q -overwrite_original -XMP-xmp:CreateDate=2019-09-02 "$OUT/xmp-day.png"
exiftool -q -overwrite_original -XMP-photoshop:DateCreated=2019-09-02 \
  '-XMP-xmp:CreateDate=2019-09-03T10:11:12' "$OUT/xmp-day-and-time.png"

ff -f lavfi -i "testsrc=size=24x12:rate=1:duration=1" -frames:v 1 -fflags +bitexact \
  -flags +bitexact -update 1 "$TMPDIR_EDGE/plain.jpg"
python3 - "$TMPDIR_EDGE/plain.jpg" "$OUT/dnl.jpg" <<'PY'
import struct, sys
data = bytearray(open(sys.argv[1], "rb").read())
position = 2
while True:  # the marker segments up to SOS
    marker, length = data[position + 1], struct.unpack(">H", data[position + 2:position + 4])[0]
    if marker == 0xC0:
        height = struct.unpack(">H", data[position + 5:position + 7])[0]
        data[position + 5:position + 7] = b"\0\0"  # SOF0 Y = 0: the DNL gives it
    if marker == 0xDA:
        break
    position += 2 + length
assert data[-2:] == b"\xff\xd9"
data[-2:-2] = b"\xff\xdc" + struct.pack(">HH", 4, height)
open(sys.argv[2], "wb").write(data)
PY

# EXIF written byte by byte (big-endian TIFF): IFD0, the EXIF IFD, the GPS IFD, values.
for variant in gps-first gps-bad no-camera-name; do
  python3 - "$TMPDIR_EDGE/plain.jpg" "$OUT/htc-$variant.jpg" "$variant" <<'PY'
import struct, sys
src, out, variant = sys.argv[1], sys.argv[2], sys.argv[3]

def ascii_(text):
    return text.encode() + b"\0"

def tiff(entries0, exif_entries, gps_entries, gps_pointer=None, order="sorted"):
    """Big-endian TIFF: IFD0 at 8, then the EXIF IFD, the GPS IFD, then the values."""
    # entries: (tag, type, count, value bytes)
    def ifd_size(n):
        return 2 + 12 * n + 4
    n0 = len(entries0) + 2
    ifd0 = 8
    exif = ifd0 + ifd_size(n0)
    gps = exif + ifd_size(len(exif_entries))
    data_start = gps + ifd_size(len(gps_entries))
    blob = bytearray()
    def place(value):
        nonlocal blob
        if len(value) <= 4:
            return value + bytes(4 - len(value))
        offset = data_start + len(blob)
        blob += value + (b"\0" if len(value) % 2 else b"")
        return struct.pack(">I", offset)
    def ifd(entries):
        out = struct.pack(">H", len(entries))
        for tag, kind, count, value in entries:
            out += struct.pack(">HHI", tag, kind, count) + place(value)
        return out + struct.pack(">I", 0)
    pointer = gps if gps_pointer is None else gps_pointer
    all0 = entries0 + [(0x8769, 4, 1, struct.pack(">I", exif)), (0x8825, 4, 1, struct.pack(">I", pointer))]
    if order == "sorted":
        all0.sort(key=lambda e: e[0])
    else:  # the GPS pointer first, as some writers do
        all0.sort(key=lambda e: (e[0] != 0x8825, e[0]))
    body = ifd(all0) + ifd(exif_entries) + ifd(gps_entries)
    return b"MM\0\x2a" + struct.pack(">I", 8) + body + bytes(blob)

make = [(0x010F, 2, 4, ascii_("HTC")), (0x0110, 2, 11, ascii_("HTC One_M8"))]
exif = [(0x9003, 2, 20, ascii_("2016:05:04 03:02:01"))]
gps_ok = [(0x0001, 2, 2, b"N\0"), (0x0002, 5, 3, struct.pack(">6I", 47, 1, 30, 1, 0, 1))]
if variant == "gps-first":
    block = tiff(make, exif, gps_ok, gps_pointer=0xFFFFFF00, order="gps-first")
elif variant == "gps-bad":
    # The GPS IFD's latitude points far past the block, and its count is absurd.
    bad = [(0x0001, 2, 2, b"N\0"), (0x0002, 5, 0x40000000, struct.pack(">I", 0x7FFFFFF0))]
    block = tiff(make, exif, bad)
    # (the placed value is 4 bytes, so it is kept inline as an "offset")
elif variant == "no-camera-name":
    # A clean block without Make and Model, with IFD0's image size.
    size = [(0x0100, 4, 1, struct.pack(">I", 24)), (0x0101, 4, 1, struct.pack(">I", 12))]
    block = tiff(size, exif, gps_ok)
else:
    sys.exit("variant?")
jpeg = open(src, "rb").read()
app1 = b"Exif\0\0" + block
segment = b"\xff\xe1" + struct.pack(">H", len(app1) + 2) + app1
open(out, "wb").write(jpeg[:2] + segment + jpeg[2:])
PY
done

# GoPro's udta, put at the end of FFmpeg's moov (which follows mdat: no offset moves).
ff -f lavfi -i "color=c=teal:size=16x16:rate=5:duration=0.2" -c:v libx264 -preset veryslow \
  -crf 45 -pix_fmt yuv420p -threads 1 -x264-params threads=1 -fflags +bitexact \
  -flags:v +bitexact -map_metadata -1 -f mp4 "$TMPDIR_EDGE/plain.mp4"
python3 - "$TMPDIR_EDGE/plain.mp4" "$OUT/gopro-max.mp4" <<'PY'
import struct, sys
data = bytearray(open(sys.argv[1], "rb").read())
def box(kind, body):
    return struct.pack(">I", 8 + len(body)) + kind + body
def klv(key, kind, size, repeat, body):
    body += bytes(-len(body) % 4)
    return key + bytes([kind, size]) + struct.pack(">H", repeat) + body
def text(key, value):
    return klv(key, ord("c"), len(value), 1, value.encode())
devc = (klv(b"DVID", ord("L"), 4, 1, struct.pack(">I", 1)) + text(b"DVNM", "Global Settings")
        + text(b"FMWR", "H19.03.02.00.00") + text(b"MINF", "GoPro Max"))
gpmf = klv(b"DEVC", 0, 1, len(devc), devc)
udta = box(b"udta", box(b"FIRM", b"H19.03.02.00.00") + box(b"CAME", bytes(range(16)))
           + box(b"GPMF", gpmf))
offset = 0
while offset < len(data):
    size = struct.unpack(">I", data[offset:offset + 4])[0]
    if data[offset + 4:offset + 8] == b"moov":
        assert offset + size == len(data), "moov must be last"
        data[offset:offset + 4] = struct.pack(">I", size + len(udta))
        data += udta
        break
    offset += size
else:
    sys.exit("no moov")
open(sys.argv[2], "wb").write(data)
PY

# An AVCHD stream: x264's raw H.264 with an MDPM SEI unit before the first IDR slice
# (Fixtures/insert-mdpm.py), put in an M2TS (192-byte packets) without re-encoding, through an MP4 for its timestamps.
ff -f lavfi -i 'testsrc=size=160x120:rate=10:duration=1' -c:v libx264 -preset veryslow \
  -crf 40 -pix_fmt yuv420p -threads 1 -x264-params threads=1 -fflags +bitexact \
  -flags:v +bitexact -map_metadata -1 -f h264 "$TMPDIR_EDGE/sony.264"
# MDPM entries: zone +9 h (9 << 1) and 2019-03-04 05:06:07 (BCD), the maker code 0x0108
# (Sony), the model "ILCE-7M3" in tags 0xe4-0xe6.
python3 ../../../Fixtures/insert-mdpm.py "$TMPDIR_EDGE/sony.264" 18=12201903 19=04050607 \
  E0=01080000 E4=494c4345 E5=2d374d33 E6=00000000
ffmpeg -nostdin -hide_banner -loglevel error -y -r 10 -i "$TMPDIR_EDGE/sony.264" -c copy \
  -fflags +bitexact "$TMPDIR_EDGE/sony.mp4"
ffmpeg -nostdin -hide_banner -loglevel error -y -i "$TMPDIR_EDGE/sony.mp4" -c copy \
  -fflags +bitexact -map_metadata -1 -mpegts_m2ts_mode 1 -f mpegts "$OUT/sony.MTS"

exiftool -a -G1 -s -Make -Model -DateTimeOriginal -GPSLatitude "$OUT"/htc-*.jpg \
  "$OUT/gopro-max.mp4" "$OUT/sony.MTS"

# A HEIC motion photo as Samsung and Google phones write it: the video in a top-level mpvd
# box after the image (ExifTool writes the XMP item, Python appends the box).
ff -f lavfi -i "color=c=teal:size=16x16:rate=5:duration=0.4" -c:v libx264 -preset veryslow \
  -crf 45 -pix_fmt yuv420p -threads 1 -x264-params threads=1 -fflags +bitexact \
  -flags:v +bitexact -map_metadata -1 -metadata creation_time=2022-03-04T05:06:08Z \
  -f mp4 "$TMPDIR_EDGE/motion.mp4"
cat >"$TMPDIR_EDGE/motion.xmp" <<'XMP'
<x:xmpmeta xmlns:x="adobe:ns:meta/">
 <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
  <rdf:Description rdf:about=""
    xmlns:GCamera="http://ns.google.com/photos/1.0/camera/"
    xmlns:Container="http://ns.google.com/photos/1.0/container/"
    xmlns:Item="http://ns.google.com/photos/1.0/container/item/"
    GCamera:MotionPhoto="1" GCamera:MotionPhotoVersion="1"
    GCamera:MotionPhotoPresentationTimestampUs="0">
   <Container:Directory>
    <rdf:Seq>
     <rdf:li rdf:parseType="Resource">
      <Container:Item Item:Mime="image/heic" Item:Semantic="Primary" Item:Length="0" Item:Padding="0"/>
     </rdf:li>
     <rdf:li rdf:parseType="Resource">
      <Container:Item Item:Mime="video/mp4" Item:Semantic="MotionPhoto" Item:Length="80" Item:Padding="0"/>
     </rdf:li>
    </rdf:Seq>
   </Container:Directory>
  </rdf:Description>
 </rdf:RDF>
</x:xmpmeta>
XMP
cp Exiv2/south-east.heic "$TMPDIR_EDGE/still.heic"
exiftool -q -overwrite_original "-XMP<=$TMPDIR_EDGE/motion.xmp" "$TMPDIR_EDGE/still.heic"
python3 - "$TMPDIR_EDGE/still.heic" "$TMPDIR_EDGE/motion.mp4" "$OUT/heic-motion.heic" <<'PY'
import struct, sys
still, video, out = sys.argv[1:]
mp4 = open(video, "rb").read()
open(out, "wb").write(open(still, "rb").read() + struct.pack(">I", 8 + len(mp4)) + b"mpvd" + mp4)
PY

# A Pixel-style Ultra HDR JPEG: the primary, then its gain map (a second JPEG), described by
# an XMP Container directory; no video.
ff -f lavfi -i "testsrc=size=24x12:rate=1:duration=1" -frames:v 1 -fflags +bitexact \
  -flags +bitexact -update 1 "$TMPDIR_EDGE/gainmap.jpg"
GAINMAP_LENGTH=$(stat -c %s "$TMPDIR_EDGE/gainmap.jpg")
cat >"$TMPDIR_EDGE/ultra-hdr.xmp" <<XMP
<x:xmpmeta xmlns:x="adobe:ns:meta/">
 <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
  <rdf:Description rdf:about=""
    xmlns:hdrgm="http://ns.adobe.com/hdr-gain-map/1.0/"
    xmlns:Container="http://ns.google.com/photos/1.0/container/"
    xmlns:Item="http://ns.google.com/photos/1.0/container/item/"
    hdrgm:Version="1.0">
   <Container:Directory>
    <rdf:Seq>
     <rdf:li rdf:parseType="Resource">
      <Container:Item Item:Semantic="Primary" Item:Mime="image/jpeg"/>
     </rdf:li>
     <rdf:li rdf:parseType="Resource">
      <Container:Item Item:Semantic="GainMap" Item:Mime="image/jpeg" Item:Length="$GAINMAP_LENGTH"/>
     </rdf:li>
    </rdf:Seq>
   </Container:Directory>
  </rdf:Description>
 </rdf:RDF>
</x:xmpmeta>
XMP
cp "$TMPDIR_EDGE/plain.jpg" "$TMPDIR_EDGE/primary.jpg"
exiftool -q -overwrite_original -Make=Google -Model="Pixel 8" \
  '-DateTimeOriginal=2024:05:06 07:08:09' "-XMP<=$TMPDIR_EDGE/ultra-hdr.xmp" \
  "$TMPDIR_EDGE/primary.jpg"
cat "$TMPDIR_EDGE/primary.jpg" "$TMPDIR_EDGE/gainmap.jpg" >"$OUT/ultra-hdr.jpg"

ff -f lavfi -i "testsrc=size=16x16:rate=2:duration=1" -c:v libaom-av1 -still-picture 0 \
  -cpu-used 8 -crf 63 -threads 1 -pix_fmt yuv420p -fflags +bitexact -flags:v +bitexact \
  -map_metadata -1 -metadata creation_time=2021-05-06T07:08:09Z -f avif "$OUT/avis-date.avif"

exiftool -a -G1 -s -MotionPhoto -DirectoryItemSemantic -DirectoryItemLength "$OUT/heic-motion.heic" \
  "$OUT/ultra-hdr.jpg"
exiftool -a -G1 -s -DateTimeOriginal -DateCreated -CreateDate "$OUT"
exiftool -s -FileType -ImageSize -Duration "$OUT/Audio" "$OUT/Images" "$OUT/dnl.jpg"
exiftool -a -G1 -s -XMP:all "$OUT"/xmp-day*.png
ls -lR "$OUT"

