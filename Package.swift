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
    .systemLibrary(
      name: "CGExiv2",
      pkgConfig: "gexiv2",
      providers: [.apt(["libgexiv2-dev"])]
    ),
    // The catch-all C++ wall around gexiv2 (ROBUSTNESS §0.1): plain-C header, every body
    // in try/catch(...).
    .target(
      name: "CGExiv2Shim",
      dependencies: ["CGExiv2"]
    ),
    // A per-thread arena for libexif's many small allocations (LibExifReader).
    .target(
      name: "CLibExifArena",
      dependencies: ["CLibExif"]
    ),
    .target(
      name: "GroupEnumerator",
      dependencies: ["CLibExif", "CLibExifArena", "CGExiv2", "CGExiv2Shim", "CZlib"]
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
    .testTarget(
      name: "GroupEnumeratorTests",
      // CZlib compresses the text chunks PNGMetadataReaderTests builds.
      dependencies: ["GroupEnumerator", "CZlib"],
      // Small real movies made by Resources/make-movies.sh; tests read them via #filePath.
      exclude: ["Resources"]
    ),
    .testTarget(
      name: "DemoTests",
      dependencies: ["Demo", "GroupEnumerator"]
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
