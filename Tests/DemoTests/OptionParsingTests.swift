import Foundation
import GroupEnumerator
import Testing

@testable import Demo

@Suite struct OptionParsingTests {
  private static let assetURL =
    "assets-library://asset/asset.JPG?id=6F1F6C0B-2E6B-4B0A-8B7A-0123456789AB&ext=JPG"

  private func options(_ arguments: [String]) throws -> DemoOptions {
    let parsed = try ArgumentParser.parse(arguments)
    guard case .run(let options) = parsed else {
      Issue.record("\(arguments) parsed as \(parsed), not a run")
      return DemoOptions()
    }
    return options
  }

  private func usageError(_ arguments: [String]) -> UsageError? {
    do {
      let parsed = try ArgumentParser.parse(arguments)
      Issue.record("\(arguments) parsed as \(parsed) instead of failing")
      return nil
    } catch {
      return error
    }
  }

  @Test func noArgumentsListEverythingInTheBundledLibraryAsATable() throws {
    let parsed = try options([])
    #expect(parsed == DemoOptions())
    #expect(parsed.command == .list)
    #expect(parsed.format == .table)
    #expect(parsed.filter == .all)
    #expect(parsed.language == .english)
    #expect(parsed.library == nil)
  }

  @Test(arguments: [
    (["--format", "json"], OutputFormat.json), (["--format=csv"], .csv),
    (["--format", "table"], .table), (["--format", "csv", "--format", "json"], .json),
  ])
  func formatAcceptsEachValueInBothSpellingsAndTheLastWins(
    arguments: [String], format: OutputFormat
  ) throws {
    #expect(try options(arguments).format == format)
  }

  @Test(arguments: [("photos", AssetFilter.photos), ("videos", .videos), ("all", .all)])
  func filterAcceptsEachValue(value: String, filter: AssetFilter) throws {
    #expect(try options(["--filter", value]).filter == filter)
  }

  @Test(arguments: [("en", Language.english), ("zh-Hans", .simplifiedChinese), ("ja", .japanese)])
  func langAcceptsEachValue(value: String, language: Language) throws {
    #expect(try options(["--lang=\(value)"]).language == language)
  }

  @Test func theLibraryMayComeBeforeOrAfterOptions() throws {
    var expected = DemoOptions()
    expected.library = "/srv/photos"
    expected.format = .csv
    #expect(try options(["/srv/photos", "--format", "csv"]) == expected)
    #expect(try options(["--format", "csv", "/srv/photos"]) == expected)
  }

  @Test func argumentsAfterTheTerminatorArePositional() throws {
    #expect(try options(["--", "--format"]).library == "--format")
    #expect(try options(["--", "-h"]).library == "-h")
    #expect(try options(["-"]).library == "-")
  }

  @Test func helpAndVersionWinOverEverythingElse() throws {
    #expect(try ArgumentParser.parse(["-h"]) == .help(.list))
    #expect(try ArgumentParser.parse(["--format", "xml", "--help"]) == .help(.list))
    #expect(try ArgumentParser.parse(["--version"]) == .version)
    #expect(try ArgumentParser.parse(["groups", "--help"]) == .help(.groups))
    #expect(try ArgumentParser.parse(["lookup", "-h"]) == .help(.lookup))
    #expect(try ArgumentParser.parse(["thumbnail", "--help"]) == .help(.thumbnail))
  }

  @Test func badValuesNameTheOptionAndTheChoices() {
    #expect(
      usageError(["--format", "xml"])
        == UsageError(
          message: "The value 'xml' is invalid for '--format <format>'."
            + " Please provide one of 'table', 'json', 'csv' or 'ndjson'.", command: .list))
    #expect(
      usageError(["--filter=live"])
        == UsageError(
          message: "The value 'live' is invalid for '--filter <filter>'."
            + " Please provide one of 'photos', 'videos' or 'all'.", command: .list))
    #expect(
      usageError(["--lang", "zh"])
        == UsageError(
          message: "The value 'zh' is invalid for '--lang <lang>'."
            + " Please provide one of 'en', 'zh-Hans' or 'ja'.", command: .list))
  }

  @Test func aMissingValueIsAUsageError() {
    #expect(
      usageError(["--format"])
        == UsageError(message: "Missing value for '--format <format>'", command: .list))
    #expect(
      usageError(["--lang", "--format", "json"])
        == UsageError(message: "Missing value for '--lang <lang>'", command: .list))
  }

  @Test func unknownOptionsAreUsageErrors() {
    #expect(
      usageError(["--verbose"])
        == UsageError(message: "Unknown option '--verbose'", command: .list))
    #expect(usageError(["-v"]) == UsageError(message: "Unknown option '-v'", command: .list))
    #expect(
      usageError(["--verbose=yes"])
        == UsageError(message: "Unknown option '--verbose'", command: .list))
    #expect(
      usageError(["--library", "x"])
        == UsageError(message: "Unknown option '--library'", command: .list))
    #expect(
      usageError(["groups", "--filter", "all"])
        == UsageError(message: "Unknown option '--filter'", command: .groups))
    #expect(
      usageError(["groups", "--version"])
        == UsageError(message: "Unknown option '--version'", command: .groups))
  }

  @Test func aSecondLibraryIsAnUnexpectedArgument() {
    #expect(
      usageError(["a", "b"]) == UsageError(message: "Unexpected argument 'b'", command: .list))
    #expect(
      usageError(["groups", "a", "b"])
        == UsageError(message: "Unexpected argument 'b'", command: .groups))
  }

  @Test func groupsTakesALibraryAFormatAndALanguage() throws {
    var expected = DemoOptions()
    expected.command = .groups
    expected.library = "lib"
    expected.format = .json
    expected.language = .japanese
    #expect(try options(["groups", "lib", "--format", "json", "--lang", "ja"]) == expected)
  }

  @Test func aSubcommandNameIsOnlyASubcommandInFirstPlace() throws {
    #expect(try options(["--format", "json", "groups"]).library == "groups")
    #expect(try options(["--format", "json", "groups"]).command == .list)
  }

  @Test func lookupTakesAnAssetURLAndALibrary() throws {
    let parsed = try options(["lookup", Self.assetURL, "--library", "/srv/photos"])
    #expect(parsed.command == .lookup)
    #expect(parsed.assetURL?.absoluteString == Self.assetURL)
    #expect(parsed.library == "/srv/photos")
  }

  @Test func lookupRejectsAMissingOrForeignURL() {
    #expect(
      usageError(["lookup"])
        == UsageError(message: "Missing expected argument '<asset-url>'", command: .lookup))
    #expect(
      usageError(["lookup", "https://example.com/a.jpg"])
        == UsageError(
          message: "The value 'https://example.com/a.jpg' is invalid for '<asset-url>'."
            + " Please provide an asset URL such as"
            + " 'assets-library://asset/asset.JPG?id=<UUID>&ext=JPG'.", command: .lookup))
    #expect(
      usageError(["lookup", "assets-library://asset/asset.JPG?id=nope&ext=JPG"])?.command
        == .lookup)
    #expect(
      usageError(["lookup", Self.assetURL, "extra"])
        == UsageError(message: "Unexpected argument 'extra'", command: .lookup))
  }

  @Test func thumbnailNeedsAnOutputFile() throws {
    #expect(try options(["thumbnail", Self.assetURL, "--output", "t.jpg"]).output == "t.jpg")
    #expect(
      usageError(["thumbnail", Self.assetURL])
        == UsageError(
          message: "Missing expected argument '--output <file>'", command: .thumbnail))
  }
}
