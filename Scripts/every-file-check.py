#!/usr/bin/env python3
"""Checks issue 4's "every regular file listed exactly once and each broken one carrying a
problem" on folders: runs `Demo --format json --include-other FOLDER` (with
G_DEBUG=fatal-criticals), and compares its assets and other files (type `other`: not photos
or videos, listed with a reason) with the files on disk and with exiftool's reading of them.

The files that must be listed (docs/Formats.md, "Nothing else is lost"): every regular file under FOLDER, except
hidden ones (leading dot, or inside a hidden folder), those inside NAS folders (@eaDir,
.@__thumb, #recycle) and AppleDouble files (content 00 05 16 07). Symbolic links, FIFOs,
sockets and devices are not regular files.

It fails (exit 1) when
- the Demo does not exit 0, or writes anything to stderr;
- a file that must be listed is not among any asset's `resources` (by path) nor an other
  file's `path`, or is there more than once; or an entry names a path that is not such a
  file;
- an other file has no `reason`.
Other files exiftool calls a photo or video type (READ_FILE_TYPES) are counted by that
type for a person to judge: exiftool names `.exv` metadata files by the TIFF tags inside
them (DNG), which are not media.
- a broken file is listed as an asset (its first resource) without a problem. Broken
  means: empty; exiftool reports an `Error` for it (unknown file type, file format
  error…); or exiftool's FileType is not a photo or video format the Demo reads
  (READ_FILE_TYPES: a .psd, an .exv, a text file…).
Sidecars (`role: sidecar`) are not read by the Demo, so they are exempt from the last
rule; how many of them exiftool would call broken is printed.

Needs exiftool (Debian: libimage-exiftool-perl); `make every-file` installs it.

Usage: Scripts/every-file-check.py --demo .build/release/Demo FOLDER...
Exit 0 when every check holds, 1 otherwise."""
import argparse
import collections
import json
import os
import shutil
import stat
import subprocess
import sys

SKIPPED_FOLDERS = {b"@eaDir", b".@__thumb", b"#recycle"}
APPLE_DOUBLE = b"\x00\x05\x16\x07"

# exiftool FileTypes of the formats the Demo reads or lists as media by content
# (MediaSniffer). Anything else exiftool names (EXV, XMP, TXT, X3F, …) is not a photo or
# video the Demo reads, so it must be listed with a problem (or be an other file).
READ_FILE_TYPES = {
    "JPEG", "MPO", "PNG", "GIF", "BMP", "TIFF", "BTF", "WEBP", "Extended WEBP", "HEIC",
    "HEIF", "AVIF", "JXL", "JXL Codestream", "DNG", "CR2", "CR3", "NEF", "ARW", "ORF", "RW2",
    "PEF", "SRW", "RAF", "MOV", "MP4", "M4V", "3GP", "3G2", "AVI", "MKV", "WEBM", "M2TS",
    "ASF", "WMV",
    # Our own header readers: PSD, JPEG 2000 (and a bare codestream), Canon CRW, Minolta MRW.
    "PSD", "PSB", "JP2", "J2C", "CRW", "MRW",
    # Camera RAWs that are TIFF inside: the Demo sniffs TIFF and reads them as TIFF.
    "IIQ", "3FR", "ERF", "MEF", "MOS", "NRW", "SR2", "SRF", "DCR", "KDC", "FFF",
}


def unescape(text):
    """LibraryPath.escaped back to bytes (`%XX` for bytes that are not printable UTF-8)."""
    raw = text.encode("utf-8")
    out = bytearray()
    i = 0
    while i < len(raw):
        if raw[i] == 0x25 and i + 3 <= len(raw):
            out.append(int(raw[i + 1:i + 3], 16))
            i += 3
        else:
            out.append(raw[i])
            i += 1
    return bytes(out)


def extension(name):
    base = os.path.basename(name)
    dot = base.rfind(b".")
    if dot <= 0:
        return ""
    return base[dot + 1:].decode("ascii", "replace").lower()


def files_to_list(root):
    """Relative path -> size of every regular file the Demo must list (see the docstring)."""
    found = {}
    top = os.fsencode(root)
    for folder, dirs, files in os.walk(top):
        dirs[:] = [d for d in dirs if not d.startswith(b".") and d not in SKIPPED_FOLDERS]
        for name in files:
            if name.startswith(b"."):
                continue
            path = os.path.join(folder, name)
            info = os.lstat(path)
            if not stat.S_ISREG(info.st_mode):
                continue
            with open(path, "rb") as handle:
                if handle.read(4) == APPLE_DOUBLE:
                    continue
            found[os.path.relpath(path, top)] = info.st_size
    return found


def exiftool_reading(root):
    """Relative path -> (FileType or None, Error or None), for every file exiftool reads."""
    run = subprocess.run(
        ["exiftool", "-j", "-q", "-q", "-r", "-ext", "*", "-FileType", "-Error", root],
        capture_output=True)
    top = os.fsencode(root)
    reading = {}
    for entry in json.loads(run.stdout or b"[]"):
        path = os.path.relpath(os.fsencode(entry["SourceFile"]), top)
        reading[path] = (entry.get("FileType"), entry.get("Error"))
    return reading


def why_broken(size, reading):
    """Why a file counts as broken, or None."""
    if size == 0:
        return "empty"
    file_type, error = reading if reading else (None, None)
    if error:
        return f"exiftool: {error}"
    if file_type is None:
        return "exiftool: no file type"
    if file_type not in READ_FILE_TYPES:
        return f"not a format the Demo reads ({file_type})"
    return None


def check(demo, root):
    env = dict(os.environ, G_DEBUG="fatal-criticals", SWIFT_BACKTRACE="enable=no")
    run = subprocess.run(
        [demo, "--format", "json", "--include-other", root], capture_output=True, env=env)
    ok = run.returncode == 0 and not run.stderr
    entries = json.loads(run.stdout) if run.returncode == 0 else []
    assets = [e for e in entries if e["type"] != "other"]
    others = [e for e in entries if e["type"] == "other"]
    files = files_to_list(root)
    reading = exiftool_reading(root)

    listed = collections.Counter()
    role = {}
    owner = {}
    for asset in assets:
        for resource in asset["resources"]:
            path = unescape(resource["path"])
            listed[path] += 1
            role[path] = resource["role"]
            owner[path] = asset
    for other in others:
        path = unescape(other["path"])
        listed[path] += 1
        role[path] = "other"
    reasonless = sorted(unescape(o["path"]) for o in others if not o.get("reason"))
    missing = sorted(f for f in files if listed[f] == 0)
    twice = sorted(f for f in files if listed[f] > 1)
    strangers = sorted(p for p in listed if p not in files)
    sidecars = [f for f in files if role.get(f) == "sidecar"]

    broken = {}
    for path, size in files.items():
        reason = why_broken(size, reading.get(path))
        if reason:
            broken[path] = reason
    broken_assets = [f for f in broken if listed[f] and role.get(f) not in ("sidecar", "other")]
    broken_others = [f for f in broken if role.get(f) == "other"]
    media_as_other = collections.Counter(
        reading[f][0] for f in files if role.get(f) == "other" and f not in broken)
    broken_silent = sorted(f for f in broken_assets if not owner[f]["problems"])
    broken_sidecars = [f for f in broken if role.get(f) == "sidecar"]
    with_problem = sum(1 for a in assets if a["problems"])
    unsupported = collections.Counter(
        extension(unescape(a["path"])) or "(none)" for a in assets
        if any(p.startswith("unsupported:") for p in a["problems"]))

    print(f"{root}: Demo exit {run.returncode}, stderr {len(run.stderr)} bytes")
    print(f"  regular files to list {len(files)}: listed once "
          f"{sum(1 for f in files if listed[f] == 1)}, missing {len(missing)}, "
          f"more than once {len(twice)}; listed but not such a file {len(strangers)}")
    print(f"  other files (not assets) {len(others)}: "
          + ", ".join(f"{r} {n}" for r, n in sorted(
              collections.Counter(o["reason"] for o in others).items())))
    print("  other files exiftool calls a photo or video type: "
          + (", ".join(f"{t} {n}" for t, n in sorted(media_as_other.items())) or "none"))
    print(f"  assets {len(assets)} ({with_problem} with a problem); sidecars attached "
          f"{len(sidecars)}; Live Photos {sum(1 for a in assets if a['type'] == 'livePhoto')}")
    print(f"  broken (empty, exiftool error, or not a format we read) {len(broken)}: listed as "
          f"assets {len(broken_assets)}, of which without a problem {len(broken_silent)}; "
          f"other files {len(broken_others)}; "
          f"attached as sidecars (not read, exempt) {len(broken_sidecars)}")
    print("  assets with an unsupported problem, by extension: "
          + ", ".join(f"{e} {n}" for e, n in sorted(unsupported.items())))
    for title, paths in (("not listed", missing), ("listed more than once", twice),
                         ("listed but not a regular file to list", strangers),
                         ("broken but without a problem", broken_silent),
                         ("an other file without a reason", reasonless)):
        for path in paths:
            detail = f" ({broken[path]})" if path in broken else ""
            print(f"  ! {title}: {os.fsdecode(path)}{detail}")
            ok = False
    if run.stderr:
        print(run.stderr.decode("utf-8", "replace")[:2000])
    return ok


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--demo", default=".build/release/Demo")
    parser.add_argument("folders", nargs="+")
    args = parser.parse_args()
    if shutil.which("exiftool") is None:
        print("every-file-check: exiftool is missing (apt-get install libimage-exiftool-perl)")
        sys.exit(1)
    results = [check(args.demo, folder) for folder in args.folders]
    sys.exit(0 if all(results) else 1)


if __name__ == "__main__":
    main()
