#!/usr/bin/env bash
# Makes Fixtures/Phones, a small library of files written the way phones, cameras and editors
# write them (Android/ffmpeg video places, Samsung HEIC, dates with fractions, motion photos,
# XMP-only metadata, Takeout sidecars, truncated files, files that are not media, camera
# make/model/lens, long trailers after a JPEG's image).
#
# It deletes Fixtures/Phones and builds it again from nothing; it writes nothing outside
# Fixtures/ (its scratch folder is Fixtures/.make-phones.tmp, removed at the end). Every
# picture is drawn here, every tag written here, every byte patched here: nothing is copied
# from elsewhere. Fixtures/Phones.md lists each file, how a real device writes the same
# thing, and the values a reader should find.
#
# Tools (Debian 12 packages):
#   ImageMagick 6.9.11-60 Q16 as /usr/bin/convert (with libheif 1.15 for HEIC, OpenJPEG for JP2)
#   ExifTool 12.57            (libimage-exiftool-perl)
#   FFmpeg 5.1                (ffmpeg) with libx264
#   Python 3                  (byte patches: type changes, trailers, truncation)
#   coreutils (head, touch, cat), findutils (find)
#
# Usage: Fixtures/make-phones.sh   (from anywhere; takes no arguments)
set -euo pipefail
export LC_ALL=C.UTF-8 TZ=UTC
umask 022

CONVERT=/usr/bin/convert
FIXED_MTIME='2022-01-01 00:00:00 UTC'

die() { echo "make-phones.sh: $*" >&2; exit 1; }

[ $# -eq 0 ] || die "takes no arguments"
[ -x "$CONVERT" ] || die "$CONVERT is missing (apt-get install imagemagick)"
command -v exiftool >/dev/null || die "exiftool is missing (apt-get install libimage-exiftool-perl)"
command -v ffmpeg >/dev/null || die "ffmpeg is missing (apt-get install ffmpeg)"
command -v python3 >/dev/null || die "python3 is missing"

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
[ "$(basename "$HERE")" = Fixtures ] || die "expected to live in a folder named Fixtures, not $HERE"
LIB="$HERE/Phones"
TMP="$HERE/.make-phones.tmp"

rm -rf -- "$LIB" "$TMP"
mkdir -p -- "$LIB" "$TMP"
trap 'rm -rf -- "$TMP"' EXIT

# picture OUT WxH FROM TO LABEL [extra convert options...]
picture() {
  local out=$1 size=$2 from=$3 to=$4 label=$5
  shift 5
  "$CONVERT" -size "$size" "gradient:$from-$to" \
    -font DejaVu-Sans -pointsize 10 -fill white -gravity center -annotate +0+0 "$label" \
    "$@" -strip -quality 50 "$out"
}

# tag FILE EXIFTOOL-ARGS... — writes tags in place, raw values (-n), no backup copy.
tag() {
  local file=$1
  shift
  exiftool -q -n -overwrite_original "$@" -- "$file"
}

# movie OUT FORMAT SECONDS [ffmpeg output options...] — a tiny H.264 testsrc clip.
movie() {
  local out=$1 format=$2 seconds=$3
  shift 3
  ffmpeg -nostdin -hide_banner -loglevel error \
    -f lavfi -i "testsrc=size=64x48:rate=10:duration=$seconds" \
    -c:v libx264 -preset veryslow -crf 40 -pix_fmt yuv420p -threads 1 -x264-params threads=1 \
    -fflags +bitexact -flags:v +bitexact -map_metadata -1 "$@" -f "$format" "$out"
}

# patch FILE PYTHON — runs PYTHON with `data` (a bytearray of FILE) and writes it back.
# The snippet must assert that each pattern it replaces occurs exactly once.
patch() {
  local file=$1 code=$2
  python3 - "$file" <<EOF
import sys
path = sys.argv[1]
data = bytearray(open(path, 'rb').read())
def once(old, new):
    assert data.count(old) == 1, (path, old, data.count(old))
    i = data.find(old)
    data[i:i + len(old)] = new
$code
open(path, 'wb').write(bytes(data))
EOF
}

mkdir -p "$LIB/Android" "$LIB/Samsung" "$LIB/Dates" "$LIB/Formats" "$LIB/Motion" \
  "$LIB/XMP" "$LIB/Takeout" "$LIB/Truncated" "$LIB/Thumbnails" "$LIB/Other" "$LIB/Camera" \
  "$LIB/Trailers"

# --- 1. Android / ffmpeg video places --------------------------------------------------------
# ISO 6709 in udta/meta/ilst/©xyz, as re-encoders and trimmed phone videos carry it (and no
# mvhd-level place anywhere else).
movie "$TMP/ilst.mp4" mp4 1 -metadata creation_time=2023-05-01T08:00:00Z
# (without -n: exiftool converts the "lat, lon, alt" text to ISO 6709 itself)
exiftool -q -overwrite_original '-ItemList:GPSCoordinates=48.8584, 2.2945, 35' -- "$TMP/ilst.mp4"
cp "$TMP/ilst.mp4" "$LIB/Android/VID_20230501_080000.mp4"
# 3GPP `loci` (ffmpeg writes it for `location` in 3GP): 35.6895 N 139.6917 E.
movie "$LIB/Android/clip.3gp" 3gp 1 -metadata creation_time=2023-05-02T09:00:00Z \
  -metadata location=+35.6895+139.6917/

# --- 2 and 3. Samsung HEIC ------------------------------------------------------------------
# Stored 64x48 with EXIF Orientation 6 and no irot/imir: displayed 48x64. GPSAltitudeRef is
# a SHORT (as Samsung writes it), value 1 (below sea level), altitude 12.5 m: -12.5.
"$CONVERT" -size 64x48 'gradient:#2c3e50-#e74c3c' -strip -quality 40 "$LIB/Samsung/20240101_120000.heic"
tag "$LIB/Samsung/20240101_120000.heic" -Make=samsung -Model=SM-S918B -Orientation=6 \
  -DateTimeOriginal='2024:01:01 12:00:00' -OffsetTimeOriginal='+01:00' \
  -GPSLatitude=52.52 -GPSLatitudeRef=N -GPSLongitude=13.405 -GPSLongitudeRef=E \
  -GPSAltitude=12.5 -GPSAltitudeRef=1
# GPS IFD entry 0x0005 BYTE[1]=1 (big-endian TIFF: 00 05 | 00 01 | 00000001 | 01 000000)
# becomes SHORT[1]=1 (00 05 | 00 03 | 00000001 | 0001 0000).
patch "$LIB/Samsung/20240101_120000.heic" \
  "once(bytes.fromhex('0005 0001 00000001 01000000'), bytes.fromhex('0005 0003 00000001 00010000'))"

# --- 4. Dates with fractions and in ISO form -------------------------------------------------
# DateTimeOriginal with milliseconds inside; DateTimeDigitized seven years earlier must not win.
picture "$LIB/Dates/fraction.jpg" 64x48 '#16a085' '#2980b9' 'frac'
tag "$LIB/Dates/fraction.jpg" -DateTimeOriginal='2018:06:26 17:46:33.847' \
  -CreateDate='2011:01:01 00:00:00' -ModifyDate='2018:06:26 17:46:33'
# ISO form, as a Vision Pro writes it.
picture "$LIB/Dates/iso.jpg" 64x48 '#8e44ad' '#2c3e50' 'iso'
tag "$LIB/Dates/iso.jpg" -DateTimeOriginal='2023-10-02T10:00:00' -ModifyDate='2023:10:02 10:00:00'

# --- 5. Formats with a size and no EXIF reader today ----------------------------------------
picture "$LIB/Formats/anim.gif" 40x30 '#f1c40f' '#e67e22' 'gif'
picture "$LIB/Formats/bitmap.bmp" 41x31 '#1abc9c' '#34495e' 'bmp'
picture "$LIB/Formats/layers.psd" 42x32 '#9b59b6' '#ecf0f1' 'psd'
picture "$LIB/Formats/still.jp2" 43x33 '#e74c3c' '#ecf0f1' 'jp2'
# AVI (RIFF avih/strh): 64x48, 10 frames at 10/s = 1.0 s.
ffmpeg -nostdin -hide_banner -loglevel error \
  -f lavfi -i 'testsrc2=size=64x48:rate=10:duration=1' \
  -c:v mjpeg -q:v 20 -threads 1 -fflags +bitexact -flags:v +bitexact -map_metadata -1 \
  -f avi "$LIB/Formats/old.avi"
# AVCHD-style M2TS (192-byte packets): 64x48, 1.0 s.
movie "$LIB/Formats/00001.MTS" mpegts 1 -mpegts_m2ts_mode 1

# --- 6. Motion photos -----------------------------------------------------------------------
movie "$TMP/motion.mp4" mp4 1.5 -metadata creation_time=2024-02-02T10:00:00Z
MP4_LENGTH=$(stat -c %s "$TMP/motion.mp4")
# Google (Motion Photo v1): XMP GCamera:MotionPhoto + Container:Directory; the MP4 appended
# after the JPEG; its Item:Length says how many bytes at the end of the file are the video.
cat >"$TMP/google.xmp" <<EOF
<x:xmpmeta xmlns:x="adobe:ns:meta/">
 <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
  <rdf:Description rdf:about=""
    xmlns:GCamera="http://ns.google.com/photos/1.0/camera/"
    xmlns:Container="http://ns.google.com/photos/1.0/container/"
    xmlns:Item="http://ns.google.com/photos/1.0/container/item/"
    GCamera:MotionPhoto="1" GCamera:MotionPhotoVersion="1"
    GCamera:MotionPhotoPresentationTimestampUs="500000">
   <Container:Directory>
    <rdf:Seq>
     <rdf:li rdf:parseType="Resource">
      <Container:Item Item:Mime="image/jpeg" Item:Semantic="Primary" Item:Length="0" Item:Padding="0"/>
     </rdf:li>
     <rdf:li rdf:parseType="Resource">
      <Container:Item Item:Mime="video/mp4" Item:Semantic="MotionPhoto" Item:Length="$MP4_LENGTH" Item:Padding="0"/>
     </rdf:li>
    </rdf:Seq>
   </Container:Directory>
  </rdf:Description>
 </rdf:RDF>
</x:xmpmeta>
EOF
picture "$TMP/google.jpg" 64x48 '#27ae60' '#f39c12' 'MP'
tag "$TMP/google.jpg" -DateTimeOriginal='2024:02:02 11:00:00' -OffsetTimeOriginal='+01:00' \
  "-XMP<=$TMP/google.xmp"
cat "$TMP/google.jpg" "$TMP/motion.mp4" >"$LIB/Motion/PXL_20240202_100000000.MP.jpg"
# Older Google "MicroVideo": GCamera:MicroVideoOffset = bytes from the video's start to EOF.
picture "$TMP/micro.jpg" 64x48 '#2980b9' '#f39c12' 'MV'
tag "$TMP/micro.jpg" -DateTimeOriginal='2024:02:02 11:00:05' \
  -XMP-GCamera:MicroVideo=1 -XMP-GCamera:MicroVideoVersion=1 \
  "-XMP-GCamera:MicroVideoOffset=$MP4_LENGTH" -XMP-GCamera:MicroVideoPresentationTimestampUs=0
cat "$TMP/micro.jpg" "$TMP/motion.mp4" >"$LIB/Motion/MVIMG_20240202_100005.jpg"
# Samsung: XMP GCamera:MotionPhoto, then after the JPEG a field "MotionPhoto_Data" holding the
# MP4, and the SEFH/SEFT directory that locates it (read back by `exiftool -EmbeddedVideoFile`).
# (exiftool 12.57 has no MotionPhoto tags: the packet is written whole, as for Google above.)
cat >"$TMP/samsung.xmp" <<'EOF'
<x:xmpmeta xmlns:x="adobe:ns:meta/">
 <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
  <rdf:Description rdf:about="" xmlns:GCamera="http://ns.google.com/photos/1.0/camera/"
    GCamera:MotionPhoto="1" GCamera:MotionPhotoVersion="1"
    GCamera:MotionPhotoPresentationTimestampUs="0"/>
 </rdf:RDF>
</x:xmpmeta>
EOF
picture "$TMP/samsung.jpg" 64x48 '#c0392b' '#f39c12' 'SM'
tag "$TMP/samsung.jpg" -Make=samsung -Model=SM-S918B -DateTimeOriginal='2024:02:02 11:00:10' \
  "-XMP<=$TMP/samsung.xmp"
python3 - "$TMP/samsung.jpg" "$TMP/motion.mp4" "$LIB/Motion/20240202_110010.jpg" <<'EOF'
import struct, sys
still, video, out = sys.argv[1:]
jpeg, mp4 = open(still, 'rb').read(), open(video, 'rb').read()
name = b'MotionPhoto_Data'
field = b'\x00\x00\x30\x0a' + struct.pack('<I', len(name)) + name + mp4
# SEFH: version 106, one entry: marker, offset from the SEFH back to the field, field size.
sefh = b'SEFH' + struct.pack('<II', 106, 1)
sefh += b'\x00\x00\x30\x0a' + struct.pack('<II', len(field), len(field))
open(out, 'wb').write(jpeg + field + sefh + struct.pack('<I', len(sefh)) + b'SEFT')
EOF
# A HEIC motion photo (Google style; the XMP in the HEIF `mime` item).
"$CONVERT" -size 64x48 'gradient:#8e44ad-#f39c12' -strip -quality 40 "$TMP/motion.heic"
tag "$TMP/motion.heic" -DateTimeOriginal='2024:02:02 11:00:15' "-XMP<=$TMP/google.xmp"
cat "$TMP/motion.heic" "$TMP/motion.mp4" >"$LIB/Motion/PXL_20240202_100015000.MP.heic"

# --- 7. XMP as the only source, and sidecars -------------------------------------------------
XMP_TAGS=(-XMP-exif:DateTimeOriginal='2019:07:14 15:30:00+02:00'
  -XMP-exif:GPSLatitude=43.7384 -XMP-exif:GPSLongitude=-7.4246)
picture "$LIB/XMP/edited.jpg" 64x48 '#d35400' '#2c3e50' 'xmp'
tag "$LIB/XMP/edited.jpg" "${XMP_TAGS[@]}"
"$CONVERT" -size 64x48 'gradient:#d35400-#7f8c8d' -strip "$LIB/XMP/edited.png"
tag "$LIB/XMP/edited.png" -XMP-photoshop:DateCreated='2019:07:15 09:00:00'
"$CONVERT" -size 64x48 'gradient:#d35400-#16a085' -strip -compress lzw "$LIB/XMP/edited.tif"
tag "$LIB/XMP/edited.tif" -XMP-xmp:CreateDate='2019:07:16 10:00:00'
"$CONVERT" -size 64x48 'gradient:#d35400-#8e44ad' -strip -quality 40 "$LIB/XMP/edited.heic"
tag "$LIB/XMP/edited.heic" -XMP-exif:DateTimeOriginal='2019:07:17 11:00:00'
# A sidecar .xmp beside a JPEG without metadata.
picture "$LIB/XMP/DSC_0001.jpg" 64x48 '#34495e' '#95a5a6' 'side'
exiftool -q -n -o "$LIB/XMP/DSC_0001.xmp" -XMP-exif:DateTimeOriginal='2019:07:18 12:00:00' \
  -XMP-exif:GPSLatitude=-41.9028 -XMP-exif:GPSLongitude=12.4964
# Google Takeout: EXIF stripped, the date and place only in the `.json` beside it.
picture "$LIB/Takeout/IMG_20190801_140000.jpg" 64x48 '#2ecc71' '#2c3e50' 'takeout'
cat >"$LIB/Takeout/IMG_20190801_140000.jpg.json" <<'EOF'
{
  "title": "IMG_20190801_140000.jpg",
  "description": "",
  "imageViews": "3",
  "creationTime": { "timestamp": "1609459200", "formatted": "Jan 1, 2021, 12:00:00 AM UTC" },
  "photoTakenTime": { "timestamp": "1564668000", "formatted": "Aug 1, 2019, 2:00:00 PM UTC" },
  "geoData": { "latitude": 51.5007, "longitude": -0.1246, "altitude": 11.0,
    "latitudeSpan": 0.0, "longitudeSpan": 0.0 },
  "geoDataExif": { "latitude": 0.0, "longitude": 0.0, "altitude": 0.0,
    "latitudeSpan": 0.0, "longitudeSpan": 0.0 },
  "url": "https://photos.google.com/photo/AF1QipExample"
}
EOF

# --- 9. Truncated files ---------------------------------------------------------------------
picture "$TMP/whole.jpg" 64x48 '#c0392b' '#2c3e50' 'cut'
tag "$TMP/whole.jpg" -DateTimeOriginal='2020:05:05 05:05:05'
size=$(stat -c %s "$TMP/whole.jpg")
head -c $((size - 40)) "$TMP/whole.jpg" >"$LIB/Truncated/no-eoi.jpg"
movie "$TMP/whole.mp4" mp4 1 -metadata creation_time=2020-05-05T05:05:05Z -movflags +faststart
size=$(stat -c %s "$TMP/whole.mp4")
head -c $((size - 500)) "$TMP/whole.mp4" >"$LIB/Truncated/short-mdat.mp4"
"$CONVERT" -size 64x48 'gradient:#c0392b-#ecf0f1' -strip "$TMP/whole.png"
size=$(stat -c %s "$TMP/whole.png")
head -c $((size - 12)) "$TMP/whole.png" >"$LIB/Truncated/no-iend.png"
# A PNG whose EXIF (an eXIf chunk) comes before its image data, so a reader that has what it
# needs stops walking before IEND: only a look at the file's end shows the cut.
"$CONVERT" -size 64x48 'gradient:#16a085-#ecf0f1' -strip "$TMP/exif.png"
tag "$TMP/exif.png" -DateTimeOriginal='2020:05:06 06:06:06'
python3 - "$TMP/exif.png" <<'EOF2'
import sys
data = open(sys.argv[1], 'rb').read()
assert 0 < data.find(b'eXIf') < data.find(b'IDAT'), 'eXIf must come before IDAT'
EOF2
size=$(stat -c %s "$TMP/exif.png")
head -c $((size - 12)) "$TMP/exif.png" >"$LIB/Truncated/no-iend-exif.png"

# --- 10. An IFD1 "thumbnail" that is not a JPEG ---------------------------------------------
picture "$TMP/thumb.jpg" 16x12 '#000000' '#ffffff' ''
picture "$LIB/Thumbnails/not-a-thumbnail.jpg" 64x48 '#7f8c8d' '#2c3e50' 'thumb'
tag "$LIB/Thumbnails/not-a-thumbnail.jpg" -DateTimeOriginal='2021:01:01 01:01:01' \
  "-ThumbnailImage<=$TMP/thumb.jpg"
# Overwrite the thumbnail's SOI (FF D8 FF) so the bytes are no longer a JPEG.
patch "$LIB/Thumbnails/not-a-thumbnail.jpg" "
i = data.find(b'\xff\xd8\xff', 2)
assert 0 < i < 4096, i
data[i:i + 3] = b'XYZ'"

# --- 11. Camera make, model and lens ---------------------------------------------------------
# EXIF IFD0 Make/Model and ExifIFD LensModel, as a camera writes them.
picture "$LIB/Camera/lens.jpg" 64x48 '#34495e' '#95a5a6' 'lens'
tag "$LIB/Camera/lens.jpg" -Make=Canon '-Model=Canon EOS R5' '-LensModel=RF24-105mm F4 L IS USM' \
  -DateTimeOriginal='2021:03:03 03:03:03'
# The same tags in a TIFF, read through gexiv2 (Exif.Image.Make/Model, Exif.Photo.LensModel).
picture "$LIB/Camera/lens.tif" 32x24 '#34495e' '#95a5a6' ''
tag "$LIB/Camera/lens.tif" -Make=NIKON '-Model=NIKON Z 6' '-LensModel=NIKKOR Z 24-70mm f/4 S'
# Padding as older cameras store it: Make "Kodak" then NULs, Model ending in blanks (EXIF
# fills unknown text with spaces). exiftool shows "Kodak" and "DC290 Zoom".
picture "$LIB/Camera/padded.jpg" 64x48 '#8e44ad' '#95a5a6' 'pad'
tag "$LIB/Camera/padded.jpg" -Make=KodakXYZ '-Model=DC290 Zoom!!!'
patch "$LIB/Camera/padded.jpg" "
once(b'KodakXYZ\0', b'Kodak\0\0\0\0')
once(b'DC290 Zoom!!!\0', b'DC290 Zoom   \0')"
# A Model with an escape character (ESC, 0x1B): not text to show; exiftool prints it raw.
picture "$LIB/Camera/control.jpg" 64x48 '#8e44ad' '#2c3e50' 'esc'
tag "$LIB/Camera/control.jpg" -Make=Acme -Model=BadXModel
patch "$LIB/Camera/control.jpg" "once(b'BadXModel', b'Bad\x1bModel')"
# An iPhone movie: Apple keys com.apple.quicktime.make and .model.
movie "$TMP/keys.mov" mov 1 -metadata creation_time=2021-03-04T04:04:04Z
exiftool -q -overwrite_original -Keys:Make=Apple '-Keys:Model=iPhone 15 Pro' -- "$TMP/keys.mov"
cp "$TMP/keys.mov" "$LIB/Camera/IMG_0001.MOV"
# A camera MP4 with QuickTime user data text (udta/©mak, ©mod), as GoPro and Kodak write it.
movie "$TMP/udta.mp4" mp4 1 -metadata creation_time=2021-03-05T05:05:05Z
exiftool -q -overwrite_original -UserData:Make=GoPro '-UserData:Model=HERO12 Black' -- "$TMP/udta.mp4"
cp "$TMP/udta.mp4" "$LIB/Camera/GX010001.MP4"

# --- 12. A trailer longer than the end check's window ----------------------------------------
# A Google motion photo whose MP4 (padded by a top-level 'free' box to 100,000 bytes) ends the
# file: the still's EOI lies 100,000 bytes before the end, past the last 64 KiB, and the file
# is whole (exiftool: no warning).
python3 - "$TMP/motion.mp4" "$TMP/big.mp4" <<'EOF2'
import struct, sys
mp4 = open(sys.argv[1], 'rb').read()
pad = 100000 - len(mp4)
assert pad > 8
open(sys.argv[2], 'wb').write(mp4 + struct.pack('>I', pad) + b'free' + bytes(pad - 8))
EOF2
sed "s/Item:Length=\"$MP4_LENGTH\"/Item:Length=\"100000\"/" "$TMP/google.xmp" >"$TMP/big.xmp"
grep -q 'Item:Length="100000"' "$TMP/big.xmp" || die "big.xmp: Item:Length not replaced"
picture "$TMP/big.jpg" 64x48 '#27ae60' '#8e44ad' 'BIG'
tag "$TMP/big.jpg" -DateTimeOriginal='2024:03:03 10:00:00' "-XMP<=$TMP/big.xmp"
cat "$TMP/big.jpg" "$TMP/big.mp4" >"$LIB/Trailers/PXL_20240303_100000000.MP.jpg"

# --- 8. Files that are not media ------------------------------------------------------------
printf 'Shopping list, not a photo.\n' >"$LIB/Other/notes.txt"
printf '{"app": "settings", "version": 3}\n' >"$LIB/Other/settings.json"
printf '[.ShellClassInfo]\r\nIconResource=C:\\Windows\\System32\\imageres.dll,-3\r\n' >"$LIB/Other/desktop.ini"
# An OLE compound file header, as Windows' Thumbs.db starts.
python3 -c "import sys; sys.stdout.buffer.write(bytes.fromhex('d0cf11e0a1b11ae1') + bytes(504))" \
  >"$LIB/Other/Thumbs.db"
printf '%%PDF-1.4\n1 0 obj<</Type/Catalog>>endobj\ntrailer<</Root 1 0 R>>\n%%%%EOF\n' >"$LIB/Other/scan.pdf"
exiftool -q -n -o "$LIB/Other/metadata.exv" -Make=Canon -DateTimeOriginal='2020:01:01 00:00:00'

# --- Fixed permissions and times ------------------------------------------------------------
find "$LIB" -type d -exec chmod 0755 {} +
find "$LIB" -type f -exec chmod 0644 {} +
find "$LIB" -depth -exec touch -h -d "$FIXED_MTIME" {} +

echo "Made $LIB ($(find "$LIB" -type f | wc -l) files, $(du -sk "$LIB" | cut -f1) KB on disk)"
