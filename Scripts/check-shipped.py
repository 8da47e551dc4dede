#!/usr/bin/env python3
"""Checks the shipped Demo (Scripts/build-shipped.sh) against the release build.

usage: check-shipped.py SHIPPED_DIR REFERENCE_DEMO LIBRARY...

- The shipped Demo needs no libstdc++.so.6, nor any of the C libraries it opens on first
  use (libexif, SQLite, zlib, gexiv2, libvips, ffmpeg's): readelf's NEEDED entries.
- It has no symbol table of its own; its .gnu_debuglink names Demo.debug beside it with the
  CRC-32 of that file, and Demo.debug holds the symbols (the Demo's own `main` among them).
- On every LIBRARY, `--format json --include-other` prints the same bytes on standard
  output and on standard error, with the same exit status, as REFERENCE_DEMO. Hostile files
  make exiv2 throw inside gexiv2, so this is where a C++ runtime linked in beside the
  shared one that gexiv2 brings would show (docs/Performance.md, "The shipped build").
"""

import re
import subprocess
import sys
import tempfile
import zlib
from pathlib import Path


def readelf(*arguments: str) -> str:
    return subprocess.run(["readelf", "--wide", *arguments], check=True, capture_output=True,
                          text=True).stdout


def check_linking(demo: Path) -> list[str]:
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", readelf("-d", str(demo)))
    failures = []
    if not needed:
        failures.append(f"{demo}: readelf lists no NEEDED library at all")
    deferred = ("libstdc++", "libexif", "libsqlite3", "libz.", "libgexiv2", "libexiv2",
                "libvips", "libavformat", "libavcodec", "libswscale", "libavutil",
                "libswiftCore", "libFoundation")
    for library in needed:
        if library.startswith(deferred):
            failures.append(f"{demo} needs {library} at start")
    return failures


def check_debug_link(demo: Path) -> list[str]:
    failures = []
    sections = readelf("-S", str(demo))
    if re.search(r"\]\s+\.symtab\s", sections):
        failures.append(f"{demo} still has a .symtab")
    with tempfile.TemporaryDirectory() as folder:
        link = Path(folder) / "link"
        subprocess.run(["objcopy", "--dump-section", f".gnu_debuglink={link}", str(demo),
                        str(Path(folder) / "copy")], capture_output=True)
        if not link.is_file():
            return failures + [f"{demo} has no .gnu_debuglink"]
        data = link.read_bytes()
    name = data.partition(b"\0")[0]
    crc = int.from_bytes(data[-4:], "little")
    debug = demo.with_name(name.decode())
    if debug.name != demo.name + ".debug":
        failures.append(f"{demo}: .gnu_debuglink names {debug.name}")
    elif not debug.is_file():
        failures.append(f"{demo}: {debug} is missing")
    else:
        actual = zlib.crc32(debug.read_bytes())
        if actual != crc:
            failures.append(f"{debug}: CRC-32 {actual:08x}, the link says {crc:08x}")
        symbols = subprocess.run(["nm", str(debug)], check=True, capture_output=True,
                                 text=True).stdout
        if not re.search(r" [Tt] \$s4Demo", symbols) or " T main\n" not in symbols:
            failures.append(f"{debug} holds no symbols of the Demo's own")
    return failures


def check_output(demo: Path, reference: Path, library: str) -> list[str]:
    def run(program: Path) -> subprocess.CompletedProcess:
        return subprocess.run([str(program), library, "--format", "json", "--no-progress",
                               "--include-other"], capture_output=True, timeout=900)

    shipped, expected = run(demo), run(reference)
    failures = []
    if shipped.returncode != expected.returncode:
        failures.append(f"{library}: exit {shipped.returncode}, the release build's"
                        f" {expected.returncode}")
    if shipped.stdout != expected.stdout:
        failures.append(f"{library}: the JSON differs from the release build's")
    if shipped.stderr != expected.stderr:
        failures.append(f"{library}: standard error differs from the release build's")
    if not failures:
        print(f"check-shipped: {library}: {len(shipped.stdout)} bytes of JSON, the same")
    return failures


def main() -> int:
    if len(sys.argv) < 4:
        print(__doc__.splitlines()[2], file=sys.stderr)
        return 64
    demo = Path(sys.argv[1]) / "Demo"
    reference = Path(sys.argv[2])
    failures = check_linking(demo) + check_debug_link(demo)
    for library in sys.argv[3:]:
        failures += check_output(demo, reference, library)
    for failure in failures:
        print(f"check-shipped: FAIL: {failure}", file=sys.stderr)
    if not failures:
        print(f"check-shipped: {demo}: linking, debug link and output as expected")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
