#!/usr/bin/env python3
"""Checks that the library's layers use each other one way only, that only
Library/System calls the operating system, and that the core does not import Foundation.

GroupEnumeratorCore is one Swift module, so the compiler lets any file use any type and any C
function. This script stands in for module boundaries. First, it collects the names of
the types declared at the top level of each layer (the folders of Metadata, Model,
Library/System, Library/Index, Library/Watch, the rest of Library, Rendering, Legacy), then flags every use of such a
name in a layer that may not depend on it. Second, it flags every call of a C function
that reaches the operating system (SYSTEM_CALLS) outside Library/System.

    format readers (JPEG, PNG, HEIF, QuickTime, CR3, BigTIFF, Exiv2, GIF, BMP, AVI, PSD,
      JPEG2000, CRW, MRW, MPEGTS)
      -> EXIF -> TIFF -> Bytes -> Model
      -> XMP (packets, motion-photo trailers, Takeout sidecars) -> Bytes -> Model
      -> ISOBMFF -> Bytes -> Model
    routing (Metadata/*.swift: the reader table, the sniffer) -> everything in Metadata
    Library (the engine, the index, the watch) -> everything but Rendering and Legacy;
      nothing in Metadata or Model uses Library
    Library/Index (the index) -> the same but Library/Watch: the watch builds on the
      index, never the other way
    Library/System (the OS wall: FileDescriptor, FileSystem, Inotify, Errno) -> nothing
      of the module; every other layer of Library may use it, Metadata and Model may not
    Rendering (pictures: libvips, ffmpeg) -> Library, Metadata, Model; nothing below it
      (Library, Metadata, Model) uses Rendering; Legacy may
    Legacy (the ALAssetsLibrary shapes) -> everything; nothing uses Legacy (Model,
      Metadata, Library and Rendering may not)

A format reader may also use the MetadataReader protocol it conforms to, and never
another format's types. Comments and string literals are ignored. Members added to a
type by an extension are not followed (only type names are).

A system call is the name of a function of SYSTEM_CALLS followed by its C argument list:
not after a `.` (a Swift member such as `descriptor.read(into:)`) or `func`, no argument
label (C functions have none in Swift), and as many arguments as the C function takes
(so a Swift function of the same name, `read(job)`, is not one). Also flagged outside
Library/System: any call qualified `Glibc.`, any `CSystemShim_` function and `import
CSystemShim`. C types and constants (`stat`, `ENOENT`) are not calls and are not
flagged, nor is `errno` (only meaningful right after a call, which is flagged); neither
are the C library's string and memory helpers (`strlen`, `free`, `memcpy`), which reach
no operating-system resource, nor Foundation's Swift APIs (`ProcessInfo`, `String(
contentsOfFile:)`), which are not C calls.
Third, it flags any `import Foundation` in the core, the Demo and LibraryBench, which
import FoundationEssentials only (WITHOUT_FOUNDATION).
Exit status 1 lists the offending uses as file:line.

Usage: Scripts/check-layers.py [--root Sources/GroupEnumeratorCore]
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
    "System": [],  # the OS wall: only the C library and Foundation
    "Library": None,  # may use everything but what DENIED says; its types are collected
    "Index": None,  # Library/Index: the same, and not the watch
    "Watch": None,  # Library/Watch: the same as Library
    "Rendering": None,  # the same: it draws with what Library, Metadata and Model give
    "Legacy": None,  # the same: the ALAssetsLibrary shapes are built on everything
}

# layer -> layers it may not use, for the layers ALLOWED lets use everything
DENIED = {
    "Library": ["Rendering", "Legacy"],
    "Index": ["Rendering", "Legacy", "Watch"],
    "Watch": ["Rendering", "Legacy"],
    "Rendering": ["Legacy"],
    "Legacy": [],
}

# The C functions that reach the operating system — files, folders, descriptors, inotify
# and poll, the text of an errno, the environment, the process, sleeping, loading
# libraries — with how many arguments each takes in C (a pair: at least, at most). Only
# Library/System calls them; everything else uses its Swift wrappers.
SYSTEM_CALLS = {
    # descriptors
    "open": (2, 3), "openat": (3, 4), "openat2": 4, "creat": 2, "close": 1, "read": 3,
    "pread": 4, "write": 3, "pwrite": 4, "readv": 3, "writev": 3, "lseek": 3, "fsync": 1,
    "fdatasync": 1, "ftruncate": 2, "fcntl": (2, 3), "ioctl": (2, 3), "dup": 1, "dup2": 2,
    "dup3": 3, "pipe": 1, "pipe2": 2, "mmap": 6, "munmap": 2, "posix_fadvise": 4,
    "fallocate": 4, "flock": 2, "sendfile": 4, "copy_file_range": 6,
    # status of a file
    "stat": 2, "lstat": 2, "fstat": 2, "fstatat": 4, "statx": 5, "statfs": 2,
    "fstatfs": 2, "statvfs": 2, "fstatvfs": 2, "access": 2, "faccessat": (3, 4),
    # names and folders
    "mkdir": 2, "mkdirat": 3, "rmdir": 1, "unlink": 1, "unlinkat": 3, "remove": 1,
    "rename": 2, "renameat": 4, "renameat2": 5, "link": 2, "linkat": 5, "symlink": 2,
    "symlinkat": 3, "readlink": 3, "readlinkat": 4, "realpath": 2, "truncate": 2,
    "chmod": 2, "fchmod": 2, "fchmodat": (3, 4), "chown": 3, "fchown": 3, "lchown": 3,
    "utimensat": 4, "futimens": 2, "mkfifo": 2, "mknod": 3, "mkstemp": 1, "mkdtemp": 1,
    "tmpfile": 0, "getcwd": 2, "chdir": 1, "fchdir": 1, "opendir": 1, "fdopendir": 1,
    "readdir": 1, "closedir": 1, "dirfd": 1, "rewinddir": 1, "scandir": 4,
    # C streams
    "fopen": 2, "fdopen": 2, "freopen": 3, "fclose": 1, "fread": 4, "fwrite": 4,
    "fgets": 3, "fflush": 1, "popen": 2, "pclose": 1,
    # waiting for events
    "inotify_init": 0, "inotify_init1": 1, "inotify_add_watch": 3, "inotify_rm_watch": 2,
    "poll": 3, "ppoll": 4, "select": 5, "epoll_create1": 1, "epoll_ctl": 4,
    "epoll_wait": 4, "eventfd": 2,
    # errors, environment, process, time, libraries
    "strerror": 1, "strerror_r": 3, "perror": 1, "getenv": 1, "setenv": 3, "unsetenv": 1,
    "getpid": 0, "getppid": 0, "getuid": 0, "geteuid": 0, "getgid": 0, "kill": 2,
    "fork": 0, "execve": 3, "execvp": 2, "posix_spawn": 6, "waitpid": 3, "system": 1,
    "exit": 1, "_exit": 1, "abort": 0, "sysconf": 1, "getrlimit": 2, "setrlimit": 2,
    "prlimit": 4, "malloc_trim": 1, "mallopt": 2, "sleep": 1, "usleep": 1,
    "nanosleep": 2, "clock_gettime": 2, "gettimeofday": 2, "dlopen": 2, "dlsym": 2,
    "dlclose": 1, "dlerror": 0,
}

DECLARATION = re.compile(
    r"^(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|private|fileprivate|final|"
    r"indirect)\s+)*(?:struct|enum|class|protocol|actor|typealias)\s+([A-Z]\w*)"
)
NAME = re.compile(r"\b[A-Z]\w*\b")


# Uses that are known and waiting for their fix: (layer, type name). Empty: every use runs
# one way.
KNOWN: set[tuple[str, str]] = set()


def layer_of(path: pathlib.Path, root: pathlib.Path) -> str | None:
    """The layer a source file belongs to, or None for files outside the checked ones."""
    parts = path.relative_to(root).parts
    if parts[:2] == ("Library", "System"):
        return "System"
    if parts[:2] == ("Library", "Index"):
        return "Index"
    if parts[:2] == ("Library", "Watch"):
        return "Watch"
    if parts[0] in ("Model", "Library", "Rendering", "Legacy"):
        return parts[0]
    if parts[0] != "Metadata":
        return None
    if len(parts) == 2:
        return "Protocol" if parts[1] == "MetadataReader.swift" else "Routing"
    return parts[1] if parts[1] in ALLOWED else f"unknown folder Metadata/{parts[1]}"


def code_lines(text: str, keeps_interpolations: bool = False):
    """The file's lines with comments and string literals blanked out; with
    `keeps_interpolations`, the code inside a one-line literal's `\\(…)` is kept."""
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    text = re.sub(r'"""(?:.|\n)*?"""', lambda m: "\n" * m.group(0).count("\n"), text)
    for line in text.split("\n"):
        if keeps_interpolations:
            yield without_literals(line)
        else:
            line = re.sub(r'"(?:\\.|[^"\\])*"', '""', line)
            yield line.split("//", 1)[0]


def without_literals(line: str) -> str:
    """One line with its comment and the text of its string literals removed, keeping the
    code of their interpolations (which may hold literals and interpolations in turn)."""
    kept = []
    # Each open context: a string literal ('"'), or the parentheses of an interpolation
    # (their depth).
    stack: list = []
    index = 0
    while index < len(line):
        char = line[index]
        inside_string = bool(stack) and stack[-1] == '"'
        if inside_string:
            if char == "\\" and line.startswith("(", index + 1):
                stack.append(1)
                kept.append(" ")
                index += 2
                continue
            if char == "\\":
                index += 2
                continue
            if char == '"':
                stack.pop()
                kept.append('"')
            index += 1
            continue
        if line.startswith("//", index):
            break
        if char == '"':
            stack.append('"')
            kept.append('"')
        elif stack and char == "(":
            stack[-1] += 1
            kept.append(char)
        elif stack and char == ")":
            stack[-1] -= 1
            if stack[-1] == 0:
                stack.pop()
                kept.append(" ")
            else:
                kept.append(char)
        else:
            kept.append(char)
        index += 1
    return "".join(kept)


CALL = re.compile(r"(?<![\w.])(Glibc\.)?(\w+)\s*\(")
SHIM = re.compile(r"(?<![\w.])CSystemShim_\w+\s*\(|^\s*(?:\w+\s+)?import\s+CSystemShim\b")
DECLARED = re.compile(r"(?:\bfunc|\bvar|\blet|\bcase)\s+$")
LABEL = re.compile(r"\s*\w+\s*:(?!:)")
CLOSING = {"(": ")", "[": "]", "{": "}"}


def arguments(text: str, start: int) -> tuple[int, bool] | None:
    """How many arguments the call whose `(` is at `start` has, and whether any has a
    label; None when the parentheses do not close."""
    stack = []
    starts = [start + 1]
    seen = False
    for index in range(start, len(text)):
        char = text[index]
        if char in CLOSING:
            stack.append(CLOSING[char])
            if len(stack) == 1:
                continue
        elif stack and char == stack[-1]:
            stack.pop()
            if not stack:
                labelled = any(LABEL.match(text, at) for at in starts)
                return (len(starts) if seen else 0), labelled
        elif char == "," and len(stack) == 1:
            starts.append(index + 1)
        if len(stack) >= 1 and not char.isspace():
            seen = True
    return None


def system_calls(lines: list[str]):
    """Each raw system call in a file's code lines, as (line number, what)."""
    text = "\n".join(lines)
    line_of = lambda offset: text.count("\n", 0, offset) + 1  # noqa: E731
    for match in CALL.finditer(text):
        qualified, name = match.group(1), match.group(2)
        if DECLARED.search(text, 0, match.start()) and not qualified:
            continue
        if qualified:
            yield line_of(match.start()), f"Glibc.{name}"
            continue
        expected = SYSTEM_CALLS.get(name)
        if expected is None:
            continue
        shape = arguments(text, match.end() - 1)
        if shape is None or shape[1]:
            continue
        low, high = expected if isinstance(expected, tuple) else (expected, expected)
        if low <= shape[0] <= high:
            yield line_of(match.start()), name
    for number, line in enumerate(lines, start=1):
        if SHIM.search(line):
            yield number, "CSystemShim"


# Lines the system-call check must flag (with what) and must pass, run before each check
# so that a change to the patterns cannot quietly stop finding calls.
SAMPLES = [
    ("guard stat(path, &status) == 0 else {", ["stat"]),
    ('let text = "failed (\\(String(cString: strerror(errno))))."', ["strerror"]),
    ("let count = read(descriptor, buffer.baseAddress, capacity)", ["read"]),
    ("_ = Glibc.close(descriptor)", ["Glibc.close"]),
    ("CSystemShim_trimHeap()", ["CSystemShim"]),
    ("var status = stat()", []),
    ("asset = read(job)", []),
    ("read(UInt16.self, at: offset, in: bytes)", []),
    ("let got = try descriptor.read(into: buffer, atAbsoluteOffset: 0)", []),
    ("private static func open(_ path: String, options: Options) -> Int32 {", []),
    ('let message = "close(1) and stat(a, b) in a string"', []),
    ("descriptor.close() // then close(descriptor) in a comment", []),
]


def passes_samples() -> bool:
    """Whether the system-call check flags exactly what SAMPLES says."""
    good = True
    for line, expected in SAMPLES:
        found = [what for _, what in system_calls([without_literals(line)])]
        if found != expected:
            print(f"check-layers: the sample {line!r} gave {found}, not {expected}")
            good = False
    return good


# The folders whose Swift files may import FoundationEssentials but never Foundation itself:
# a program that links only them (the Demo, LibraryBench) then links no CoreFoundation and
# no ICU, whose initialisers and pages cost a cold start more than the rest of it
# (docs/Performance.md). The GroupEnumerator module (Sources/GroupEnumerator) holds what
# needs Foundation.
WITHOUT_FOUNDATION = ["Sources/Demo", "Benchmarks/LibraryBench"]
# Any Foundation module but FoundationEssentials (FoundationXML, FoundationNetworking and
# FoundationInternationalization link Foundation or ICU too), whatever the attributes and
# access level of the import.
FOUNDATION_IMPORT = re.compile(
    r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:\w+\s+)?import\s+(?:\w+\s+)?(Foundation\w*)")


def foundation_imports(root: pathlib.Path) -> list[str]:
    """Every import of a Foundation module but FoundationEssentials in the core (`root`) and
    the folders of WITHOUT_FOUNDATION."""
    faults = []
    for folder in [root] + [pathlib.Path(name) for name in WITHOUT_FOUNDATION]:
        for path in sorted(folder.rglob("*.swift")):
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                match = FOUNDATION_IMPORT.match(line)
                if match and match.group(1) != "FoundationEssentials":
                    faults.append(f"{path}:{number}: imports {match.group(1)}"
                                  " (FoundationEssentials only here)")
    return faults


def main() -> int:
    if not passes_samples():
        return 1
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", default="Sources/GroupEnumeratorCore")
    root = pathlib.Path(parser.parse_args().root)
    files = {}
    calling = {}
    for path in sorted(root.rglob("*.swift")):
        layer = layer_of(path, root)
        if layer is not None:
            text = path.read_text(encoding="utf-8")
            files[path] = (layer, list(code_lines(text)))
            calling[path] = list(code_lines(text, keeps_interpolations=True))
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
    for path, (layer, lines) in files.items():
        if layer == "System":
            continue
        for number, what in system_calls(calling[path]):
            faults.append(f"{path}:{number}: {layer} calls {what} (only Library/System may)")
    faults += foundation_imports(root)
    for fault in faults:
        print(fault)
    checked = sum(
        1 for layer, _ in files.values() if ALLOWED[layer] is not None or DENIED.get(layer)
    )
    if faults:
        print(f"check-layers: {len(faults)} use(s) against the layering in {checked} files")
        return 1
    print(
        f"check-layers: {checked} files, {len(owner)} types, every use runs one way;"
        " no system call outside Library/System; no Foundation import in the core, the"
        " Demo or LibraryBench"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
