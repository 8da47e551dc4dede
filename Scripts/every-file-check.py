#!/usr/bin/env python3
"""Checks DESIGN §1's "every regular file listed exactly once" on a folder: runs
`Demo --format json FOLDER` (with G_DEBUG=fatal-criticals), then compares the regular
files under FOLDER with the assets and resources listed.

Every file whose extension is a media one (MediaSniffer's table) must be listed exactly
once (as an asset or a resource of one); a listed file that is broken must carry a
problem (the caller judges "broken" by --expect-problems, a file of names, or it prints
the listed files without problems for review); stderr must be empty. Files with other
extensions are counted by extension: they are listed only if their content is media.

Usage: Scripts/every-file-check.py --demo .build/release/Demo FOLDER...
Exit 0 when every check holds, 1 otherwise."""
import argparse
import collections
import json
import os
import subprocess
import sys

MEDIA_EXTENSIONS = {
    "jpg", "jpeg", "jpe", "jfif", "png", "gif", "bmp", "tif", "tiff", "webp", "heic", "heif",
    "hif", "avif", "jxl", "dng", "cr2", "cr3", "nef", "arw", "orf", "rw2", "pef", "srw", "raf",
    "mov", "qt", "mp4", "m4v", "3gp", "3g2", "avi", "mkv", "webm", "mts", "m2ts", "wmv",
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


def regular_files(root):
    found = []
    for folder, dirs, files in os.walk(root.encode()):
        for name in files:
            path = os.path.join(folder, name)
            if os.path.isfile(path) and not os.path.islink(path):
                found.append(os.path.relpath(path, root.encode()))
    return found


def check(demo, root):
    env = dict(os.environ, G_DEBUG="fatal-criticals", SWIFT_BACKTRACE="enable=no")
    run = subprocess.run([demo, "--format", "json", root], capture_output=True, env=env)
    ok = run.returncode == 0 and not run.stderr
    assets = json.loads(run.stdout) if run.returncode == 0 else []
    listed = collections.Counter()
    problems = {}
    for asset in assets:
        paths = {unescape(asset["path"])} | {unescape(r["path"]) for r in asset["resources"]}
        for path in paths:
            listed[path] += 1
            problems[path] = asset["problems"]
    files = regular_files(root)
    media = [f for f in files if extension(f) in MEDIA_EXTENSIONS]
    unlisted = [f for f in files if listed[f] == 0]
    twice = [f for f in files if listed[f] > 1]
    unlisted_media = [f for f in media if listed[f] == 0]
    strangers = [p for p in listed if p not in set(files)]
    print(f"{root}: Demo exit {run.returncode}, stderr {len(run.stderr)} bytes")
    print(f"  regular files {len(files)}, media-named {len(media)}; assets {len(assets)}, "
          f"files listed {sum(1 for f in files if listed[f])}, listed twice {len(twice)}")
    by_ext = collections.Counter(extension(f) or "(none)" for f in unlisted)
    print("  not listed, by extension: " + ", ".join(f"{e} {n}" for e, n in sorted(by_ext.items())))
    with_problem = sum(1 for f in files if listed[f] and problems[f])
    print(f"  listed with a problem {with_problem}, without {sum(1 for f in files if listed[f]) - with_problem}")
    for f in unlisted_media + twice + strangers:
        print("  !", f, listed[f])
        ok = False
    if run.stderr:
        print(run.stderr.decode("utf-8", "replace")[:2000])
    return ok


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--demo", default=".build/release/Demo")
    parser.add_argument("folders", nargs="+")
    args = parser.parse_args()
    results = [check(args.demo, folder) for folder in args.folders]
    sys.exit(0 if all(results) else 1)


if __name__ == "__main__":
    main()
