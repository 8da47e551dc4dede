#!/usr/bin/env bash
# Builds products as a Linux command-line tool ships (docs/Performance.md, "The shipped
# build"), into BUILD_PATH/shipped: PRODUCT and PRODUCT.debug for each product named.
#
#   Scripts/build-shipped.sh BUILD_PATH PRODUCT...
#
# - The Swift runtime and FoundationEssentials linked in (--static-swift-stdlib), and no
#   `$ORIGIN` in the search path (--disable-local-rpath: nothing of ours sits beside it).
# - The C++ runtime linked in too (Scripts/static-libstdcxx), so libstdc++.so.6 is not
#   mapped at start.
# - Symbols and DWARF moved to PRODUCT.debug, which the executable names in its
#   .gnu_debuglink: a crash report still names functions when the file sits beside it.
#   A cold start reads the executable in 8 MiB windows; half the file is gone.
#
# SwiftPM's own products in BUILD_PATH/release are left as they are, so the next build
# there stays incremental. Needs objcopy (binutils, which the Swift toolchain needs too).
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: $0 BUILD_PATH PRODUCT..." >&2
  exit 64
fi
repo=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$1"
build_path=$(cd "$1" && pwd)
shift
shipped=$build_path/shipped
mkdir -p "$shipped"
for product in "$@"; do
  swift build --package-path "$repo" -c release --static-swift-stdlib --disable-local-rpath \
    -Xswiftc -L -Xswiftc "$repo/Scripts/static-libstdcxx" \
    --build-path "$build_path" --product "$product"
  built=$build_path/release/$product
  # Written beside, then renamed: a failed step leaves the last good pair in place.
  objcopy --only-keep-debug "$built" "$shipped/$product.debug.new"
  mv "$shipped/$product.debug.new" "$shipped/$product.debug"
  (cd "$shipped" && objcopy --strip-all --add-gnu-debuglink="$product.debug" "$built" "$product.new")
  mv "$shipped/$product.new" "$shipped/$product"
done
