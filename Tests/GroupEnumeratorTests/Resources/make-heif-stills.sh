#!/bin/sh
# Makes the HEIF stills HEIFMetadataReaderTests reads (the HEIC it reads is
# Exiv2/south-east.heic, made by make-stills.sh), each under 20 KB:
# ImageMagick (Debian's /usr/bin/convert, AVIF via libheif 1.15.1) draws a gradient,
# exiftool writes the tags into a new Exif item.
#   apt-get install imagemagick libimage-exiftool-perl   (convert 6.9.11, exiftool 12.57)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out="$here/HEIF"
mkdir -p "$out"
convert=/usr/bin/convert

# North/west with an offset, 40x30.
rm -f "$out/north-west.avif"
"$convert" -size 40x30 gradient:green-yellow -quality 40 "$out/north-west.avif"
exiftool -q -overwrite_original -n \
  -ModifyDate="2023:07:08 09:10:11" \
  -DateTimeOriginal="2023:07:08 09:10:10" -OffsetTimeOriginal="-03:00" \
  -GPSLatitude=40.75 -GPSLatitudeRef=N -GPSLongitude=73.985 -GPSLongitudeRef=W \
  -Orientation=6 \
  "$out/north-west.avif"

ls -l "$out"
