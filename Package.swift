// swift-tools-version: 6.0
import PackageDescription

let package = Package(
  name: "GroupEnumerator",
  products: [
    .library(name: "GroupEnumerator", targets: ["GroupEnumerator"]),
    .executable(name: "Demo", targets: ["Demo"]),
  ],
  targets: [
    .systemLibrary(
      name: "CLibExif",
      pkgConfig: "libexif",
      providers: [.apt(["libexif-dev"])]
    ),
    // zlib, for PNG's compressed text chunks (PNGMetadataReader).
    .systemLibrary(
      name: "CZlib",
      pkgConfig: "zlib",
      providers: [.apt(["zlib1g-dev"])]
    ),
    // SQLite, for the optional index of what was read (Library/Index). sqlite3.pc carries
    // no `-pthread`, so its flags are taken as they are.
    .systemLibrary(
      name: "CSQLite",
      pkgConfig: "sqlite3",
      providers: [.apt(["libsqlite3-dev"])]
    ),
    // gexiv2's own pkg-config file pulls in gio-2.0, whose flags carry `-pthread`, which
    // SwiftPM refuses with a warning on every build (consumers' too). gexiv2's headers sit
    // in the default include path and need only glib's and gobject's, which
    // gobject-2.0.pc gives without `-pthread`; the shim links gexiv2 itself (below).
    .systemLibrary(
      name: "CGExiv2",
      pkgConfig: "gobject-2.0",
      providers: [.apt(["libgexiv2-dev"])]
    ),
    // The catch-all C++ wall around gexiv2: plain-C header, every body in try/catch(...).
    .target(
      name: "CGExiv2Shim",
      dependencies: ["CGExiv2"],
      linkerSettings: [.linkedLibrary("gexiv2")]
    ),
    // libvips's headers only: the shim opens libvips with dlopen on the first picture, so
    // a process that draws none never maps it (docs/Rendering.md). libvips's own
    // pkg-config file would also carry `-pthread` (through gio-2.0), which SwiftPM refuses
    // with a warning, as for gexiv2 above. Its headers sit in the default include path and
    // need only glib's, gobject's and gio's headers, whose folders gobject-2.0.pc gives
    // without `-pthread` (with glib and gobject, which gexiv2 links anyway).
    .systemLibrary(
      name: "CVips",
      pkgConfig: "gobject-2.0",
      providers: [.apt(["libvips-dev"])]
    ),
    // The C wall around libvips (Rendering): plain-C header; libvips loaded, and its
    // loaders, limits and cache set, once.
    .target(
      name: "CVipsShim",
      dependencies: ["CVips"],
      linkerSettings: [.linkedLibrary("dl")]
    ),
    // ffmpeg's headers only (they sit in the multiarch include folder, so no pkg-config
    // file is read: libavformat.pc would link the libraries). The shim opens the four
    // libraries with dlopen on the first movie frame.
    .systemLibrary(
      name: "CFFmpeg",
      providers: [.apt(["libavformat-dev", "libavcodec-dev", "libswscale-dev", "libavutil-dev"])]
    ),
    // The C wall around ffmpeg (Rendering): a movie's representative frame, read with
    // pread from a descriptor, within a deadline and a pixel limit.
    .target(
      name: "CFFmpegShim",
      dependencies: ["CFFmpeg"],
      linkerSettings: [.linkedLibrary("dl"), .linkedLibrary("m")]
    ),
    // A per-thread arena for libexif's many small allocations (LibExifReader).
    .target(
      name: "CLibExifArena",
      dependencies: ["CLibExif"]
    ),
    // The system calls Glibc does not wrap (openat2) or declares only under _GNU_SOURCE
    // (O_PATH), for the OS layer in Library/System.
    .target(name: "CSystemShim"),
    .target(
      name: "GroupEnumerator",
      dependencies: [
        "CLibExif", "CLibExifArena", "CGExiv2", "CGExiv2Shim", "CSQLite", "CSystemShim",
        "CFFmpegShim", "CVipsShim", "CZlib",
      ]
    ),
    // Opens descriptors 0-2 on /dev/null when they are closed at start, before
    // libdispatch can take one of them (the Demo's output must never land in an eventfd).
    .target(name: "CStandardDescriptors"),
    .executableTarget(
      name: "Demo",
      dependencies: ["GroupEnumerator", "CStandardDescriptors"]
    ),
    // `make bench`'s library-API run: one enumeration, its phase times on stdout.
    .executableTarget(
      name: "LibraryBench",
      dependencies: ["GroupEnumerator"],
      path: "Benchmarks/LibraryBench"
    ),
    // What both test targets share: temporary folders, the committed fixtures' places,
    // the Demo process runner. Foundation only, and in no product.
    .target(
      name: "TestSupport",
      path: "Tests/TestSupport"
    ),
    .testTarget(
      name: "GroupEnumeratorTests",
      // CZlib compresses the text chunks PNGMetadataReaderTests builds.
      dependencies: ["GroupEnumerator", "CZlib", "TestSupport"],
      // Small real movies made by Resources/make-movies.sh; tests read them via #filePath.
      exclude: ["Resources"]
    ),
    .testTarget(
      name: "DemoTests",
      dependencies: ["Demo", "GroupEnumerator", "TestSupport"]
    ),
  ],
  swiftLanguageModes: [.v6],
  cxxLanguageStandard: .cxx17
)

// Every Swift target gets the same upcoming features, in one place.
for target in package.targets where target.type != .system {
  target.swiftSettings =
    (target.swiftSettings ?? []) + [
      .enableUpcomingFeature("InternalImportsByDefault"),
      .enableUpcomingFeature("ExistentialAny"),
      .enableUpcomingFeature("MemberImportVisibility"),
    ]
}
