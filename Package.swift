// swift-tools-version: 6.0
import PackageDescription

let package = Package(
  name: "GroupEnumerator",
  products: [
    .library(name: "GroupEnumerator", targets: ["GroupEnumerator"]),
    .executable(name: "Demo", targets: ["Demo"]),
  ],
  targets: [
    // libexif's, SQLite's and zlib's headers only: none is linked (no pkg-config file is
    // read, its `-l` would link it). CDeferredLibraries opens each with dlopen on first use.
    .systemLibrary(
      name: "CLibExif",
      providers: [.apt(["libexif-dev"])]
    ),
    // zlib's header, for PNG's compressed text chunks (PNGMetadataReader) and the PNG
    // pictures; not linked (CDeferredLibraries).
    .systemLibrary(
      name: "CZlib",
      providers: [.apt(["zlib1g-dev"])]
    ),
    // SQLite, for the optional index of what was read (Library/Index).
    .systemLibrary(
      name: "CSQLite",
      providers: [.apt(["libsqlite3-dev"])]
    ),
    // libexif, SQLite and zlib, opened on first use: every function of theirs the package
    // calls, defined under its own name, opens the library once and calls through (a
    // second run handed back from a snapshot maps none of them: docs/Performance.md).
    .target(
      name: "CDeferredLibraries",
      dependencies: ["CLibExif", "CSQLite", "CZlib"],
      linkerSettings: [.linkedLibrary("dl")]
    ),
    // The catch-all C++ wall around gexiv2: plain-C header, every body in try/catch(...).
    // gexiv2 is not linked: the shim opens it with dlopen on the first file that needs
    // exiv2 (WebP, JPEG XL, a few RAW and BigTIFF cases), so a process that reads none
    // never maps gexiv2, exiv2, glib, gobject and gio, and starts without them
    // (docs/Performance.md). The shim declares the few gexiv2 and glib prototypes it calls
    // itself: no system library target gives gexiv2's or glib's headers, since the only
    // pkg-config file that gives their include folders without `-pthread` (which SwiftPM
    // refuses with a warning), gobject-2.0.pc, would also link `-lgobject-2.0 -lglib-2.0`
    // into every process. `make lint` checks the declarations against the real headers
    // (Scripts/check-c-declarations.sh).
    .target(
      name: "CGExiv2Shim",
      linkerSettings: [.linkedLibrary("dl")]
    ),
    // The C wall around libvips (Rendering): plain-C header; libvips opened with dlopen on
    // the first picture, so a process that draws none never maps it (docs/Rendering.md),
    // and its loaders, limits and cache set, once. Like the gexiv2 shim, it declares the
    // libvips and glib prototypes it calls itself, for the same reason.
    .target(
      name: "CVipsShim",
      // zlib for the PNG pictures it writes itself.
      dependencies: ["CZlib"],
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
    // Everything but the few declarations that need Foundation itself, on
    // FoundationEssentials: a program that links only this module (the Demo) links no
    // CoreFoundation and no ICU, and starts in a third of the time (docs/Performance.md).
    .target(
      name: "GroupEnumeratorCore",
      dependencies: [
        "CLibExif", "CLibExifArena", "CGExiv2Shim", "CSQLite", "CSystemShim", "CDeferredLibraries",
        "CFFmpegShim", "CVipsShim", "CZlib",
      ]
    ),
    // The module users import: the core re-exported, with what needs Foundation itself
    // (NSError bridging, NotificationCenter, IndexSet).
    .target(
      name: "GroupEnumerator",
      dependencies: ["GroupEnumeratorCore"]
    ),
    // Opens descriptors 0-2 on /dev/null when they are closed at start, before
    // libdispatch can take one of them (the Demo's output must never land in an eventfd).
    .target(name: "CStandardDescriptors"),
    .executableTarget(
      name: "Demo",
      dependencies: ["GroupEnumeratorCore", "CStandardDescriptors"]
    ),
    // `make bench`'s library-API run: one enumeration, its phase times on stdout.
    .executableTarget(
      name: "LibraryBench",
      dependencies: ["GroupEnumeratorCore"],
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
      dependencies: [
        "GroupEnumerator", "GroupEnumeratorCore", "CZlib", "CDeferredLibraries", "TestSupport",
      ],
      // Small real movies made by Resources/make-movies.sh; tests read them via #filePath.
      exclude: ["Resources"]
    ),
    .testTarget(
      name: "DemoTests",
      dependencies: ["Demo", "GroupEnumerator", "GroupEnumeratorCore", "TestSupport"]
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
