#!/usr/bin/env bash
# Makes Fixtures/Library, the small sample photo library bundled with GroupEnumerator.
#
# It deletes Fixtures/Library and builds it again from nothing; it writes nothing
# outside Fixtures/ (its scratch folder is Fixtures/.make-library.tmp, removed at the end).
# Every picture is drawn here, every tag is written here: nothing is copied from elsewhere.
# Fixtures/README.md lists each file and the values the engine should read from it.
#
# Tools (Debian 12 packages; the output is byte-for-byte reproducible with these versions,
# other versions make equivalent files that may differ in bytes):
#   ImageMagick 6.9.11-60 Q16  (imagemagick-6.q16 8:6.9.11.60+dfsg-1.6+deb12u15), called as
#                              /usr/bin/convert — never a `convert` found first on PATH
#   ExifTool 12.57             (libimage-exiftool-perl 12.57+dfsg-1)
#   FFmpeg 5.1.9               (ffmpeg 7:5.1.9-0+deb12u1) with libx264 core 164
#   coreutils (head, touch), findutils (find)
#
# File modification times are set to one fixed instant so a fresh run is reproducible,
# but git does not keep mtimes: tests must not depend on them.
#
# Usage: Fixtures/make-library.sh   (from anywhere; takes no arguments)
set -euo pipefail
export LC_ALL=C.UTF-8 TZ=UTC
umask 022

CONVERT=/usr/bin/convert
FIXED_MTIME='2022-01-01 00:00:00 UTC'

die() { echo "make-library.sh: $*" >&2; exit 1; }

[ $# -eq 0 ] || die "takes no arguments"
[ -x "$CONVERT" ] || die "$CONVERT is missing (apt-get install imagemagick)"
"$CONVERT" -version | grep -q '^Version: ImageMagick' || die "$CONVERT is not ImageMagick"
command -v exiftool >/dev/null || die "exiftool is missing (apt-get install libimage-exiftool-perl)"
command -v ffmpeg >/dev/null || die "ffmpeg is missing (apt-get install ffmpeg)"
[ "$(exiftool -ver)" = 12.57 ] || echo "make-library.sh: note: exiftool $(exiftool -ver), not 12.57" >&2

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
[ "$(basename "$HERE")" = Fixtures ] || die "expected to live in a folder named Fixtures, not $HERE"
LIB="$HERE/Library"
TMP="$HERE/.make-library.tmp"

rm -rf -- "$LIB" "$TMP"
mkdir -p -- "$LIB" "$TMP"
trap 'rm -rf -- "$TMP"' EXIT

# picture OUT WxH FROM TO LABEL [extra convert options before the output...]
# A two-colour gradient with a white label: small, distinct, and easy to recognise.
picture() {
  local out=$1 size=$2 from=$3 to=$4 label=$5
  shift 5
  "$CONVERT" -size "$size" "gradient:$from-$to" \
    -font DejaVu-Sans -pointsize 14 -fill white -gravity center -annotate +0+0 "$label" \
    "$@" -strip -sampling-factor 4:2:0 -quality 60 "$out"
}

# tag FILE EXIFTOOL-ARGS... — writes tags in place, numeric values (-n), no backup copy.
tag() {
  local file=$1
  shift
  exiftool -q -n -overwrite_original "$@" -- "$file"
}

mkdir -p "$LIB/DCIM/100APPLE" "$LIB/Trips/Kyoto 2019/Day 2" "$LIB/Família" \
  "$LIB/Screenshots" "$LIB/Broken" "$LIB/Videos" "$LIB/.thumbnails" \
  "$LIB/@eaDir/IMG_0001.JPG"

# --- Camera Roll: root files ------------------------------------------------------------
# DateTimeOriginal with offset and sub-seconds, a different DateTime, GPS north-east + altitude.
picture "$LIB/IMG_0001.JPG" 160x120 '#c0392b' '#f1c40f' 'IMG_0001'
tag "$LIB/IMG_0001.JPG" \
  -Make=Canon -Model='Canon EOS 80D' \
  -DateTimeOriginal='2019:04:05 14:30:15' -OffsetTimeOriginal='+09:00' \
  -SubSecTimeOriginal=123 -ModifyDate='2019:04:06 09:00:00' \
  -GPSLatitude=35.0116 -GPSLatitudeRef=N -GPSLongitude=135.7681 -GPSLongitudeRef=E \
  -GPSAltitude=50 -GPSAltitudeRef=0

# No EXIF at all: the creation date can only come from the file's mtime.
picture "$LIB/IMG_0002.jpg" 160x120 '#16a085' '#2c3e50' 'IMG_0002'

# Hidden file: a valid JPEG that must be skipped.
picture "$LIB/.hidden.jpg" 64x48 '#000000' '#ffffff' 'hidden'

# --- Camera Roll: DCIM ------------------------------------------------------------------
# Apple camera, GPS south-west without altitude, offset -03:00.
picture "$LIB/DCIM/100APPLE/IMG_0100.JPG" 160x120 '#27ae60' '#f39c12' 'IMG_0100'
tag "$LIB/DCIM/100APPLE/IMG_0100.JPG" \
  -Make=Apple -Model='iPhone 8' \
  -DateTimeOriginal='2020:02:22 16:45:00' -OffsetTimeOriginal='-03:00' \
  -ModifyDate='2020:02:22 16:45:00' \
  -GPSLatitude=22.9068 -GPSLatitudeRef=S -GPSLongitude=43.1729 -GPSLongitudeRef=W

# Orientation 6 (rotate 90° clockwise to display): stored 160x120, displayed 120x160.
# The upright 120x160 picture is stored turned 90° anticlockwise, so it looks right once
# a viewer applies the orientation.
picture "$LIB/DCIM/100APPLE/IMG_0101.JPG" 120x160 '#8e44ad' '#3498db' $'IMG_0101\n↑ up' \
  -rotate -90
tag "$LIB/DCIM/100APPLE/IMG_0101.JPG" \
  -Make=Apple -Model='iPhone 8' -Orientation=6 \
  -DateTimeOriginal='2020:03:03 08:00:00' -ModifyDate='2020:03:03 08:00:00'

# QuickTime movie: mvhd time 10:00Z and Apple keys (creation date at +09:00, ISO 6709).
ffmpeg -nostdin -hide_banner -loglevel error \
  -f lavfi -i 'testsrc=size=64x48:rate=10:duration=1' \
  -c:v libx264 -preset veryslow -crf 35 -pix_fmt yuv420p -threads 1 -x264-params threads=1 \
  -fflags +bitexact -flags:v +bitexact -map_metadata -1 \
  -metadata creation_time=2021-06-01T10:00:00Z \
  -metadata 'com.apple.quicktime.creationdate=2021-06-01T19:00:00+0900' \
  -metadata 'com.apple.quicktime.location.ISO6709=+35.0116+135.7681+050.000/' \
  -movflags use_metadata_tags -f mov "$LIB/DCIM/100APPLE/IMG_0102.MOV"

# A Live Photo: a HEIC still (libheif through ImageMagick) and its movie, one shot — the same
# base name, and capture times one second apart at +09:00. The movie carries Apple's keys.
"$CONVERT" -size 64x48 'gradient:#16a085-#f1c40f' -font DejaVu-Sans -pointsize 12 -fill white \
  -gravity center -annotate +0+0 'Live' -strip -quality 40 "$LIB/DCIM/100APPLE/IMG_0200.HEIC"
tag "$LIB/DCIM/100APPLE/IMG_0200.HEIC" -Make=Apple -Model='iPhone 12' \
  -DateTimeOriginal='2021:06:05 18:30:00' -OffsetTimeOriginal='+09:00' \
  -ModifyDate='2021:06:05 18:30:00' \
  -GPSLatitude=35.0394 -GPSLatitudeRef=N -GPSLongitude=135.7292 -GPSLongitudeRef=E
ffmpeg -nostdin -hide_banner -loglevel error \
  -f lavfi -i 'testsrc=size=64x48:rate=10:duration=1.5' \
  -c:v libx264 -preset veryslow -crf 40 -pix_fmt yuv420p -threads 1 -x264-params threads=1 \
  -fflags +bitexact -flags:v +bitexact -map_metadata -1 \
  -metadata creation_time=2021-06-05T09:30:01Z \
  -metadata 'com.apple.quicktime.creationdate=2021-06-05T18:30:01+0900' \
  -metadata 'com.apple.quicktime.content.identifier=5D1E4B7A-2C3F-4E8B-9A61-0F2D7C3B8E45' \
  -movflags use_metadata_tags -f mov "$LIB/DCIM/100APPLE/IMG_0200.MOV"
# The pair's edit recipe, as iOS exports it beside a Live Photo: a sidecar. The engine lists
# it as a resource (role `sidecar`) of the Live Photo and never reads it.
printf '%s\n' '<?xml version="1.0" encoding="UTF-8"?>' \
  '<plist version="1.0"><dict><key>adjustmentFormatIdentifier</key><string>com.apple.photo</string></dict></plist>' \
  >"$LIB/DCIM/100APPLE/IMG_0200.AAE"

# --- Albums -----------------------------------------------------------------------------
# Folder name with a space; GPS north-west with the altitude below sea level.
picture "$LIB/Trips/Kyoto 2019/trip-01.jpg" 160x120 '#2980b9' '#ecf0f1' 'trip-01'
tag "$LIB/Trips/Kyoto 2019/trip-01.jpg" \
  -DateTimeOriginal='2019:11:02 10:15:00' -OffsetTimeOriginal='-04:00' \
  -ModifyDate='2019:11:02 10:15:00' \
  -GPSLatitude=40.7128 -GPSLatitudeRef=N -GPSLongitude=74.0060 -GPSLongitudeRef=W \
  -GPSAltitude=5 -GPSAltitudeRef=1
# An XMP sidecar named darktable's way (the whole file name, then .xmp): a resource of
# trip-01.jpg, never read.
printf '%s\n' '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:Rating="4"/></rdf:RDF></x:xmpmeta>' \
  >"$LIB/Trips/Kyoto 2019/trip-01.jpg.xmp"

# An EXIF thumbnail in IFD1 (a 32x24 JPEG, itself without metadata).
picture "$TMP/thumb.jpg" 32x24 '#d35400' '#f1c40f' ''
picture "$LIB/Trips/Kyoto 2019/trip-02.jpg" 160x120 '#d35400' '#f1c40f' 'trip-02'
tag "$LIB/Trips/Kyoto 2019/trip-02.jpg" \
  -DateTimeOriginal='2019:11:03 12:00:00' -ModifyDate='2019:11:03 12:00:00' \
  "-ThumbnailImage<=$TMP/thumb.jpg"

# Nested album; only DateTimeDigitized (ExifIFD CreateDate), no DateTime, no DateTimeOriginal.
picture "$LIB/Trips/Kyoto 2019/Day 2/trip-03.jpg" 160x120 '#7f8c8d' '#1abc9c' 'trip-03'
tag "$LIB/Trips/Kyoto 2019/Day 2/trip-03.jpg" -CreateDate='2019:11:04 09:30:00'

# Non-ASCII folder name (NFC "í"); GPS south-east; only TIFF DateTime, so the date falls back
# to it. The only little-endian ("II") EXIF block here; exiftool writes the others big-endian.
picture "$LIB/Família/praia.jpg" 160x120 '#f39c12' '#2980b9' 'praia'
tag "$LIB/Família/praia.jpg" -ExifByteOrder=II -ModifyDate='2018:12:25 18:00:00' \
  -GPSLatitude=33.8688 -GPSLatitudeRef=S -GPSLongitude=151.2093 -GPSLongitudeRef=E

# A PNG without any metadata (no date chunks either).
"$CONVERT" -size 160x120 pattern:checkerboard -font DejaVu-Sans -pointsize 14 -fill red \
  -gravity center -annotate +0+0 'screenshot' -strip -define png:exclude-chunks=date,time \
  "$LIB/Screenshots/screenshot.png"

# Broken files: still listed (with problems), never fatal. notes.txt is not media: it is
# listed as an asset of its own with an `unsupported` problem, and never read.
picture "$TMP/whole.jpg" 160x120 '#c0392b' '#2c3e50' 'broken'
tag "$TMP/whole.jpg" -DateTimeOriginal='2017:01:01 00:00:00' -ModifyDate='2017:01:01 00:00:00' \
  -GPSLatitude=1 -GPSLatitudeRef=N -GPSLongitude=1 -GPSLongitudeRef=E
head -c 200 "$TMP/whole.jpg" >"$LIB/Broken/broken.jpg"
: >"$LIB/Broken/empty.jpg"
printf 'Not a picture. The enumerator lists it with a problem.\n' >"$LIB/Broken/notes.txt"

# Skipped folders: a hidden one and a Synology NAS thumbnail folder.
picture "$LIB/.thumbnails/IMG_0001.jpg" 64x48 '#000000' '#c0392b' 'thumb'
picture "$LIB/@eaDir/IMG_0001.JPG/SYNOPHOTO_THUMB_S.jpg" 64x48 '#000000' '#27ae60' 'eaDir'

# The last album in name order, and its last file, is a video: the engine must still finish.
ffmpeg -nostdin -hide_banner -loglevel error \
  -f lavfi -i 'testsrc2=size=64x48:rate=10:duration=1' \
  -c:v libx264 -preset veryslow -crf 35 -pix_fmt yuv420p -threads 1 -x264-params threads=1 \
  -fflags +bitexact -flags:v +bitexact -map_metadata -1 \
  -metadata creation_time=2021-07-04T12:00:00Z -f mp4 "$LIB/Videos/clip.mp4"

# An AVI: its header list gives the size and duration; it holds no date, so the date is the
# file's own time.
ffmpeg -nostdin -hide_banner -loglevel error \
  -f lavfi -i 'testsrc2=size=32x24:rate=5:duration=0.4' \
  -c:v mjpeg -q:v 20 -threads 1 -fflags +bitexact -flags:v +bitexact -map_metadata -1 \
  -f avi "$LIB/Videos/old.avi"

# --- Fixed permissions and times --------------------------------------------------------
find "$LIB" -type d -exec chmod 0755 {} +
find "$LIB" -type f -exec chmod 0644 {} +
find "$LIB" -depth -exec touch -h -d "$FIXED_MTIME" {} +

echo "Made $LIB ($(find "$LIB" -type f | wc -l) files, $(du -sk "$LIB" | cut -f1) KB on disk)"
