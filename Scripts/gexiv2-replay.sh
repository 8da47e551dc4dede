#!/usr/bin/env bash
# Opens each file given with gexiv2 alone, in its own process, as the engine's allowlist
# would (gexiv2_metadata_open_path, then DateTimeOriginal and the pixel size), first plainly
# and then under valgrind memcheck, and prints one line per file: the exit status, the
# memcheck status (99: memcheck errors) and what gexiv2 read. It decides whether a format
# may go to gexiv2 (docs/Robustness.md, "PSD, JPEG 2000, CRW, MRW and MTS").
#
# Usage: Scripts/gexiv2-replay.sh FILE|FOLDER...   (needs libgexiv2-dev, valgrind, cc, python3)
# A folder stands for its files (recursively) whose content is PSD, JPEG 2000, CRW or MRW:
#   Scripts/gexiv2-replay.sh ../shared/hostile ../shared/corpus
# Exit status 1 when any file crashed, hung (20 s; 120 s under valgrind) or had memcheck
# errors.
set -euo pipefail
[ "$#" -gt 0 ] || { echo "usage: $0 FILE..." >&2; exit 2; }
work="$(mktemp -d)"
trap 'rm -rf -- "$work"' EXIT
cat > "$work/probe.c" <<'C'
#include <gexiv2/gexiv2.h>
#include <stdio.h>
int main(int argc, char **argv) {
  (void)argc;
  gexiv2_initialize();
  GExiv2Metadata *metadata = gexiv2_metadata_new();
  GError *error = NULL;
  if (!gexiv2_metadata_open_path(metadata, argv[1], &error)) {
    printf("error: %s\n", error ? error->message : "?");
    return 0;
  }
  gchar *date = gexiv2_metadata_try_get_tag_string(metadata, "Exif.Photo.DateTimeOriginal", NULL);
  printf("read: %s %dx%d\n", date ? date : "-", gexiv2_metadata_get_pixel_width(metadata),
         gexiv2_metadata_get_pixel_height(metadata));
  return 0;
}
C
cc -O1 -g -o "$work/probe" "$work/probe.c" $(pkg-config --cflags --libs gexiv2)
# The files named, and those of the folders named whose first bytes are PSD (8BPS, version
# 1 or 2), JP2 (the signature box) or a J2K codestream, CRW (HEAPCCDR at 6) or MRW (\0MRM).
mapfile -t files < <(python3 - "$@" <<'PY'
import os, sys
def wanted(path):
    with open(path, 'rb') as f:
        h = f.read(16)
    return ((h.startswith(b'8BPS') and h[4:6] in (b'\0\1', b'\0\2'))
            or h.startswith(bytes.fromhex('0000000c6a5020200d0a870a'))
            or h.startswith(b'\xff\x4f\xff\x51')
            or (h[:2] in (b'II', b'MM') and h[6:14] == b'HEAPCCDR') or h.startswith(b'\0MRM'))
for arg in sys.argv[1:]:
    if not os.path.isdir(arg):
        print(arg)
        continue
    for folder, _, names in sorted(os.walk(arg)):
        for name in sorted(names):
            path = os.path.join(folder, name)
            if os.path.isfile(path) and not os.path.islink(path) and wanted(path):
                print(path)
PY
)
bad=0
for file in "${files[@]}"; do
  set +e
  read=$(timeout 20 "$work/probe" "$file" 2>/dev/null | tail -1); status=$?
  timeout 120 valgrind -q --error-exitcode=99 "$work/probe" "$file" >/dev/null 2>&1; memcheck=$?
  set -e
  [ "$status" -eq 0 ] && [ "$memcheck" -eq 0 ] || bad=1
  printf '%s\tstatus=%s\tmemcheck=%s\t%s\n' "$file" "$status" "$memcheck" "$read"
done
exit "$bad"
