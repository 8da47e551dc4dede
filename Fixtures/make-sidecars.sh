#!/usr/bin/env bash
# Makes Fixtures/Sidecars, a small library of files whose date or place lives only in XMP
# (embedded in PNG, HEIC, TIFF and WebP files) or beside them: `.xmp` sidecars and Google
# Takeout `.json` sidecars, in every name form Takeout uses, plus the conflicts that decide
# precedence and a broken sidecar. Fixtures/Sidecars.md lists each file and the values a
# reader should find.
#
# It deletes Fixtures/Sidecars and builds it again from nothing; it writes nothing outside
# Fixtures/ (scratch: Fixtures/.make-sidecars.tmp, removed at the end). Every picture is drawn
# here and every tag and sidecar written here: nothing is copied from elsewhere. The
# oversize sidecar (over 1 MiB) is not kept here: the tests write it into a temporary folder.
#
# Tools (Debian 12 packages):
#   ImageMagick 6.9.11-60 Q16 as /usr/bin/convert (with libheif 1.15 for HEIC, libwebp)
#   ExifTool 12.57            (libimage-exiftool-perl)
#   coreutils (touch, find)
#
# Usage: Fixtures/make-sidecars.sh   (from anywhere; takes no arguments)
set -euo pipefail
export LC_ALL=C.UTF-8 TZ=UTC
umask 022

CONVERT=/usr/bin/convert
FIXED_MTIME='2022-01-01 00:00:00 UTC'

die() { echo "make-sidecars.sh: $*" >&2; exit 1; }

[ $# -eq 0 ] || die "takes no arguments"
[ -x "$CONVERT" ] || die "$CONVERT is missing (apt-get install imagemagick)"
command -v exiftool >/dev/null || die "exiftool is missing (apt-get install libimage-exiftool-perl)"

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
[ "$(basename "$HERE")" = Fixtures ] || die "expected to live in a folder named Fixtures, not $HERE"
LIB="$HERE/Sidecars"
TMP="$HERE/.make-sidecars.tmp"

rm -rf -- "$LIB" "$TMP"
mkdir -p -- "$LIB/Embedded" "$LIB/XMP" "$LIB/Order" "$LIB/Takeout" "$LIB/Broken" "$TMP"
trap 'rm -rf -- "$TMP"' EXIT

# picture OUT FROM TO — a 32×24 gradient, no metadata at all.
picture() {
  "$CONVERT" -size 32x24 "gradient:$2-$3" -strip -quality 40 "$1"
}

# tag FILE EXIFTOOL-ARGS... — writes tags in place, raw values (-n), no backup copy.
tag() {
  local file=$1
  shift
  exiftool -q -n -overwrite_original "$@" -- "$file"
}

# sidecar OUT EXIFTOOL-ARGS... — a new .xmp sidecar holding just those XMP tags.
sidecar() {
  local out=$1
  shift
  exiftool -q -n -o "$out" "$@"
}

# takeout OUT TITLE TAKEN [LAT LONG ALT] — a Google Takeout sidecar as Takeout writes it
# (the upload time, creationTime, is always 2021-01-01: it must never be used).
takeout() {
  local out=$1 title=$2 taken=$3 lat=${4:-0.0} long=${5:-0.0} alt=${6:-0.0}
  cat >"$out" <<EOF
{
  "title": "$title",
  "description": "",
  "imageViews": "1",
  "creationTime": { "timestamp": "1609459200", "formatted": "Jan 1, 2021, 12:00:00 AM UTC" },
  "photoTakenTime": { "timestamp": "$taken", "formatted": "" },
  "geoData": { "latitude": $lat, "longitude": $long, "altitude": $alt,
    "latitudeSpan": 0.0, "longitudeSpan": 0.0 },
  "geoDataExif": { "latitude": 0.0, "longitude": 0.0, "altitude": 0.0,
    "latitudeSpan": 0.0, "longitudeSpan": 0.0 },
  "url": "https://photos.google.com/photo/AF1QipExample"
}
EOF
}

# --- Embedded XMP only (no EXIF): date and place -----------------------------------------------
place=(-XMP-exif:GPSLatitude=35.6586 -XMP-exif:GPSLongitude=139.7454
  -XMP-exif:GPSAltitude=333 -XMP-exif:GPSAltitudeRef=0)
"$CONVERT" -size 32x24 'gradient:#1abc9c-#2c3e50' -strip "$LIB/Embedded/only-xmp.png"
tag "$LIB/Embedded/only-xmp.png" -XMP-exif:DateTimeOriginal='2021:03:01 10:00:00' "${place[@]}"
picture "$LIB/Embedded/only-xmp.heic" '#1abc9c' '#8e44ad'
tag "$LIB/Embedded/only-xmp.heic" -XMP-exif:DateTimeOriginal='2021:03:02 10:00:00' "${place[@]}"
"$CONVERT" -size 32x24 'gradient:#1abc9c-#c0392b' -strip -compress lzw "$LIB/Embedded/only-xmp.tif"
tag "$LIB/Embedded/only-xmp.tif" -XMP-exif:DateTimeOriginal='2021:03:03 10:00:00' "${place[@]}"
picture "$LIB/Embedded/only-xmp.webp" '#1abc9c' '#f39c12'
tag "$LIB/Embedded/only-xmp.webp" -XMP-xmp:CreateDate='2021:03:04 10:00:00' "${place[@]}"

# --- .xmp sidecars ----------------------------------------------------------------------------
# A JPEG without metadata and its sidecar (base name), and one named the darktable way
# (whole name + .xmp).
picture "$LIB/XMP/DSC_0002.jpg" '#34495e' '#e67e22'
sidecar "$LIB/XMP/DSC_0002.xmp" -XMP-exif:DateTimeOriginal='2021:04:01 08:30:00+09:00' \
  -XMP-exif:GPSLatitude=-33.8568 -XMP-exif:GPSLongitude=151.2153
picture "$LIB/XMP/DSC_0003.JPG" '#34495e' '#27ae60'
sidecar "$LIB/XMP/DSC_0003.JPG.xmp" -XMP-photoshop:DateCreated='2021:04:02 09:00:00'

# --- Precedence: own EXIF > embedded XMP > sidecar XMP > Takeout --------------------------------
# EXIF date (no EXIF place) and a sidecar with another date and a place: the EXIF date
# stays, the place comes from the sidecar.
picture "$LIB/Order/exif.jpg" '#7f8c8d' '#2980b9'
tag "$LIB/Order/exif.jpg" -EXIF:DateTimeOriginal='2021:05:01 12:00:00'
sidecar "$LIB/Order/exif.xmp" -XMP-exif:DateTimeOriginal='2011:11:11 11:11:11' \
  -XMP-exif:GPSLatitude=64.1466 -XMP-exif:GPSLongitude=-21.9426
# Embedded XMP date and place, a sidecar with others: the embedded ones stay.
picture "$LIB/Order/embedded.jpg" '#7f8c8d' '#8e44ad'
tag "$LIB/Order/embedded.jpg" -XMP-exif:DateTimeOriginal='2021:05:02 12:00:00' \
  -XMP-exif:GPSLatitude=1.2834 -XMP-exif:GPSLongitude=103.8607
sidecar "$LIB/Order/embedded.xmp" -XMP-exif:DateTimeOriginal='2011:11:11 11:11:11' \
  -XMP-exif:GPSLatitude=64.1466 -XMP-exif:GPSLongitude=-21.9426
# An .xmp sidecar and a Takeout sidecar: the .xmp date wins; the place, which only the
# Takeout sidecar has, comes from it.
picture "$LIB/Order/both.jpg" '#7f8c8d' '#d35400'
sidecar "$LIB/Order/both.xmp" -XMP-xmp:CreateDate='2021:05:03 12:00:00'
takeout "$LIB/Order/both.jpg.json" both.jpg 1320966671 40.6892 -74.0445 10.0

# --- Google Takeout, every name form -----------------------------------------------------------
picture "$LIB/Takeout/PXL_20210601_120000.jpg" '#2ecc71' '#34495e'
takeout "$LIB/Takeout/PXL_20210601_120000.jpg.supplemental-metadata.json" \
  PXL_20210601_120000.jpg 1622548800 48.8606 2.3376 35.0
# A 40-byte name: with .supplemental-metadata.json it would be 67 bytes, and Takeout cuts
# the whole name to 51: "<name>.suppl.json".
long=Screenshot_20210602-130000_GoogleMap.jpg
[ ${#long} -eq 40 ] || die "the long name is ${#long} bytes, not 40"
picture "$LIB/Takeout/$long" '#2ecc71' '#9b59b6'
cut="$long.supplemental-metadata"
takeout "$LIB/Takeout/${cut:0:46}.json" "$long" 1622638800
# The duplicate form: IMG_0001(1).jpg's sidecar is IMG_0001.jpg(1).json; the original
# IMG_0001.jpg has IMG_0001.jpg.json.
picture "$LIB/Takeout/IMG_0001.jpg" '#2ecc71' '#e74c3c'
takeout "$LIB/Takeout/IMG_0001.jpg.json" IMG_0001.jpg 1622721600
picture "$LIB/Takeout/IMG_0001(1).jpg" '#2ecc71' '#f1c40f'
takeout "$LIB/Takeout/IMG_0001.jpg(1).json" 'IMG_0001(1).jpg' 1622725200
# A .json named like a sidecar that is not one (no title, no photoTakenTime).
picture "$LIB/Takeout/notes.jpg" '#2ecc71' '#95a5a6'
printf '{"app": "notes", "version": 3}\n' >"$LIB/Takeout/notes.jpg.json"

# --- Broken sidecars -----------------------------------------------------------------------------
# Not well-formed XML: a problem on the asset; the asset is listed as without it.
picture "$LIB/Broken/DSC_0004.jpg" '#c0392b' '#34495e'
printf '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF>\n' >"$LIB/Broken/DSC_0004.xmp"
# A Takeout sidecar whose photoTakenTime is not a time.
picture "$LIB/Broken/IMG_0005.jpg" '#c0392b' '#16a085'
takeout "$LIB/Broken/IMG_0005.jpg.json" IMG_0005.jpg soon

find "$LIB" -exec touch -h -d "$FIXED_MTIME" {} +
echo "make-sidecars.sh: wrote $(find "$LIB" -type f | wc -l) files to $LIB"
