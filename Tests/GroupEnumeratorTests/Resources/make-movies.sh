#!/bin/sh
# Makes the two tiny movies the QuickTime reader's tests read, next to this script:
#   tiny.mov  16x16, 0.2 s: mvhd 2022-03-04T05:06:07Z and Apple keyed metadata
#             (creation date at -05:00, ISO 6709 location, content identifier).
#   tiny.mp4  32x16, 0.2 s: mvhd 2023-01-02T03:04:05Z, video track turned 90° clockwise
#             (tkhd matrix 0 1 0 -1 0 0 16 0 1), so displayed 16x32, location in moov/udta/©xyz.
#   pixel-location.mp4  16x16: a Google Pixel's unpadded ©xyz, +47.5383-2.8919+000.000/
#             (ffmpeg writes ©xyz only in its QuickTime muxer, so the MP4 is that muxer's
#             output with the `isom` brand, as a Pixel's is).
#   apple-location-no-slash.mp4  16x16: Apple's ISO6709 key without the closing `/`,
#             +29.758938-095.36770, in keyed metadata.
# Needs ffmpeg (with libx264) and exiftool. ffmpeg 5.1 (Debian 12) writes neither a
# rotation matrix nor ©xyz into MP4, so exiftool adds those. Deterministic: bit-exact
# flags, one thread.
set -eu
cd "$(dirname "$0")"

encode() {
  size=$1
  shift
  ffmpeg -nostdin -hide_banner -loglevel error -y \
    -f lavfi -i "color=c=teal:size=$size:rate=5:duration=0.2" \
    -c:v libx264 -preset veryslow -crf 45 -pix_fmt yuv420p -threads 1 -x264-params threads=1 \
    -fflags +bitexact -flags:v +bitexact -map_metadata -1 "$@"
}

encode 16x16 \
  -metadata creation_time=2022-03-04T05:06:07Z \
  -metadata 'com.apple.quicktime.creationdate=2022-03-04T00:06:07-05:00' \
  -metadata 'com.apple.quicktime.location.ISO6709=-33.8568+151.2153+004.500/' \
  -metadata 'com.apple.quicktime.content.identifier=5C2E8A4D-1B7F-4E0A-9C3D-2F6B8E1A7D40' \
  -movflags use_metadata_tags -f mov tiny.mov

encode 32x16 -metadata creation_time=2023-01-02T03:04:05Z -f mp4 tiny.mp4
exiftool -q -overwrite_original -Rotation=90 '-UserData:GPSCoordinates=40.7128, -74.0060, 10' \
  tiny.mp4

encode 16x16 -metadata location=+47.5383-2.8919+000.000/ -brand isom -f mov pixel-location.mp4
encode 16x16 -metadata 'com.apple.quicktime.location.ISO6709=+29.758938-095.36770' \
  -movflags use_metadata_tags -f mp4 apple-location-no-slash.mp4

exiftool -a -G1 -n -CreateDate -Duration -ImageWidth -ImageHeight -Rotation \
  -MatrixStructure -CreationDate -GPSCoordinates -ContentIdentifier tiny.mov tiny.mp4 \
  pixel-location.mp4 apple-location-no-slash.mp4
ls -l tiny.mov tiny.mp4 pixel-location.mp4 apple-location-no-slash.mp4
