#!/usr/bin/env bash
# Checks the prototypes, types and constants the gexiv2 and libvips shims declare
# themselves (they are header-free, so that nothing links glib; see Package.swift) against
# the libraries' real headers: each shim is compiled once with its CHECK_DECLARATIONS macro,
# which includes the real headers before the shim's own declarations, so a prototype that
# differs is a "conflicting types" error and a constant or size that differs fails a static
# assertion. Run by `make lint`; needs pkg-config, libgexiv2-dev and libvips-dev.
set -euo pipefail
cd "$(dirname "$0")/.."
cc=${CC:-cc}
cxx=${CXX:-c++}
# shellcheck disable=SC2046  # pkg-config's flags are meant to split
"$cxx" -std=c++17 -fsyntax-only -Wall -Werror -DCGEXIV2SHIM_CHECK_DECLARATIONS \
  $(pkg-config --cflags gexiv2) -I Sources/CGExiv2Shim/include \
  Sources/CGExiv2Shim/CGExiv2Shim.cpp
# shellcheck disable=SC2046
"$cc" -fsyntax-only -Wall -Werror -DCVIPSSHIM_CHECK_DECLARATIONS \
  $(pkg-config --cflags vips) -I Sources/CVipsShim/include \
  Sources/CVipsShim/CVipsShim.c
echo "check-c-declarations: the gexiv2 and libvips shims match their headers"
