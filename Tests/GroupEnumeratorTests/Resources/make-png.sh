#!/bin/sh
# Makes the PNG stills PNGMetadataReaderTests reads, each under 5 KB:
# ImageMagick (Debian's /usr/bin/convert) draws a small gradient, exiftool writes the tags.
#   apt-get install imagemagick libimage-exiftool-perl   (convert 6.9.11, exiftool 12.57)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out="$here/PNG"
mkdir -p "$out"
convert=/usr/bin/convert
quiet="-define png:exclude-chunks=date,time"

# exiftool's way: an eXIf chunk before IDAT. 40x30.
rm -f "$out/exiftool-exif.png"
"$convert" -size 40x30 gradient:red-blue $quiet "$out/exiftool-exif.png"
exiftool -q -overwrite_original -n \
  -ModifyDate="2022:03:04 05:06:07" \
  -DateTimeOriginal="2022:03:04 05:06:00" -OffsetTimeOriginal="+01:00" \
  -GPSLatitude=48.8584 -GPSLatitudeRef=N -GPSLongitude=2.2945 -GPSLongitudeRef=E \
  -ExifImageWidth=4000 -ExifImageHeight=3000 \
  "$out/exiftool-exif.png"

# ImageMagick's way when converting a JPEG with EXIF: an eXIf chunk after IDAT. 20x10,
# EXIF Orientation 6.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$convert" -size 20x10 gradient:green-yellow "$tmp/source.jpg"
exiftool -q -overwrite_original -n \
  -DateTimeOriginal="2019:11:12 13:14:15" -Orientation=6 \
  -GPSLatitude=35.6586 -GPSLatitudeRef=N -GPSLongitude=139.7454 -GPSLongitudeRef=E \
  "$tmp/source.jpg"
rm -f "$out/imagemagick-exif-after-idat.png"
"$convert" "$tmp/source.jpg" $quiet "$out/imagemagick-exif-after-idat.png"

ls -l "$out"
