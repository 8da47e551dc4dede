import Foundation
import GroupEnumerator
import Testing

@testable import Demo

@MainActor @Suite struct DemoCommandTests {

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
        'table', 'json', 'csv', 'ndjson' or 'html'.
        Usage: Demo [<options>] [<library>]
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
        "assets", "files-read", "files-from-index", "walk-s", "metadata-s", "delivery-s",
        "output-s", "bytes-read", "read-calls", "bytes-per-file", "main-actor-hops",
      ])
    #expect(figures["files-from-index"] == "0")
    #expect(figures["assets"] == String(assets))
    // A Live Photo is two files read for one asset.
    #expect(Int(figures["files-read"] ?? "") ?? 0 > assets)
    // Each pread returns at least one byte here (the sample library has one empty file,
    // which is never read); the mean is bytes over files.
    let filesRead = try #require(Double(figures["files-read"] ?? ""))
    let bytesRead = try #require(Double(figures["bytes-read"] ?? ""))
    let readCalls = try #require(Int(figures["read-calls"] ?? ""))
    #expect(readCalls > 0)
    #expect(bytesRead >= Double(readCalls))
    #expect(figures["bytes-per-file"] == String(format: "%.0f", bytesRead / filesRead))
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
        Usage: Demo groups [<options>] [<library>]
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

  /// The `path` of each asset `Demo --format json` lists with `arguments`.
  private func listedPaths(_ arguments: [String]) async throws -> [String] {
    let outcome = await run(["--format", "json"] + arguments)
    #expect(outcome.status == 0, "\(arguments): \(outcome.stderr)")
    let objects = try #require(
      try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [[String: Any]])
    return objects.compactMap { $0["path"] as? String }
  }

  /// The `count` of the `All Photos` row of `Demo groups --format csv`.
  private func allPhotosCount(_ arguments: [String]) async -> Int? {
    let outcome = await run(["groups", "--format", "csv"] + arguments)
    #expect(outcome.status == 0, "\(arguments): \(outcome.stderr)")
    let lines = outcome.stdout.split(whereSeparator: \.isNewline)
    guard let header = lines.first?.split(separator: ","),
      let column = header.firstIndex(of: "count"),
      let row = lines.first(where: { $0.contains(",library,") })
    else { return nil }
    let fields = row.split(separator: ",", omittingEmptySubsequences: false)
    return fields.indices.contains(column) ? Int(fields[column]) : nil
  }

  @Test func groupsTakesTheLibraryAsAnArgumentOrAnOption() async {
    let library = DemoCommand.bundledLibrary.path
    let positional = await run(["groups", library])
    let option = await run(["groups", "--library", library])
    let both = await run(["groups", library, "--library=\(library)"])
    #expect(positional.status == 0)
    #expect(positional.stdout.hasSuffix("8 groups\n"))
    #expect(option.status == 0)
    #expect(option.stdout == positional.stdout)
    #expect(both.stdout == positional.stdout)
    let conflict = await run(["groups", library, "--library", "/tmp"])
    #expect(conflict.status == 64)
    #expect(conflict.stdout.isEmpty)
    #expect(
      conflict.stderr == """
        Error: The library is given twice, as '\(library)' and as '--library /tmp'. Please \
        provide it once.
        Usage: Demo groups [<options>] [<library>]
          See 'Demo groups --help' for more information.

        """)
  }

  @Test func helpWithASubcommandPrintsThatSubcommandsHelp() async {
    for (arguments, same) in [
      (["help"], ["--help"]), (["help", "groups"], ["groups", "--help"]),
      (["help", "lookup"], ["lookup", "-h"]), (["help", "thumbnail"], ["thumbnail", "--help"]),
    ] {
      let outcome = await run(arguments)
      let expected = await run(same)
      #expect(outcome.status == 0, "\(arguments)")
      #expect(outcome.stderr.isEmpty, "\(arguments)")
      #expect(outcome.stdout.hasPrefix("OVERVIEW: "), "\(arguments)")
      #expect(outcome.stdout == expected.stdout, "\(arguments)")
    }
    let unknown = await run(["help", "foo"])
    #expect(unknown.status == 64)
    #expect(unknown.stdout.isEmpty)
    #expect(
      unknown.stderr == """
        Error: Unknown subcommand 'foo'. Please provide one of 'groups', 'lookup', 'thumbnail' or 'watch'.
        Usage: Demo [<options>] [<library>]
          See 'Demo --help' for more information.

        """)
  }

  @Test func versionWorksInEverySubcommand() async {
    for arguments in [
      ["groups", "--version"], ["lookup", "--version"], ["thumbnail", "--version"],
    ] {
      let outcome = await run(arguments)
      #expect(outcome.status == 0, "\(arguments)")
      #expect(outcome.stdout == "GroupEnumerator Demo 0.1.0\n", "\(arguments)")
    }
  }

  @Test func lookupFindsTheSameAssetByURLAndByPath() async throws {
    let library = DemoCommand.bundledLibrary.path
    let byURL = await run([
      "lookup", "--library", library,
      AssetLocation.url(of: LibraryPath("Trips/Kyoto 2019/trip-01.jpg")).absoluteString,
    ])
    #expect(byURL.status == 0, "\(byURL.stderr)")
    #expect(byURL.stdout.contains("\"path\": \"Trips/Kyoto 2019/trip-01.jpg\""))
    for arguments in [
      ["lookup", "Trips/Kyoto 2019/trip-01.jpg", "--library", library],
      ["lookup", "./Trips/Kyoto 2019/../Kyoto 2019/trip-01.jpg", library],
      ["lookup", library + "/Trips/Kyoto 2019/trip-01.jpg", "--library", library],
      ["lookup", library + "/Trips/Kyoto 2019/trip-01.jpg"],
    ] {
      let outcome = await run(arguments)
      #expect(outcome.status == 0, "\(arguments): \(outcome.stderr)")
      #expect(outcome.stdout == byURL.stdout, "\(arguments)")
    }
  }

  @Test func lookupOfAPathOutsideTheLibraryOrOfNoAssetFails() async {
    let library = DemoCommand.bundledLibrary.path
    let outside = await run(["lookup", "/etc/passwd", library])
    #expect(outside.status == 1)
    #expect(outside.stdout.isEmpty)
    #expect(
      outside.stderr
        == "Error: '/etc/passwd' is not a file inside the photo library at '\(library)'.\n")
    let climbing = await run(["lookup", "../Package.swift", library])
    #expect(climbing.status == 1)
    #expect(climbing.stderr.hasPrefix("Error: '../Package.swift' is not a file inside"))
    // (A sidecar is a file of its asset: `lookupByAnyFileOfALivePhotoPrintsTheLivePhoto`.)
    for missing in ["no-such.jpg", ".hidden.jpg"] {
      let outcome = await run(["lookup", missing, library])
      #expect(outcome.status == 1, "\(missing)")
      #expect(
        outcome.stderr
          == "Error: No asset at '\(missing)' in the photo library at '\(library)'.\n",
        "\(missing)")
    }
    let japanese = await run(["lookup", "--lang", "ja", "/etc/passwd", library])
    #expect(japanese.status == 1)
    #expect(
      japanese.stderr
        == "Error: 「/etc/passwd」は写真ライブラリ「\(library)」の中のファイルではありません。\n")
    let chinese = await run(["lookup", "--lang", "zh-Hans", "none.jpg", library])
    #expect(chinese.status == 1)
    #expect(chinese.stderr == "Error: 相册“\(library)”中“none.jpg”处没有项目。\n")
    let hidden = await run(["lookup", ".hidden.jpg", library, "--hidden"])
    #expect(hidden.status == 0, "\(hidden.stderr)")
    #expect(hidden.stdout.contains("\"path\": \".hidden.jpg\""))
  }

  @Test func thumbnailTakesAPathAndTheLibraryAsAnArgument() async throws {
    let library = DemoCommand.bundledLibrary.path
    let scratch = try TemporaryFolder("DemoCommandTests")
    let output = scratch.absolute("thumbnail.jpg")
    let outcome = await run([
      "thumbnail", "Trips/Kyoto 2019/trip-02.jpg", library, "--output", output,
    ])
    #expect(outcome.status == 0, "\(outcome.stderr)")
    let bytes = try Data(contentsOf: URL(fileURLWithPath: output))
    #expect(bytes.starts(with: [0xFF, 0xD8]))
    #expect(bytes.count == 325)
    let outside = await run(["thumbnail", "/etc/passwd", library, "--output", output])
    #expect(outside.status == 1)
    #expect(outside.stderr.contains("is not a file inside the photo library"))
  }

  @Test func extExcludeAndHiddenChooseTheFilesOfTheListingAndOfTheGroups() async throws {
    let library = DemoCommand.bundledLibrary.path
    let everything = try await listedPaths([library])
    #expect(everything.count == 15)
    #expect(await allPhotosCount([library]) == 15)

    let jpegs = try await listedPaths(["--ext", "jpg", library])
    #expect(jpegs == everything.filter { $0.lowercased().hasSuffix(".jpg") })
    #expect(jpegs.count == 10)
    #expect(await allPhotosCount(["--ext", "jpg", library]) == jpegs.count)

    // The Live Photo needs both halves; either alone is a plain file.
    let live = try await listedPaths(["--ext", "HEIC", "--ext", ".mov", library])
    #expect(live == ["DCIM/100APPLE/IMG_0102.MOV", "DCIM/100APPLE/IMG_0200.HEIC"])
    let stillOnly = await run(["--format", "csv", "--ext", "heic", library])
    #expect(stillOnly.stdout.contains("IMG_0200.HEIC"))
    #expect(!stillOnly.stdout.contains("livePhoto"))

    let excluded = try await listedPaths(
      ["--exclude", "Trips", "--exclude", "*.mp4", "--exclude", "/DCIM/*/IMG_01*", library])
    #expect(
      excluded
        == everything.filter {
          !$0.hasPrefix("Trips/") && !$0.hasSuffix(".mp4") && !$0.hasPrefix("DCIM/100APPLE/IMG_01")
        })
    #expect(excluded.count == 8)
    #expect(await allPhotosCount(["--exclude", "Trips", "--exclude", "*.mp4", library]) == 11)

    let hidden = try await listedPaths(["--hidden", library])
    #expect(Set(hidden).subtracting(everything) == [".hidden.jpg", ".thumbnails/IMG_0001.jpg"])
    #expect(await allPhotosCount(["--hidden", library]) == 17)
  }

  @Test func theProgressTotalIsTheSelectionAndNoProgressDrawsNothing() async throws {
    let library = DemoCommand.bundledLibrary.path
    final class Recorder {
      var text = ""
    }
    func drawn(_ arguments: [String]) async -> String {
      let recorder = Recorder()
      let bar = ProgressBar(columns: { 200 }, minimumInterval: .zero) { recorder.text += $0 }
      var stdout = TextBuffer()
      var stderr = TextBuffer()
      let status = await DemoCommand.run(
        arguments: arguments, stdout: &stdout, stderr: &stderr, progressBar: bar)
      #expect(status == 0, "\(arguments)")
      return recorder.text
    }
    let jpegs = try await listedPaths(["--ext", "jpg", "--exclude", "Broken", library])
    #expect(jpegs.count == 8)
    let withBar = await drawn(["--ext", "jpg", "--exclude", "Broken", library])
    #expect(withBar.contains(" 8/8"), "\(withBar)")
    #expect(!withBar.contains("/16"), "\(withBar)")
    #expect(await drawn(["--no-progress", library]).isEmpty)
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
