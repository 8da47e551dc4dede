#!/bin/sh
# Makes the files ImageRenderingTests draws, in Rendering/ next to this script (~60 KB):
#   upright.png           96x64, the picture every oriented file shows when turned upright:
#                         a white square top left, red/green/blue quarters (python3 writes a
#                         PPM, vips converts it).
#   orientation-N.jpg     N = 1...8: upright.png stored so that EXIF orientation N turns it
#                         upright (vips rot/flip), the Orientation tag and a 48x32 (or 32x48)
#                         EXIF thumbnail of the stored pixels written by exiftool.
#   heif-irot.heic        upright.png stored turned a quarter anticlockwise (64x96), and an
#                         `irot` of 3 (vips heifsave, then add-heif-transform.py).
#   heif-imir.heic        upright.png stored mirrored left to right, and an `imir` with axis 1.
#   fade-in.mp4           64x48, 3 s at 10 fps, a keyframe every 0.5 s: 1.2 s of black, then
#                         ffmpeg's test pattern (a first frame nothing can be seen in).
#   short-black.mp4       64x48, 0.4 s of black, one keyframe (under a second, one keyframe).
#   portrait.mov          64x48 test pattern, 1 s, track turned 90 degrees clockwise (the
#                         display matrix exiftool writes), so displayed 48x64.
#   truncated.jpg         orientation-1.jpg cut to its first 2000 bytes (head).
#   huge-claim.jpg        orientation-1.jpg whose frame header claims 30000x30000 (python3).
#   progressive.jpg       upright.png as a progressive JPEG (vips jpegsave --interlace).
#   progressive-claim.jpg progressive.jpg whose frame header claims 12000x8000 (96 MP: under
#                         the pixel limit, over the memory libjpeg's scans would take).
#   interlaced.png        upright.png as an interlaced PNG (vips pngsave --interlace).
#   grey.png              upright.png in grey, one band (vips colourspace b-w).
#   grey-alpha.png        grey.png with an alpha band of 200 (vips bandjoin_const).
#   rgba.png              upright.png with an alpha band of 200 (vips bandjoin_const).
#   embedded-cover.jpg    320x240 of blue (python3 writes a PPM, vips saves it) with a 160x120
#                         EXIF thumbnail of green (exiftool): large enough to make a picture
#                         cache's 128-pixel entry, and unlike the image, so a test can tell
#                         which one an entry was made from.
#   garbage.png           4 KiB of bytes from a fixed seed, named .png (python3).
#   garbage.mov           the same bytes, named .mov.
#   cut-movie.mp4         fade-in.mp4 cut to its first 3000 bytes (head).
# Needs python3, libvips-tools (vips 8.14, libheif 1.15 with x265), ffmpeg 5.1 with libx264,
# exiftool 12.57.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out="$here/Rendering"
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 - "$work/upright.ppm" <<'PY'
import sys
width, height = 96, 64
rows = []
for y in range(height):
    for x in range(width):
        if x < 24 and y < 16:
            pixel = (255, 255, 255)
        elif x < width // 2:
            pixel = (200, 40 + y, 30)
        elif y < height // 2:
            pixel = (30, 180, 40 + x)
        else:
            pixel = (20 + y, 30, 200)
        rows.append(bytes(pixel))
with open(sys.argv[1], "wb") as f:
    f.write(b"P6 %d %d 255\n" % (width, height) + b"".join(rows))
PY
vips copy "$work/upright.ppm" "$out/upright.png[strip]"

# What is stored for orientation N: the upright picture turned by N's inverse.
store() {
  case $1 in
    1) vips copy "$work/upright.ppm" "$2" ;;
    2) vips flip "$work/upright.ppm" "$2" horizontal ;;
    3) vips rot "$work/upright.ppm" "$2" d180 ;;
    4) vips flip "$work/upright.ppm" "$2" vertical ;;
    5) vips rot "$work/upright.ppm" "$work/t.v" d90 && vips flip "$work/t.v" "$2" horizontal ;;
    6) vips rot "$work/upright.ppm" "$2" d270 ;;
    7) vips rot "$work/upright.ppm" "$work/t.v" d270 && vips flip "$work/t.v" "$2" horizontal ;;
    8) vips rot "$work/upright.ppm" "$2" d90 ;;
  esac
}
for n in 1 2 3 4 5 6 7 8; do
  store $n "$work/stored-$n.v"
  vips jpegsave "$work/stored-$n.v" "$out/orientation-$n.jpg" --Q 92 --strip
  vips thumbnail "$work/stored-$n.v" "$work/thumb-$n.jpg[Q=90,strip]" 48 --height 48
  exiftool -q -overwrite_original -n -Orientation=$n "-ThumbnailImage<=$work/thumb-$n.jpg" \
    "$out/orientation-$n.jpg"
  # The check the tests rely on: vips turns each file back into the upright picture.
  vips autorot "$out/orientation-$n.jpg" "$work/check-$n.v"
  [ "$(vipsheader -f width "$work/check-$n.v")x$(vipsheader -f height "$work/check-$n.v")" = 96x64 ]
done

vips rot "$work/upright.ppm" "$work/irot.v" d270
vips heifsave "$work/irot.v" "$work/irot.heic" --Q 90 --compression hevc --strip
python3 "$here/add-heif-transform.py" "$work/irot.heic" "$out/heif-irot.heic" irot 3
vips flip "$work/upright.ppm" "$work/imir.v" horizontal
vips heifsave "$work/imir.v" "$work/imir.heic" --Q 90 --compression hevc --strip
python3 "$here/add-heif-transform.py" "$work/imir.heic" "$out/heif-imir.heic" imir 1

x264() {
  ffmpeg -nostdin -hide_banner -loglevel error -y "$@"
}
x264 -f lavfi -i "color=c=black:size=64x48:rate=10:duration=1.2" \
  -f lavfi -i "testsrc=size=64x48:rate=10:duration=1.8" \
  -filter_complex "[0:v][1:v]concat=n=2:v=1[v]" -map "[v]" \
  -c:v libx264 -g 5 -keyint_min 5 -sc_threshold 0 -pix_fmt yuv420p -threads 1 \
  -fflags +bitexact -flags:v +bitexact -map_metadata -1 "$out/fade-in.mp4"
x264 -f lavfi -i "color=c=black:size=64x48:rate=10:duration=0.4" \
  -c:v libx264 -g 100 -pix_fmt yuv420p -threads 1 \
  -fflags +bitexact -flags:v +bitexact -map_metadata -1 "$out/short-black.mp4"
x264 -f lavfi -i "testsrc=size=64x48:rate=10:duration=1" \
  -c:v libx264 -pix_fmt yuv420p -threads 1 \
  -fflags +bitexact -flags:v +bitexact -map_metadata -1 -f mov "$out/portrait.mov"
# ffmpeg 5.1 writes no rotation into the track header; exiftool sets its matrix.
exiftool -q -overwrite_original -Rotation=90 "$out/portrait.mov"

vips jpegsave "$work/upright.ppm" "$out/progressive.jpg" --Q 92 --strip --interlace
vips pngsave "$work/upright.ppm" "$out/interlaced.png" --strip --interlace
vips colourspace "$work/upright.ppm" "$work/grey.v" b-w
vips pngsave "$work/grey.v" "$out/grey.png" --strip
vips bandjoin_const "$work/grey.v" "$work/grey-alpha.v" 200
vips pngsave "$work/grey-alpha.v" "$out/grey-alpha.png" --strip
vips bandjoin_const "$work/upright.ppm" "$work/rgba.v" 200
vips pngsave "$work/rgba.v" "$out/rgba.png" --strip
head -c 2000 "$out/orientation-1.jpg" > "$out/truncated.jpg"
head -c 3000 "$out/fade-in.mp4" > "$out/cut-movie.mp4"
python3 - "$out/orientation-1.jpg" "$out/huge-claim.jpg" "$out/garbage.png" \
  "$out/progressive.jpg" "$out/progressive-claim.jpg" <<'PY'
import random, struct, sys


def claim(source, target, width, height):
    data = bytearray(open(source, "rb").read())
    # The main image's frame header (SOF0/SOF2: length, precision, then height and
    # width), found by walking the segments, so the EXIF thumbnail's inside APP1 is skipped.
    index = 2
    while True:
        if index + 9 > len(data) or data[index] != 0xFF:
            sys.exit("no frame header")
        marker, length = data[index + 1], struct.unpack_from(">H", data, index + 2)[0]
        if marker in (0xC0, 0xC2):
            struct.pack_into(">HH", data, index + 5, height, width)
            break
        index += 2 + length
    open(target, "wb").write(data)


claim(sys.argv[1], sys.argv[2], 30000, 30000)
claim(sys.argv[4], sys.argv[5], 12000, 8000)
random.seed(22)
garbage = bytes(random.randrange(256) for _ in range(4096))
open(sys.argv[3], "wb").write(garbage)
open(sys.argv[3][:-len(".png")] + ".mov", "wb").write(garbage)
PY
# A thumbnail that covers a 128-pixel cache entry, unlike its image.
python3 - "$work/blue.ppm" "$work/green.ppm" <<'PY'
import sys
for path, (width, height), rgb in ((sys.argv[1], (320, 240), b"\x20\x40\xd0"),
                                   (sys.argv[2], (160, 120), b"\x20\xc0\x40")):
    with open(path, "wb") as f:
        f.write(b"P6 %d %d 255\n" % (width, height) + rgb * (width * height))
PY
vips jpegsave "$work/blue.ppm" "$out/embedded-cover.jpg" --Q 80 --strip
vips jpegsave "$work/green.ppm" "$work/green.jpg" --Q 80 --strip
exiftool -q -overwrite_original "-ThumbnailImage<=$work/green.jpg" "$out/embedded-cover.jpg"
ls -l "$out"
