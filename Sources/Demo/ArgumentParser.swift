import FoundationEssentials
import GroupEnumeratorCore

/// Parses the arguments of `Demo` by hand, the way swift-argument-parser would.
///
/// Rules: a subcommand (or `help`) must be the first argument; options may come before or
/// after positional arguments; `--name value` and `--name=value` are the same; the last
/// of a repeated option wins, except `--ext` and `--exclude`, which add up; everything
/// after `--` is positional; `-h`/`--help` anywhere (before `--`) shows the command's
/// help, and `--version` the version.
enum ArgumentParser {
  /// Parses `arguments` (without the program name).
  ///
  /// - Parameter arguments: The command-line arguments after the executable's name.
  /// - Returns: What to do.
  /// - Throws: ``UsageError`` for an unknown option, a bad or missing value, a missing or
  ///   unexpected argument, or two different libraries.
  static func parse(_ arguments: [String]) throws(UsageError) -> ParsedArguments {
    var remaining = arguments[...]
    var options = DemoOptions()
    if remaining.first == "help" {
      return try help(remaining.dropFirst())
    }
    if let first = remaining.first, let command = DemoOptions.Command(subcommandName: first) {
      options.command = command
      remaining = remaining.dropFirst()
    }
    let command = options.command
    let beforeTerminator = remaining.prefix { $0 != "--" }
    if beforeTerminator.contains(where: { $0 == "-h" || $0 == "--help" }) {
      return .help(command)
    }
    if beforeTerminator.contains("--version") {
      return .version
    }

    var positionals: [String] = []
    var libraryOption: String?
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
      if let flag = Flag(rawValue: name), flag.applies(to: command) {
        guard inlineValue == nil else {
          throw UsageError(message: "'\(name)' takes no value", command: command)
        }
        flag.apply(to: &options)
        continue
      }
      if name == "--force", command == .thumbnail || command == .list {
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
        throw UsageError(
          message: "Missing value for '\(option.synopsis(command))'", command: command)
      }
      if option == .library {
        libraryOption = value
      } else {
        try option.apply(value, to: &options)
      }
    }
    if options.embeddedOnly, options.pictureSize != nil || options.fillsPicture {
      throw UsageError(
        message: "'--embedded' writes the stored thumbnail; it takes neither '--size' nor"
          + " '--fill'.", command: command)
    }
    if options.fillsPicture, options.pictureSize == nil {
      throw UsageError(
        message: "'--fill' needs '--size <pixels>', the square to fill.", command: command)
    }
    try checkPage(options)
    if let path = options.indexPath, options.usesDefaultIndex {
      throw UsageError(
        message: "'--index \(path)' and '--default-index' name two indexes. Please provide"
          + " one.", command: command)
    }
    if options.keepsNoIndex, options.indexPath != nil || options.usesDefaultIndex {
      throw UsageError(
        message: "'--no-index' keeps no index; it does not go with '--index' or"
          + " '--default-index'.", command: command)
    }
    try assign(positionals, libraryOption: libraryOption, to: &options)
    return .run(options)
  }

  /// `--format html` needs an `--output` folder, and `--output` and `--force` of the
  /// listing go with `--format html` only (the other formats print on standard output).
  private static func checkPage(_ options: DemoOptions) throws(UsageError) {
    guard options.command == .list else { return }
    guard options.format == .html else {
      if options.output != nil {
        throw UsageError(
          message: "'--output <folder>' is where '--format html' writes its page; the other"
            + " formats print on standard output.", command: .list)
      }
      if options.replacesOutput {
        throw UsageError(
          message: "'--force' replaces a page; it goes with '--format html' and"
            + " '--output <folder>'.", command: .list)
      }
      if !options.usesPictureCache {
        throw UsageError(
          message: "'--no-cache' draws pictures without the thumbnail cache; it goes with"
            + " '--format html' (and 'thumbnail --size').", command: .list)
      }
      return
    }
    guard let output = options.output, output != "-" else {
      throw UsageError(
        message: "'--format html' needs '--output <folder>', the folder to write the page to"
          + " (not '-': a page is several files).", command: .list)
    }
    if options.showsStatistics || options.includesOtherFiles {
      throw UsageError(
        message: "'--format html' takes neither '--statistics' nor '--include-other'.",
        command: .list)
    }
  }

  /// `Demo help [<subcommand>]`: the help of the program or of one subcommand.
  private static func help(_ arguments: ArraySlice<String>) throws(UsageError) -> ParsedArguments {
    var names = arguments.filter { $0 != "-h" && $0 != "--help" }[...]
    if let option = names.first(where: { $0.hasPrefix("-") && $0 != "--" }) {
      throw UsageError(message: "Unknown option '\(option)'", command: .list)
    }
    names = names.drop { $0 == "--" }
    guard let name = names.popFirst() else { return .help(.list) }
    guard let command = DemoOptions.Command(subcommandName: name) else {
      let subcommands = DemoOptions.Command.allCases.filter { $0 != .list }.map(\.rawValue)
      throw UsageError(
        message: "Unknown subcommand '\(name)'. Please provide one of \(list(subcommands)).",
        command: .list)
    }
    if let extra = names.first {
      throw UsageError(message: "Unexpected argument '\(extra)'", command: .list)
    }
    return .help(command)
  }

  /// Puts the positional arguments where the command expects them, and the library
  /// given with `--library`, which must not contradict a positional one.
  private static func assign(
    _ positionals: [String], libraryOption: String?, to options: inout DemoOptions
  ) throws(UsageError) {
    let command = options.command
    var remaining = positionals[...]
    switch command {
    case .list, .groups, .watch:
      break
    case .lookup, .thumbnail:
      guard let text = remaining.popFirst() else {
        throw UsageError(message: "Missing expected argument '<asset>'", command: command)
      }
      options.asset = try assetReference(text, command: command)
      if command == .thumbnail, options.output == nil {
        throw UsageError(
          message: "Missing expected argument '--output <file>'", command: command)
      }
    }
    let positionalLibrary = remaining.popFirst()
    if let extra = remaining.first {
      throw UsageError(message: "Unexpected argument '\(extra)'", command: command)
    }
    if let positionalLibrary, let libraryOption, positionalLibrary != libraryOption {
      throw UsageError(
        message: "The library is given twice, as '\(positionalLibrary)' and as"
          + " '--library \(libraryOption)'. Please provide it once.",
        command: command)
    }
    options.library = positionalLibrary ?? libraryOption
  }

  /// An `assets-library://asset/…?id=<UUID>` URL, or else a file path: text with `://`
  /// must be such a URL.
  private static func assetReference(
    _ text: String, command: DemoOptions.Command
  ) throws(UsageError) -> DemoOptions.AssetReference {
    guard text.contains("://") else {
      guard !text.isEmpty else {
        throw UsageError(
          message: "The value '' is invalid for '<asset>'. Please provide an asset URL or a"
            + " file path.", command: command)
      }
      return .path(text)
    }
    guard let url = URL(string: text), url.scheme == "assets-library", url.host == "asset",
      let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
      let id = components.queryItems?.first(where: { $0.name == "id" })?.value,
      !id.unicodeScalars.contains("\0"), UUID(uuidString: id) != nil
    else {
      throw UsageError(
        message: "The value '\(text)' is invalid for '<asset>'."
          + " Please provide a file path or an asset URL such as"
          + " 'assets-library://asset/asset.JPG?id=<UUID>&ext=JPG'.",
        command: command)
    }
    return .url(url)
  }

  /// The options that take no value.
  private enum Flag: String {
    case statistics = "--statistics"
    case noProgress = "--no-progress"
    case hidden = "--hidden"
    case includeOther = "--include-other"
    case defaultIndex = "--default-index"
    case verify = "--verify"
    case fill = "--fill"
    case embedded = "--embedded"
    case noCache = "--no-cache"
    case noIndex = "--no-index"

    /// Whether `command` accepts this flag.
    func applies(to command: DemoOptions.Command) -> Bool {
      switch self {
      case .fill, .embedded: command == .thumbnail
      case .noCache: command == .thumbnail || command == .list
      case .noIndex: command == .list
      case .statistics, .noProgress, .includeOther, .verify: command == .list
      case .defaultIndex:
        command == .list || command == .groups || command == .lookup || command == .watch
      case .hidden: true
      }
    }

    /// Stores the flag.
    func apply(to options: inout DemoOptions) {
      switch self {
      case .statistics: options.showsStatistics = true
      case .noProgress: options.showsProgress = false
      case .hidden: options.includesHiddenFiles = true
      case .includeOther: options.includesOtherFiles = true
      case .defaultIndex: options.usesDefaultIndex = true
      case .verify: options.verifiesFileEnds = true
      case .fill: options.fillsPicture = true
      case .embedded: options.embeddedOnly = true
      case .noCache: options.usesPictureCache = false
      case .noIndex: options.keepsNoIndex = true
      }
    }
  }

  /// The options that take a value.
  private enum Option: String {
    case format = "--format"
    case filter = "--filter"
    case lang = "--lang"
    case library = "--library"
    case output = "--output"
    case ext = "--ext"
    case exclude = "--exclude"
    case index = "--index"
    case size = "--size"

    /// `--format <format>`, as usage lines and messages show it for `command`.
    func synopsis(_ command: DemoOptions.Command) -> String {
      switch self {
      case .format: "--format <format>"
      case .filter: "--filter <filter>"
      case .lang: "--lang <lang>"
      case .library: "--library <library>"
      case .output: command == .list ? "--output <folder>" : "--output <file>"
      case .ext: "--ext <ext>"
      case .exclude: "--exclude <pattern>"
      case .index: "--index <file>"
      case .size: "--size <pixels>"
      }
    }

    /// Whether `command` accepts this option.
    func applies(to command: DemoOptions.Command) -> Bool {
      switch self {
      case .format: command == .list || command == .groups
      case .ext, .exclude: command == .list || command == .groups || command == .watch
      case .filter: command == .list
      case .index: command == .list || command == .groups || command == .lookup || command == .watch
      case .lang, .library: true
      case .output: command == .thumbnail || command == .list
      case .size: command == .thumbnail
      }
    }

    /// Validates `value` and stores it (`--library` is stored by the caller).
    func apply(_ value: String, to options: inout DemoOptions) throws(UsageError) {
      switch self {
      case .format:
        let formats = OutputFormat.formats(of: options.command)
        guard let format = OutputFormat(rawValue: value), formats.contains(format) else {
          let names = formats.map(\.rawValue)
          throw invalid(
            value, "Please provide one of \(ArgumentParser.list(names)).", options.command)
        }
        options.format = format
      case .filter: options.filter = try choice(value, options.command)
      case .lang: options.language = try choice(value, options.command)
      case .library: options.library = value
      case .output: options.output = value
      case .ext:
        let name = value.hasPrefix(".") ? String(value.dropFirst()) : value
        guard !name.isEmpty, !name.contains("/"), !name.contains(".") else {
          throw invalid(value, "Please provide an extension such as 'jpg'.", options.command)
        }
        options.extensions.append(value)
      case .exclude:
        guard value.contains(where: { $0 != "/" }) else {
          throw invalid(value, "Please provide a pattern such as '*.mov'.", options.command)
        }
        options.excludedPatterns.append(value)
      case .index:
        guard !value.isEmpty, !value.hasSuffix("/") else {
          throw invalid(
            value, "Please provide a file path such as '~/.cache/photos.index'.",
            options.command)
        }
        options.indexPath = value
      case .size:
        guard value.allSatisfy(\.isASCII), let pixels = Int(value), (1...16384).contains(pixels)
        else {
          throw invalid(
            value, "Please provide a number of pixels from 1 to 16384.", options.command)
        }
        options.pictureSize = pixels
      }
    }

    /// The case of `Choice` spelled `value`, else the standard invalid-value message.
    private func choice<Choice: RawRepresentable & CaseIterable>(
      _ value: String, _ command: DemoOptions.Command
    ) throws(UsageError) -> Choice where Choice.RawValue == String {
      if let choice = Choice(rawValue: value) { return choice }
      let names = Choice.allCases.map(\.rawValue)
      throw invalid(value, "Please provide one of \(ArgumentParser.list(names)).", command)
    }

    /// `The value 'x' is invalid for '--option <value>'. <hint>`
    private func invalid(
      _ value: String, _ hint: String, _ command: DemoOptions.Command
    ) -> UsageError {
      UsageError(
        message: "The value '\(value)' is invalid for '\(synopsis(command))'. \(hint)",
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
