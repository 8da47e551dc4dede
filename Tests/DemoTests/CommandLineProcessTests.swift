import Foundation
import Testing

@testable import Demo

/// The command line of the built `Demo` as a user types it: every form of the library
/// argument, help and selection, with the exit status each must give.
@Suite(
  .enabled(
    if: FileManager.default.isExecutableFile(atPath: demoExecutable.path)
      && FileManager.default.fileExists(atPath: DemoCommand.bundledLibrary.path),
    "needs the built Demo next to the test bundle and Fixtures/Library"))
struct CommandLineProcessTests {
  private static let library = DemoCommand.bundledLibrary.path

  /// Runs the Demo in `directory` (no shell).
  private func demo(_ arguments: [String], in directory: String? = nil) throws -> Outcome {
    try run(demoExecutable, arguments, in: directory)
  }

  @Test func lookupByAnyFileOfALivePhotoPrintsTheLivePhoto() throws {
    let still = try demo(["lookup", "DCIM/100APPLE/IMG_0200.HEIC", Self.library])
    #expect(still.status == 0, "\(still.stderr)")
    #expect(still.stdout.contains("\"type\": \"livePhoto\""))
    // The movie and the sidecar are files of the same asset: the same object.
    for path in ["DCIM/100APPLE/IMG_0200.MOV", "DCIM/100APPLE/IMG_0200.AAE"] {
      let outcome = try demo(["lookup", path, Self.library])
      #expect(outcome.status == 0, "\(path): \(outcome.stderr)")
      #expect(outcome.stdout == still.stdout, "\(path)")
    }
  }

  @Test func theIssuesCommandsExitZero() throws {
    let library = Self.library
    let scratch = try TemporaryFolder("CommandLineProcessTests")
    let output = scratch.absolute("thumbnail.jpg")
    for arguments in [
      ["groups", library], ["groups", "--library", library],
      ["lookup", "IMG_0001.JPG", "--library", library], ["lookup", "IMG_0001.JPG", library],
      ["help", "groups"], ["help"], ["--help"], ["groups", "--version"],
      ["--no-progress", "--ext", "jpg", "--exclude", "Broken", library],
      ["thumbnail", "Trips/Kyoto 2019/trip-02.jpg", library, "--output", output],
    ] {
      let outcome = try demo(arguments)
      #expect(outcome.exited && outcome.status == 0, "\(arguments): \(outcome.stderr)")
      #expect(outcome.stderr.isEmpty, "\(arguments)")
      #expect(!outcome.stdout.isEmpty || arguments.first == "thumbnail", "\(arguments)")
    }
    #expect(try Data(contentsOf: URL(fileURLWithPath: output)).starts(with: [0xFF, 0xD8]))
  }

  @Test func usageErrorsExit64AndMissingAssetsExit1() throws {
    let library = Self.library
    for (arguments, status) in [
      (["help", "foo"], Int32(64)), (["groups", library, "--library", "/tmp"], 64),
      (["--ext", "", library], 64), (["lookup", "--ext", "jpg", "a.jpg"], 64),
      (["help", "groups", "lookup"], 64),
      (["lookup", "/etc/passwd", library], 1), (["lookup", "no-such.jpg", library], 1),
      (["groups", "/no/such/library"], 1),
    ] {
      let outcome = try demo(arguments)
      #expect(outcome.exited && outcome.status == status, "\(arguments): \(outcome.stderr)")
      #expect(outcome.stdout.isEmpty, "\(arguments)")
      #expect(outcome.stderr.hasPrefix("Error: "), "\(arguments)")
    }
  }

  @Test func helpIsNeverALibraryNamedHelp() throws {
    let folder = try LibraryCopy()
    try FileManager.default.createDirectory(
      atPath: folder.path + "/help", withIntermediateDirectories: false)
    let outcome = try demo(["help"], in: folder.path)
    #expect(outcome.status == 0)
    #expect(outcome.stdout.hasPrefix("OVERVIEW: List the photos and videos"))
    let asLibrary = try demo(["--format", "json", "./help"], in: folder.path)
    #expect(asLibrary.status == 0)
    #expect(asLibrary.stdout == "[]\n")
  }

  @Test func aPathIsFoundFromTheLibraryRootOrFromTheWorkingDirectory() throws {
    let folder = try LibraryCopy()
    let parent = (folder.path as NSString).deletingLastPathComponent
    let name = (folder.path as NSString).lastPathComponent
    let expected = try demo(["lookup", "Família/praia.jpg", folder.path])
    #expect(expected.status == 0, "\(expected.stderr)")
    #expect(expected.stdout.contains("\"path\": \"Família/praia.jpg\""))
    for (arguments, directory) in [
      (["lookup", "praia.jpg", "--library", folder.path], folder.path + "/Família"),
      (["lookup", "./praia.jpg", folder.path], folder.path + "/Família"),
      (["lookup", "Família/praia.jpg", "."], folder.path),
      (["lookup", name + "/Família/praia.jpg", name], parent),
      (["lookup", folder.path + "/Família/praia.jpg", folder.path], "/"),
    ] {
      let outcome = try demo(arguments, in: directory)
      #expect(outcome.status == 0, "\(arguments) in \(directory): \(outcome.stderr)")
      #expect(outcome.stdout == expected.stdout, "\(arguments) in \(directory)")
    }
    // A file next to the library, found from the working directory, is outside it.
    try Data("x".utf8).write(to: URL(fileURLWithPath: folder.path + "-outside.jpg"))
    defer { try? FileManager.default.removeItem(atPath: folder.path + "-outside.jpg") }
    let outside = try demo(["lookup", name + "-outside.jpg", name], in: parent)
    #expect(outside.status == 1)
    #expect(
      outside.stderr
        == "Error: '\(name)-outside.jpg' is not a file inside the photo library at '\(folder.path)'.\n"
    )
  }

  @Test(
    .enabled(
      if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"),
      "needs script(1) from util-linux for a terminal"))
  func noProgressDrawsNoBarEvenOnATerminal() throws {
    // script(1) gives the Demo a terminal; stdout goes to /dev/null, so what script
    // records is standard error: the bar, or nothing.
    func onATerminal(_ options: String) throws -> Outcome {
      try run(
        URL(fileURLWithPath: "/usr/bin/script"),
        [
          "-qec", "'\(demoExecutable.path)' \(options) '\(Self.library)' >/dev/null",
          "/dev/null",
        ])
    }
    let withBar = try onATerminal("")
    #expect(withBar.status == 0)
    #expect(withBar.stdout.contains("Loading photos (100%)"), "\(withBar.stdout)")
    #expect(withBar.stdout.contains("15/15"), "\(withBar.stdout)")
    let selected = try onATerminal("--ext jpg --exclude Broken")
    #expect(selected.stdout.contains(" 8/8"), "\(selected.stdout)")
    let withoutBar = try onATerminal("--no-progress")
    #expect(withoutBar.status == 0)
    #expect(withoutBar.stdout.isEmpty, "\(withoutBar.stdout)")
  }
}
