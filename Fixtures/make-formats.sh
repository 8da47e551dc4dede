#!/usr/bin/env bash
# Makes Fixtures/Formats: small files of the formats our own bounded readers take (PSD,
# JPEG 2000, Canon CRW, Minolta MRW, AVCHD M2TS) and two the pictures need (a DNG without
# a JPEG preview, a DV frame), with EXIF, XMP and camera records whose
# values the tests assert. Fixtures/Formats.md lists each file and what exiftool reads
# from it.
#
# It deletes Fixtures/Formats and builds it again from nothing; it writes nothing outside
# Fixtures/ (scratch: Fixtures/.make-formats.tmp, removed at the end). Pictures are drawn
# here, tags written here; the CRW and MRW containers, which no tool here writes, are put
# together byte by byte from their layouts (CIFF 1.0r4; exiftool's MinoltaRaw tags), and
# the AVCHD `MDPM` recording date is an SEI message written here into an FFmpeg/x264
# stream. Nothing is copied from elsewhere.
#
# Tools (Debian 12 packages): ImageMagick 6.9.11 as /usr/bin/convert (OpenJPEG for JP2),
# ExifTool 12.57, FFmpeg 5.1 with libx264, Python 3.
#
# Usage: Fixtures/make-formats.sh   (from anywhere; takes no arguments)
set -euo pipefail
export LC_ALL=C.UTF-8 TZ=UTC
umask 022

CONVERT=/usr/bin/convert
FIXED_MTIME='2022-01-01 00:00:00 UTC'

die() { echo "make-formats.sh: $*" >&2; exit 1; }

[ $# -eq 0 ] || die "takes no arguments"
[ -x "$CONVERT" ] || die "$CONVERT is missing (apt-get install imagemagick)"
command -v exiftool >/dev/null || die "exiftool is missing (apt-get install libimage-exiftool-perl)"
command -v ffmpeg >/dev/null || die "ffmpeg is missing (apt-get install ffmpeg)"
command -v python3 >/dev/null || die "python3 is missing"

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
[ "$(basename "$HERE")" = Fixtures ] || die "expected to live in a folder named Fixtures, not $HERE"
LIB="$HERE/Formats"
TMP="$HERE/.make-formats.tmp"

rm -rf -- "$LIB" "$TMP"
mkdir -p -- "$LIB" "$TMP"
trap 'rm -rf -- "$TMP"' EXIT

# tag FILE EXIFTOOL-ARGS... — writes tags in place, raw values (-n), no backup copy.
tag() {
  local file=$1
  shift
  exiftool -q -n -overwrite_original "$@" -- "$file"
}

# --- PSD --------------------------------------------------------------------------------------
# EXIF in image resource 0x0422: Orientation 6 (so displayed 32x48), date with offset, GPS.
"$CONVERT" -size 48x32 'gradient:#c0392b-#2980b9' -strip "$LIB/exif.psd"
tag "$LIB/exif.psd" -Orientation=6 -DateTimeOriginal='2021:03:04 05:06:07' \
  -OffsetTimeOriginal='+09:00' -GPSLatitude=35.0116 -GPSLatitudeRef=N \
  -GPSLongitude=135.7681 -GPSLongitudeRef=E
# Only XMP (resource 0x0424): the date and place come from it.
"$CONVERT" -size 40x30 'gradient:#27ae60-#8e44ad' -strip "$LIB/xmp-only.psd"
tag "$LIB/xmp-only.psd" '-XMP-exif:DateTimeOriginal=2020:02:03 04:05:06+01:00' \
  '-XMP-exif:GPSLatitude=48.8584' '-XMP-exif:GPSLongitude=2.2945'

# --- JPEG 2000 --------------------------------------------------------------------------------
# A JP2 with EXIF (exiftool writes it in a `uuid` box named JpgTiffExif->JP2), and a bare
# codestream (size only).
"$CONVERT" -size 50x20 'gradient:#f39c12-#16a085' -strip "$LIB/exif.jp2"
tag "$LIB/exif.jp2" -DateTimeOriginal='2019:11:12 13:14:15' -GPSLatitude=51.5007 \
  -GPSLatitudeRef=N -GPSLongitude=0.1246 -GPSLongitudeRef=W
"$CONVERT" -size 36x28 'gradient:#34495e-#ecf0f1' -strip "$LIB/bare.j2k"

# --- Canon CRW (CIFF) and Minolta MRW ---------------------------------------------------------
# The MRW's TTW block is a TIFF made here: IFD0 with Make, Model, Orientation 8 and ModifyDate,
# an EXIF IFD with DateTimeOriginal, a GPS IFD.
"$CONVERT" -size 8x6 xc:gray -strip -compress none "$TMP/ttw.tif"
tag "$TMP/ttw.tif" '-Make=Konica Minolta Camera, Inc.' '-Model=DiMAGE A2' -Orientation=8 \
  '-ModifyDate=2004:11:18 23:14:58' '-DateTimeOriginal=2004:11:18 23:14:58' \
  -GPSLatitude=45.4642 -GPSLatitudeRef=N -GPSLongitude=9.19 -GPSLongitudeRef=E
python3 - "$LIB" "$TMP/ttw.tif" <<'PY'
import calendar, struct, sys
lib, ttw_path = sys.argv[1], sys.argv[2]

# CRW: "II", header length 26, "HEAPCCDR", version 1.2, 8 reserved bytes; the root heap is
# the rest of the file. A heap is its records' data, then the record table (count, then
# type/size/offset records of 10 bytes, offsets from the heap's start), then the table's
# offset in its last four bytes.
def heap(records):
    data, table = b'', b''
    for kind, value in records:
        table += struct.pack('<HII', kind, len(value), len(data))
        data += value
    return data + struct.pack('<H', len(records)) + table + struct.pack('<I', len(data))

captured = calendar.timegm((2003, 11, 10, 17, 39, 26, 0, 0, 0))  # the camera's clock
image_info = struct.pack('<IIfiIII', 2048, 1536, 1.0, 90, 8, 24, 0x101)  # rotation 90
make_model = b'Canon\0Canon EOS 300D DIGITAL\0'
camera_object = heap([(0x080A, make_model)])
image_props = heap([
    (0x1810, image_info),
    (0x180E, struct.pack('<IiI', captured, 0, 0)),
    (0x2807, camera_object),
])
root = heap([(0x300A, image_props)])
crw = b'II' + struct.pack('<I', 26) + b'HEAPCCDR' + struct.pack('<I', 0x00010002) + b'\0' * 8
open(f'{lib}/camera.crw', 'wb').write(crw + root)

# MRW: "\0MRM", the length of the blocks, then blocks of a tag, a big-endian length and
# the data: PRD (firmware ID, sensor height/width, image height/width, ...), TTW (TIFF),
# WBG (white balance), then the "raw data" (a few bytes here).
ttw = open(ttw_path, 'rb').read()
prd = b'21810002' + struct.pack('>HHHHBBBBHH', 2456, 3272, 2448, 3264, 12, 12, 0x59, 0, 0, 1)
wbg = bytes([2, 2, 2, 2]) + struct.pack('>HHHH', 0x1B6, 0x100, 0x100, 0x1FD)
def block(tag, data):
    return tag + struct.pack('>I', len(data)) + data
blocks = block(b'\0PRD', prd) + block(b'\0TTW', ttw) + block(b'\0WBG', wbg)
open(f'{lib}/camera.mrw', 'wb').write(b'\0MRM' + struct.pack('>I', len(blocks)) + blocks
                                      + bytes(range(64)))
PY

# --- AVCHD M2TS -------------------------------------------------------------------------------
# x264 at 160x120 (coded 160x128: the SPS crops 8 rows), 2 s at 10 fps, as raw H.264; then
# insert-mdpm.py puts the recording date 2008-12-31 23:16:24 +01:00 (MDPM tags 0x18 and
# 0x19, BCD) before the first slice, and the stream is put in an M2TS (192-byte packets)
# without re-encoding (through an MP4, which gives the raw stream its timestamps).
ffmpeg -nostdin -hide_banner -loglevel error -f lavfi -i 'testsrc=size=160x120:rate=10:duration=2' \
  -c:v libx264 -preset veryslow -crf 40 -pix_fmt yuv420p -threads 1 -x264-params threads=1 \
  -fflags +bitexact -flags:v +bitexact -map_metadata -1 -f h264 "$TMP/avchd.264"
# MDPM entries: 0x18: zone byte 0x02 (+1 h), year 20 08, month 12; 0x19: day 31, 23:16:24.
python3 "$HERE/insert-mdpm.py" "$TMP/avchd.264" 18=02200812 19=31231624
ffmpeg -nostdin -hide_banner -loglevel error -r 10 -i "$TMP/avchd.264" -c copy -fflags +bitexact \
  "$TMP/avchd.mp4"
ffmpeg -nostdin -hide_banner -loglevel error -i "$TMP/avchd.mp4" -c copy -fflags +bitexact \
  -map_metadata -1 -mpegts_m2ts_mode 1 -f mpegts "$LIB/00002.MTS"

# --- DNG without a JPEG preview ------------------------------------------------------------
# A 48x32 RGB gradient (ImageMagick, an uncompressed TIFF) as the first image, marked as a
# DNG's reduced-resolution picture (SubfileType 1, DNGVersion 1.4): what a DNG converter
# keeps in IFD0. No JPEG preview and no sensor data: the picture is that first image,
# which libvips's TIFF loader reads.
$CONVERT -size 48x32 gradient:red-blue -depth 8 -type TrueColor -compress none \
  -define tiff:rows-per-strip=32 "TIFF:$TMP/reduced.tif"
exiftool -q -overwrite_original -DNGVersion=1.4.0.0 -SubfileType#=1 -Make=GroupEnumerator \
  -Model='Fixture DNG' -DateTimeOriginal='2020:06:07 08:09:10' "$TMP/reduced.tif"
cp -- "$TMP/reduced.tif" "$LIB/reduced.dng"

# --- DV ----------------------------------------------------------------------------------------
# One NTSC DV frame (720x480, 4:1:1, as a MiniDV camcorder records) of FFmpeg's test
# pattern, no sound: 120,000 bytes.
ffmpeg -nostdin -hide_banner -loglevel error -f lavfi -i 'testsrc=size=720x480:rate=30000/1001' \
  -frames:v 1 -target ntsc-dv -an -fflags +bitexact -flags:v +bitexact -map_metadata -1 \
  "$LIB/camcorder.dv"

find "$LIB" -depth -exec touch -h -d "$FIXED_MTIME" {} +
echo "make-formats.sh: $(find "$LIB" -type f | wc -l) files in $LIB"
