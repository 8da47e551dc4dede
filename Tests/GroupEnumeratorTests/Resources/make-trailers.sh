#!/bin/sh
# Makes the JPEGs TrailerTests reads, in Resources/Trailers/ next to this script:
# ImageMagick (Debian's /usr/bin/convert) draws a noisy picture (so its scan data does not
# compress away), exiftool writes a date, and python3 appends what some cameras write after
# the end-of-image marker, or cuts the file inside its scan data:
#   blackberry-trailer.jpg  36,864 bytes after EOI (as a BlackBerry Z10 writes)
#   sector-trailer.jpg      26,144 bytes of old sector data after EOI (as a Sony camcorder)
#   cut-in-scan.jpg         the picture cut 2,000 bytes before its end (no EOI at all)
# The trailers are pseudo-random bytes without 0xFF, so they hold no marker of their own.
#   apt-get install imagemagick libimage-exiftool-perl python3   (convert 6.9.11, exiftool 12.57)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out="$here/Trailers"
mkdir -p "$out"
picture="$out/picture.tmp.jpg"
/usr/bin/convert -seed 23 -size 480x360 plasma:fractal -attenuate 0.4 +noise Gaussian \
  -quality 85 "$picture"
exiftool -q -overwrite_original -DateTimeOriginal="2012:09:10 20:52:00" "$picture"
python3 - "$picture" "$out" <<'PY'
import random, sys
picture, out = sys.argv[1], sys.argv[2]
data = open(picture, "rb").read()
assert data.endswith(b"\xff\xd9") and len(data) > 32 * 1024
def trailer(seed, length):
    generator = random.Random(seed)
    return bytes(generator.randrange(0, 255) for _ in range(length))
open(f"{out}/blackberry-trailer.jpg", "wb").write(data + trailer(1, 36_864))
open(f"{out}/sector-trailer.jpg", "wb").write(data + trailer(2, 26_144))
open(f"{out}/cut-in-scan.jpg", "wb").write(data[:-2000])
PY
rm -f "$picture"
ls -l "$out"
