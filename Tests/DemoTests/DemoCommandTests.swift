import Foundation
import Testing

@testable import Demo

@MainActor @Suite struct DemoCommandTests {
  private struct Outcome {
    var status: Int32
    var stdout: String
    var stderr: String
  }

  private func run(_ arguments: [String]) async -> Outcome {
    var stdout = TextBuffer()
    var stderr = TextBuffer()
    let status = await DemoCommand.run(arguments: arguments, stdout: &stdout, stderr: &stderr)
    return Outcome(status: status, stdout: stdout.text, stderr: stderr.text)
  }

  @Test func versionPrintsOneLine() async {
    let outcome = await run(["--version"])
    #expect(outcome.status == 0)
    #expect(outcome.stdout == "GroupEnumerator Demo 0.1.0\n")
    #expect(outcome.stderr.isEmpty)
  }

  @Test func aUsageErrorPrintsErrorUsageAndAHintThenExits64() async {
    let outcome = await run(["--format", "xml"])
    #expect(outcome.status == 64)
    #expect(outcome.stdout.isEmpty)
    #expect(
      outcome.stderr == """
        Error: The value 'xml' is invalid for '--format <format>'. Please provide one of \
        'table', 'json', 'csv' or 'ndjson'.
        Usage: Demo [--format <format>] [--filter <filter>] [--lang <lang>] [--statistics] [<library>]
          See 'Demo --help' for more information.

        """)
  }

  @Test func statisticsAreOneLineOnStandardErrorAfterTheListing() async throws {
    let library = DemoCommand.bundledLibrary.path
    let plain = await run(["--format", "json", library])
    let outcome = await run(["--format", "json", "--statistics", library])
    #expect(outcome.status == 0)
    #expect(outcome.stdout == plain.stdout)
    #expect(plain.stderr.isEmpty)
    let assets = try #require(
      try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [Any]
    ).count
    let words = outcome.stderr.split(separator: " ").map(String.init)
    #expect(outcome.stderr.hasSuffix("\n") && outcome.stderr.filter { $0 == "\n" }.count == 1)
    #expect(words.first == "statistics:")
    let figures = Dictionary(
      zip(
        words.dropFirst().enumerated().filter { $0.offset % 2 == 0 }.map(\.element),
        words.dropFirst().enumerated().filter { $0.offset % 2 == 1 }.map(\.element)),
      uniquingKeysWith: { first, _ in first })
    #expect(
      Set(figures.keys) == [
        "assets", "files-read", "walk-s", "metadata-s", "delivery-s", "output-s",
        "main-actor-hops",
      ])
    #expect(figures["assets"] == String(assets))
    // A Live Photo is two files read for one asset.
    #expect(Int(figures["files-read"] ?? "") ?? 0 > assets)
    #expect(
      Int(figures["main-actor-hops"]?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 0
        >= 3)
    for key in ["walk-s", "metadata-s", "delivery-s", "output-s"] {
      #expect((Double(figures[key] ?? "") ?? -1) >= 0, "\(key)")
    }
    let misused = await run(["--statistics=yes", library])
    #expect(misused.status == 64)
    #expect(misused.stderr.hasPrefix("Error: '--statistics' takes no value\n"))
  }

  @Test func aSubcommandUsageErrorShowsThatSubcommandsUsage() async {
    let outcome = await run(["groups", "a", "b"])
    #expect(outcome.status == 64)
    #expect(
      outcome.stderr == """
        Error: Unexpected argument 'b'
        Usage: Demo groups [--format <format>] [--lang <lang>] [<library>]
          See 'Demo groups --help' for more information.

        """)
  }

  @Test func aLibraryThatCannotBeReadIsAnErrorWithStatus1() async throws {
    let missing = FileManager.default.temporaryDirectory
      .appendingPathComponent("no-such-library-\(UUID().uuidString)").path
    for arguments in [
      [missing], ["groups", missing], ["--format", "json", "--lang", "ja", missing],
    ] {
      let outcome = await run(arguments)
      #expect(outcome.status == 1, "\(arguments)")
      #expect(outcome.stdout.isEmpty, "\(arguments)")
      #expect(outcome.stderr.hasPrefix("Error: "), "\(arguments)")
      #expect(outcome.stderr.hasSuffix("\n"), "\(arguments)")
    }
  }

  @Test func thumbnailOfAnUnknownAssetFails() async {
    let url = "assets-library://asset/asset.JPG?id=6F1F6C0B-2E6B-8B0A-8B7A-0123456789AB&ext=JPG"
    let outcome = await run(["thumbnail", url, "--output", "/dev/null"])
    #expect(outcome.status == 1)
    #expect(outcome.stderr.hasPrefix("Error: No asset with URL '\(url)'"))
  }

  @Test func theBundledLibraryIsFoundFromTheSourceTree() {
    let path = DemoCommand.bundledLibrary.path
    #expect(path.hasSuffix("/Fixtures/Library"))
    #expect(
      FileManager.default.fileExists(
        atPath: DemoCommand.bundledLibrary.deletingLastPathComponent()
          .deletingLastPathComponent().appendingPathComponent("Package.swift").path))
  }
}
