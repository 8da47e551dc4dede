#!/usr/bin/env python3
"""Check `Demo lookup` and `Demo thumbnail` over the shared corpus (issue 6, Done when).

Usage:
  python3 Scripts/lookup-check.py --demo .build/release/Demo --corpus ../shared/corpus

1. Runs `DEMO --format json CORPUS` once. For every asset outside bad/, runs
   `DEMO lookup URL --library CORPUS` and checks that the object it prints equals the
   listing's object for that asset (parsed JSON, compared whole).
2. For every JPEG that truth.json gives a ThumbnailLength > 0 (outside bad/), runs
   `DEMO thumbnail URL --library CORPUS --output TMP --force` and checks that the bytes
   written are exactly `exiftool -b -ThumbnailImage FILE` and ThumbnailLength bytes long.
   Without `-m` exiftool withholds IFD1 data that is not a JPEG (the exiftool test images
   hold a 28-byte placeholder text); then the Demo must write nothing (exit 1) and list
   the asset without `hasThumbnail`: such files are counted as "not JPEG".
   The same is done for the JPEGs in bad/ with a ThumbnailLength, but those are only
   counted and reported, never a failure (their EXIF is broken on purpose).

3. For every other photo outside bad/ (HEIC, AVIF, PNG, WebP, TIFF, camera RAW, …),
   runs `DEMO thumbnail` and checks that it succeeds exactly when the listing says
   `hasThumbnail`; the bytes it writes are compared with exiftool's embedded images
   (JpgFromRaw, PreviewImage, OtherImage, ThumbnailImage) and the one they equal is
   reported (not a failure when none does: exiftool and exiv2 find previews differently).

4. With --survive DIR (repeatable; e.g. corpus/bad, shared/hostile): lists DIR and runs
   `DEMO thumbnail` on every photo in it. Loading a preview is an exiv2 code path that
   opening a file does not take, so each run must end with exit 0 or 1 (never a signal,
   never past 20 s), and succeed exactly when the listing says `hasThumbnail`.

Commands run in a pool of --jobs threads (default 4), never through a shell. Prints the
counts and every mismatch, and the time taken; exits 1 on any mismatch outside bad/.
Python 3 standard library only; needs exiftool on PATH for step 2.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile
import time


def run(arguments: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run(arguments, capture_output=True, timeout=300)


def lookup(demo: str, corpus: str, asset: dict) -> str | None:
    """Returns a description of the mismatch, or None when lookup agrees."""
    result = run([demo, "lookup", asset["url"], "--library", corpus])
    if result.returncode != 0:
        return f"exit {result.returncode}: {result.stderr.decode(errors='replace').strip()}"
    try:
        found = json.loads(result.stdout)
    except json.JSONDecodeError as error:
        return f"not JSON ({error})"
    if found == asset:
        return None
    fields = sorted(key for key in set(found) | set(asset) if found.get(key) != asset.get(key))
    details = "; ".join(
        f"{key}: listing {asset.get(key)!r}, lookup {found.get(key)!r}" for key in fields
    )
    return f"differs in {details}"


def thumbnail(demo: str, corpus: str, url: str, path: str, expected_length: int,
              scratch: str) -> str | None:
    """Returns a description of the mismatch, or None when the bytes agree."""
    # Without -m exiftool withholds a thumbnail that is not a valid JPEG (the exiftool
    # test images hold a 28-byte placeholder text); the Demo must withhold it too.
    truth = run(["exiftool", "-b", "-ThumbnailImage", os.path.join(corpus, path)])
    if truth.returncode != 0 or not truth.stdout:
        withheld = run([demo, "thumbnail", url, "--library", corpus, "--output", "-"])
        if withheld.returncode == 0:
            return (f"exiftool withholds the IFD1 data (not a JPEG), the Demo wrote "
                    f"{len(withheld.stdout)} bytes")
        return NOT_JPEG
    handle, output = tempfile.mkstemp(dir=scratch, suffix=".jpg")
    os.close(handle)
    try:
        # --force: mkstemp made the file, and thumbnail refuses an existing one without it.
        result = run([demo, "thumbnail", url, "--library", corpus, "--output", output,
                      "--force"])
        if result.returncode != 0:
            return f"exit {result.returncode}: {result.stderr.decode(errors='replace').strip()}"
        with open(output, "rb") as file:
            written = file.read()
    finally:
        os.unlink(output)
    problems = []
    if len(written) != expected_length:
        problems.append(f"{len(written)} bytes, ThumbnailLength {expected_length}")
    if written != truth.stdout:
        problems.append(f"bytes differ from exiftool's {len(truth.stdout)}")
    return "; ".join(problems) or None


NOT_JPEG = "not JPEG: withheld by exiftool and by the Demo"


EMBEDDED_IMAGES = ["JpgFromRaw", "PreviewImage", "OtherImage", "ThumbnailImage"]


def preview(demo: str, corpus: str, asset: dict, scratch: str) -> tuple[str | None, str]:
    """Returns (the mismatch or None, which exiftool image the bytes equal)."""
    handle, output = tempfile.mkstemp(dir=scratch, suffix=".jpg")
    os.close(handle)
    try:
        # --force: mkstemp made the file, and thumbnail refuses an existing one without it.
        result = run([demo, "thumbnail", asset["url"], "--library", corpus, "--output", output,
                      "--force"])
        with open(output, "rb") as file:
            written = file.read()
    finally:
        os.unlink(output)
    succeeded = result.returncode == 0
    if succeeded != asset["hasThumbnail"]:
        said = result.stderr.decode(errors="replace").strip()
        return (f"hasThumbnail is {asset['hasThumbnail']}, but thumbnail exited "
                f"{result.returncode} {said}"), ""
    if not succeeded:
        return None, ""
    for tag in EMBEDDED_IMAGES:
        truth = run(["exiftool", "-m", "-b", "-" + tag, os.path.join(corpus, asset["path"])])
        if truth.stdout and truth.stdout == written:
            return None, tag
    return None, "equal to no exiftool -b image"


def survive(demo: str, library: str, jobs: int) -> tuple[str, list[str]]:
    """Runs `thumbnail` on every photo of `library`; returns a summary and the failures."""
    started = time.monotonic()
    listing = run([demo, "--format", "json", library])
    if listing.returncode != 0:
        return "", [f"survive {library}: the listing exited {listing.returncode}"]
    photos = [asset for asset in json.loads(listing.stdout) if asset["type"] != "video"]
    failures: list[str] = []
    written = 0
    with tempfile.TemporaryDirectory() as scratch:
        def attempt(asset: dict) -> tuple[dict, object]:
            output = os.path.join(scratch, asset["id"])
            try:
                result = subprocess.run(
                    [demo, "thumbnail", asset["url"], "--library", library, "--output", output],
                    capture_output=True, timeout=20)
                return asset, result.returncode
            except subprocess.TimeoutExpired:
                return asset, "a timeout (20 s)"

        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
            for asset, outcome in pool.map(attempt, photos):
                if outcome not in (0, 1):
                    failures.append(f"survive {library}/{asset['path']}: ended with {outcome}")
                elif (outcome == 0) != asset["hasThumbnail"]:
                    failures.append(f"survive {library}/{asset['path']}: hasThumbnail is "
                                    f"{asset['hasThumbnail']}, thumbnail exited {outcome}")
                written += outcome == 0
    summary = (f"survive {library}: {len(photos)} photos, {written} thumbnails written, "
               f"{len(failures)} failures, {time.monotonic() - started:.1f} s")
    return summary, failures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--demo", required=True)
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--jobs", type=int, default=4)
    parser.add_argument("--survive", action="append", default=[], metavar="DIR")
    options = parser.parse_args()
    corpus = os.path.abspath(options.corpus)
    started = time.monotonic()

    listing = run([options.demo, "--format", "json", corpus])
    if listing.returncode != 0:
        print(f"Demo --format json exited {listing.returncode}:", file=sys.stderr)
        print(listing.stderr.decode(errors="replace"), file=sys.stderr)
        return 1
    assets = json.loads(listing.stdout)
    listed_seconds = time.monotonic() - started
    checked = [asset for asset in assets if not asset["path"].startswith("bad/")]
    url_of_path = {}
    for asset in assets:
        for resource in asset.get("resources", []):
            url_of_path.setdefault(resource["path"], asset["url"])
        url_of_path.setdefault(asset["path"], asset["url"])

    with open(os.path.join(corpus, "truth.json")) as file:
        truth = json.load(file)
    jpegs = [
        entry for entry in truth
        if entry.get("FileType") == "JPEG" and (entry.get("ThumbnailLength") or 0) > 0
    ]

    failures: list[str] = []
    informational: list[str] = []
    lookup_started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=options.jobs) as pool:
        results = pool.map(lambda asset: (asset, lookup(options.demo, corpus, asset)), checked)
        lookup_mismatches = 0
        for asset, mismatch in results:
            if mismatch:
                lookup_mismatches += 1
                failures.append(f"lookup {asset['path']}: {mismatch}")
    lookup_seconds = time.monotonic() - lookup_started

    thumbnail_started = time.monotonic()
    counts = {"good": [0, 0], "bad": [0, 0]}  # [checked, mismatched]
    not_jpeg = 0
    with tempfile.TemporaryDirectory() as scratch, \
            concurrent.futures.ThreadPoolExecutor(max_workers=options.jobs) as pool:
        def check(entry: dict) -> tuple[dict, str | None]:
            path = entry["SourceFile"]
            url = url_of_path.get(path)
            if url is None:
                return entry, "not listed by the Demo"
            return entry, thumbnail(
                options.demo, corpus, url, path, entry["ThumbnailLength"], scratch)

        for entry, mismatch in pool.map(check, jpegs):
            kind = "bad" if entry["SourceFile"].startswith("bad/") else "good"
            counts[kind][0] += 1
            if mismatch == NOT_JPEG:
                not_jpeg += 1
            elif mismatch:
                counts[kind][1] += 1
                line = f"thumbnail {entry['SourceFile']}: {mismatch}"
                (informational if kind == "bad" else failures).append(line)
    thumbnail_seconds = time.monotonic() - thumbnail_started

    thumbnail_paths = {entry["SourceFile"] for entry in jpegs}
    others = [
        asset for asset in checked
        if asset["type"] != "video" and asset["path"] not in thumbnail_paths
        and asset["path"].rsplit(".", 1)[-1].lower() not in ("jpg", "jpeg")
    ]
    preview_started = time.monotonic()
    previews: dict[str, int] = {}
    with tempfile.TemporaryDirectory() as scratch, \
            concurrent.futures.ThreadPoolExecutor(max_workers=options.jobs) as pool:
        for asset, (mismatch, source) in pool.map(
                lambda asset: (asset, preview(options.demo, corpus, asset, scratch)), others):
            if mismatch:
                failures.append(f"thumbnail {asset['path']}: {mismatch}")
            elif source:
                source = source if source.startswith("equal to no") else "equal to " + source
                previews[source] = previews.get(source, 0) + 1
                informational.append(f"preview {asset['path']}: {source}")
    preview_seconds = time.monotonic() - preview_started

    print(f"listing: {len(assets)} assets ({len(checked)} outside bad/) in "
          f"{listed_seconds:.1f} s")
    print(f"lookup: {len(checked)} checked, {len(checked) - lookup_mismatches} equal, "
          f"{lookup_mismatches} mismatched, {lookup_seconds:.1f} s with {options.jobs} jobs")
    good, bad = counts["good"], counts["bad"]
    print(f"thumbnail: {good[0]} JPEGs with ThumbnailLength outside bad/, "
          f"{good[0] - good[1]} agree, {good[1]} mismatched, {thumbnail_seconds:.1f} s")
    print(f"  of those that agree, {not_jpeg} hold IFD1 data that is not a JPEG: withheld "
          "by exiftool -b and by the Demo; the others are byte-identical")
    print(f"thumbnail (bad/, not a failure): {bad[0]} checked, {bad[0] - bad[1]} "
          f"byte-identical, {bad[1]} mismatched")
    disagreements = sum(1 for line in failures if line.startswith("thumbnail ")
                        and "hasThumbnail is" in line)
    print(f"other photos: {len(others)} checked, hasThumbnail agrees with `Demo thumbnail` "
          f"on {len(others) - disagreements}; {sum(previews.values())} have a thumbnail ("
          + ", ".join(f"{count}: {source}" for source, count in sorted(previews.items()))
          + f"), {preview_seconds:.1f} s")
    for library in options.survive:
        summary, survive_failures = survive(options.demo, os.path.abspath(library), options.jobs)
        if summary:
            print(summary)
        failures += survive_failures
    for line in failures:
        print("MISMATCH " + line)
    for line in informational:
        print("info " + line)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
