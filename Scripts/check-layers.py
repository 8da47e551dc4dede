#!/usr/bin/env python3
"""Checks that the metadata code's layers use each other one way only.

GroupEnumerator is one Swift module, so the compiler lets any file use any type. This
script stands in for module boundaries: it collects the names of the types declared at
the top level of each folder of Sources/GroupEnumerator/Metadata (and Model), then
flags every use of such a name in a folder whose layer may not depend on it.

    format readers (JPEG, PNG, HEIF, QuickTime, CR3, BigTIFF, Exiv2, GIF, BMP, AVI, PSD,
      JPEG2000, CRW, MRW, MPEGTS)
      -> EXIF -> TIFF -> Bytes -> Model
      -> XMP (packets, motion-photo trailers, Takeout sidecars) -> Bytes -> Model
      -> ISOBMFF -> Bytes -> Model
    routing (Metadata/*.swift: the reader table, the sniffer) -> everything in Metadata
    Library (the engine) -> everything but Rendering; nothing in Metadata or Model uses
      Library
    Rendering (pictures: libvips, ffmpeg) -> Library, Metadata, Model; nothing below it
      (Library, Metadata, Model) uses Rendering; Legacy may

A format reader may also use the MetadataReader protocol it conforms to, and never
another format's types. Comments and string literals are ignored. Members added to a
type by an extension are not followed (only type names are). Exit status 1 lists the
offending uses as file:line.

Usage: Scripts/check-layers.py [--root Sources/GroupEnumerator]
"""

import argparse
import pathlib
import re
import sys

FORMATS = [
    "JPEG", "PNG", "HEIF", "QuickTime", "CR3", "BigTIFF", "Exiv2", "GIF", "BMP", "AVI",
    "PSD", "JPEG2000", "CRW", "MRW", "MPEGTS",
]
BELOW_FORMATS = ["EXIF", "XMP", "ISOBMFF", "TIFF", "Bytes", "Model", "Protocol"]

# layer -> the layers it may use (besides itself)
ALLOWED = {
    "Model": [],
    "Bytes": ["Model"],
    "TIFF": ["Bytes", "Model"],
    "ISOBMFF": ["Bytes", "Model"],
    "EXIF": ["TIFF", "Bytes", "Model"],
    "XMP": ["Bytes", "Model"],
    "Protocol": ["Bytes", "Model"],
    **{name: BELOW_FORMATS for name in FORMATS},
    "Routing": FORMATS + BELOW_FORMATS,
    "Library": None,  # may use everything but what DENIED says; its types are collected
    "Rendering": None,  # the same: it draws with what Library, Metadata and Model give
}

# layer -> layers it may not use, for the layers ALLOWED lets use everything
DENIED = {"Library": ["Rendering"], "Rendering": []}

DECLARATION = re.compile(
    r"^(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|private|fileprivate|final|"
    r"indirect)\s+)*(?:struct|enum|class|protocol|actor|typealias)\s+([A-Z]\w*)"
)
NAME = re.compile(r"\b[A-Z]\w*\b")


# Uses that are known and waiting for their fix: (layer, type name).
KNOWN: set[tuple[str, str]] = set()


def layer_of(path: pathlib.Path, root: pathlib.Path) -> str | None:
    """The layer a source file belongs to, or None for files outside the checked ones."""
    parts = path.relative_to(root).parts
    if parts[0] in ("Model", "Library", "Rendering"):
        return parts[0]
    if parts[0] != "Metadata":
        return None
    if len(parts) == 2:
        return "Protocol" if parts[1] == "MetadataReader.swift" else "Routing"
    return parts[1] if parts[1] in ALLOWED else f"unknown folder Metadata/{parts[1]}"


def code_lines(text: str):
    """The file's lines with comments and string literals blanked out."""
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    text = re.sub(r'"""(?:.|\n)*?"""', lambda m: "\n" * m.group(0).count("\n"), text)
    for line in text.split("\n"):
        line = re.sub(r'"(?:\\.|[^"\\])*"', '""', line)
        yield line.split("//", 1)[0]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", default="Sources/GroupEnumerator")
    root = pathlib.Path(parser.parse_args().root)
    files = {}
    for path in sorted(root.rglob("*.swift")):
        layer = layer_of(path, root)
        if layer is not None:
            files[path] = (layer, list(code_lines(path.read_text(encoding="utf-8"))))
    unknown = sorted({layer for layer, _ in files.values() if layer not in ALLOWED})
    if unknown:
        print("check-layers: no rule for " + ", ".join(unknown) + " (add it to ALLOWED)")
        return 1
    owner = {}
    for path, (layer, lines) in files.items():
        for line in lines:
            match = DECLARATION.match(line)
            if match:
                owner.setdefault(match.group(1), layer)
    faults = []
    for path, (layer, lines) in files.items():
        denied = DENIED.get(layer, [])
        if ALLOWED[layer] is None and not denied:
            continue
        for number, line in enumerate(lines, start=1):
            for name in set(NAME.findall(line)):
                declared_in = owner.get(name)
                if declared_in is None or declared_in == layer:
                    continue
                if ALLOWED[layer] is None:
                    forbidden = declared_in in denied
                else:
                    forbidden = declared_in not in ALLOWED[layer]
                if forbidden and (layer, name) not in KNOWN:
                    faults.append(f"{path}:{number}: {layer} uses {name} ({declared_in})")
    for fault in faults:
        print(fault)
    checked = sum(
        1 for layer, _ in files.values() if ALLOWED[layer] is not None or DENIED.get(layer)
    )
    if faults:
        print(f"check-layers: {len(faults)} use(s) against the layering in {checked} files")
        return 1
    print(f"check-layers: {checked} files, {len(owner)} types, every use runs one way")
    return 0


if __name__ == "__main__":
    sys.exit(main())
