import Foundation
import Testing

@testable import Demo

/// gexiv2 (with exiv2 and glib) and libvips are opened with dlopen on first use, never at
/// start: the Demo lists files that need neither with every one of those libraries
/// unloadable, and a file gexiv2 is for then gets a problem of its own, not a crash.
@Suite(
  .enabled(
    if: FileManager.default.isExecutableFile(atPath: demoExecutable.path),
    "needs the built Demo next to the test bundle"))
struct DeferredLibrariesProcessTests {
  /// The sonames a process loading gexiv2 or libvips maps (Debian 12), each made a stand-in
  /// the dynamic loader refuses ("file too short"): had the Demo linked any of them, it could
  /// not start with this folder first on LD_LIBRARY_PATH.
  private static let sonames = [
    "libgexiv2.so.2", "libexiv2.so.27", "libglib-2.0.so.0", "libgobject-2.0.so.0",
    "libgio-2.0.so.0", "libgmodule-2.0.so.0", "libvips.so.42",
  ]

  /// A folder of stand-ins for ``sonames``.
  private static func standIns(in scratch: TemporaryFolder) throws -> String {
    for soname in sonames {
      try scratch.write(Array("not a library\n".utf8), as: "lib/\(soname)")
    }
    return scratch.absolute("lib")
  }

  @Test func aLibraryOfJPEGsIsListedWithoutGexiv2OrGlib() throws {
    let scratch = try TemporaryFolder("DeferredLibrariesProcessTests")
    try scratch.add(Sample.photoWithGPS, as: "library/photo.jpg")
    try scratch.add(Sample.movie, as: "library/movie.mov")
    let arguments = ["--format", "json", scratch.absolute("library")]
    let plain = try run(demoExecutable, arguments)
    let without = try run(
      demoExecutable, arguments, environment: ["LD_LIBRARY_PATH": try Self.standIns(in: scratch)])
    #expect(plain.exited && plain.status == 0, "\(plain.stderr)")
    #expect(without.exited && without.status == 0, "\(without.stderr)")
    #expect(without.stdout == plain.stdout)
    #expect(without.stdout.contains("\"problems\": []"))
    #expect(!without.stdout.contains("\"problems\": [\n"))
  }

  @Test func aWebPGetsAProblemWhenGexiv2CannotBeLoaded() throws {
    let scratch = try TemporaryFolder("DeferredLibrariesProcessTests")
    try scratch.add(Sample.photoWithGPS, as: "library/photo.jpg")
    try FileManager.default.copyItem(
      atPath: Sample.fixtures.url.appendingPathComponent("Sidecars/Embedded/only-xmp.webp").path,
      toPath: scratch.absolute("library/only-xmp.webp"))
    let outcome = try run(
      demoExecutable, ["--format", "json", scratch.absolute("library")],
      environment: ["LD_LIBRARY_PATH": try Self.standIns(in: scratch)])
    #expect(outcome.exited && outcome.status == 0, "\(outcome.stderr)")
    let assets = try #require(
      try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [[String: Any]])
    #expect(assets.count == 2)
    let webp = try #require(assets.first { ($0["path"] as? String)?.hasSuffix(".webp") == true })
    let problems = try #require(webp["problems"] as? [String])
    #expect(problems.count == 1)
    let problem = problems.first ?? ""
    #expect(problem.hasPrefix("unsupported: exiv2, which reads this WEBP file, is not available"))
    #expect(problem.contains("cannot load gexiv2 (libgexiv2.so.2)"), "\(problem)")
    let jpeg = try #require(assets.first { ($0["path"] as? String)?.hasSuffix(".jpg") == true })
    #expect((jpeg["problems"] as? [String])?.isEmpty == true)
  }
}
