#!/bin/sh
# Makes the still images Exiv2MetadataReaderTests reads, each under 20 KB:
# ImageMagick (Debian's /usr/bin/convert) draws a gradient, exiftool writes the tags.
# Run from anywhere; writes into Resources/Exiv2/ next to this script.
#   apt-get install imagemagick libimage-exiftool-perl   (convert 6.9.11, exiftool 12.57)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out="$here/Exiv2"
mkdir -p "$out"
convert=/usr/bin/convert

# make NAME SIZE EXIFTOOL-ARGS...
make() {
  name=$1
  size=$2
  shift 2
  rm -f "$out/$name"
  "$convert" -size "$size" gradient:red-blue -quality 50 "$out/$name"
  exiftool -q -overwrite_original -n "$@" "$out/$name"
}

# North/east, with offsets and sub-seconds, 16x12.
make north-east.png 16x12 \
  -ModifyDate="2021:06:02 08:00:00" -OffsetTime="+09:00" \
  -DateTimeOriginal="2021:06:01 12:34:56" -OffsetTimeOriginal="+09:00" \
  -SubSecTimeOriginal=120 \
  -CreateDate="2021:06:01 12:34:57" -OffsetTimeDigitized="+09:00" \
  -GPSLatitude=35.5 -GPSLatitudeRef=N -GPSLongitude=139.75 -GPSLongitudeRef=E \
  -GPSAltitude=40 -GPSAltitudeRef=0

# South/west, orientation 6 (stored 16x12, displayed 12x16), no offset.
"$convert" -size 16x12 gradient:red-blue -compress zip "$out/south-west.tiff"
exiftool -q -overwrite_original -n \
  -ModifyDate="2019:12:31 23:59:59" -DateTimeOriginal="2019:12:31 23:59:58" \
  -Orientation=6 \
  -GPSLatitude=33.865 -GPSLatitudeRef=S -GPSLongitude=151.25 -GPSLongitudeRef=W \
  "$out/south-west.tiff"

# North/west, below sea level, 16x12.
make north-west.webp 16x12 \
  -DateTimeOriginal="2020:02:29 06:07:08" -OffsetTimeOriginal="-05:30" \
  -GPSLatitude=51.5 -GPSLatitudeRef=N -GPSLongitude=0.125 -GPSLongitudeRef=W \
  -GPSAltitude=10 -GPSAltitudeRef=1

# South/east, 64x48 (libheif pads smaller pictures into a grid).
make south-east.heic 64x48 \
  -DateTimeOriginal="2022:03:04 05:06:07" -OffsetTimeOriginal="+11:00" \
  -GPSLatitude=37.8 -GPSLatitudeRef=S -GPSLongitude=144.95 -GPSLongitudeRef=E

# An impossible date and a longitude without a latitude, in an otherwise fine PNG.
# (exiftool normalises what it writes, so impossible rationals are built in the tests.)
make bad-values.png 16x12 \
  -DateTimeOriginal="2020:13:45 25:61:61" -GPSLongitude=20 -GPSLongitudeRef=E

ls -l "$out"
