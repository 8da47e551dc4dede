#!/usr/bin/env python3
"""Builds the benchmark's synthetic photo libraries (issue 5), deterministically.

Under a scratch folder outside the repository (default /tmp/groupenumerator-bench,
or $GROUPENUMERATOR_BENCH_DIR, or --dir):

  seeds/      20 small camera-style JPEGs with EXIF (dates on all, GPS, orientation
              and an embedded thumbnail on some) and, on 18 of them, an XMP packet of
              the shape a phone or an editor writes (xmp_packet: Apple, Google Ultra
              HDR with its gain map appended, Google and Samsung motion photos with
              their MP4 appended, Lightroom), plus HEIC (with Apple's XMP)/PNG/MOV/MP4
              seeds (MOV and MP4 as ffmpeg writes them: `moov` at the end)
  lib-10k/    100 albums x 100 JPEGs, plus a Camera Roll of the 20 seeds in the root
  lib-100k/   1,000 albums x 100 JPEGs, plus the same Camera Roll
  lib-mixed/  ~2,000 phone-style files: HEIC, JPEG, PNG, MOV, MP4 and Live Photo
              pairs (IMG_nnnn.HEIC + IMG_nnnn.MOV), in DCIM/100APPLE and 19 albums
  lib-camera/ the cold-cache library (built only when asked for with --only camera):
              100 albums x 100 camera-sized JPEGs (~0.3 MB each: EXIF and an IFD1
              thumbnail in front of a large image) and 3 albums x 100 videos (~0.5 MB MP4
              and MOV, `moov` at the end as ffmpeg writes them).
              Every file is its own copy (`cp`, never a link), so the page cache holds
              each one apart, as on a real disk (~3 GB).
  lib-camera-1k/ the same, 10 albums of JPEGs and one of videos (~0.35 GB; built only
              when asked for with --only camera-1k): the cold part of `make bench-check`.

The seeds are made once with ImageMagick (/usr/bin/convert), exiftool and ffmpeg; the
libraries are made by copying them with `cp`. Each library is finished by writing a
stamp file last, so an interrupted run is redone and a finished one is reused.
Rerunnable: `--force` rebuilds everything.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

CONVERT = "/usr/bin/convert"  # not /usr/local/bin/convert (a stand-in)
GENERATOR_VERSION = "2"  # bump to invalidate cached libraries when the layout changes
SEED_COUNT = 20


def run(args, **kwargs):
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL, **kwargs)


def gps_tags(index):
    # Deterministic positions spread over the four hemispheres.
    lat = 10.0 + index * 3.25
    lon = 20.0 + index * 7.5
    lat_ref = "N" if index % 2 == 0 else "S"
    lon_ref = "E" if index % 3 != 0 else "W"
    return [
        f"-GPSLatitude={lat:.6f}", f"-GPSLatitudeRef={lat_ref}",
        f"-GPSLongitude={lon:.6f}", f"-GPSLongitudeRef={lon_ref}",
        f"-GPSAltitude={index * 11.5:.1f}", "-GPSAltitudeRef=0",
    ]


def exif_tags(index):
    """The EXIF of seed `index`: dates on all, GPS on 12, orientation on 8."""
    day = 1 + index
    tags = [
        "-Make=BenchCam", f"-Model=Model {index % 4}",
        f"-DateTimeOriginal=2021:03:{day:02d} 10:{index:02d}:{(index * 7) % 60:02d}",
        f"-ModifyDate=2021:03:{day:02d} 11:{index:02d}:00",
        f"-CreateDate=2021:03:{day:02d} 10:{index:02d}:{(index * 7) % 60:02d}",
    ]
    if index % 5 != 0:  # 16 of 20 have a zone offset
        tags.append("-OffsetTimeOriginal=+0{}:00".format(index % 10))
    if index % 5 < 3:  # 12 of 20 have GPS
        tags += gps_tags(index)
    if index % 5 in (1, 3):  # 8 of 20 have an orientation
        tags.append(f"-Orientation#={[1, 6, 3, 8][index % 4]}")
    return tags


XMP_KIND = ["apple"] * 5 + ["ultrahdr"] * 4 + ["google-motion"] * 2 + ["samsung-motion"] * 3 \
    + ["lightroom"] * 4 + [None] * 2


def xmp_packet(index, kind, appended=0):
    """The XMP packet of seed `index` in the shape `kind` writes (`appended`: the bytes
    appended after the JPEG, a gain map or a video, that its Container directory lists)."""
    day = 1 + index
    when = f"2021-03-{day:02d}T10:{index:02d}:{(index * 7) % 60:02d}"
    head = ('<x:xmpmeta xmlns:x="adobe:ns:meta/" x:xmptk="{}">\n'
            '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\n')
    tail = "</rdf:RDF>\n</x:xmpmeta>\n"
    container = ('xmlns:Container="http://ns.google.com/photos/1.0/container/" '
                 'xmlns:Item="http://ns.google.com/photos/1.0/container/item/"')

    def directory(second, padding=""):
        return ("<Container:Directory><rdf:Seq>"
                '<rdf:li rdf:parseType="Resource"><Container:Item Item:Semantic="Primary"'
                f' Item:Mime="image/jpeg"{padding}/></rdf:li>'
                f'<rdf:li rdf:parseType="Resource"><Container:Item {second}/></rdf:li>'
                "</rdf:Seq></Container:Directory>")

    if kind == "apple":
        return (head.format("XMP Core 6.0.0")
                + ' <rdf:Description rdf:about=""\n'
                '   xmlns:xmp="http://ns.adobe.com/xap/1.0/"\n'
                '   xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/"\n'
                '   xmlns:HDRGainMap="http://ns.apple.com/HDRGainMap/1.0/"\n'
                f'   xmp:CreateDate="{when}" xmp:ModifyDate="{when}" xmp:CreatorTool="17.4.1"\n'
                f'   photoshop:DateCreated="{when}" HDRGainMap:HDRGainMapVersion="65536"/>\n'
                + tail)
    if kind == "ultrahdr":
        return (head.format("Adobe XMP Core 5.1.2")
                + ' <rdf:Description rdf:about=""\n'
                '   xmlns:hdrgm="http://ns.adobe.com/hdr-gain-map/1.0/"\n'
                f'   {container} hdrgm:Version="1.0">\n   '
                + directory(f'Item:Semantic="GainMap" Item:Mime="image/jpeg"'
                            f' Item:Length="{appended}"')
                + "\n </rdf:Description>\n" + tail)
    if kind in ("google-motion", "samsung-motion"):
        samsung = kind == "samsung-motion"
        padding = ' Item:Padding="0"' if samsung else ""
        return (head.format("Adobe XMP Core 5.1.0-jc003")
                + ' <rdf:Description rdf:about=""\n'
                '   xmlns:GCamera="http://ns.google.com/photos/1.0/camera/"\n'
                f'   {container}\n'
                '   GCamera:MotionPhoto="1" GCamera:MotionPhotoVersion="1"\n'
                f'   GCamera:MotionPhotoPresentationTimestampUs="{500000 + index}">\n   '
                + directory(f'Item:Semantic="MotionPhoto" Item:Mime="video/mp4"'
                            f' Item:Length="{appended}"{padding}', padding)
                + "\n </rdf:Description>\n" + tail)
    assert kind == "lightroom"
    settings = "\n".join(f'   crs:Setting{n:03d}="{(n * 37) % 200 - 100}"' for n in range(120))
    history = "".join(
        '<rdf:li rdf:parseType="Resource"><stEvt:action>saved</stEvt:action>'
        f"<stEvt:instanceID>xmp.iid:{index:04d}{n:028d}</stEvt:instanceID>"
        f"<stEvt:when>{when}+01:00</stEvt:when>"
        "<stEvt:softwareAgent>Adobe Photoshop Lightroom Classic 13.1 (Windows)</stEvt:softwareAgent>"
        "<stEvt:changed>/metadata</stEvt:changed></rdf:li>" for n in range(12))
    gps = ""
    if index % 5 < 3:
        gps = ('   exif:GPSLatitude="{:d},{:.4f}N"\n   exif:GPSLongitude="{:d},{:.4f}E"\n'
               .format(10 + index, 30.5, 20 + index, 12.25))
    return (head.format("Adobe XMP Core 7.0-c000 1.000000, 0000/00/00-00:00:00")
            + ' <rdf:Description rdf:about=""\n'
            '   xmlns:xmp="http://ns.adobe.com/xap/1.0/"\n'
            '   xmlns:tiff="http://ns.adobe.com/tiff/1.0/"\n'
            '   xmlns:exif="http://ns.adobe.com/exif/1.0/"\n'
            '   xmlns:aux="http://ns.adobe.com/exif/1.0/aux/"\n'
            '   xmlns:xmpMM="http://ns.adobe.com/xap/1.0/mm/"\n'
            '   xmlns:stEvt="http://ns.adobe.com/xap/1.0/sType/ResourceEvent#"\n'
            '   xmlns:dc="http://purl.org/dc/elements/1.1/"\n'
            '   xmlns:crs="http://ns.adobe.com/camera-raw-settings/1.0/"\n'
            f'   xmp:CreateDate="{when}" xmp:ModifyDate="{when}" xmp:MetadataDate="{when}"\n'
            '   xmp:CreatorTool="Adobe Photoshop Lightroom Classic 13.1 (Windows)"\n'
            f'   tiff:Make="BenchCam" tiff:Model="Model {index % 4}"\n'
            f'   exif:DateTimeOriginal="{when}" aux:Lens="24-70mm F2.8"\n'
            + gps + settings + ">\n"
            "   <dc:format>image/jpeg</dc:format>\n"
            f"   <xmpMM:History><rdf:Seq>{history}</rdf:Seq></xmpMM:History>\n"
            " </rdf:Description>\n" + tail)


def add_xmp(out, index, kind, seeds):
    """Writes seed `index`'s packet into `out` with exiftool, then appends what its
    Container directory lists (the gain map, the motion photo's MP4)."""
    appended = b""
    if kind == "ultrahdr":
        appended = (seeds / "thumb.jpg").read_bytes()
    elif kind in ("google-motion", "samsung-motion"):
        appended = (seeds / "seed00.mp4").read_bytes()
    packet = seeds / f"seed{index:02d}.xmp"
    packet.write_text(xmp_packet(index, kind, len(appended)))
    run(["exiftool", "-q", "-overwrite_original", f"-xmp<={packet}", str(out)])
    packet.unlink()
    if appended:
        with open(out, "ab") as file:
            file.write(appended)


def make_seeds(seeds):
    seeds.mkdir(parents=True, exist_ok=True)
    thumb = seeds / "thumb.jpg"
    run([CONVERT, "-size", "160x120", "gradient:navy-gold", "-quality", "70", str(thumb)])
    make_video_seeds(seeds)  # first: the motion photos append one
    for index in range(SEED_COUNT):
        width, height = 320 + 32 * (index % 5), 240 + 24 * (index % 4)
        out = seeds / f"seed{index:02d}.jpg"
        colors = ["red-blue", "green-yellow", "white-black", "orange-purple", "cyan-maroon"]
        run([CONVERT, "-size", f"{width}x{height}", f"gradient:{colors[index % 5]}",
             "-rotate", str(index * 9), "-resize", f"{width}x{height}!",
             "-quality", "80", str(out)])
        tags = exif_tags(index)
        if index % 2 == 0:  # 10 of 20 carry an IFD1 thumbnail
            tags.append(f"-ThumbnailImage<={thumb}")
        run(["exiftool", "-q", "-overwrite_original", *tags, str(out)])
        if XMP_KIND[index]:
            add_xmp(out, index, XMP_KIND[index], seeds)
    # Phone-style seeds for the mixed library.
    for index in range(5):
        out = seeds / f"seed{index:02d}.heic"
        run([CONVERT, "-size", "256x192", f"gradient:gray{20 + index * 10}-teal",
             "-quality", "60", str(out)])
        run(["exiftool", "-q", "-overwrite_original", *exif_tags(index), str(out)])
        add_xmp(out, index, "apple", seeds)
    for index in range(3):
        out = seeds / f"seed{index:02d}.png"
        run([CONVERT, "-size", "200x150", f"gradient:pink-gray{30 + index * 20}", str(out)])
    (seeds / ".stamp").write_text(GENERATOR_VERSION)


def make_video_seeds(seeds):
    """Two MOVs and two MP4s, `moov` at the end (ffmpeg's default)."""
    for container in ("mov", "mp4"):
        for variant in range(2):
            out = seeds / f"seed{variant:02d}.{container}"
            run(["ffmpeg", "-loglevel", "error", "-y", "-f", "lavfi",
                 "-i", f"testsrc=size=64x48:rate=10:duration={1 + variant}",
                 "-c:v", "mpeg4", "-bitexact",
                 "-metadata", f"creation_time=2021-04-0{1 + variant}T12:00:00Z", str(out)])


def make_camera_seeds(seeds):
    """Camera-sized seeds, made only for lib-camera: 10 JPEGs of ~0.3 MB (noise, so the
    image data does not compress away) with the EXIF of the small seeds and an IFD1
    thumbnail, and 4 videos of ~0.5 MB (MP4 and MOV, moov at the end)."""
    seeds.mkdir(parents=True, exist_ok=True)
    thumb = seeds / "thumb.jpg"
    run([CONVERT, "-size", "160x120", "gradient:navy-gold", "-quality", "70", str(thumb)])
    for index in range(10):
        out = seeds / f"seed{index:02d}.jpg"
        run([CONVERT, "-seed", str(index + 1), "-size", "1600x1200", "plasma:fractal",
             "-attenuate", "0.3", "+noise", "Gaussian", "-quality", "80", str(out)], env={**os.environ,
             "MAGICK_THREAD_LIMIT": "1"})
        run(["exiftool", "-q", "-overwrite_original", *exif_tags(index),
             f"-ThumbnailImage<={thumb}", str(out)])
    for variant, container in enumerate(("mp4", "mov", "mp4", "mov")):
        out = seeds / f"video{variant:02d}.{container}"
        run(["ffmpeg", "-loglevel", "error", "-y", "-f", "lavfi",
             "-i", f"testsrc=size=640x480:rate=25:duration={8 + variant}",
             "-c:v", "mpeg4", "-b:v", "1800k", "-bitexact",
             "-metadata", f"creation_time=2021-05-0{1 + variant}T12:00:00Z", str(out)])
    (seeds / ".stamp").write_text(GENERATOR_VERSION)


def build_camera_library(lib, seeds, albums=100, video_albums=3):
    if lib.exists():
        shutil.rmtree(lib)
    stamp = seeds / ".stamp"
    if not stamp.exists() or stamp.read_text() != GENERATOR_VERSION:
        if seeds.exists():
            shutil.rmtree(seeds)
        print(f"making camera seeds in {seeds}", file=sys.stderr)
        make_camera_seeds(seeds)
    jpegs = sorted(seeds.glob("seed*.jpg"))
    videos = sorted(seeds.glob("video*"))
    lib.mkdir(parents=True)
    for index in range(1, albums + 1):
        copy_album([jpegs[(index + i) % len(jpegs)] for i in range(100)],
                   lib / f"Album {index:04d}", [f"DSC_{i:04d}.JPG" for i in range(1, 101)])
    for index in range(1, video_albums + 1):
        sources = [videos[(index + i) % len(videos)] for i in range(100)]
        copy_album(sources, lib / f"Videos {index}",
                   [f"MVI_{i:04d}.{s.suffix[1:].upper()}" for i, s in enumerate(sources, 1)])


def copy_album(source_files, album, names):
    """Copies `source_files[i]` to `album/names[i]` with one `cp` per file into a template,
    used only for the first album of each kind; the rest are `cp -r` of that."""
    album.mkdir(parents=True, exist_ok=True)
    for source, name in zip(source_files, names):
        run(["cp", str(source), str(album / name)])


def build_jpeg_library(lib, seeds, albums):
    template = lib.parent / (lib.name + ".template")
    for path in (lib, template):
        if path.exists():
            shutil.rmtree(path)
    jpegs = [seeds / f"seed{i:02d}.jpg" for i in range(SEED_COUNT)]
    copy_album([jpegs[i % SEED_COUNT] for i in range(100)], template,
               [f"IMG_{i:04d}.JPG" for i in range(1, 101)])
    lib.mkdir(parents=True)
    # Camera Roll: the seeds themselves, directly in the root.
    copy_album(jpegs, lib, [f"IMG_{9000 + i:04d}.JPG" for i in range(SEED_COUNT)])
    for index in range(1, albums + 1):
        run(["cp", "-r", str(template), str(lib / f"Album {index:04d}")])
    shutil.rmtree(template)


def build_mixed_library(lib, seeds):
    """~2,000 files: DCIM/100APPLE (500) and 19 albums of 80 files, each slot cycling
    through HEIC, JPEG, Live Photo pair (HEIC+MOV or JPEG+MOV), PNG, MOV, MP4."""
    if lib.exists():
        shutil.rmtree(lib)
    heics = sorted(seeds.glob("seed*.heic"))
    jpegs = sorted(seeds.glob("seed*.jpg"))
    pngs = sorted(seeds.glob("seed*.png"))
    movs = sorted(seeds.glob("seed*.mov"))
    mp4s = sorted(seeds.glob("seed*.mp4"))
    # Ten slots: 4 HEIC, 2 JPEG, 1 HEIC Live pair, 1 JPEG Live pair, 1 PNG, 1 MOV/MP4.
    pattern = ["heic", "jpg", "heic", "live-heic", "png", "heic", "jpg", "live-jpg", "heic",
               "video"]

    def fill(album, slots, start):
        sources, names = [], []
        for slot in range(slots):
            n = start + slot
            kind = pattern[slot % len(pattern)]
            base = f"IMG_{n:04d}"
            if kind == "heic":
                sources.append(heics[n % len(heics)]); names.append(base + ".HEIC")
            elif kind == "jpg":
                sources.append(jpegs[n % len(jpegs)]); names.append(base + ".JPG")
            elif kind == "png":
                sources.append(pngs[n % len(pngs)]); names.append(f"Screenshot_{n:04d}.PNG")
            elif kind == "video":
                if (n // len(pattern)) % 2 == 0:
                    sources.append(movs[n % len(movs)]); names.append(base + ".MOV")
                else:
                    sources.append(mp4s[n % len(mp4s)]); names.append(base + ".MP4")
            else:  # a Live Photo: still + MOV of the same base name
                still = heics[n % len(heics)] if kind == "live-heic" else jpegs[n % len(jpegs)]
                sources.append(still)
                names.append(base + (".HEIC" if kind == "live-heic" else ".JPG"))
                sources.append(movs[n % len(movs)]); names.append(base + ".MOV")
        copy_album(sources, album, names)

    lib.mkdir(parents=True)
    fill(lib / "DCIM" / "100APPLE", 450, 1)
    template = lib.parent / (lib.name + ".template")
    if template.exists():
        shutil.rmtree(template)
    fill(template, 70, 5000)
    for index in range(1, 20):
        run(["cp", "-r", str(template), str(lib / f"Trip {index:02d}")])
    shutil.rmtree(template)


def count_files(lib):
    return sum(len(files) for _, _, files in os.walk(lib))


def jpeg_files(name):
    """The number of album files a JPEG library name asks for: `10k` → 10,000."""
    return int(name[:-1]) * 1000 if name.endswith("k") else int(name)


def library_name(text):
    """Checks a library name: `mixed`, or a JPEG library size such as `10k` or `2500`."""
    if text in ("mixed", "camera", "camera-1k") or re.fullmatch(r"[1-9][0-9]*k?", text):
        return text
    raise argparse.ArgumentTypeError(f"not a library name: {text!r}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", default=os.environ.get(
        "GROUPENUMERATOR_BENCH_DIR", "/tmp/groupenumerator-bench"))
    parser.add_argument("--force", action="store_true", help="rebuild everything")
    parser.add_argument("--only", action="append", type=library_name,
                        help="build only these libraries (repeatable): 10k, 100k, mixed,"
                        " camera, camera-1k, or a JPEG library of N files (N or Nk, in albums"
                        " of 100)")
    args = parser.parse_args()
    root = Path(args.dir).resolve()
    repo = Path(__file__).resolve().parent.parent
    if root == repo or repo in root.parents:
        sys.exit("error: the scratch folder must be outside the repository")
    root.mkdir(parents=True, exist_ok=True)
    seeds = root / "seeds"
    stamp = seeds / ".stamp"
    if args.force or not stamp.exists() or stamp.read_text() != GENERATOR_VERSION:
        if seeds.exists():
            shutil.rmtree(seeds)
        print(f"making seeds in {seeds}", file=sys.stderr)
        make_seeds(seeds)
    wanted = args.only or ["10k", "100k", "mixed"]
    def builder(name):
        if name == "mixed":
            return lambda lib: build_mixed_library(lib, seeds)
        if name == "camera":
            return lambda lib: build_camera_library(lib, root / "camera-seeds")
        if name == "camera-1k":
            return lambda lib: build_camera_library(lib, root / "camera-seeds", 10, 1)
        return lambda lib: build_jpeg_library(lib, seeds, max(1, jpeg_files(name) // 100))

    builders = {name: builder(name) for name in wanted}
    for name in wanted:
        lib = root / f"lib-{name}"
        lib_stamp = root / f".lib-{name}.stamp"
        if not args.force and lib_stamp.exists() and lib_stamp.read_text() == GENERATOR_VERSION:
            continue
        lib_stamp.unlink(missing_ok=True)
        print(f"building {lib}", file=sys.stderr)
        builders[name](lib)
        lib_stamp.write_text(GENERATOR_VERSION)
        print(f"  {count_files(lib)} files", file=sys.stderr)
    for name in wanted:
        print(root / f"lib-{name}")


if __name__ == "__main__":
    main()
