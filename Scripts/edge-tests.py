#!/usr/bin/env python3
"""Issue 12's edge checks of the release Demo, on the libraries make-edge-libraries.py makes.

  memory      peak RSS (/usr/bin/time -f %M) <= 150 MB for 200,000 files with 255-byte names,
              in every format (table, json, csv, ndjson)
  interrupt   SIGINT (SIGTERM, SIGHUP) while the listing is being written: nothing more
              reaches stdout 0.5 s after the signal, exit 130 (143, 129)
  escapes     for the escape-code library, CSV, table, ndjson (with --include-other, so
              its other files too) and groups (table, csv) and stderr
              hold no control character: no code point below U+0020 but tab and newline
              (and CR only in a CSV's CRLF), no DEL, no C1 (U+0080-U+009F, e.g. U+009B);
              every CSV text field that starts with = + - @ tab or CR carries a leading '
  dev-full    stdout on /dev/full: exit 74 and "Error: cannot write the output: ..."
  thumbnail-full  `thumbnail --output` on a full 4 KB tmpfs (root only): "the disk is full",
              nothing left behind
  closed      stdout or stderr closed at start: exit 0, nothing odd
  folders     a tree cut at depth 256: a `warning:` line on stderr in every format, a
              folderProblem record in ndjson, exit 0
  xff         a library below a folder named b'\\xff' opens as an absolute path, a relative
              path, and '.' after cd
  budgets     each hostile library of the per-file budgets (budgets/*: 262,000 text chunks
              with 8 hard links, 200,000 ilst items, 1,000 zTXt bombs, 4 million boxes, 16
              sparse 255 MiB TIFFs for exiv2): peak RSS <= 150 MB in every format, and every
              asset with at most 8 problems, the "...and N more" line and its tripped
              budgets; each file alone (budgets-one/*) costs at most 1 s of CPU (user + sys
              of the whole Demo run)

Tools: Python 3's standard library and /usr/bin/time (Debian package `time`).
Usage: edge-tests.py --demo .build/release/Demo [--dir /tmp/groupenumerator-edges] [--only NAME]
"""

import argparse
import csv
import io
import json
import os
import select
import signal
import subprocess
import sys
import time

LIMIT_KB = 150 * 1024
failures: list[str] = []


def check(condition: bool, what: str) -> None:
    print(("ok    " if condition else "FAIL  ") + what, flush=True)
    if not condition:
        failures.append(what)


def memory(demo: str, root: str) -> None:
    library = os.path.join(root, "long-names")
    for format in ["table", "json", "csv", "ndjson"]:
        start = time.monotonic()
        with open(os.devnull, "wb") as sink:
            result = subprocess.run(
                ["/usr/bin/time", "-f", "%M", demo, "--format", format, library],
                stdout=sink, stderr=subprocess.PIPE)
        peak = int(result.stderr.decode().strip().splitlines()[-1])
        seconds = time.monotonic() - start
        check(result.returncode == 0 and peak <= LIMIT_KB,
              f"memory: --format {format}: peak {peak / 1024:.0f} MB, {seconds:.1f} s, "
              f"exit {result.returncode}")


def interrupt(demo: str, root: str, number: int, expected: int) -> None:
    library = os.path.join(root, "long-names")
    process = subprocess.Popen([demo, "--format", "table", library],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    descriptor = process.stdout.fileno()
    received = 0
    # Read until well into the output (past the table's first 1,000 held rows).
    while received < 2_000_000:
        chunk = os.read(descriptor, 1 << 16)
        if not chunk:
            break
        received += len(chunk)
    signalled = time.monotonic()
    process.send_signal(number)
    late = after = 0
    while True:
        ready, _, _ = select.select([descriptor], [], [], 5)
        if not ready:
            break
        chunk = os.read(descriptor, 1 << 16)
        if not chunk:
            break
        after += len(chunk)
        if time.monotonic() - signalled > 0.5:
            late += len(chunk)
    status = process.wait(timeout=10)
    ended = time.monotonic() - signalled
    name = signal.Signals(number).name
    check(received > 0 and late == 0 and status == expected,
          f"interrupt: {name} after {received} bytes: {after} bytes after it (already in the "
          f"pipe or one write), {late} later than 0.5 s, "
          f"exit {status} after {ended:.2f} s (want 0 bytes, exit {expected})")


def controls(text: str, allow_crlf: bool) -> list[str]:
    found = []
    for index, character in enumerate(text):
        code = ord(character)
        if character in "\t\n":
            continue
        if allow_crlf and character == "\r" and text[index + 1:index + 2] == "\n":
            continue
        if code < 0x20 or 0x7F <= code <= 0x9F:
            found.append(f"U+{code:04X} at {index}")
    return found


def escapes(demo: str, root: str) -> None:
    library = os.path.join(root, "escape-codes")
    runs = {
        "csv": [demo, "--format", "csv", "--include-other", library],
        "table": [demo, "--format", "table", "--include-other", library],
        "ndjson": [demo, "--format", "ndjson", "--include-other", library],
        "groups table": [demo, "groups", library],
        "groups csv": [demo, "groups", "--format", "csv", library],
        "missing library": [demo, "--format", "csv", os.path.join(library, "\x1b[2J\x07nope")],
        "thumbnail error": [demo, "thumbnail", "--library", library, "--output", "/dev/null",
                            "assets-library://asset/asset.JPG?id="
                            "0F258B31-9984-873C-8195-2916F3CBBCFA&ext=JPG"],
    }
    for name, arguments in runs.items():
        result = subprocess.run(arguments, capture_output=True)
        stdout = result.stdout.decode("utf-8", "replace")
        stderr = result.stderr.decode("utf-8", "replace")
        is_csv = "csv" in name
        bad = controls(stdout, allow_crlf=is_csv) + controls(stderr, allow_crlf=False)
        check(not bad and len(stdout) + len(stderr) > 0,
              f"escapes: {name}: {len(bad)} control characters {bad[:3]}")
        if is_csv and result.returncode == 0:
            rows = list(csv.DictReader(io.StringIO(stdout, newline="")))
            text_columns = ["path", "name", "group", "resources", "dateTime", "problems"]
            unsafe = [row[column] for row in rows for column in text_columns
                      if column in row and row[column][:1] in ("=", "+", "-", "@", "\t", "\r")]
            formulas = sum(1 for row in rows for column in text_columns
                           if row.get(column, "").startswith("'="))
            check(not unsafe and formulas > 0,
                  f"escapes: {name}: {len(rows)} rows, {formulas} '= fields neutralised, "
                  f"{len(unsafe)} formula fields left {unsafe[:2]}")


def dev_full(demo: str) -> None:
    with open("/dev/full", "wb") as full:
        result = subprocess.run([demo, "--format", "csv"], stdout=full, stderr=subprocess.PIPE)
    message = result.stderr.decode()
    check(result.returncode == 74 and message.startswith("Error: cannot write the output: "),
          f"dev-full: exit {result.returncode}, stderr {message.strip()!r}")


def thumbnail_full(demo: str) -> None:
    """A thumbnail on a full disk (a 4 KB tmpfs, root only): plain message, nothing left."""
    if os.geteuid() != 0:
        print("skip  thumbnail-full: needs root to mount a tmpfs")
        return
    listing = subprocess.run([demo, "--format", "csv"], capture_output=True, text=True)
    rows = list(csv.DictReader(io.StringIO(listing.stdout, newline="")))
    url = next(row["url"] for row in rows if row["hasThumbnail"] == "true")
    mount = f"/tmp/edge-tests-full-{os.getpid()}"
    os.makedirs(mount)
    try:
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4k", "tmpfs", mount], check=True)
        with open(os.path.join(mount, "fill"), "wb") as fill:
            fill.write(bytes(3072))
        result = subprocess.run([demo, "thumbnail", url, "--output", mount + "/t.jpg"],
                                capture_output=True, text=True)
        left = sorted(os.listdir(mount))
        check(result.returncode == 1 and result.stderr.strip().endswith("the disk is full.")
              and left == ["fill"],
              f"thumbnail-full: exit {result.returncode}, {result.stderr.strip()!r}, "
              f"left {left}")
    finally:
        subprocess.run(["umount", mount])
        os.rmdir(mount)


def closed(demo: str) -> None:
    for descriptor in [1, 2]:
        result = subprocess.run(
            ["/bin/sh", "-c", f'"$0" --format csv >/dev/null {descriptor}>&-', demo],
            capture_output=True)
        check(result.returncode == 0, f"closed: descriptor {descriptor} closed at start: "
              f"exit {result.returncode}")


def xff(demo: str, root: str) -> None:
    parent = os.path.join(os.fsencode(root), b"xff-parent", b"\xff")
    library = os.path.join(parent, b"library")
    for label, arguments, folder in [
        ("absolute path", [library], None),
        ("relative path", [b"library"], parent),
        ("'.' after cd", [b"."], library),
    ]:
        result = subprocess.run([os.fsencode(demo), b"--format", b"csv", *arguments],
                                cwd=folder, capture_output=True)
        rows = result.stdout.count(b"\r\n") - 1
        check(result.returncode == 0 and rows == 1,
              f"xff: {label}: exit {result.returncode}, {rows} asset(s) "
              f"{result.stderr.decode('utf-8', 'replace').strip()}")


def folders(demo: str, root: str) -> None:
    library = os.path.join(root, "deep")
    for format in ["table", "json", "csv", "ndjson"]:
        result = subprocess.run([demo, "--format", format, library], capture_output=True,
                                text=True)
        warnings = [line for line in result.stderr.splitlines() if line.startswith("warning: ")]
        records = [line for line in result.stdout.splitlines()
                   if '"type":"folderProblem"' in line]
        wanted_records = 1 if format == "ndjson" else 0
        check(result.returncode == 0 and len(warnings) == 1 and len(records) == wanted_records,
              f"folders: --format {format}: exit {result.returncode}, {len(warnings)} warning "
              f"line(s), {len(records)} ndjson record(s)")


CPU_LIMIT_SECONDS = 1.0


def budgets(demo: str, root: str) -> None:
    libraries = os.path.join(root, "budgets")
    for library in sorted(os.listdir(libraries)):
        path = os.path.join(libraries, library)
        for format in ["json", "csv", "table", "ndjson"]:
            result = subprocess.run(
                ["/usr/bin/time", "-f", "%M %U %S", demo, "--format", format, path],
                capture_output=True)
            peak, user, system = result.stderr.decode().strip().splitlines()[-1].split()
            peak_kb = int(peak)
            detail = ""
            good = result.returncode == 0 and peak_kb <= LIMIT_KB
            if format == "json" and result.returncode == 0:
                assets = json.loads(result.stdout)
                counts = [len(asset["problems"]) for asset in assets]
                # 8 kept, the "...and N more" line, and at most a few tripped budgets.
                good = good and bool(assets) and max(counts) <= 8 + 1 + 2
                detail = f", {len(assets)} assets with {min(counts)}-{max(counts)} problems"
            check(good, f"budgets: {library} --format {format}: peak {peak_kb / 1024:.0f} MB, "
                  f"CPU {float(user) + float(system):.2f} s, exit {result.returncode}{detail}")
    alone = os.path.join(root, "budgets-one")
    for library in sorted(os.listdir(alone)):
        path = os.path.join(alone, library)
        result = subprocess.run(
            ["/usr/bin/time", "-f", "%M %U %S", demo, "--format", "json", path],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        peak, user, system = result.stderr.decode().strip().splitlines()[-1].split()
        seconds = float(user) + float(system)
        check(result.returncode == 0 and seconds <= CPU_LIMIT_SECONDS,
              f"budgets: one file of {library}: CPU {seconds:.2f} s (user {user}, sys {system}), "
              f"peak {int(peak) / 1024:.0f} MB, exit {result.returncode}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--demo", required=True)
    parser.add_argument("--dir", default="/tmp/groupenumerator-edges")
    parser.add_argument("--only")
    arguments = parser.parse_args()
    demo, root = os.path.abspath(arguments.demo), arguments.dir
    checks = {
        "escapes": lambda: escapes(demo, root),
        "dev-full": lambda: dev_full(demo),
        "closed": lambda: closed(demo),
        "thumbnail-full": lambda: thumbnail_full(demo),
        "xff": lambda: xff(demo, root),
        "folders": lambda: folders(demo, root),
        "interrupt": lambda: (interrupt(demo, root, signal.SIGINT, 130),
                              interrupt(demo, root, signal.SIGTERM, 143),
                              interrupt(demo, root, signal.SIGHUP, 129)),
        "memory": lambda: memory(demo, root),
        "budgets": lambda: budgets(demo, root),
    }
    for name, run in checks.items():
        if arguments.only in (None, name):
            run()
    if failures:
        print(f"{len(failures)} edge check(s) failed", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
