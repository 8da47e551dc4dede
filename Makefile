# GroupEnumerator — the two commands are `make demo` and `make test`.
SHELL := /bin/bash
SWIFT ?= swift
SHARED ?= ../shared
LIBRARY ?= Fixtures/Library
# Debian packages the build needs (C libraries behind the metadata readers and the
# picture drawing).
BUILD_PACKAGES := libexif-dev libgexiv2-dev zlib1g-dev libsqlite3-dev libvips-dev \
  libavformat-dev libavcodec-dev libswscale-dev libavutil-dev pkg-config
# Extra packages the tests need: setpriv, unshare, mount and script come from util-linux;
# strace traces the Demo's system calls; time measures its peak memory; chromium opens the
# Demo's page (make page-check); libdeflate-dev's header checks the declarations the libvips
# shim makes of libdeflate, which it opens with dlopen (make lint).
TEST_PACKAGES := util-linux strace time chromium libdeflate-dev
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: page-check drawable-check render-sweep watch-latency demo test deps test-deps lint build readme-examples unit-tests permission-tests scale-tests conformance conformance-all bad-corpus lookup-check legacy-check clean bench bench-cold bench-index bench-libraries bench-deps bench-check shipped shipped-check

demo: deps
	$(SWIFT) run -c release Demo $(LIBRARY)

test: test-deps lint build readme-examples unit-tests permission-tests scale-tests asan tsan fuzz-replay

# Installs only what is missing, so a second run does not touch apt at all.
deps:
	@missing=""; for p in $(BUILD_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

test-deps: deps
	@missing=""; for p in $(TEST_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

# The format check, then Scripts/check-layers.py: the layers' one-way uses (Metadata,
# Model, Library and its System, Index and Watch, Rendering, Legacy), and no system call
# outside Library/System (docs/Contributing.md); then the prototypes the gexiv2 and libvips
# shims declare themselves, checked against the real headers.
lint:
	$(SWIFT) format lint --strict -r Sources Tests Package.swift
	python3 Scripts/check-layers.py
	bash Scripts/check-c-declarations.sh

build: deps
	$(SWIFT) build -Xswiftc -warnings-as-errors --build-tests

# Every ```swift block of README.md and docs/*.md, built as a consumer package that depends
# on this one by path (under .build/readme-examples) and run on the sample library; see
# docs/Testing.md for the fence markers.
readme-examples: deps
	python3 Scripts/readme-examples.py --swift $(SWIFT) --library $(CURDIR)/Fixtures/Library

# The read-only bind mount and strace tests skip where the machine cannot run them (not
# root, no ptrace); here they must run, so a skip becomes a failure.
SYSTEM_TEST_ENV := GROUPENUMERATOR_REQUIRE_MOUNT_TESTS=1 GROUPENUMERATOR_REQUIRE_STRACE_TESTS=1
unit-tests: build
	env $(SYSTEM_TEST_ENV) $(SWIFT) test --skip-build

# 100,000 files in one folder through the Demo (F22): ~25 s, so only here, not under the
# sanitizers.
scale-tests: build
	GROUPENUMERATOR_SCALE_TESTS=1 $(SWIFT) test --skip-build --filter aHundredThousandFiles

# Root passes every permission check, so these tests only mean something with the
# DAC override capabilities dropped; they fail (rather than skip) when that is asked for.
permission-tests: build
	setpriv --bounding-set=-dac_override,-dac_read_search \
	  env GROUPENUMERATOR_REQUIRE_PERMISSION_TESTS=1 $(SWIFT) test --skip-build --filter Permission

# One 80x80 picture of every asset of the shared corpus and hostile set (docs/Rendering.md):
# a typed error or a picture for each, no crash, the process's peak RSS at most 250 MB;
# prints the counts and the pictures that raised the peak most.
render-sweep: build
	GROUPENUMERATOR_RENDER_SWEEP=$(SHARED)/corpus:$(SHARED)/hostile GROUPENUMERATOR_RENDER_SWEEP_MAX_RSS_MB=250 \
	  $(SWIFT) test --skip-build --filter RenderSweepTests

# Every corpus asset (outside bad/) that vipsthumbnail or ffmpeg draws has a picture on the
# Demo's page (untrusted loaders blocked for both, as the package blocks them).
drawable-check: deps bench-deps
	$(SWIFT) build -c release --product Demo
	python3 Scripts/compare-drawable.py --demo .build/release/Demo --shared $(SHARED)

# The Demo's page (--format html) of Fixtures/Library and of a library of hostile names,
# opened in headless Chromium: every picture loads, every name is text (Scripts/check-page.py).
page-check: test-deps
	$(SWIFT) build -c release --product Demo
	python3 Scripts/check-page.py --demo .build/release/Demo --library $(LIBRARY)

# Issue 15: from a file's close to its `Demo watch` line, at most 1 s (20 files, release).
watch-latency: deps
	$(SWIFT) build -c release --product Demo
	python3 Scripts/watch-latency.py --demo .build/release/Demo --max-ms 1000

# Compares the Demo's reading of the shared corpus with exiftool's (truth.json); exiftool
# itself only says which IFD1 thumbnails are JPEGs (`-b -ThumbnailImage` withholds the rest).
# JPEGs against a 99% bar (libexif), then every claimed format against 98%.
conformance: deps
	@dpkg-query -W -f='$${Status}' libimage-exiftool-perl 2>/dev/null | grep -q "ok installed" || { \
	  echo "Installing: libimage-exiftool-perl"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq libimage-exiftool-perl; \
	}
	$(SWIFT) build -c release --product Demo
	python3 Scripts/conformance.py --demo .build/release/Demo --corpus $(SHARED)/corpus
	python3 Scripts/conformance.py --demo .build/release/Demo --corpus $(SHARED)/corpus --kinds all

# The same for every photo and video format we claim, per format family, and the Live
# Photo pairs (docs/Testing.md).
conformance-all: deps
	$(SWIFT) build -c release --product Demo
	python3 Scripts/conformance.py --demo .build/release/Demo --corpus $(SHARED)/corpus --kinds all

# The Demo must survive every broken file in the corpus: exit 0, each listed.
bad-corpus: deps
	$(SWIFT) build -c release --product Demo
	python3 Scripts/conformance.py --demo .build/release/Demo --corpus $(SHARED)/corpus --bad

# `Demo lookup` of every corpus asset equals its listing, and `Demo thumbnail`
# writes exactly exiftool's ThumbnailImage for every JPEG that has one (needs exiftool).
lookup-check: deps
	@dpkg-query -W -f='$${Status}' libimage-exiftool-perl 2>/dev/null | grep -q "ok installed" || { \
	  echo "Installing: libimage-exiftool-perl"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq libimage-exiftool-perl; \
	}
	$(SWIFT) build -c release --product Demo
	python3 Scripts/lookup-check.py --demo .build/release/Demo --corpus $(SHARED)/corpus \
	  --survive $(SHARED)/corpus/bad $(if $(wildcard $(SHARED)/hostile),--survive $(SHARED)/hostile)

# The Demo's JSON `legacy` object equals Asset.legacyDictionary for every photo, and
# JSONEncoder().encode(asset) equals the Demo's JSON object for every asset, of the corpus,
# the bad corpus and the hostile files (LegacyJSONTests and AssetEncodingTests over them).
JSON_LIBRARIES = $(subst $(eval) ,:,$(wildcard $(SHARED)/corpus $(SHARED)/corpus/bad $(SHARED)/hostile))
# The API's second run handed back from its snapshot equals a run without the index, for
# every filter, on the shared corpus, its bad files and the hostile set (docs/Testing.md).
snapshot-check: build
	GROUPENUMERATOR_SNAPSHOT_LIBRARIES=$(JSON_LIBRARIES) \
	  $(SWIFT) test --skip-build --filter 'ContentsSnapshotTests/whatIsHandedBack'

legacy-check: build
	GROUPENUMERATOR_LEGACY_LIBRARIES=$(JSON_LIBRARIES) GROUPENUMERATOR_JSON_LIBRARIES=$(JSON_LIBRARIES) \
	  $(SWIFT) test --skip-build --filter 'LegacyJSONTests|AssetEncodingTests'

# The benchmark (docs/Performance.md): synthetic libraries outside the repo (made once, reused), the Demo
# in release, a lean C libexif loop and exiftool side by side. BENCH_ARGS e.g. --runs 3,
# or --files 25k for a JPEG library of 25,000 files (with the mixed one).
BENCH_DIR ?= /tmp/groupenumerator-bench
BENCH_ARGS ?=
bench: deps bench-deps
	python3 Benchmarks/run.py --dir $(BENCH_DIR) $(BENCH_ARGS)

# The first scan from a cold disk: the camera-sized library (~3 GB, made once), the page
# cache dropped before every run (needs root; skipped with a message where not allowed).
bench-cold: deps bench-deps
	python3 Benchmarks/run.py --cold --dir $(BENCH_DIR) $(BENCH_ARGS)

# Only the index runs (issue 14) on the 100k library: first and second run with --index,
# one touched file, 1,000 added (docs/Performance.md); `make bench` ends with them too.
bench-index: deps bench-deps
	python3 Benchmarks/run.py --index-only --dir $(BENCH_DIR) $(BENCH_ARGS)

# The speed guard (issue 23): the release Demo on lib-10k (XMP-bearing JPEGs) as ratios to
# the C yardsticks measured in the same run (warm: the lean libexif loop; cold, where the
# page cache can be dropped: the two-thread 16 KiB head read; index: the second run with
# --index against a plain one; api: the library's second run through its API, against a
# plain one); fails when a ratio passes its limit in Benchmarks/bench-limits.json by more
# than 25 % (docs/Performance.md). About a minute once the library is made (~1 min, reused).
bench-check: deps bench-deps
	$(SWIFT) build -c release --product Demo
	$(SWIFT) build -c release --product LibraryBench
	python3 Benchmarks/bench-check.py --dir $(BENCH_DIR) --shared $(SHARED)

# Pictures (issue 22): the release Demo's page of lib-camera-1k (its picture cache empty,
# then warm) against `vipsthumbnail -s 80` in two processes plus one ffmpeg per movie, and
# a plain JSON listing; medians of 3 rounds (docs/Rendering.md).
bench-render: deps bench-deps
	$(SWIFT) build -c release --product Demo
	python3 Benchmarks/make-libraries.py --dir $(BENCH_DIR) --only camera-1k
	python3 Benchmarks/render-bench.py --demo .build/release/Demo --library $(BENCH_DIR)/lib-camera-1k $(BENCH_ARGS)

# The Demo as a Linux command-line tool ships (docs/Performance.md, "The shipped build"):
# the Swift, Foundation and C++ runtimes linked in, stripped, its symbols and DWARF in
# Demo.debug beside it: .build-shipped/shipped/Demo. `make bench` measures this build.
shipped: deps
	bash Scripts/build-shipped.sh .build-shipped Demo

# The shipped Demo needs no libstdc++ nor any C library it opens on first use at start,
# names its Demo.debug by CRC, and prints the same bytes as the release build on the sample
# library and, when present, the shared hostile files and corpus.
shipped-check: shipped
	$(SWIFT) build -c release --product Demo
	python3 Scripts/check-shipped.py .build-shipped/shipped .build/release/Demo $(LIBRARY) \
	  $$(for d in hostile corpus; do [ -d "$(SHARED)/$$d" ] && echo "$(SHARED)/$$d"; done)

bench-libraries: bench-deps
	python3 Benchmarks/make-libraries.py --dir $(BENCH_DIR)

bench-deps:
	@missing=""; for p in time libimage-exiftool-perl imagemagick ffmpeg libvips-tools; do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

.PHONY: asan tsan fuzz-build fuzz-replay fuzz valgrind-replay every-file edge-tests

# AddressSanitizer (and LeakSanitizer) over the whole suite. Tests/lsan.supp lists the
# leaks that are not ours (each with its reason); everything else fails the run.
asan: build
	LSAN_OPTIONS=suppressions=$(CURDIR)/Tests/lsan.supp $(SWIFT) test --sanitize=address \
	  --build-path .build-asan

# ThreadSanitizer over the suites that run work in parallel, three times: a race only shows
# when two workers really overlap, which one run does not guarantee.
TSAN_FILTER ?= ContentsSnapshotTests|HostileConcurrencyTests|HostileResourceTests|EngineTests|LegacyTests|LibExifArenaTests|StreamingTests|WorkerPicturesProcessTests
tsan: build
	for i in 1 2 3; do \
	  $(SWIFT) test --sanitize=thread --build-path .build-tsan --filter '$(TSAN_FILTER)' || exit 1; \
	done

# libFuzzer targets live in the Fuzz/ sub-package (see Fuzz/README.md).
# Every Fuzz/Sources/Fuzz* folder is a target (each must also be listed in Fuzz/Package.swift).
FUZZ_TARGETS ?= $(sort $(notdir $(wildcard Fuzz/Sources/Fuzz*)))
FUZZ_SECONDS ?= 60
FUZZ_WORK ?= .build-fuzz
FUZZ_BIN = Fuzz/.build/debug
# The C shims get coverage and AddressSanitizer too (-Xcc): -Xswiftc reaches Swift only.
fuzz-build: deps
	cd Fuzz && $(SWIFT) build -c debug -Xswiftc -sanitize=fuzzer,address \
	  -Xswiftc -parse-as-library -Xcc -fsanitize=fuzzer-no-link,address 2>&1 \
	  | grep -v "Cannot export local symbol" ; \
	  test "$${PIPESTATUS[0]}" = 0

# Runs every committed seed once through its target (the CI regression check).
fuzz-replay: fuzz-build
	mkdir -p $(FUZZ_WORK)
	for t in $(FUZZ_TARGETS); do \
	  SWIFT_BACKTRACE=enable=no $(FUZZ_BIN)/$$t -timeout=5 -rss_limit_mb=2048 Fuzz/Seeds/$$t/* \
	    > $(FUZZ_WORK)/$$t-replay.log 2>&1 || { tail -40 $(FUZZ_WORK)/$$t-replay.log; exit 1; }; \
	  echo "$$t: $$(ls Fuzz/Seeds/$$t | wc -l) seeds replayed"; \
	done

# Time-boxed fuzzing, FUZZ_SECONDS per target, one after another. New inputs go to a
# scratch corpus under $(FUZZ_WORK); crashes to $(FUZZ_WORK)/<target>/. The toolchain's
# own leaks (Tests/lsan.supp: FoundationXML's per-error CFString) are not findings.
fuzz: fuzz-build
	for t in $(FUZZ_TARGETS); do \
	  mkdir -p $(FUZZ_WORK)/$$t/corpus && \
	  SWIFT_BACKTRACE=enable=no LSAN_OPTIONS=suppressions=$(CURDIR)/Tests/lsan.supp \
	    $(FUZZ_BIN)/$$t $(FUZZ_WORK)/$$t/corpus Fuzz/Seeds/$$t \
	    -max_total_time=$(FUZZ_SECONDS) -timeout=5 -rss_limit_mb=2048 -max_len=65536 \
	    -artifact_prefix=$(FUZZ_WORK)/$$t/ -print_final_stats=1 || exit 1; \
	done

# The release Demo under valgrind memcheck over the hostile files, the bad corpus
# and the whole corpus, one run per folder (~30 s in all); any memcheck error fails. The
# one suppression, Scripts/valgrind.supp, is explained there and in docs/Testing.md.
VALGRIND_FOLDERS ?= $(SHARED)/hostile $(SHARED)/corpus/bad $(SHARED)/corpus
valgrind-replay: deps
	@dpkg-query -W -f='$${Status}' valgrind 2>/dev/null | grep -q "ok installed" || { \
	  echo "Installing: valgrind"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq valgrind; \
	}
	$(SWIFT) build -c release --product Demo
	VALGRIND_LOGS=.build-valgrind Scripts/valgrind-replay.sh --demo .build/release/Demo \
	  $(wildcard $(VALGRIND_FOLDERS))

# Every regular file (hidden names, NAS folders and AppleDouble files aside) of the hostile folders, the bad
# corpus and the whole corpus listed exactly once, each broken one with a problem (judged
# with exiftool), no stderr.
every-file: deps
	@dpkg-query -W -f='$${Status}' libimage-exiftool-perl 2>/dev/null | grep -q "ok installed" || { \
	  echo "Installing: libimage-exiftool-perl"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq libimage-exiftool-perl; \
	}
	$(SWIFT) build -c release --product Demo
	python3 Scripts/every-file-check.py --demo .build/release/Demo \
	  $(wildcard $(SHARED)/hostile $(SHARED)/corpus/bad $(SHARED)/corpus)

# Issue 12: the release Demo at the edges (Scripts/edge-tests.py says what each check
# proves): 200,000 long names in <= 150 MB in every format, Ctrl-C/SIGTERM during output,
# escape codes and formulas neutralised, /dev/full -> 74, closed fds, a \xff parent folder,
# and the per-file budgets (each hostile library <= 150 MB, each file <= 1 s of CPU).
# The libraries (hard links, ~75 MB of directory entries) are made once under EDGE_DIR.
# About 40 s after the release build, so not part of `make test`.
EDGE_DIR ?= /tmp/groupenumerator-edges
edge-tests: deps
	@dpkg-query -W -f='$${Status}' time 2>/dev/null | grep -q "ok installed" || { \
	  echo "Installing: time"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq time; \
	}
	$(SWIFT) build -c release --product Demo
	python3 Scripts/make-edge-libraries.py --dir $(EDGE_DIR)
	python3 Scripts/edge-tests.py --demo .build/release/Demo --dir $(EDGE_DIR)

clean:
	rm -rf .build .build-asan .build-tsan .build-fuzz .build-valgrind .build-shipped .build-bench Fuzz/.build
