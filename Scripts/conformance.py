#!/usr/bin/env python3
"""Compare the Demo's reading of the shared corpus with ExifTool's (truth.json).

Usage:
  python3 Scripts/conformance.py --demo .build/release/Demo --corpus ../shared/corpus
  python3 Scripts/conformance.py --demo .build/release/Demo --corpus ../shared/corpus --kinds all
  python3 Scripts/conformance.py --demo .build/release/Demo --corpus ../shared/corpus --bad

The first form runs `DEMO --format json CORPUS` and checks every JPEG that truth.json
lists outside bad/: that it is listed exactly once, and that its TIFF DateTime,
DateTimeOriginal (with offset), GPS position and altitude, displayed size, thumbnail flag,
make, model and lens agree with ExifTool 12.57. It prints a table per field and the disagreements, and exits 1
when a JPEG is missing or listed twice, or when any field agrees on fewer than 99%.

With --kinds all it checks every photo and video format we claim (docs/Formats.md), by
truth.json's FileType, outside bad/:
  jpeg       JPEG, MPO (JPEG bytes; libexif reads the first image)
  heif-avif  HEIC, HEIF, AVIF, and MP4 whose name ends .avif/.avifs/.heic/.heif/.hif/.hej2
             (HEIF image files whose brands ExifTool 12.57 does not know as images)
  png        PNG
  tiff-raw   TIFF, BTF (BigTIFF), DNG and the RAWs the engine recognises: CR2, CR3, NEF,
             ARW, ORF, RW2, PEF, SRW, RAF, CRW, MRW
  webp       WEBP, Extended WEBP
  gif-bmp    GIF, BMP (our header readers: size only)
  psd-jp2    PSD, JP2 (our own readers: header size, EXIF and XMP)
  video      MOV, MP4, M4V, 3GP, 3G2 (our QuickTime reader), AVI, M2TS (our RIFF and
             transport stream readers)
  other      GIF, BMP, JXL, JXL Codestream: the engine lists them as photos, but
             no metadata reader is claimed for them, so only their listing is checked
Every claimed file must be listed exactly once, as an asset's `path` or as a resource of
a Live Photo. Per family and overall it counts agreement on:
  type        photo families are `photo` (or `livePhoto`), videos `video`
  takenDate   photos: DateTimeOriginal as the source, same wall clock, ending in
              OffsetTimeOriginal when there is one (no DateTimeOriginal: the source must
              not claim one; for CRW, CanonRaw:DateTimeOriginal and the source
              canonraw:DateTimeOriginal); videos: Keys:CreationDate -> source
              quicktime:creationdate, same wall clock and offset; else a real
              QuickTime:CreateDate -> source quicktime:mvhd, that time with `Z`; else (M2TS)
              H264:DateTimeOriginal -> source h264:DateTimeOriginal, wall clock and offset;
              (AVI) RIFF:DateTimeOriginal -> source riff:IDIT, wall clock (exiftool reads
              an IDIT `YYYY/MM/DD HH:MM:SS` with its pattern for Casio's minute-only
              `YYYY/MM/DD HH:MM`, so its seconds are 00: there the minute must agree);
              else source file:mtime
  dateTime    TIFF DateTime, raw, or null (photos only; the legacy dictionary's "0")
  location    GPSLatitude/GPSLongitude within 1e-4 degrees, or no location when truth
              has none (photos and videos)
  altitude    GPSAltitude (signed by its ref: below sea level is negative) within 0.5 m
              of the location's altitude; counted where ExifTool has a position and
              either side has an altitude (an altitude without a position has no
              location to live in)
  make, model Make and Model (ExifTool's choice among IFD0, Keys, UserData…) equal to
              ours; counted where either side has one
  lensModel   ExifIFD:LensModel equal to ours (truth.json does not carry it: one exiftool
              run reads it, as for the thumbnails; without exiftool it is not counted);
              counted where either side has one
  size        ImageWidth x ImageHeight as displayed: swapped for Orientation 5-8; for
              HEIF/AVIF without an Orientation, for CRW and for videos, swapped when Rotation is
              90 or 270 (not counted when ExifTool has no size)
  duration    videos: Duration within 0.05 s
The movie of a Live Photo is listed through its still; of its fields only the asset's
duration is compared with the movie's. The Live Photo pairs in pigallery2/live_photo/
and livephoto-same-basename/ must each be ONE `livePhoto` asset whose resources are
exactly the still and the movie. Formats we do not claim (X3F, EPS, …) are
reported with whether the Demo listed them, never counted. It exits 1 when a claimed
file is missing or listed twice, when a Live Photo pair is not one asset, or when any
field agrees on fewer than 98% overall; everything is printed first.

With --bad it runs `DEMO --format json CORPUS/bad` instead: that must exit 0 with a
JSON array; each JPEG in bad/ should be listed once, and broken ones should carry
problems. Those last two are only counted and reported, never a failure.

--json FILE reads the Demo's output from FILE instead of running it (for checking
this script itself). Python 3 standard library only.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import subprocess
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

DEMO_TIMEOUT_SECONDS = 20 * 60
PASS_PERCENT = 99.0
ALL_KINDS_PASS_PERCENT = 98.0
MAX_LINES_PER_FIELD = 30
GPS_TOLERANCE_DEGREES = 1e-4
JPEG_EXTENSIONS = {".jpg", ".jpeg", ".jpe", ".jfif"}
DURATION_TOLERANCE_SECONDS = 0.05

# --kinds all: truth.json FileType -> the family it is counted in (see the docstring).
FAMILIES = ["jpeg", "heif-avif", "png", "tiff-raw", "webp", "gif-bmp", "psd-jp2", "video"]
LISTED_ONLY_FAMILY = "other"
FAMILY_OF_FILE_TYPE = {
    "JPEG": "jpeg", "MPO": "jpeg",
    "HEIC": "heif-avif", "HEIF": "heif-avif", "AVIF": "heif-avif",
    "PNG": "png",
    "TIFF": "tiff-raw", "BTF": "tiff-raw", "DNG": "tiff-raw", "CR2": "tiff-raw",
    "CR3": "tiff-raw", "NEF": "tiff-raw", "ARW": "tiff-raw", "ORF": "tiff-raw",
    "RW2": "tiff-raw", "PEF": "tiff-raw", "SRW": "tiff-raw", "RAF": "tiff-raw",
    # Our own bounded readers: Canon CIFF and Minolta MRW RAWs, PSD and JPEG 2000.
    "CRW": "tiff-raw", "MRW": "tiff-raw", "PSD": "psd-jp2", "JP2": "psd-jp2",
    "WEBP": "webp", "Extended WEBP": "webp",
    "MOV": "video", "MP4": "video", "M4V": "video", "3GP": "video", "3G2": "video",
    # Our own header readers: GIF and BMP give a size, AVI a size and a duration.
    "GIF": "gif-bmp", "BMP": "gif-bmp", "AVI": "video", "M2TS": "video",
    "JXL": LISTED_ONLY_FAMILY, "JXL Codestream": LISTED_ONLY_FAMILY,
    # Containers listed as videos but not read: file time and a problem.
    "MKV": LISTED_ONLY_FAMILY, "WMV": LISTED_ONLY_FAMILY,
}
UNREAD_VIDEO_FILE_TYPES = {"MKV", "WMV"}
# Camera records that are the shot's DateTimeOriginal outside EXIF (exiftool's group, our
# creationDateSource), by FileType.
CAMERA_DATES = {
    "CRW": ("CanonRaw:DateTimeOriginal", "canonraw:DateTimeOriginal"),
    "M2TS": ("H264:DateTimeOriginal", "h264:DateTimeOriginal"),
    "AVI": ("RIFF:DateTimeOriginal", "riff:IDIT"),
}
HEIF_IMAGE_EXTENSIONS = {".avif", ".avifs", ".heic", ".heif", ".hif", ".hej2"}
LIVE_PHOTO_PAIRS = [
    ("pigallery2/live_photo/IMG_7943.HEIC", "pigallery2/live_photo/IMG_7943_HEVC.MOV"),
    ("livephoto-same-basename/IMG_7943.HEIC", "livephoto-same-basename/IMG_7943.MOV"),
]
LIVE_PHOTO_MOVIES = {movie.encode("utf-8") for _, movie in LIVE_PHOTO_PAIRS}
ALL_FIELDS = ["type", "takenDate", "dateTime", "location", "altitude", "size", "duration",
              "make", "model", "lensModel"]
ALTITUDE_TOLERANCE_METRES = 0.5
LENS_MODEL = "_ExifIFD:LensModel"
EXIF_DATE = re.compile(r"^(\d{4}):(\d\d):(\d\d) (\d\d):(\d\d):(\d\d)(\.\d+)?(.*)$")
ISO_DATE = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(\.\d+)?(.*)$")
ESCAPE = re.compile(rb"%([0-9A-Fa-f]{2})")


# --- paths -------------------------------------------------------------------------------


def demo_path_bytes(path: str) -> bytes:
    """The file-system bytes of a Demo `path` (docs/Formats.md: bytes that are not valid
    UTF-8 are written `%XX`, and `%` itself `%25`; everything else is literal UTF-8)."""
    return ESCAPE.sub(lambda m: bytes([int(m.group(1), 16)]), path.encode("utf-8"))


def truth_path_bytes(path: str) -> bytes:
    """The file-system bytes of a truth.json `SourceFile` (relative to the corpus)."""
    return path.encode("utf-8", "surrogateescape")


def shown(path: bytes) -> str:
    return path.decode("utf-8", "backslashreplace")


# --- running the Demo --------------------------------------------------------------------


class DemoFailure(Exception):
    pass


def run_demo(demo: str, library: str) -> list[dict[str, Any]]:
    """Runs `demo --format json library` (no shell) and returns its parsed array."""
    command = [demo, "--format", "json", library]
    print(f"$ {' '.join(command)}", flush=True)
    started = time.monotonic()
    try:
        result = subprocess.run(
            command, stdin=subprocess.DEVNULL, capture_output=True, timeout=DEMO_TIMEOUT_SECONDS
        )
    except FileNotFoundError as error:
        raise DemoFailure(f"cannot run the Demo: {error}") from error
    except subprocess.TimeoutExpired as error:
        raise DemoFailure(f"the Demo did not finish within {DEMO_TIMEOUT_SECONDS} s") from error
    elapsed = time.monotonic() - started
    stderr_tail = result.stderr.decode("utf-8", "replace").strip().splitlines()[-20:]
    if result.returncode != 0:
        how = (
            f"was killed by signal {-result.returncode}"
            if result.returncode < 0
            else f"exited with status {result.returncode}"
        )
        detail = "\n  ".join(stderr_tail)
        raise DemoFailure(f"the Demo {how}" + (f"; stderr ends:\n  {detail}" if detail else ""))
    assets = parse_assets(result.stdout, "the Demo's standard output")
    print(f"  {len(assets)} assets in {elapsed:.1f} s", flush=True)
    return assets


def parse_assets(data: bytes, where: str) -> list[dict[str, Any]]:
    try:
        assets = json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise DemoFailure(f"{where} is not JSON: {error}") from error
    if not isinstance(assets, list) or not all(isinstance(a, dict) for a in assets):
        raise DemoFailure(f"{where} is not a JSON array of objects")
    return assets


def index_by_path(assets: list[dict[str, Any]]) -> dict[bytes, list[dict[str, Any]]]:
    """Each file path -> the assets naming it, as their `path` or as a resource's path
    (a Live Photo's video is listed through its still)."""
    index: dict[bytes, list[dict[str, Any]]] = defaultdict(list)
    for asset in assets:
        paths = set()
        if isinstance(asset.get("path"), str):
            paths.add(demo_path_bytes(asset["path"]))
        for resource in asset.get("resources") or []:
            if isinstance(resource, dict) and isinstance(resource.get("path"), str):
                paths.add(demo_path_bytes(resource["path"]))
        for path in paths:
            index[path].append(asset)
    return index


# --- comparing ---------------------------------------------------------------------------


def number(value: Any) -> float | None:
    """A finite number, or None for null, '' and anything else ExifTool may print."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def real_date(value: Any) -> str | None:
    """The date text, or None when it is absent or a placeholder such as
    '0000:00:00 00:00:00' or blanks: GroupEnumerator treats those as no date at all (a
    camera writes them when its clock was never set), so they count as absent here too."""
    if not isinstance(value, str):
        return None
    if not value.strip(" :0\x00"):
        return None
    return value


def iso_wall_clock(exif_date: str) -> str:
    """'2019:04:05 14:30:15' -> '2019-04-05T14:30:15' (the first 19 characters only)."""
    d = exif_date[:19]
    return f"{d[0:4]}-{d[5:7]}-{d[8:10]}T{d[11:19]}"


@dataclass
class Field:
    name: str
    agree: int = 0
    total: int = 0
    disagreements: list[tuple[str, str, str]] = field(default_factory=list)

    def check(self, path: bytes, ok: bool, ours: Any, truth: Any) -> None:
        self.total += 1
        if ok:
            self.agree += 1
        else:
            self.disagreements.append((shown(path), render(ours), render(truth)))

    @property
    def percent(self) -> float:
        return 100.0 * self.agree / self.total if self.total else 100.0


def render(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def check_jpeg(
    path: bytes, asset: dict[str, Any], truth: dict[str, Any], fields: dict[str, Field]
) -> None:
    # TIFF DateTime, raw; null when the file has none (only `legacy` keeps "0").
    want = real_date(truth.get("IFD0:DateTime")) or None
    fields["dateTime"].check(path, asset.get("dateTime") == want, asset.get("dateTime"), want)

    # DateTimeOriginal: the source, the wall-clock time, and the offset when there is one.
    dto = real_date(truth.get("ExifIFD:DateTimeOriginal"))
    source, created = asset.get("creationDateSource"), asset.get("creationDate")
    ours = {"creationDateSource": source, "creationDate": created}
    if isinstance(dto, str) and dto:
        ok = (source == "exif:DateTimeOriginal" and isinstance(created, str)
              and created[:19] == iso_wall_clock(dto))
        fields["dateTimeOriginal"].check(path, ok, ours, dto)
        offset = truth.get("OffsetTimeOriginal")
        if isinstance(offset, str) and offset:
            ok = isinstance(created, str) and created.endswith(offset)
            fields["offsetTimeOriginal"].check(path, ok, created, offset)
    else:
        fields["dateTimeOriginal"].check(path, source != "exif:DateTimeOriginal", ours, None)

    # GPS: present in truth only when both coordinates are numbers.
    lat, lon = number(truth.get("GPSLatitude")), number(truth.get("GPSLongitude"))
    location = asset.get("location")
    if lat is None or lon is None:
        fields["location"].check(path, location is None, location, None)
    else:
        ok = False
        if isinstance(location, dict):
            our_lat, our_lon = number(location.get("latitude")), number(location.get("longitude"))
            ok = (our_lat is not None and our_lon is not None
                  and abs(our_lat - lat) <= GPS_TOLERANCE_DEGREES
                  and abs(our_lon - lon) <= GPS_TOLERANCE_DEGREES)
        fields["location"].check(path, ok, location, {"latitude": lat, "longitude": lon})

    # Displayed size: swapped for orientations 5-8. Not counted when ExifTool has no size.
    width, height = truth.get("ImageWidth"), truth.get("ImageHeight")
    if isinstance(width, int) and isinstance(height, int):
        if truth.get("Orientation") in (5, 6, 7, 8):
            width, height = height, width
        ours = [asset.get("width"), asset.get("height")]
        fields["size"].check(path, ours == [width, height], ours, [width, height])

    # Embedded (IFD1) thumbnail: one that is a JPEG (exiftool -b withholds the others).
    length = number(truth.get("ThumbnailLength"))
    want_thumbnail = length is not None and length > 0 and truth.get(THUMBNAIL_IS_JPEG, True)
    fields["thumbnail"].check(path, asset.get("hasThumbnail") is want_thumbnail,
                              asset.get("hasThumbnail"), want_thumbnail)
    check_altitude(path, asset, truth, fields["altitude"])
    check_camera(path, asset, truth, fields)


THUMBNAIL_IS_JPEG = "_ThumbnailIsJPEG"


def mark_jpeg_thumbnails(corpus: str, truth: list[dict[str, Any]]) -> None:
    """Marks each entry with a ThumbnailLength by whether its IFD1 bytes are a JPEG, as
    `exiftool -b -ThumbnailImage` (without -m) decides: it withholds the others, and so
    must the Demo. One exiftool run for all of them; without exiftool nothing is marked
    (every IFD1 thumbnail is then expected)."""
    paths = [entry["SourceFile"] for entry in truth
             if (number(entry.get("ThumbnailLength")) or 0) > 0]
    if not paths or shutil.which("exiftool") is None:
        return
    result = subprocess.run(
        ["exiftool", "-j", "-b", "-ThumbnailImage", "-@", "-"], cwd=corpus,
        input="\n".join(paths).encode(), capture_output=True)
    try:
        found = {item["SourceFile"]: item.get("ThumbnailImage") for item in json.loads(result.stdout)}
    except (ValueError, KeyError):
        return
    for entry in truth:
        if entry["SourceFile"] in found:
            value = found[entry["SourceFile"]]
            entry[THUMBNAIL_IS_JPEG] = (
                isinstance(value, str) and value.startswith("base64:/9j/"))


def print_lines(title: str, lines: list[str]) -> None:
    print(f"\n{title} ({len(lines)}):")
    for line in lines[:MAX_LINES_PER_FIELD]:
        print(f"  {line}")
    if len(lines) > MAX_LINES_PER_FIELD:
        print(f"  … and {len(lines) - MAX_LINES_PER_FIELD} more")


def print_table(rows: list[tuple[str, int, int, float]]) -> None:
    print(f"\n{'field':<20} {'agree':>6} {'total':>6} {'percent':>8}")
    for name, agree, total, percent in rows:
        print(f"{name:<20} {agree:>6} {total:>6} {percent:>7.1f}%")


# --- every claimed photo and video (--kinds all) -----------------------------------------


def family_of(entry: dict[str, Any]) -> str | None:
    """The family a truth entry is counted in, LISTED_ONLY_FAMILY for formats that are
    only checked for being listed, or None for a format we do not claim."""
    file_type = entry.get("FileType")
    if not isinstance(file_type, str):
        return None
    extension = os.path.splitext(entry["SourceFile"])[1].lower()
    if file_type == "MP4" and extension in HEIF_IMAGE_EXTENSIONS:
        return "heif-avif"
    return FAMILY_OF_FILE_TYPE.get(file_type)


def split_exif_date(text: str) -> tuple[str, str] | None:
    """'2021:06:01 19:00:00.5+09:00' -> ('2021-06-01T19:00:00', '+09:00'); the zone part
    is '' when there is none. None when the text is not such a date."""
    match = EXIF_DATE.match(text)
    if not match:
        return None
    year, month, day, hour, minute, second, _, zone = match.groups()
    return f"{year}-{month}-{day}T{hour}:{minute}:{second}", zone.strip()


def split_iso_date(text: Any) -> tuple[str, str] | None:
    """'2021-06-01T19:00:00.120+09:00' -> ('2021-06-01T19:00:00', '+09:00')."""
    if not isinstance(text, str):
        return None
    match = ISO_DATE.match(text)
    return (match.group(1), match.group(3)) if match else None


def camera_date(truth: dict[str, Any]) -> tuple[str | None, str]:
    """The DateTimeOriginal a photo's truth entry gives, and the source it must have: the
    EXIF one, or for CRW the CIFF record's (exiftool's CanonRaw group)."""
    tag, source = CAMERA_DATES.get(truth.get("FileType"), (None, "exif:DateTimeOriginal"))
    if tag is not None:
        return real_date((truth.get("exiftool") or {}).get(tag)), source
    return real_date(truth.get("ExifIFD:DateTimeOriginal")), source


def check_taken_photo(path: bytes, asset: dict[str, Any], truth: dict[str, Any],
                      field: Field) -> None:
    dto, want_source = camera_date(truth)
    source, created = asset.get("creationDateSource"), asset.get("creationDate")
    ours = {"creationDateSource": source, "creationDate": created}
    if dto is None:
        field.check(path, source != want_source, ours, None)
        return
    offset = truth.get("OffsetTimeOriginal")
    offset = offset.strip() if isinstance(offset, str) else ""
    ok = (source == want_source and isinstance(created, str)
          and created[:19] == iso_wall_clock(dto) and (not offset or created.endswith(offset)))
    field.check(path, ok, ours, dto + (f" {offset}" if offset else ""))


def check_taken_video(path: bytes, asset: dict[str, Any], truth: dict[str, Any],
                      field: Field) -> None:
    source, created = asset.get("creationDateSource"), asset.get("creationDate")
    ours = {"creationDateSource": source, "creationDate": created}
    keys = real_date(truth.get("Keys:CreationDate"))
    header = real_date(truth.get("QuickTime:CreateDate"))
    wanted_keys = split_exif_date(keys) if keys is not None else None
    wanted_header = split_exif_date(header) if header is not None else None
    if wanted_keys is not None:
        want_source, (want_clock, want_zone), shown_truth = (
            "quicktime:creationdate", wanted_keys, f"Keys:CreationDate {keys}")
    elif wanted_header is not None:
        want_source, (want_clock, _), shown_truth = (
            "quicktime:mvhd", wanted_header, f"QuickTime:CreateDate {header} (UTC)")
        want_zone = "Z"
    elif truth.get("FileType") in CAMERA_DATES and camera_date(truth)[0] is not None:
        # AVCHD: the MDPM recording time, with its offset when the camera wrote one.
        recorded, want_source = camera_date(truth)
        shown_truth = f"{CAMERA_DATES[truth['FileType']][0]} {recorded}"
        parts = split_exif_date(recorded)
        if parts is None:
            field.check(path, False, ours, shown_truth)
            return
        want_clock, want_zone = parts
    else:
        field.check(path, source == "file:mtime", ours, "no date: file:mtime")
        return
    got = split_iso_date(created)
    ok = source == want_source and got is not None and got == (want_clock, want_zone)
    if not ok and want_source == "riff:IDIT" and got is not None and want_clock.endswith(":00"):
        # exiftool's IDIT seconds may be 00 for lack of reading them (see the docstring).
        ok = source == want_source and got[0][:16] == want_clock[:16] and got[1] == want_zone
    field.check(path, ok, ours, shown_truth)


def check_location(path: bytes, asset: dict[str, Any], truth: dict[str, Any],
                   field: Field) -> None:
    lat, lon = number(truth.get("GPSLatitude")), number(truth.get("GPSLongitude"))
    location = asset.get("location")
    if lat is None or lon is None:
        field.check(path, location is None, location, None)
        return
    ok = False
    if isinstance(location, dict):
        our_lat, our_lon = number(location.get("latitude")), number(location.get("longitude"))
        ok = (our_lat is not None and our_lon is not None
              and abs(our_lat - lat) <= GPS_TOLERANCE_DEGREES
              and abs(our_lon - lon) <= GPS_TOLERANCE_DEGREES)
    field.check(path, ok, location, {"latitude": lat, "longitude": lon})


def check_altitude(path: bytes, asset: dict[str, Any], truth: dict[str, Any],
                   field: Field) -> None:
    """GPSAltitude (ExifTool's composite with -n: negative below sea level) within
    ALTITUDE_TOLERANCE_METRES of ours; not counted when neither side has an altitude, nor
    when ExifTool has no position: an altitude is part of a location (`location.altitude`),
    and a file whose latitude and longitude were stripped but whose altitude was kept has
    no location to hold it."""
    if number(truth.get("GPSLatitude")) is None or number(truth.get("GPSLongitude")) is None:
        return
    want = number(truth.get("GPSAltitude"))
    location = asset.get("location")
    ours = number(location.get("altitude")) if isinstance(location, dict) else None
    if want is None and ours is None:
        return
    ok = want is not None and ours is not None and abs(ours - want) <= ALTITUDE_TOLERANCE_METRES
    field.check(path, ok, ours, want)


def truth_text(value: Any) -> str | None:
    """A text tag of truth.json as a string (ExifTool prints a numeric model as a number),
    None when absent or blank."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str) and value.strip():
        return value
    return None


def check_text(path: bytes, asset: dict[str, Any], key: str, want: str | None,
               field: Field) -> None:
    """Our `key` equal to `want`; not counted when neither side has a value. Trailing
    blanks are not compared: ExifTool drops them from Make and Model but keeps them in
    LensModel, and GroupEnumerator drops them from all three."""
    ours = asset.get(key)
    want = want.rstrip() if isinstance(want, str) else want
    if want is None and ours is None:
        return
    field.check(path, ours == want, ours, want)


# truth.json was written with `exiftool -n`, so an AVCHD camera's maker is its MDPM maker
# code (H264:Make); these are the names ExifTool prints for the codes it knows.
H264_MAKERS = {0x0103: "Panasonic", 0x0108: "Sony", 0x1011: "Canon", 0x1104: "JVC"}


def truth_make(truth: dict[str, Any]) -> str | None:
    """ExifTool's Make as it prints it: an H264 maker code turned into its name."""
    code = truth.get("exiftool", {}).get("H264:Make")
    if isinstance(code, int) and not isinstance(code, bool):
        return H264_MAKERS.get(code)
    return truth_text(truth.get("Make"))


def check_camera(path: bytes, asset: dict[str, Any], truth: dict[str, Any],
                 fields: dict[str, Field]) -> None:
    check_text(path, asset, "make", truth_make(truth), fields["make"])
    check_text(path, asset, "model", truth_text(truth.get("Model")), fields["model"])
    if LENS_MODEL in truth:
        check_text(path, asset, "lensModel", truth_text(truth[LENS_MODEL]), fields["lensModel"])


def mark_lens_models(corpus: str, truth: list[dict[str, Any]]) -> None:
    """Adds ExifIFD:LensModel (which truth.json does not carry) to every entry outside
    bad/, from one `exiftool -ExifIFD:LensModel` run; without exiftool nothing is added
    and the lensModel field is not counted."""
    paths = [entry["SourceFile"] for entry in truth if not entry["SourceFile"].startswith("bad/")]
    if not paths or shutil.which("exiftool") is None:
        return
    result = subprocess.run(
        ["exiftool", "-j", "-G1", "-ExifIFD:LensModel", "-@", "-"], cwd=corpus,
        input="\n".join(paths).encode(), capture_output=True)
    try:
        found = {item["SourceFile"]: item.get("ExifIFD:LensModel")
                 for item in json.loads(result.stdout)}
    except (ValueError, KeyError):
        return
    for entry in truth:
        if entry["SourceFile"] in found:
            entry[LENS_MODEL] = found[entry["SourceFile"]]


def displayed_size(truth: dict[str, Any], family: str) -> list[int] | None:
    """exiftool's size of the picture, turned as displayed. For camera RAWs the plain
    ImageWidth is whichever IFD0 holds (often a small preview, or 8×8 for RAF and RW2), so
    exiftool's own Composite:ImageSize — the size of the full image — is used there."""
    width, height = truth.get("ImageWidth"), truth.get("ImageHeight")
    composite = (truth.get("exiftool") or {}).get("Composite:ImageSize")
    if family == "tiff-raw" and isinstance(composite, str):
        parts = composite.split()
        if len(parts) == 2 and all(part.isdigit() for part in parts):
            width, height = int(parts[0]), int(parts[1])
    if not isinstance(width, int) or not isinstance(height, int):
        return None
    orientation, rotation = truth.get("Orientation"), truth.get("Rotation")
    if family == "video" or (family == "heif-avif" and orientation is None) or (
            truth.get("FileType") == "CRW"):  # CIFF's rotation is its only orientation
        turned = rotation in (90, 270)
    else:
        turned = orientation in (5, 6, 7, 8)
    return [height, width] if turned else [width, height]


def check_size(path: bytes, asset: dict[str, Any], truth: dict[str, Any], family: str,
               field: Field) -> None:
    want = displayed_size(truth, family)
    if want is not None:
        ours = [asset.get("width"), asset.get("height")]
        field.check(path, ours == want, ours, want)


def check_duration(path: bytes, asset: dict[str, Any], truth: dict[str, Any],
                   field: Field) -> None:
    want = number(truth.get("Duration"))
    if want is None:
        return
    ours = number(asset.get("duration"))
    ok = ours is not None and abs(ours - want) <= DURATION_TOLERANCE_SECONDS
    field.check(path, ok, asset.get("duration"), want)


def check_claimed(path: bytes, asset: dict[str, Any], truth: dict[str, Any], family: str,
                  fields: dict[str, Field]) -> None:
    """The field checks of one claimed file, listed once as `asset`."""
    asset_type = asset.get("type")
    is_video = family == "video"
    if is_video and demo_path_bytes(str(asset.get("path"))) != path:
        # Listed through another file: only right for the movie of an expected Live Photo,
        # whose asset has the still's dates, place and size but the movie's duration.
        expected = path in LIVE_PHOTO_MOVIES
        fields["type"].check(path, expected and asset_type == "livePhoto",
                             {"type": asset_type, "path": asset.get("path")},
                             "livePhoto" if expected else "video")
        check_duration(path, asset, truth, fields["duration"])
        return
    want_types = ["video"] if is_video else ["photo", "livePhoto"]
    fields["type"].check(path, asset_type in want_types, asset_type, " or ".join(want_types))
    if is_video:
        check_taken_video(path, asset, truth, fields["takenDate"])
        check_duration(path, asset, truth, fields["duration"])
    else:
        check_taken_photo(path, asset, truth, fields["takenDate"])
        want = real_date(truth.get("IFD0:DateTime")) or None
        fields["dateTime"].check(path, asset.get("dateTime") == want, asset.get("dateTime"), want)
    check_location(path, asset, truth, fields["location"])
    check_altitude(path, asset, truth, fields["altitude"])
    check_size(path, asset, truth, family, fields["size"])
    check_camera(path, asset, truth, fields)


def check_live_photo(still: str, movie: str, index: dict[bytes, list[dict[str, Any]]],
                     in_truth: set[bytes]) -> str | None:
    """None when the pair is one livePhoto asset with exactly the two files, else why not."""
    still_path, movie_path = truth_path_bytes(still), truth_path_bytes(movie)
    if still_path not in in_truth or movie_path not in in_truth:
        return "not both in truth.json"
    found_still, found_movie = index.get(still_path, []), index.get(movie_path, [])
    if len(found_still) != 1 or len(found_movie) != 1:
        return (f"the still is in {len(found_still)} assets, "
                f"the movie in {len(found_movie)} (want 1 and 1)")
    asset = found_still[0]
    if asset is not found_movie[0]:
        return (f"two assets: {render(asset.get('type'))} and "
                f"{render(found_movie[0].get('type'))}")
    if asset.get("type") != "livePhoto":
        return f"one asset, but of type {render(asset.get('type'))}"
    resources = [r for r in asset.get("resources") or [] if isinstance(r, dict)]
    paths = sorted(demo_path_bytes(str(r.get("path"))) for r in resources)
    if paths != sorted([still_path, movie_path]):
        return f"resources are {render([r.get('path') for r in resources])}"
    if isinstance(asset.get("path"), str) and demo_path_bytes(asset["path"]) != still_path:
        return f"its path is {render(asset.get('path'))}, not the still"
    return None


def cell(agree: int, total: int) -> str:
    return f"{agree}/{total} {100.0 * agree / total:.1f}%" if total else "-"


def listed_as(asset: dict[str, Any], path: bytes) -> str:
    """How `asset` lists `path`: its type, or `sidecar of <type>` for a sidecar resource."""
    for resource in asset.get("resources") or []:
        if (isinstance(resource, dict) and resource.get("role") == "sidecar"
                and demo_path_bytes(str(resource.get("path"))) == path):
            return f"sidecar of {asset.get('type')}"
    return str(asset.get("type"))


def all_kinds_conformance(assets: list[dict[str, Any]], truth: list[dict[str, Any]]) -> bool:
    index = index_by_path(assets)
    outside_bad = [t for t in truth if not t["SourceFile"].startswith("bad/")]
    in_truth = {truth_path_bytes(t["SourceFile"]) for t in outside_bad}
    columns = FAMILIES + [LISTED_ONLY_FAMILY]
    fields = {(family, name): Field(name) for family in FAMILIES for name in ALL_FIELDS}
    listed = {family: [0, 0] for family in columns}
    missing: list[str] = []
    duplicated: list[str] = []
    not_claimed: list[str] = []
    unread_wrong: list[str] = []
    for entry in outside_bad:
        path = truth_path_bytes(entry["SourceFile"])
        found = index.get(path, [])
        family = family_of(entry)
        if family is None:
            how = ", ".join(sorted({listed_as(a, path) for a in found}))
            not_claimed.append(f"{shown(path)} ({entry.get('FileType')}): "
                               + (f"listed as {how}" if found else "not listed"))
            continue
        listed[family][1] += 1
        if not found:
            missing.append(f"{shown(path)} ({entry.get('FileType')})")
        elif len(found) > 1:
            duplicated.append(f"{shown(path)} ({len(found)} times)")
        elif (entry.get("FileType") in UNREAD_VIDEO_FILE_TYPES
              and (found[0].get("type") != "video" or not found[0].get("problems"))):
            unread_wrong.append(f"{shown(path)} ({entry.get('FileType')}): listed as "
                                f"{found[0].get('type')} with problems {found[0].get('problems')}")
        else:
            listed[family][0] += 1
            if family != LISTED_ONLY_FAMILY:
                check_claimed(path, found[0], entry,
                              family, {name: fields[(family, name)] for name in ALL_FIELDS})

    counts = [sum(listed[f][1] for f in columns)]
    print(f"\nClaimed photos and videos outside bad/ in truth.json: {counts[0]} "
          f"({', '.join(f'{f} {listed[f][1]}' for f in columns)}); not claimed: {len(not_claimed)}")
    header = ["field"] + columns + ["overall"]
    rows = [["listed once"] + [cell(*listed[f]) for f in columns]
            + [cell(sum(listed[f][0] for f in columns), counts[0])]]
    overall: dict[str, tuple[int, int]] = {}
    for name in ALL_FIELDS:
        agree = sum(fields[(f, name)].agree for f in FAMILIES)
        total = sum(fields[(f, name)].total for f in FAMILIES)
        overall[name] = (agree, total)
        rows.append([name] + [cell(fields[(f, name)].agree, fields[(f, name)].total)
                              for f in FAMILIES] + ["-", cell(agree, total)])
    widths = [max(len(row[i]) for row in [header] + rows) for i in range(len(header))]
    print()
    for row in [header] + rows:
        print("  ".join([row[0].ljust(widths[0])]
                        + [text.rjust(width) for text, width in zip(row[1:], widths[1:])]))

    live_failures = []
    print("\nLive Photo pairs (one livePhoto asset with both files):")
    for still, movie in LIVE_PHOTO_PAIRS:
        problem = check_live_photo(still, movie, index, in_truth)
        verdict = "ok" if problem is None else f"FAIL: {problem}"
        print(f"  {still} + {os.path.basename(movie)}: {verdict}")
        if problem is not None:
            live_failures.append(still)
    expected_stills = {truth_path_bytes(still) for still, _ in LIVE_PHOTO_PAIRS}
    other_live = [", ".join(str(r.get("path")) for r in a.get("resources") or []
                            if isinstance(r, dict))
                  for a in assets if a.get("type") == "livePhoto"
                  and demo_path_bytes(str(a.get("path"))) not in expected_stills
                  and not demo_path_bytes(str(a.get("path"))).startswith(b"bad/")]
    listed_elsewhere = sorted(shown(p) for p in index
                              if p not in in_truth and not p.startswith(b"bad/"))

    if missing:
        print_lines("Missing claimed files", missing)
    if duplicated:
        print_lines("Claimed files listed more than once", duplicated)
    if unread_wrong:
        print_lines("Unread containers not listed as a video with a problem", unread_wrong)
    for name in ALL_FIELDS:
        lines = [f"[{family}] {p}: {ours} | {want}" for family in FAMILIES
                 for p, ours, want in fields[(family, name)].disagreements]
        if lines:
            print_lines(f"Disagreements in {name} (path: ours | truth)", lines)
    print_lines("Not claimed (not counted; whether the Demo listed them)", not_claimed)
    if other_live:
        print_lines("Other livePhoto assets outside bad/ (their movies fail `type`)", other_live)
    if listed_elsewhere:
        print_lines("Listed by the Demo outside bad/ but not in truth.json (not counted)",
                    listed_elsewhere)

    failed = [name for name, (agree, total) in overall.items()
              if total and 100.0 * agree / total < ALL_KINDS_PASS_PERCENT]
    ok = (not missing and not duplicated and not failed and not live_failures
          and not unread_wrong)
    print()
    if ok:
        print(f"PASS: every claimed file listed once; both Live Photo pairs are one asset; "
              f"every field agrees on at least {ALL_KINDS_PASS_PERCENT:g}% overall.")
    else:
        reasons = []
        if missing or duplicated:
            reasons.append(f"{len(missing)} missing, {len(duplicated)} listed more than once")
        if live_failures:
            reasons.append(f"{len(live_failures)} Live Photo pair(s) not one asset")
        if failed:
            reasons.append(f"below {ALL_KINDS_PASS_PERCENT:g}% overall: {', '.join(failed)}")
        print("FAIL: " + "; ".join(reasons))
    return ok


# --- the JPEG and bad/ modes -------------------------------------------------------------


def conformance(assets: list[dict[str, Any]], truth: list[dict[str, Any]]) -> bool:
    jpegs = [t for t in truth
             if t.get("FileType") == "JPEG" and not t["SourceFile"].startswith("bad/")]
    index = index_by_path(assets)
    names = ["dateTime", "dateTimeOriginal", "offsetTimeOriginal", "location", "altitude", "size",
             "thumbnail", "make", "model", "lensModel"]
    fields = {name: Field(name) for name in names}
    missing: list[str] = []
    duplicated: list[str] = []
    for entry in jpegs:
        path = truth_path_bytes(entry["SourceFile"])
        found = index.get(path, [])
        if not found:
            missing.append(shown(path))
        elif len(found) > 1:
            duplicated.append(f"{shown(path)} ({len(found)} times)")
        else:
            check_jpeg(path, found[0], entry, fields)

    listed = len(jpegs) - len(missing) - len(duplicated)
    rows = [("listed once", listed, len(jpegs), 100.0 * listed / len(jpegs) if jpegs else 100.0)]
    rows += [(f.name, f.agree, f.total, f.percent) for f in fields.values()]
    print(f"\nJPEGs outside bad/ in truth.json: {len(jpegs)}")
    print_table(rows)
    if missing:
        print_lines("Missing JPEGs", missing)
    if duplicated:
        print_lines("JPEGs listed more than once", duplicated)
    for f in fields.values():
        if f.disagreements:
            print_lines(f"Disagreements in {f.name} (path: ours | truth)",
                        [f"{p}: {ours} | {want}" for p, ours, want in f.disagreements])

    failed = [f.name for f in fields.values() if f.percent < PASS_PERCENT]
    ok = not missing and not duplicated and not failed
    print()
    if ok:
        print(f"PASS: every JPEG listed once; every field agrees on at least {PASS_PERCENT:g}%.")
    else:
        reasons = []
        if missing or duplicated:
            reasons.append(f"{len(missing)} missing, {len(duplicated)} listed more than once")
        if failed:
            reasons.append(f"below {PASS_PERCENT:g}%: {', '.join(failed)}")
        print("FAIL: " + "; ".join(reasons))
    return ok


def bad_corpus(assets: list[dict[str, Any]], truth: list[dict[str, Any]], bad_root: str) -> None:
    """Counts what the Demo made of bad/. Never fails: surviving it is the test."""
    by_path = {truth_path_bytes(t["SourceFile"]): t for t in truth}
    index = index_by_path(assets)
    root = os.fsencode(bad_root)
    jpegs: list[tuple[bytes, dict[str, Any] | None]] = []
    for directory, subdirectories, files in os.walk(root):
        subdirectories.sort()
        for name in sorted(files):
            full = os.path.join(directory, name)
            if os.path.islink(full) or not os.path.isfile(full):
                continue
            relative = os.path.relpath(full, root)
            entry = by_path.get(b"bad/" + relative)
            is_jpeg = (entry is not None and entry.get("FileType") == "JPEG") or (
                os.path.splitext(name)[1].decode("ascii", "replace").lower() in JPEG_EXTENSIONS)
            if is_jpeg:
                jpegs.append((relative, entry))

    once, missing, duplicated, with_problems, broken, broken_without = 0, [], [], 0, 0, []
    for relative, entry in jpegs:
        found = index.get(relative, [])
        if not found:
            missing.append(shown(relative))
            continue
        if len(found) > 1:
            duplicated.append(shown(relative))
        else:
            once += 1
        has_problems = any(bool(asset.get("problems")) for asset in found)
        with_problems += has_problems
        is_broken = entry is None or bool(entry.get("Error")) or bool(entry.get("Warning"))
        if is_broken:
            broken += 1
            if not has_problems:
                broken_without.append(shown(relative))

    print(f"\nJPEGs in bad/ (by truth FileType or extension): {len(jpegs)}")
    print(f"  listed once:        {once}")
    print(f"  missing:            {len(missing)}")
    print(f"  listed twice+:      {len(duplicated)}")
    print(f"  with problems:      {with_problems}")
    print(f"  flagged by ExifTool (Error/Warning, or not in truth): {broken}, "
          f"of which without problems: {len(broken_without)}")
    print(f"  assets listed in all: {len(assets)}, "
          f"with problems: {sum(1 for a in assets if a.get('problems'))}")
    for title, lines in (("Missing", missing), ("Listed more than once", duplicated),
                         ("Flagged by ExifTool but without problems", broken_without)):
        if lines:
            print_lines(title, lines)
    print("\nPASS: the Demo survived bad/ (exit 0, a JSON array); the counts above are for reading.")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--demo", help="the Demo executable (e.g. .build/release/Demo)")
    parser.add_argument("--corpus", required=True, help="the shared corpus folder (holds truth.json)")
    parser.add_argument("--kinds", choices=["jpeg", "all"], default="jpeg",
                        help="which files to check: JPEGs only, or every photo and video "
                             "format we claim")
    parser.add_argument("--bad", action="store_true",
                        help="run the Demo on CORPUS/bad and check that it survives")
    parser.add_argument("--json", metavar="FILE",
                        help="read the Demo's JSON output from FILE instead of running it")
    args = parser.parse_args(argv)
    if not args.demo and not args.json:
        parser.error("one of --demo or --json is required")

    truth_file = os.path.join(args.corpus, "truth.json")
    try:
        with open(truth_file, encoding="utf-8") as handle:
            truth = json.load(handle)
        mark_jpeg_thumbnails(args.corpus, truth)
        if not args.bad:
            mark_lens_models(args.corpus, truth)
    except (OSError, json.JSONDecodeError) as error:
        print(f"Error: cannot read {truth_file}: {error}", file=sys.stderr)
        return 2

    library = os.path.join(args.corpus, "bad") if args.bad else args.corpus
    try:
        if args.json:
            with open(args.json, "rb") as handle:
                assets = parse_assets(handle.read(), args.json)
        else:
            assets = run_demo(args.demo, library)
    except (DemoFailure, OSError) as error:
        print(f"FAIL: {error}")
        return 1

    if args.bad:
        bad_corpus(assets, truth, library)
        return 0
    if args.kinds == "all":
        return 0 if all_kinds_conformance(assets, truth) else 1
    return 0 if conformance(assets, truth) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
