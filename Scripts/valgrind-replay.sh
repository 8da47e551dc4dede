#!/usr/bin/env bash
# Replays folders of hostile media through the release Demo under valgrind's memcheck:
# one `Demo --format json <folder>` run per folder, so every file goes through our
# readers and the C libraries behind them (libexif, zlib, gexiv2/exiv2 via the shim).
# A memcheck error anywhere fails the run (exit 99 from valgrind, then 1 here); the only
# reports tolerated are those in Scripts/valgrind.supp, each explained there.
#
# Leaks are not checked unless VALGRIND_LEAK_CHECK=full: then a definite leak fails the
# run too. exiv2 0.27.6 leaks a few bytes per XMP namespace it registers (docs/Testing.md,
# Valgrind), through gexiv2_metadata_open_buf, so that run is not clean.
#
# Usage: Scripts/valgrind-replay.sh [--demo PATH] FOLDER...
# Logs go to $VALGRIND_LOGS (default .build-valgrind/), one per folder.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
demo="$here/../.build/release/Demo"
if [ "${1:-}" = "--demo" ]; then demo="$2"; shift 2; fi
[ "$#" -gt 0 ] || { echo "usage: $0 [--demo PATH] FOLDER..." >&2; exit 2; }
[ -x "$demo" ] || { echo "no Demo at $demo (swift build -c release --product Demo)" >&2; exit 2; }
logs="${VALGRIND_LOGS:-.build-valgrind}"
leak_check="${VALGRIND_LEAK_CHECK:-no}"
mkdir -p "$logs"
logs="$(cd "$logs" && pwd)"

# valgrind 3.19 cannot read the DWARF 5 the Swift 6.3 toolchain writes (it dies of
# "unhandled DW_FORM"): run a copy without debug info (the symbol table stays, so the
# reports still name functions). And it cannot survive libdispatch's sigsuspend on a
# read-only mask: preload Scripts/valgrind-sigsuspend.c, built here (see that file).
cp "$demo" "$logs/Demo"
objcopy --strip-debug "$logs/Demo"
cc -shared -fPIC -O1 -o "$logs/valgrind-sigsuspend.so" "$here/valgrind-sigsuspend.c"

# Each folder is replayed twice: with libexif's own allocations (GROUPENUMERATOR_PLAIN_
# MALLOC=1), so that memcheck sees every libexif block on its own and catches an overrun
# of any, and with our per-thread arena (Sources/CLibExifArena), to check the arena.
failed=0
for mode in plain arena; do
for folder in "$@"; do
  name="$(echo "$folder" | tr '/' '_' | sed 's/^_*//').$mode"
  log="$logs/$name.log"
  start=$SECONDS
  status=0
  plain=0
  [ "$mode" = plain ] && plain=1
  # The Swift backtracer would fork a helper on a crash; memcheck reports the crash itself.
  GROUPENUMERATOR_PLAIN_MALLOC=$plain \
  LD_PRELOAD="$logs/valgrind-sigsuspend.so" SWIFT_BACKTRACE=enable=no \
    valgrind --tool=memcheck --error-exitcode=99 --leak-check="$leak_check" \
    --show-leak-kinds=definite --errors-for-leak-kinds=definite \
    --suppressions="$here/valgrind.supp" --log-file="$log" --child-silent-after-fork=yes \
    "$logs/Demo" --format json "$folder" > "$logs/$name.json" 2> "$logs/$name.stderr" ||
    status=$?
  errors="$(grep -o 'ERROR SUMMARY: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*$' || echo '?')"
  echo "$folder ($mode libexif memory): Demo exit $status, memcheck errors $errors," \
    "$((SECONDS - start)) s (log $log)"
  if [ "$status" != 0 ] || [ "$errors" != 0 ]; then
    failed=1
    grep -A25 '^==[0-9]*== [A-Z][a-z]' "$log" | head -60 || true
  fi
done
done
exit "$failed"
