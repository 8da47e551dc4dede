import Foundation
import GroupEnumerator

/// How the listing is printed.
enum OutputFormat: String, CaseIterable, Sendable {
  /// Aligned columns for people.
  case table
  /// One JSON array (or object) for programs.
  case json
  /// RFC 4180 CSV with a header row, for spreadsheets.
  case csv
  /// One compact JSON object per line, each written as soon as it is read.
  case ndjson
}

/// Everything one invocation asked for, after parsing and validation.
struct DemoOptions: Equatable, Sendable {
  /// The command to run: the listing itself or one of the subcommands.
  enum Command: String, CaseIterable, Sendable {
    /// `Demo [options] [LIBRARY]`: list the assets.
    case list
    /// `Demo groups [LIBRARY]`: list the groups.
    case groups
    /// `Demo lookup ASSET_URL`: print one asset.
    case lookup
    /// `Demo thumbnail ASSET_URL --output FILE`: write an embedded thumbnail.
    case thumbnail

    /// The subcommand named `name`, if it is one (`list` is not a subcommand name).
    init?(subcommandName name: String) {
      guard let command = Command(rawValue: name), command != .list else { return nil }
      self = command
    }

    /// How the command is invoked: `Demo` or `Demo groups`.
    var commandName: String { self == .list ? "Demo" : "Demo \(rawValue)" }
  }

  /// The command to run.
  var command: Command = .list
  /// The library root as given; `nil` for the bundled fixture library.
  var library: String?
  /// The asset URL for `lookup` and `thumbnail`.
  var assetURL: URL?
  /// The file `thumbnail` writes.
  var output: String?
  /// The output format of the listing and of `groups`.
  var format: OutputFormat = .table
  /// Which assets the listing includes.
  var filter: AssetFilter = .all
  /// The language of the table, the progress bar and error messages.
  var language: Language = .english
  /// Whether the listing ends with a line of timings on standard error (`--statistics`).
  var showsStatistics = false
  /// Whether `thumbnail` may replace an existing `--output` file (`--force`).
  var replacesOutput = false
}

/// What the command line asks for.
enum ParsedArguments: Equatable, Sendable {
  /// Run a command with these options.
  case run(DemoOptions)
  /// Print the help of a command.
  case help(DemoOptions.Command)
  /// Print the version.
  case version
}

/// A command line that cannot be run as written.
struct UsageError: Error, Equatable, Sendable {
  /// What was wrong, one sentence without the `Error: ` prefix.
  var message: String
  /// The command whose usage line is shown with the error.
  var command: DemoOptions.Command
}

/// Parses the arguments of `Demo` by hand, the way swift-argument-parser would.
///
/// Rules: a subcommand must be the first argument; options may come before or after
/// positional arguments; `--name value` and `--name=value` are the same; the last of a
/// repeated option wins; everything after `--` is positional; `-h`/`--help` anywhere
/// (before `--`) shows the command's help.
enum ArgumentParser {
  /// Parses `arguments` (without the program name).
  ///
  /// - Parameter arguments: The command-line arguments after the executable's name.
  /// - Returns: What to do.
  /// - Throws: ``UsageError`` for an unknown option, a bad or missing value, a missing or
  ///   unexpected argument.
  static func parse(_ arguments: [String]) throws(UsageError) -> ParsedArguments {
    var remaining = arguments[...]
    var options = DemoOptions()
    if let first = remaining.first, let command = DemoOptions.Command(subcommandName: first) {
      options.command = command
      remaining = remaining.dropFirst()
    }
    let command = options.command
    let beforeTerminator = remaining.prefix { $0 != "--" }
    if beforeTerminator.contains(where: { $0 == "-h" || $0 == "--help" }) {
      return .help(command)
    }
    if command == .list, beforeTerminator.contains("--version") {
      return .version
    }

    var positionals: [String] = []
    var isAfterTerminator = false
    while let argument = remaining.popFirst() {
      if isAfterTerminator {
        positionals.append(argument)
        continue
      }
      if argument == "--" {
        isAfterTerminator = true
        continue
      }
      guard argument.hasPrefix("-"), argument != "-" else {
        positionals.append(argument)
        continue
      }
      guard argument.hasPrefix("--") else {
        throw UsageError(message: "Unknown option '\(argument)'", command: command)
      }
      var name = argument
      var inlineValue: String?
      if let equals = argument.firstIndex(of: "=") {
        name = String(argument[..<equals])
        inlineValue = String(argument[argument.index(after: equals)...])
      }
      if name == "--statistics", command == .list {
        guard inlineValue == nil else {
          throw UsageError(message: "'--statistics' takes no value", command: command)
        }
        options.showsStatistics = true
        continue
      }
      if name == "--force", command == .thumbnail {
        guard inlineValue == nil else {
          throw UsageError(message: "'--force' takes no value", command: command)
        }
        options.replacesOutput = true
        continue
      }
      guard let option = Option(rawValue: name), option.applies(to: command) else {
        throw UsageError(message: "Unknown option '\(name)'", command: command)
      }
      let value: String
      if let inlineValue {
        value = inlineValue
      } else if let next = remaining.first, !next.hasPrefix("-") || next == "-" {
        value = next
        remaining = remaining.dropFirst()
      } else {
        throw UsageError(message: "Missing value for '\(option.synopsis)'", command: command)
      }
      try option.apply(value, to: &options)
    }
    try assign(positionals, to: &options)
    return .run(options)
  }

  /// Puts the positional arguments where the command expects them.
  private static func assign(
    _ positionals: [String], to options: inout DemoOptions
  ) throws(UsageError) {
    let command = options.command
    var remaining = positionals[...]
    switch command {
    case .list, .groups:
      options.library = remaining.popFirst()
    case .lookup, .thumbnail:
      guard let text = remaining.popFirst() else {
        throw UsageError(message: "Missing expected argument '<asset-url>'", command: command)
      }
      options.assetURL = try assetURL(text, command: command)
      if command == .thumbnail, options.output == nil {
        throw UsageError(
          message: "Missing expected argument '--output <file>'", command: command)
      }
    }
    if let extra = remaining.first {
      throw UsageError(message: "Unexpected argument '\(extra)'", command: command)
    }
  }

  /// Checks that `text` is an `assets-library://asset/…?id=<UUID>` URL.
  private static func assetURL(
    _ text: String, command: DemoOptions.Command
  ) throws(UsageError) -> URL {
    guard let url = URL(string: text), url.scheme == "assets-library", url.host == "asset",
      let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
      let id = components.queryItems?.first(where: { $0.name == "id" })?.value,
      !id.unicodeScalars.contains("\0"), UUID(uuidString: id) != nil
    else {
      throw UsageError(
        message: "The value '\(text)' is invalid for '<asset-url>'."
          + " Please provide an asset URL such as"
          + " 'assets-library://asset/asset.JPG?id=<UUID>&ext=JPG'.",
        command: command)
    }
    return url
  }

  /// The options that take a value.
  private enum Option: String {
    case format = "--format"
    case filter = "--filter"
    case lang = "--lang"
    case library = "--library"
    case output = "--output"

    /// `--format <format>`, as usage lines and messages show it.
    var synopsis: String {
      switch self {
      case .format: "--format <format>"
      case .filter: "--filter <filter>"
      case .lang: "--lang <lang>"
      case .library: "--library <library>"
      case .output: "--output <file>"
      }
    }

    /// Whether `command` accepts this option.
    func applies(to command: DemoOptions.Command) -> Bool {
      switch self {
      case .format: command == .list || command == .groups
      case .filter: command == .list
      case .lang: true
      case .library: command == .lookup || command == .thumbnail
      case .output: command == .thumbnail
      }
    }

    /// Validates `value` and stores it.
    func apply(_ value: String, to options: inout DemoOptions) throws(UsageError) {
      switch self {
      case .format: options.format = try choice(value, options.command)
      case .filter: options.filter = try choice(value, options.command)
      case .lang: options.language = try choice(value, options.command)
      case .library: options.library = value
      case .output: options.output = value
      }
    }

    /// The case of `Choice` spelled `value`, else the standard invalid-value message.
    private func choice<Choice: RawRepresentable & CaseIterable>(
      _ value: String, _ command: DemoOptions.Command
    ) throws(UsageError) -> Choice where Choice.RawValue == String {
      if let choice = Choice(rawValue: value) { return choice }
      let names = Choice.allCases.map(\.rawValue)
      throw UsageError(
        message: "The value '\(value)' is invalid for '\(synopsis)'."
          + " Please provide one of \(ArgumentParser.list(names)).",
        command: command)
    }
  }

  /// `'a', 'b' or 'c'`.
  static func list(_ choices: [String]) -> String {
    let quoted = choices.map { "'\($0)'" }
    guard let last = quoted.last else { return "" }
    guard quoted.count > 1 else { return last }
    return quoted.dropLast().joined(separator: ", ") + " or " + last
  }
}
