// swift-tools-version: 6.0
// libFuzzer targets for GroupEnumerator's parsers. Kept out of the root package: SwiftPM
// links an executable with `--defsym main=<Module>_main`, which a `-sanitize=fuzzer`
// build cannot satisfy there (swiftlang/swift#75800), and a fuzz target in the root
// package breaks `swift test`. Build and run with `make fuzz` / `make fuzz-replay` from
// the root; see README.md here.
import PackageDescription

/// One executable per fuzz target; each lives in `Sources/<name>/main.swift`.
let fuzzTargets = [
  "FuzzJPEG", "FuzzTIFFWalker", "FuzzDates", "FuzzQuickTime", "FuzzHEIF", "FuzzPNG", "FuzzExiv2",
  "FuzzFormats",
  "FuzzXMP", "FuzzMotionPhoto", "FuzzRender", "FuzzMovieFrame",
]

let package = Package(
  name: "GroupEnumeratorFuzz",
  dependencies: [.package(name: "GroupEnumerator", path: "..")],
  targets: [
    // Declares libFuzzer's `LLVMFuzzerRunDriver`; the definition comes from
    // `-sanitize=fuzzer`.
    .target(name: "CFuzzDriver")
  ]
    + fuzzTargets.map { name in
      .executableTarget(
        name: name,
        dependencies: [
          "CFuzzDriver", .product(name: "GroupEnumerator", package: "GroupEnumerator"),
        ])
    },
  swiftLanguageModes: [.v6]
)
