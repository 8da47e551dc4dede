#!/usr/bin/env python3
"""Measures `Demo watch` latency: from a file's close to its NDJSON line on stdout.

Usage: Scripts/watch-latency.py --demo .build/release/Demo [--files 20]
           [--photo Fixtures/Library/IMG_0001.JPG] [--scratch-library DIR] [--max-ms MS]

Writes one photo at a time into a fresh temporary library (waiting for each line before
the next file, and more than the 250 ms coalescing interval apart), and prints the
latencies' median and maximum. The library is removed at the end. With
--scratch-library, a library of your own that may be written to (a big one, to see what
its size costs) is watched instead: the files go into a new folder `watch-latency/` in
it, which is removed at the end. With --max-ms, the exit status is 1 when the slowest
line took longer (issue 15's criterion: 1,000 ms).
"""
import argparse
import json
import os
import select
import shutil
import signal
import subprocess
import tempfile
import time


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--demo", required=True)
    parser.add_argument("--files", type=int, default=20)
    parser.add_argument("--photo", default="Fixtures/Library/IMG_0001.JPG")
    parser.add_argument("--scratch-library")
    parser.add_argument("--max-ms", type=float)
    args = parser.parse_args()
    photo = open(args.photo, "rb").read()
    if args.scratch_library:
        library = args.scratch_library
        folder = os.path.join(library, "watch-latency")
        os.mkdir(folder)
        remove = folder
    else:
        library = tempfile.mkdtemp(prefix="watch-latency-")
        shutil.copy(args.photo, os.path.join(library, "first.jpg"))
        folder = remove = library
    failed = False
    process = subprocess.Popen(
        [args.demo, "watch", library], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        process.stderr.readline()  # "Watching '…'."
        latencies = []
        pending = b""
        for index in range(args.files):
            time.sleep(0.3)
            name = f"IMG_{index:04}.jpg"
            with open(os.path.join(folder, name), "wb") as file:
                file.write(photo)
            closed = time.monotonic()
            while True:
                ready, _, _ = select.select([process.stdout], [], [], 10)
                if not ready:
                    raise SystemExit(f"no line for {name} within 10 s")
                chunk = os.read(process.stdout.fileno(), 65536)
                if not chunk:
                    error = process.stderr.read().decode(errors="replace")
                    raise SystemExit(f"Demo watch ended (status {process.wait()}): {error}")
                pending += chunk
                if b"\n" in pending:
                    line, pending = pending.split(b"\n", 1)
                    change = json.loads(line)
                    if any(a["name"] == name for a in change["insertedAssets"]):
                        latencies.append(time.monotonic() - closed)
                        break
        latencies.sort()
        print(f"files: {len(latencies)}  median: {latencies[len(latencies) // 2] * 1000:.0f} ms"
              f"  max: {latencies[-1] * 1000:.0f} ms")
        if args.max_ms is not None and latencies[-1] * 1000 > args.max_ms:
            print(f"FAIL: the slowest line took more than {args.max_ms:.0f} ms")
            failed = True
        elif args.max_ms is not None:
            print(f"PASS: every line within {args.max_ms:.0f} ms of its file's close")
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=10)
        shutil.rmtree(remove, ignore_errors=True)
    if failed:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
