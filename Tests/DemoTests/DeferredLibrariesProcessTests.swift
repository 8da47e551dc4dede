import Foundation
import Testing

@testable import Demo

/// gexiv2 (with exiv2 and glib), libvips, libexif and SQLite are opened with dlopen on
/// first use, never at start: the Demo lists files that need none of the first two with
/// each of those libraries unloadable, replays a stored listing without libexif and
/// SQLite, and a file that needs a missing library then gets a problem of its own (an
/// index that needs SQLite, a warning), not a crash.
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

  /// libexif's and SQLite's sonames (Debian 12).
  private static let libexifAndSQLite = ["libexif.so.12", "libsqlite3.so.0"]

  /// A folder of stand-ins for `sonames`.
  private static func standIns(
    in scratch: TemporaryFolder, for sonames: [String] = sonames
  ) throws -> String {
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

  @Test func theDemoStartsAndReplaysWithoutLibexifOrSQLite() throws {
    let scratch = try TemporaryFolder("DeferredLibrariesProcessTests")
    try scratch.add(Sample.photoWithGPS, as: "library/photo.jpg")
    try scratch.add(Sample.movie, as: "library/movie.mov")
    let without = ["LD_LIBRARY_PATH": try Self.standIns(in: scratch, for: Self.libexifAndSQLite)]
    let help = try run(demoExecutable, ["--help"], environment: without)
    #expect(help.exited && help.status == 0, "\(help.stderr)")
    #expect(help.stdout.contains("--index"))
    // Recorded with both libraries; the next run, without them, replays it: it opens
    // neither the index nor any photo.
    let arguments = [
      "--format", "json", "--index", scratch.absolute("index.sqlite"), scratch.absolute("library"),
    ]
    // A listing is stored only for a tree whose last change is older than its clock's tick.
    usleep(200_000)
    let recorded = try run(demoExecutable, arguments)
    #expect(recorded.exited && recorded.status == 0, "\(recorded.stderr)")
    let replayed = try run(demoExecutable, arguments, environment: without)
    #expect(replayed.exited && replayed.status == 0, "\(replayed.stderr)")
    #expect(replayed.stdout == recorded.stdout)
    #expect(replayed.stderr.isEmpty, "\(replayed.stderr)")
  }

  @Test func aJPEGIsReadDirectlyWhenLibexifCannotBeLoaded() throws {
    let scratch = try TemporaryFolder("DeferredLibrariesProcessTests")
    try scratch.add(Sample.photoWithGPS, as: "library/photo.jpg")
    let arguments = ["--format", "json", scratch.absolute("library")]
    let plain = try run(demoExecutable, arguments)
    let without = try run(
      demoExecutable, arguments,
      environment: ["LD_LIBRARY_PATH": try Self.standIns(in: scratch, for: ["libexif.so.12"])])
    #expect(without.exited && without.status == 0, "\(without.stderr)")
    let plainAsset = try #require(try Self.assets(plain.stdout).first)
    let asset = try #require(try Self.assets(without.stdout).first)
    // The date, the place, the size and the camera, as libexif gave them.
    let fields = [
      "creationDate", "creationDateSource", "dateTime", "location", "width", "height", "make",
      "model",
    ]
    for field in fields {
      let expected = try #require(plainAsset[field], "\(field)")
      let found = try #require(asset[field], "\(field)")
      #expect(
        try JSONSerialization.data(
          withJSONObject: found, options: [.sortedKeys, .fragmentsAllowed])
          == JSONSerialization.data(
            withJSONObject: expected, options: [.sortedKeys, .fragmentsAllowed]), "\(field)")
    }
    #expect((plainAsset["problems"] as? [String])?.isEmpty == true)
    let problems = try #require(asset["problems"] as? [String])
    #expect(problems.count == 1)
    #expect(
      problems.first?.hasPrefix(
        "unsupported: libexif is not available (cannot load libexif.so.12") == true,
      "\(problems)")
    #expect(problems.first?.hasSuffix("the EXIF block was read directly.") == true, "\(problems)")
  }

  @Test func anIndexWithoutSQLiteIsAWarningAndTheListingRuns() throws {
    let scratch = try TemporaryFolder("DeferredLibrariesProcessTests")
    try scratch.add(Sample.photoWithGPS, as: "library/photo.jpg")
    let plain = try run(demoExecutable, ["--format", "json", scratch.absolute("library")])
    let without = try run(
      demoExecutable,
      [
        "--format", "json", "--index", scratch.absolute("index.sqlite"),
        scratch.absolute("library"),
      ],
      environment: ["LD_LIBRARY_PATH": try Self.standIns(in: scratch, for: ["libsqlite3.so.0"])])
    #expect(without.exited && without.status == 0, "\(without.stderr)")
    #expect(without.stdout == plain.stdout)
    #expect(without.stderr.contains("cannot load libsqlite3.so.0"), "\(without.stderr)")
  }

  private static func assets(_ json: String) throws -> [[String: Any]] {
    try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
  }

  @Test func pngChunksAreCheckedWithoutZlib() throws {
    let scratch = try TemporaryFolder("DeferredLibrariesProcessTests")
    for (fixture, name) in [
      ("Library/Screenshots/screenshot.png", "screenshot.png"),
      ("Phones/XMP/edited.png", "edited.png"),
    ] {
      try scratch.write(
        Array(Data(contentsOf: Sample.fixtures.url.appendingPathComponent(fixture))),
        as: "library/" + name)
    }
    // A PNG whose iTXt chunk (at 33, after the signature and IHDR) fails its CRC: found
    // wrong without zlib too.
    var damaged = try Array(
      Data(contentsOf: Sample.fixtures.url.appendingPathComponent("Phones/XMP/edited.png")))
    try #require(Array(damaged[37..<41]) == Array("iTXt".utf8))
    let length = damaged[33..<37].reduce(0) { $0 << 8 | Int($1) }
    damaged[41 + length + 3] ^= 0xFF
    try scratch.write(damaged, as: "library/damaged.png")
    let arguments = ["--format", "json", scratch.absolute("library")]
    let plain = try run(demoExecutable, arguments)
    let without = try run(
      demoExecutable, arguments,
      environment: ["LD_LIBRARY_PATH": try Self.standIns(in: scratch, for: ["libz.so.1"])])
    #expect(without.exited && without.status == 0, "\(without.stderr)")
    #expect(without.stdout == plain.stdout)
    #expect(plain.stdout.contains("The PNG chunk 'iTXt' at offset 33 fails its CRC"))
    #expect(plain.stdout.components(separatedBy: "fails its CRC").count == 2)
  }
}
