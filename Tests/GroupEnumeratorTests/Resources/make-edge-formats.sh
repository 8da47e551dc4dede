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
#   dnl.jpg             a 24x12 baseline JPEG whose SOF0 height is 0 and whose DNL segment
#                       (FF DC, after the scan) gives 12; Python rewrites FFmpeg's JPEG
# FFmpeg writes the AVIs (its muxer puts `-metadata date=` in INFO/ICRD); no tool here
# writes IDIT, so Python puts it where FFmpeg's header list keeps a JUNK chunk, in the
# same bytes, so no other offset moves. ExifTool writes udta/date.
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

exiftool -a -G1 -s -DateTimeOriginal -DateCreated -CreateDate "$OUT"
exiftool -s -FileType -ImageSize -Duration "$OUT/Audio" "$OUT/Images" "$OUT/dnl.jpg"
exiftool -a -G1 -s -XMP:all "$OUT"/xmp-day*.png
ls -lR "$OUT"
