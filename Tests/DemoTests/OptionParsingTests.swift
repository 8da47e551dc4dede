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
            + " Please provide one of 'table', 'json', 'csv', 'ndjson' or 'html'.",
          command: .list))
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
      usageError(["groups", "--filter", "all"])
        == UsageError(message: "Unknown option '--filter'", command: .groups))
    #expect(
      usageError(["lookup", Self.assetURL, "--ext", "jpg"])
        == UsageError(message: "Unknown option '--ext'", command: .lookup))
    #expect(
      usageError(["groups", "--no-progress"])
        == UsageError(message: "Unknown option '--no-progress'", command: .groups))
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
    #expect(parsed.asset == .url(try #require(URL(string: Self.assetURL))))
    #expect(parsed.library == "/srv/photos")
  }

  @Test func lookupAndThumbnailTakeAFilePathInsteadOfAURL() throws {
    #expect(try options(["lookup", "DCIM/IMG_1.JPG", "lib"]).asset == .path("DCIM/IMG_1.JPG"))
    #expect(try options(["lookup", "/srv/photos/a.jpg"]).asset == .path("/srv/photos/a.jpg"))
    let thumbnail = try options(["thumbnail", "a.jpg", "lib", "--output", "t.jpg"])
    #expect(thumbnail.asset == .path("a.jpg"))
    #expect(thumbnail.library == "lib")
    #expect(
      usageError(["lookup", ""])
        == UsageError(
          message: "The value '' is invalid for '<asset>'. Please provide an asset URL or a"
            + " file path.", command: .lookup))
  }

  @Test(arguments: DemoOptions.Command.allCases)
  func everyCommandTakesTheLibraryAsAnArgumentOrAnOption(command: DemoOptions.Command) throws {
    let head = command == .list ? [] : [command.rawValue]
    let asset = command == .lookup || command == .thumbnail ? [Self.assetURL] : []
    let output = command == .thumbnail ? ["--output", "t.jpg"] : []
    let base = head + asset + output
    #expect(try options(base + ["/srv/photos"]).library == "/srv/photos")
    #expect(try options(base + ["--library", "/srv/photos"]).library == "/srv/photos")
    #expect(try options(base + ["--library=/srv/photos"]).library == "/srv/photos")
    #expect(
      try options(base + ["/srv/photos", "--library", "/srv/photos"]).library == "/srv/photos")
    #expect(try options(base).library == nil)
    #expect(
      usageError(base + ["/srv/photos", "--library", "/srv/other"])
        == UsageError(
          message: "The library is given twice, as '/srv/photos' and as"
            + " '--library /srv/other'. Please provide it once.", command: command))
  }

  @Test(arguments: DemoOptions.Command.allCases)
  func helpAndVersionWorkInEveryCommand(command: DemoOptions.Command) throws {
    let head = command == .list ? [] : [command.rawValue]
    #expect(try ArgumentParser.parse(head + ["--help"]) == .help(command))
    #expect(try ArgumentParser.parse(head + ["-h", "x", "y", "z"]) == .help(command))
    #expect(try ArgumentParser.parse(head + ["--version"]) == .version)
    #expect(try ArgumentParser.parse(head + ["--bogus", "--version"]) == .version)
  }

  @Test func theHelpSubcommandShowsTheHelpOfDemoOrOfASubcommand() throws {
    #expect(try ArgumentParser.parse(["help"]) == .help(.list))
    #expect(try ArgumentParser.parse(["help", "--help"]) == .help(.list))
    #expect(try ArgumentParser.parse(["help", "groups"]) == .help(.groups))
    #expect(try ArgumentParser.parse(["help", "lookup"]) == .help(.lookup))
    #expect(try ArgumentParser.parse(["help", "thumbnail", "-h"]) == .help(.thumbnail))
    #expect(try ArgumentParser.parse(["help", "watch"]) == .help(.watch))
    // A library that is named `help` is still reachable.
    #expect(try options(["./help"]).library == "./help")
    #expect(try options(["--", "help"]).library == "help")
  }

  @Test func theHelpSubcommandRejectsWhatIsNotASubcommand() {
    #expect(
      usageError(["help", "foo"])
        == UsageError(
          message: "Unknown subcommand 'foo'. Please provide one of 'groups', 'lookup',"
            + " 'thumbnail' or 'watch'.", command: .list))
    #expect(
      usageError(["help", "list"])
        == UsageError(
          message: "Unknown subcommand 'list'. Please provide one of 'groups', 'lookup',"
            + " 'thumbnail' or 'watch'.", command: .list))
    #expect(
      usageError(["help", "groups", "lookup"])
        == UsageError(message: "Unexpected argument 'lookup'", command: .list))
    #expect(
      usageError(["help", "--format", "json"])
        == UsageError(message: "Unknown option '--format'", command: .list))
  }

  @Test func noProgressHiddenExtAndExcludeAreParsed() throws {
    let parsed = try options([
      "--no-progress", "--hidden", "--ext", "jpg", "--ext=.HEIC", "--exclude", "Trash",
      "--exclude=*.mov", "lib",
    ])
    #expect(!parsed.showsProgress)
    #expect(parsed.includesHiddenFiles)
    #expect(parsed.extensions == ["jpg", ".HEIC"])
    #expect(parsed.excludedPatterns == ["Trash", "*.mov"])
    #expect(parsed.libraryOptions.includesHiddenFiles)
    #expect(parsed.libraryOptions.selection.extensions == ["jpg", "HEIC"])
    #expect(parsed.libraryOptions.selection.excludedPatterns == ["Trash", "*.mov"])
    let plain = try options(["lib"])
    #expect(plain.showsProgress)
    #expect(!plain.includesHiddenFiles)
    #expect(plain.libraryOptions.selection.selectsEverything)
    let groups = try options(["groups", "--ext", "png", "--exclude", "Videos/", "--hidden"])
    #expect(groups.extensions == ["png"])
    #expect(groups.excludedPatterns == ["Videos/"])
    #expect(groups.includesHiddenFiles)
    #expect(try options(["lookup", "a.jpg", "--hidden"]).includesHiddenFiles)
  }

  @Test func badExtensionsAndPatternsAreUsageErrors() {
    for value in ["", ".", "a/b", "tar.gz"] {
      #expect(
        usageError(["--ext", value])
          == UsageError(
            message: "The value '\(value)' is invalid for '--ext <ext>'."
              + " Please provide an extension such as 'jpg'.", command: .list), "\(value)")
    }
    for value in ["", "/", "//"] {
      #expect(
        usageError(["--exclude=\(value)"])
          == UsageError(
            message: "The value '\(value)' is invalid for '--exclude <pattern>'."
              + " Please provide a pattern such as '*.mov'.", command: .list), "\(value)")
    }
    #expect(
      usageError(["--hidden=yes"])
        == UsageError(message: "'--hidden' takes no value", command: .list))
    #expect(
      usageError(["--no-progress=1"])
        == UsageError(message: "'--no-progress' takes no value", command: .list))
  }

  @Test func lookupRejectsAMissingOrForeignURL() {
    #expect(
      usageError(["lookup"])
        == UsageError(message: "Missing expected argument '<asset>'", command: .lookup))
    #expect(
      usageError(["lookup", "https://example.com/a.jpg"])
        == UsageError(
          message: "The value 'https://example.com/a.jpg' is invalid for '<asset>'."
            + " Please provide a file path or an asset URL such as"
            + " 'assets-library://asset/asset.JPG?id=<UUID>&ext=JPG'.", command: .lookup))
    #expect(
      usageError(["lookup", "assets-library://asset/asset.JPG?id=nope&ext=JPG"])?.command
        == .lookup)
    #expect(
      usageError(["lookup", Self.assetURL, "lib", "extra"])
        == UsageError(message: "Unexpected argument 'extra'", command: .lookup))
  }

  @Test func thumbnailNeedsAnOutputFile() throws {
    #expect(try options(["thumbnail", Self.assetURL, "--output", "t.jpg"]).output == "t.jpg")
    #expect(
      usageError(["thumbnail", Self.assetURL])
        == UsageError(
          message: "Missing expected argument '--output <file>'", command: .thumbnail))
  }

  @Test func thumbnailTakesASizeAFillAndEmbedded() throws {
    let drawn = try options(["thumbnail", Self.assetURL, "--size", "80", "--fill", "--output", "-"])
    #expect(drawn.pictureSize == 80 && drawn.fillsPicture && !drawn.embeddedOnly)
    let plain = try options(["thumbnail", Self.assetURL, "--output", "-"])
    #expect(plain.pictureSize == nil && !plain.fillsPicture && !plain.embeddedOnly)
    #expect(try options(["thumbnail", Self.assetURL, "--embedded", "--output", "-"]).embeddedOnly)
    for bad in ["0", "16385", "-3", "8x8", "", "٣"] {
      #expect(
        usageError(["thumbnail", Self.assetURL, "--size=\(bad)", "--output", "-"])
          == UsageError(
            message: "The value '\(bad)' is invalid for '--size <pixels>'. Please provide a"
              + " number of pixels from 1 to 16384.", command: .thumbnail))
    }
    #expect(
      usageError(["thumbnail", Self.assetURL, "--fill", "--output", "-"])
        == UsageError(
          message: "'--fill' needs '--size <pixels>', the square to fill.", command: .thumbnail))
    #expect(
      usageError(["thumbnail", Self.assetURL, "--embedded", "--size", "9", "--output", "-"])
        == UsageError(
          message: "'--embedded' writes the stored thumbnail; it takes neither '--size' nor"
            + " '--fill'.", command: .thumbnail))
    #expect(usageError(["--size", "80"])?.message == "Unknown option '--size'")
  }

  @Test func theHTMLFormatWritesToAnOutputFolder() throws {
    let page = try options(["--format", "html", "--output", "page", "lib", "--lang", "ja"])
    #expect(page.format == .html && page.output == "page" && page.library == "lib")
    #expect(page.language == .japanese && !page.replacesOutput)
    #expect(try options(["--output=page", "--format=html", "--force"]).replacesOutput)
    for arguments in [["--format", "html"], ["--format", "html", "--output", "-"]] {
      #expect(
        usageError(arguments)
          == UsageError(
            message: "'--format html' needs '--output <folder>', the folder to write the page"
              + " to (not '-': a page is several files).", command: .list))
    }
    #expect(
      usageError(["--output", "x"])
        == UsageError(
          message: "'--output <folder>' is where '--format html' writes its page; the other"
            + " formats print on standard output.", command: .list))
    #expect(
      usageError(["--format", "json", "--force"])
        == UsageError(
          message: "'--force' replaces a page; it goes with '--format html' and"
            + " '--output <folder>'.", command: .list))
    #expect(
      usageError(["--format", "html", "--output"])
        == UsageError(message: "Missing value for '--output <folder>'", command: .list))
    for extra in ["--statistics", "--include-other"] {
      #expect(
        usageError(["--format", "html", "--output", "p", extra])
          == UsageError(
            message: "'--format html' takes neither '--statistics' nor '--include-other'.",
            command: .list))
    }
    // `Demo groups` has no page.
    #expect(
      usageError(["groups", "--format", "html"])
        == UsageError(
          message: "The value 'html' is invalid for '--format <format>'."
            + " Please provide one of 'table', 'json', 'csv' or 'ndjson'.", command: .groups))
    #expect(
      usageError(["groups", "--output", "x"])
        == UsageError(message: "Unknown option '--output'", command: .groups))
    #expect(
      usageError(["groups", "--force"])
        == UsageError(message: "Unknown option '--force'", command: .groups))
  }

  @Test func thumbnailUsesTheDesktopCacheUnlessNoCache() throws {
    let cached = try options(["thumbnail", Self.assetURL, "--size", "80", "--output", "-"])
    #expect(cached.libraryOptions.pictureCache == .freedesktop)
    let uncached = try options(
      ["thumbnail", Self.assetURL, "--size", "80", "--no-cache", "--output", "-"])
    #expect(!uncached.usesPictureCache && uncached.libraryOptions.pictureCache == .none)
    #expect(
      usageError(["--no-cache"])?.message
        == "'--no-cache' draws pictures without the thumbnail cache; it goes with"
        + " '--format html' (and 'thumbnail --size').")
    let page = try options(["--format", "html", "--output", "p", "--no-cache"])
    #expect(page.libraryOptions.pictureCache == .none)
    #expect(usageError(["groups", "--no-cache"])?.message == "Unknown option '--no-cache'")
  }

  /// A page drawn through the thumbnail cache keeps the library's own index unless told
  /// not to; a listing keeps one only when asked; `--no-index` does not go with an index.
  @Test func aPageKeepsTheLibrarysOwnIndexUnlessToldNotTo() throws {
    let page = ["--format", "html", "--output", "p"]
    #expect(try options(page).libraryOptions.index == .userCache)
    #expect(try options(page + ["--no-index"]).libraryOptions.index == IndexLocation.none)
    #expect(try options(page + ["--no-cache"]).libraryOptions.index == IndexLocation.none)
    #expect(
      try options(page + ["--index", "/tmp/i.sqlite"]).libraryOptions.index
        == .file(URL(fileURLWithPath: "/tmp/i.sqlite")))
    for format in ["table", "json", "csv", "ndjson"] {
      #expect(try options(["--format", format]).libraryOptions.index == IndexLocation.none)
      #expect(
        try options(["--format", format, "--no-index"]).libraryOptions.index
          == IndexLocation.none)
    }
    #expect(
      usageError(page + ["--no-index", "--default-index"])?.message
        == "'--no-index' keeps no index; it does not go with '--index' or '--default-index'.")
    #expect(
      usageError(["--index", "i", "--no-index"])?.message
        == "'--no-index' keeps no index; it does not go with '--index' or '--default-index'.")
    #expect(usageError(["groups", "--no-index"])?.message == "Unknown option '--no-index'")
  }
}
