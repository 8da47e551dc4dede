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
    let scratch = NSTemporaryDirectory() + "EdgeProcessTests-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: scratch) }
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
}
