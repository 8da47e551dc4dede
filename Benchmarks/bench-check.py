#!/usr/bin/env python3
"""The speed guard (`make bench-check`): fails when a listing got slower than its stored
limit allows.

Each figure is a ratio measured in the same run, so that it holds on a machine of any
speed and under some load: the release Demo against a C yardstick that does the least
any reader of the same files must do, timed interleaved (one run of each in turn, so a
change in the machine's load hits both alike), medians of --runs rounds:

  warm     `Demo --format json LIB` / the lean C libexif loop, one thread (the shared
           yardstick `libexif_read LIB 1 lean` when $SHARED/bench/c has it, else
           Benchmarks/lean-libexif.c), the page cache warm;
  cold     the same Demo on lib-camera-1k (1,000 camera-sized JPEGs of ~0.3 MB and 100
           videos, `moov` at the end) / the two-thread 16 KiB head read (`headtail LIB
           16384 2 0`, else Benchmarks/head-read.c), the page cache dropped before every
           run (only where this process may drop it: root; the library is made then);
  index    the second `Demo --format json --statistics --index F LIB` (every file taken
           from the index; `--statistics` makes the Demo read the library rather than
           replay the listing it recorded) / the plain Demo run, warm;
  replay   the second `Demo --format json --index F LIB`, which replays the listing the
           first run recorded beside the index / the plain Demo run, warm (a replay
           that stopped happening would show as the index's ratio, twice its limit).
  page     `Demo LIB --format html --output DIR` made again (a new DIR each run; the
           pictures linked from the thumbnail cache the first page filled, in a
           temporary XDG_CACHE_HOME, the rows from the page's own index) / the plain Demo
           run, warm.
  api      the library's own second run through its API (`LibraryBench LIB F`: an
           unchanged library handed back from the enumeration kept beside the index) /
           the plain `LibraryBench LIB`, warm.

Warm, index, replay, page and api compare CPU time (user + system: the work is the processor's, and CPU
time moves little with the load of a shared machine, where wall time moves a lot); cold
compares wall time (the cost is waiting for the disk). Both ratios are printed.

LIB is the bench library lib-10k of Benchmarks/make-libraries.py (10,020 small JPEGs,
18 of every 20 with an XMP packet as phones and editors write them); it and
lib-camera-1k are made once under --dir and reused. The limits are in Benchmarks/bench-limits.json (docs/Performance.md
explains them); a ratio more than 25 % above its limit fails the check. --record writes
the measured ratios there instead (limits are kept per kind of yardstick: "shared" or
"own").

Exit status: 0 when every ratio is within its limit (+25 %), 1 when one is not or a run
failed, 2 on a usage error.
"""

import argparse
import itertools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
LIMITS = HERE / "bench-limits.json"
MARGIN = 1.25


def build_yardsticks(bin_dir, shared):
    """The lean C loop and the head-read floor as commands taking the library last."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "libexif"], check=True,
                           capture_output=True, text=True).stdout.split()
    shared_c = Path(shared) / "bench" / "c" if shared else None
    lean, floor = bin_dir / "lean", bin_dir / "floor"
    if shared_c and (shared_c / "libexif_read.c").exists() and (shared_c / "headtail.c").exists():
        subprocess.run(["cc", "-O2", "-pthread", "-o", str(lean),
                        str(shared_c / "libexif_read.c"), *flags], check=True)
        subprocess.run(["cc", "-O2", "-pthread", "-o", str(floor), str(shared_c / "headtail.c")],
                       check=True)
        return ("shared", lambda lib: [str(lean), lib, "1", "lean"],
                lambda lib: [str(floor), lib, "16384", "2", "0"])
    subprocess.run(["cc", "-O2", "-o", str(lean), str(HERE / "lean-libexif.c"), *flags],
                   check=True)
    subprocess.run(["cc", "-O2", "-pthread", "-o", str(floor), str(HERE / "head-read.c")],
                   check=True)
    return ("own", lambda lib: [str(lean), lib],
            lambda lib: [str(floor), "--bytes", "16k", "--threads", "2", lib])


def can_drop_caches():
    try:
        with open("/proc/sys/vm/drop_caches", "w") as control:
            control.write("3\n")
        return True
    except OSError:
        return False


def drop_caches():
    os.sync()
    with open("/proc/sys/vm/drop_caches", "w") as control:
        control.write("3\n")


def timed(command, env=None):
    """Wall and CPU (user + system, from `wait4`: microseconds, where `os.times` counts
    10 ms clock ticks, a tenth of an index run) seconds of one run; stdout to /dev/null
    (a pipe here would slow the Demo's JSON down), stderr to a file."""
    with tempfile.TemporaryFile() as errors:
        start = time.perf_counter()
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=errors, env=env)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        code = os.waitstatus_to_exitcode(status)
        process.returncode = code
        if code != 0:
            errors.seek(0)
            sys.exit(f"bench-check: {' '.join(command)}: exit {code}: "
                     f"{errors.read().decode(errors='replace')[-1000:]}")
    return wall, usage.ru_utime + usage.ru_stime


def ratio(commands, runs, cold=False, prepare=None, env=None):
    """Interleaved runs of two commands (no warm-up when cold: every run starts from
    nothing); the median wall and CPU of each and their ratios (first / second).
    `prepare(which)` is called before each run; `env` is the runs' environment."""
    walls = [[], []]
    cpus = [[], []]
    for round_index in range(runs + (0 if cold else 1)):
        for which, command in enumerate(commands):
            if prepare:
                prepare(which)
            if cold:
                drop_caches()
            wall, cpu = timed(command, env)
            if cold or round_index > 0:
                walls[which].append(wall)
                cpus[which].append(cpu)
    wall = [statistics.median(w) for w in walls]
    cpu = [statistics.median(c) for c in cpus]
    return {"wall": [round(w, 4) for w in wall], "cpu": [round(c, 4) for c in cpu],
            "ratios": {"wall": round(wall[0] / wall[1], 3),
                       "cpu": round(cpu[0] / max(cpu[1], 0.001), 3)}}


# Which ratio each check compares: CPU time (user + system) where the work is the
# processor's (it moves little with the load of a shared machine, where wall time moves a
# lot), wall time where it is the disk's (cold: waiting is the cost).
MEASURE = {"warm": "cpu", "cold": "wall", "index": "cpu", "replay": "cpu", "page": "cpu",
           "api": "cpu"}
# Printed, never failing: a cold run of 1,100 files takes a few tenths of a second, and
# on a virtual disk its wall ratio moved past any limit that would still catch a slowdown.
INFORMATIONAL = {"cold"}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", default=os.environ.get(
        "GROUPENUMERATOR_BENCH_DIR", "/tmp/groupenumerator-bench"))
    parser.add_argument("--demo", default=str(REPO / ".build" / "release" / "Demo"))
    parser.add_argument("--library-bench",
                        default=str(REPO / ".build" / "release" / "LibraryBench"))
    parser.add_argument("--shared", default=os.environ.get("SHARED", "../shared"))
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--record", action="store_true",
                        help="write the measured ratios to Benchmarks/bench-limits.json")
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    demo = args.demo
    if not os.access(demo, os.X_OK):
        sys.exit(f"bench-check: no Demo at {demo} (swift build -c release --product Demo)")
    api = args.library_bench
    if not os.access(api, os.X_OK):
        sys.exit(f"bench-check: no LibraryBench at {api}"
                 " (swift build -c release --product LibraryBench)")
    cold = can_drop_caches()
    subprocess.run([sys.executable, str(HERE / "make-libraries.py"), "--dir", args.dir,
                    "--only", "10k", *(["--only", "camera-1k"] if cold else [])],
                   check=True, stdout=subprocess.DEVNULL)
    lib = str(Path(args.dir).resolve() / "lib-10k")
    camera = str(Path(args.dir).resolve() / "lib-camera-1k")
    kind, lean, floor = build_yardsticks(Path(args.dir) / "bin", args.shared)
    listing = [demo, "--format", "json", lib]
    figures = {}
    print(f"bench-check: {lib}, yardsticks: {kind}, {args.runs} runs, load "
          f"{os.getloadavg()[0]:.2f}", file=sys.stderr)
    figures["warm"] = ratio([listing, lean(lib)], args.runs)
    if cold:
        figures["cold"] = ratio([listing[:-1] + [camera], floor(camera)], args.runs, cold=True)
    else:
        print("bench-check: cold skipped (cannot drop the page cache here)", file=sys.stderr)
    with tempfile.TemporaryDirectory() as scratch:
        index = os.path.join(scratch, "bench.index")
        timed(listing[:-1] + ["--index", index, lib])  # fills the index
        figures["index"] = ratio(
            [listing[:-1] + ["--statistics", "--index", index, lib], listing], args.runs)
        figures["replay"] = ratio([listing[:-1] + ["--index", index, lib], listing], args.runs)
        # The page made again: its pictures linked from the thumbnail cache the first page
        # filled, its rows from the library's own index beside it; a new folder each run.
        env = dict(os.environ, XDG_CACHE_HOME=os.path.join(scratch, "cache"))
        page = [demo, lib, "--format", "html", "--no-progress", "--output", ""]
        pages = itertools.count()

        def next_folder(which):
            if which == 0:
                page[-1] = os.path.join(scratch, f"page-{next(pages)}")

        next_folder(0)
        timed(page, env)  # draws every picture once
        figures["page"] = ratio([page, listing], args.runs, prepare=next_folder, env=env)
        api_index = os.path.join(scratch, "api.index")
        timed([api, lib, api_index])  # fills the index and keeps the enumeration beside it
        figures["api"] = ratio([[api, lib, api_index], [api, lib]], args.runs)

    # One set of limits per kind of yardstick: the shared loop and the project's own
    # differ (the shared one costs a little more CPU per file).
    stored = json.loads(LIMITS.read_text()) if LIMITS.exists() else {}
    if args.record:
        stored[kind] = {name: value["ratios"][MEASURE[name]] for name, value in figures.items()}
        LIMITS.write_text(json.dumps(stored, indent=2) + "\n")
        print(f"bench-check: limits written to {LIMITS}", file=sys.stderr)
    limits = stored.get(kind, {})
    failed = False
    for name, value in figures.items():
        measured = value["ratios"][MEASURE[name]]
        limit = limits.get(name)
        allowed = limit * MARGIN if limit is not None else float("inf")
        ok = measured <= allowed
        failed |= not ok and name not in INFORMATIONAL
        print(f"  {name:5}  {MEASURE[name]} ratio {measured:.3f} (limit {limit}, fails above "
              f"{allowed:.3f}; wall ratio {value['ratios']['wall']:.3f}, cpu ratio "
              f"{value['ratios']['cpu']:.3f})  wall {value['wall'][0]:.3f} / "
              f"{value['wall'][1]:.3f} s  cpu {value['cpu'][0]:.3f} / {value['cpu'][1]:.3f} s  "
              f"{'ok' if ok else 'TOO SLOW'}{' (information only)' if name in INFORMATIONAL else ''}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
