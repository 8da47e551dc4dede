#!/usr/bin/env python3
"""Compare the Demo's reading of the shared corpus with ExifTool's (truth.json).

Usage:
  python3 Scripts/conformance.py --demo .build/release/Demo --corpus ../shared/corpus
  python3 Scripts/conformance.py --demo .build/release/Demo --corpus ../shared/corpus --bad

The first form runs `DEMO --format json CORPUS` and checks every JPEG that truth.json
lists outside bad/: that it is listed exactly once, and that its TIFF DateTime,
DateTimeOriginal (with offset), GPS position, displayed size and thumbnail flag agree
with ExifTool 12.57. It prints a table per field and the disagreements, and exits 1
when a JPEG is missing or listed twice, or when any field agrees on fewer than 99%.

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
import subprocess
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

DEMO_TIMEOUT_SECONDS = 20 * 60
PASS_PERCENT = 99.0
MAX_LINES_PER_FIELD = 30
GPS_TOLERANCE_DEGREES = 1e-4
JPEG_EXTENSIONS = {".jpg", ".jpeg", ".jpe", ".jfif"}
ESCAPE = re.compile(rb"%([0-9A-Fa-f]{2})")


# --- paths -------------------------------------------------------------------------------


def demo_path_bytes(path: str) -> bytes:
    """The file-system bytes of a Demo `path` (DESIGN §5: bytes that are not valid
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
    # TIFF DateTime, raw; "0" when the file has none.
    want = real_date(truth.get("IFD0:DateTime"))
    fields["dateTime"].check(path, asset.get("dateTime") == (want if want is not None else "0"),
                             asset.get("dateTime"), want if want is not None else "0")

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

    # Embedded (IFD1) thumbnail.
    length = number(truth.get("ThumbnailLength"))
    want_thumbnail = length is not None and length > 0
    fields["thumbnail"].check(path, asset.get("hasThumbnail") is want_thumbnail,
                              asset.get("hasThumbnail"), want_thumbnail)


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


# --- the two modes -----------------------------------------------------------------------


def conformance(assets: list[dict[str, Any]], truth: list[dict[str, Any]]) -> bool:
    jpegs = [t for t in truth
             if t.get("FileType") == "JPEG" and not t["SourceFile"].startswith("bad/")]
    index = index_by_path(assets)
    names = ["dateTime", "dateTimeOriginal", "offsetTimeOriginal", "location", "size", "thumbnail"]
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
                        help="which files to check; 'all' (photos and videos) is not written yet")
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
    except (OSError, json.JSONDecodeError) as error:
        print(f"Error: cannot read {truth_file}: {error}", file=sys.stderr)
        return 2
    if args.kinds == "all":
        print("note: --kinds all: only the JPEG checks exist so far; other photos and videos "
              "are not checked yet.")

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
    return 0 if conformance(assets, truth) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
