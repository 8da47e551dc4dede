import Foundation
import Glibc
import Testing

@testable import Demo

/// The built Demo at the edges of its surroundings (docs/Robustness.md): standard output
/// that cannot be written, standard descriptors closed at start, a library path that is
/// not UTF-8. The shell only sets up descriptors and folders; the Demo runs as usual.
@Suite(
  .enabled(
    if: FileManager.default.isExecutableFile(atPath: demoExecutable.path),
    "needs the built Demo next to the test bundle"))
struct EdgeProcessTests {
  private func shell(_ script: String, _ arguments: [String] = []) throws -> Outcome {
    try run(URL(fileURLWithPath: "/bin/sh"), ["-c", script, demoExecutable.path] + arguments)
  }

  @Test(arguments: ["csv", "json", "table", "ndjson"])
  func aFullDeviceIsExit74WithTheReason(format: String) throws {
    let outcome = try shell(#""$0" --format "$1" > /dev/full"#, [format])
    #expect(outcome.status == 74)
    #expect(outcome.stderr == "Error: cannot write the output: No space left on device\n")
  }

  @Test func closedStandardDescriptorsAreNoFault() throws {
    for script in [#""$0" --format csv >&-"#, #""$0" --format csv > /dev/null 2>&-"#] {
      let outcome = try shell(script)
      #expect(outcome.status == 0, "\(script): \(outcome.stderr)")
      #expect(outcome.stderr.isEmpty, "\(script)")
    }
  }

  @Test func aLibraryBelowAFolderNamedFFOpensByEveryPath() throws {
    // The folder is removed by bytes, so its 0xFF name goes too.
    let folder = try TemporaryFolder("EdgeProcessTests")
    let scratch = folder.path
    // printf makes the byte 0xFF, which no Swift String can hold.
    let setup = try run(
      URL(fileURLWithPath: "/bin/sh"),
      [
        "-c", #"d="$1/$(printf '\377')/library" && mkdir -p "$d" && : > "$d/a.jpg""#, "sh",
        scratch,
      ])
    try #require(setup.status == 0, "\(setup.stderr)")
    let ff = #""$(printf '\377')""#
    for script in [
      #""$0" --format csv "$1"/"# + ff + "/library",
      #"cd "$1"/"# + ff + #" && "$0" --format csv library"#,
      #"cd "$1"/"# + ff + #"/library && "$0" --format csv ."#,
    ] {
      let outcome = try shell(script, [scratch])
      #expect(outcome.status == 0, "\(script): \(outcome.stderr)")
      #expect(outcome.stdout.split(separator: "\r\n").count == 2, "\(script): \(outcome.stdout)")
    }
    let missing = try shell(#""$0" "$1"/"# + ff + "/nope", [scratch])
    #expect(missing.status == 1)
    #expect(missing.stderr.contains("/%FF/nope"), "\(missing.stderr)")
    // Relative to a working directory that is not UTF-8: named from its bytes too.
    let relative = try shell(#"cd "$1"/"# + ff + #" && "$0" nope"#, [scratch])
    #expect(relative.status == 1)
    #expect(relative.stderr.contains(scratch + "/%FF/nope"), "\(relative.stderr)")
  }

  // MARK: - libvips and ffmpeg are loaded on the first picture

  /// The shared objects the dynamic loader mapped into one run of the Demo with
  /// `arguments`, from its own log (`LD_DEBUG=files`: one `file=NAME` line per object, at
  /// start and at each dlopen), and the run's outcome.
  private func loadedObjects(_ arguments: [String], environment: [String: String] = [:])
    throws -> (objects: Set<String>, outcome: Outcome)
  {
    let scratch = try TemporaryFolder("EdgeProcessTests")
    let outcome = try run(
      demoExecutable, arguments,
      environment: environment.merging([
        "LD_DEBUG": "files", "LD_DEBUG_OUTPUT": scratch.path + "/loader",
      ]) { given, _ in given })
    var objects = Set<String>()
    for name in try FileManager.default.contentsOfDirectory(atPath: scratch.path)
    where name.hasPrefix("loader.") {
      let log = try String(contentsOfFile: scratch.path + "/" + name, encoding: .utf8)
      for line in log.split(separator: "\n") {
        guard let start = line.range(of: "file=") else { continue }
        objects.insert(String(line[start.upperBound...].prefix { $0 != " " && $0 != ";" }))
      }
    }
    return (objects, outcome)
  }

  @Test func neitherAListingNorTheDemoDrawingInWorkersLoadsLibvipsOrFFmpeg() throws {
    let library = DemoCommand.bundledLibrary.path
    let listing = try loadedObjects(["--format", "csv", library])
    #expect(listing.outcome.status == 0, "\(listing.outcome.stderr)")
    // The log is read: the C library is in every process.
    #expect(listing.objects.contains("libc.so.6"), "\(listing.objects.sorted())")
    let drawing = ["libvips", "libavformat", "libavcodec", "libswscale", "libavutil"]
    let listed = listing.objects.filter { object in drawing.contains { object.hasPrefix($0) } }
    #expect(listed.isEmpty, "a listing loaded \(listed.sorted())")

    // A picture is drawn in a worker process (the Demo started again): the Demo itself
    // never loads a decoder. (The worker's own log ends when it closes the descriptors it
    // inherited, before its first picture; the next test shows that it loads them then.)
    for asset in ["IMG_0002.jpg", "Videos/clip.mp4"] {
      let drawn = try loadedObjects([
        "thumbnail", asset, library, "--size", "80", "--output", "-", "--no-cache",
      ])
      #expect(drawn.outcome.status == 0, "\(drawn.outcome.stderr)")
      #expect(drawn.outcome.stdout.utf8.count > 100)
      let loaded = drawn.objects.filter { object in drawing.contains { object.hasPrefix($0) } }
      #expect(loaded.isEmpty, "drawing \(asset) loaded \(loaded.sorted()) in the Demo")
    }
  }

  @Test func aLibraryThatCannotBeLoadedFailsThePictureWithTheLoadersReason() throws {
    // A folder put first on LD_LIBRARY_PATH shadows one soname with a broken stand-in:
    // for libvips an empty file (dlopen refuses it), for libavformat a copy of zlib
    // (dlopen takes it, then every function is missing).
    let scratch = try TemporaryFolder("EdgeProcessTests")
    let (noVips, noFormat) = (scratch.path + "/vips", scratch.path + "/avformat")
    for folder in [noVips, noFormat] { mkdir(folder, 0o755) }
    #expect(FileManager.default.createFile(atPath: noVips + "/libvips.so.42", contents: Data()))
    // Read through the link libz.so.1 is.
    let zlib = try Data(contentsOf: URL(fileURLWithPath: "/usr/lib/x86_64-linux-gnu/libz.so.1"))
    try zlib.write(to: URL(fileURLWithPath: noFormat + "/libavformat.so.59"))
    let library = DemoCommand.bundledLibrary.path
    // A listing needs neither.
    let listing = try run(
      demoExecutable, ["--format", "csv", library], environment: ["LD_LIBRARY_PATH": noVips])
    #expect(listing.status == 0, "\(listing.stderr)")
    #expect(listing.stdout.split(separator: "\r\n").count > 10)

    let still = try run(
      demoExecutable, ["thumbnail", "IMG_0002.jpg", library, "--size", "80", "--output", "-"],
      environment: ["LD_LIBRARY_PATH": noVips])
    #expect(still.exited && still.status == 1)
    #expect(still.stdout.isEmpty)
    #expect(
      still.stderr
        == "Error: The image decoder is unavailable: cannot load libvips (libvips.so.42): "
        + noVips + "/libvips.so.42: file too short.\n", "\(still.stderr)")

    let movie = try run(
      demoExecutable,
      ["thumbnail", "Videos/clip.mp4", library, "--size", "80", "--output", "-"],
      environment: ["LD_LIBRARY_PATH": noFormat])
    #expect(movie.exited && movie.status == 1)
    #expect(movie.stdout.isEmpty)
    #expect(
      movie.stderr.hasPrefix(
        "Error: The image decoder is unavailable: cannot load libavformat.so.59: " + noFormat
          + "/libavformat.so.59: undefined symbol: "), "\(movie.stderr)")
  }
}
