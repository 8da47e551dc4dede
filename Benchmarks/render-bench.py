#!/usr/bin/env python3
"""Pictures of a bench library: the Demo's page against the field's command-line tools.

Runs, one round at a time (medians over --runs rounds):

- the yardstick: `vipsthumbnail -s 80` over the library's stills in 2 parallel processes,
  plus one `ffmpeg -ss 1 -i VIDEO -frames:v 1 -vf scale=80:-1` per movie;
- the Demo's page (`--format html --output DIR`) with an empty picture cache (first);
- the same page again with the cache it filled (second);
- a plain JSON listing of the same library.

and prints the times, the ratios the pictures issue sets (first / yardstick <= 0.25,
second page / JSON listing <= 2) and each command's peak RSS (from `wait4`).

usage: render-bench.py --demo .build/release/Demo --library DIR [--runs 3] [--check]
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

STILLS = {".jpg", ".jpeg", ".heic", ".heif", ".png", ".webp", ".tif", ".tiff", ".avif"}
MOVIES = {".mp4", ".mov", ".m4v", ".3gp", ".avi", ".mkv", ".mts"}


def run(command, env=None, stdout=subprocess.DEVNULL):
    """Runs `command`; returns (seconds, peak RSS in MB). Fails loudly on a non-zero exit."""
    start = time.monotonic()
    process = subprocess.Popen(command, env=env, stdout=stdout, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.monotonic() - start
    error = process.stderr.read().decode(errors="replace")
    process.stderr.close()
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        sys.exit(f"{command[0]} exited {process.returncode}: {error[-2000:]}")
    return seconds, usage.ru_maxrss / 1024


def files(library):
    stills, movies = [], []
    for folder, _, names in os.walk(library):
        for name in names:
            extension = os.path.splitext(name)[1].lower()
            path = os.path.join(folder, name)
            if extension in STILLS:
                stills.append(path)
            elif extension in MOVIES:
                movies.append(path)
    return sorted(stills), sorted(movies)


def yardstick(stills, movies, scratch, round_):
    """The field's tools: two vipsthumbnail processes over halves of the stills, then one
    ffmpeg per movie. Returns the wall time.

    Each round writes into a folder of its own and nothing is removed before the end: on
    an ext4 without a journal (this machine's) the kernel skips inodes freed in the last
    minutes when it makes a file, at a cost per skipped inode, so files removed just
    before a measurement make the next 10,000 files several times slower to create."""
    out = os.path.join(scratch, f"yardstick-{round_}")
    os.makedirs(out)
    start = time.monotonic()
    halves = [stills[0::2], stills[1::2]]
    processes = [
        subprocess.Popen(
            ["vipsthumbnail", "-s", "80", "-o", os.path.join(out, "%s-" + str(i) + ".jpg")]
            + half,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for i, half in enumerate(halves) if half
    ]
    for index, movie in enumerate(movies):
        subprocess.run(
            ["ffmpeg", "-nostdin", "-loglevel", "error", "-ss", "1", "-i", movie,
             "-frames:v", "1", "-vf", "scale=80:-1", "-y",
             os.path.join(out, f"movie-{index}.jpg")],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for process in processes:
        process.wait()
    return time.monotonic() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--demo", required=True)
    parser.add_argument("--library", required=True)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    arguments = parser.parse_args()
    stills, movies = files(arguments.library)
    print(f"library {arguments.library}: {len(stills)} stills, {len(movies)} movies")
    figures = {"yardstick": [], "first": [], "second": [], "json": []}
    peaks = {"first": [], "second": [], "json": []}
    with tempfile.TemporaryDirectory(prefix="render-bench-") as scratch:
        for round_ in range(arguments.runs):
            figures["yardstick"].append(yardstick(stills, movies, scratch, round_))
            cache = os.path.join(scratch, f"cache-{round_}")
            os.makedirs(cache)
            env = dict(os.environ, XDG_CACHE_HOME=cache)
            for name in ("first", "second"):
                page = os.path.join(scratch, f"page-{round_}-{name}")
                seconds, peak = run(
                    [arguments.demo, arguments.library, "--format", "html", "--output", page,
                     "--no-progress"], env=env)
                figures[name].append(seconds)
                peaks[name].append(peak)
            seconds, peak = run([arguments.demo, arguments.library, "--format", "json",
                                 "--no-progress"], env=env)
            figures["json"].append(seconds)
            peaks["json"].append(peak)
            print(f"round {round_ + 1}: " + ", ".join(
                f"{name} {values[-1]:.2f} s" for name, values in figures.items()), flush=True)
    median = {name: statistics.median(values) for name, values in figures.items()}
    first_ratio = median["first"] / median["yardstick"]
    again_ratio = median["second"] / median["json"]
    print(f"medians: yardstick {median['yardstick']:.2f} s, page first {median['first']:.2f} s"
          f" ({first_ratio:.3f}x the yardstick; target <= 0.25), page again"
          f" {median['second']:.2f} s ({again_ratio:.2f}x a JSON listing of"
          f" {median['json']:.2f} s; target <= 2), cache reuse"
          f" {median['second'] / median['first']:.3f}x the first")
    print("peak RSS: " + ", ".join(f"{name} {max(values):.0f} MB" for name, values in peaks.items()))
    if arguments.check and (first_ratio > 0.25 or again_ratio > 2 or
                            max(max(v) for v in peaks.values()) > 250):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
