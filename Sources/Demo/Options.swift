import FoundationEssentials
import GroupEnumeratorCore

/// How the listing is printed.
enum OutputFormat: String, CaseIterable, Sendable {
  /// Aligned columns for people.
  case table
  /// One JSON array (or object) for programs.
  case json
  /// CSV with a header row and CRLF line ends, for spreadsheets.
  case csv
  /// One compact JSON object per line, each written as soon as it is read.
  case ndjson
  /// A static web page with a picture of each asset, written to the `--output` folder
  /// (the listing only; `Demo groups` has no page).
  case html

  /// The formats `command` prints: every one for the listing, all but `html` for `groups`.
  static func formats(of command: DemoOptions.Command) -> [OutputFormat] {
    command == .list ? allCases : allCases.filter { $0 != .html }
  }
}

/// Everything one invocation asked for, after parsing and validation.
struct DemoOptions: Equatable, Sendable {
  /// The command to run: the listing itself or one of the subcommands.
  enum Command: String, CaseIterable, Sendable {
    /// `Demo [options] [LIBRARY]`: list the assets.
    case list
    /// `Demo groups [LIBRARY]`: list the groups.
    case groups
    /// `Demo lookup ASSET [LIBRARY]`: print one asset.
    case lookup
    /// `Demo thumbnail ASSET [LIBRARY] --output FILE`: write an embedded thumbnail.
    case thumbnail
    /// `Demo watch [LIBRARY]`: print the library's changes as they happen.
    case watch

    /// The subcommand named `name`, if it is one (`list` is not a subcommand name).
    init?(subcommandName name: String) {
      guard let command = Command(rawValue: name), command != .list else { return nil }
      self = command
    }

    /// How the command is invoked: `Demo` or `Demo groups`.
    var commandName: String { self == .list ? "Demo" : "Demo \(rawValue)" }
  }

  /// How `lookup` and `thumbnail` name the asset.
  enum AssetReference: Equatable, Sendable {
    /// An `assets-library://asset/…?id=<UUID>` URL, as listed.
    case url(URL)
    /// A file path as given: relative to the library root, or absolute or relative to
    /// the working directory but inside the root.
    case path(String)
  }

  /// The command to run.
  var command: Command = .list
  /// The library root as given; `nil` for the bundled fixture library.
  var library: String?
  /// The asset `lookup` and `thumbnail` act on.
  var asset: AssetReference?
  /// The file `thumbnail` writes, or the folder `--format html` writes its page to.
  var output: String?
  /// The output format of the listing and of `groups`.
  var format: OutputFormat = .table
  /// Which assets the listing includes.
  var filter: AssetFilter = .all
  /// The language of the table, the progress bar and error messages.
  var language: Language = .english
  /// Whether the listing ends with a line of timings on standard error (`--statistics`).
  var showsStatistics = false
  /// Whether the listing draws a progress bar when standard error is a terminal (not
  /// `--no-progress`).
  var showsProgress = true
  /// Whether hidden files and folders are read too (`--hidden`).
  var includesHiddenFiles = false
  /// Whether the listing also lists the files that are not photos or videos, with type
  /// `other`, after the assets (`--include-other`).
  var includesOtherFiles = false
  /// The extensions `--ext` keeps, as given, in order; empty keeps all.
  var extensions: [String] = []
  /// The `--exclude` patterns, in order.
  var excludedPatterns: [String] = []
  /// The index file the listing keeps what it read in (`--index`), or `nil` for none.
  var indexPath: String?
  /// Whether the listing keeps what it read in the library's index in the user's cache
  /// folder (`--default-index`).
  var usesDefaultIndex = false
  /// Whether the page keeps no index (`--no-index`): without it, a page drawn through the
  /// desktop's thumbnail cache keeps its listing in the library's own index beside it
  /// (``keepsPageIndex``).
  var keepsNoIndex = false
  /// Whether every photo's end is checked for truncation (`--verify`).
  var verifiesFileEnds = false
  /// Whether `thumbnail` and the page draw through the desktop's thumbnail cache (not
  /// with `--no-cache`).
  var usesPictureCache = true

  /// What the library walk includes, from `--hidden`, `--ext` and `--exclude`, where it
  /// keeps its index, and whether it checks every photo's end (`--verify`).
  var libraryOptions: LibraryOptions {
    var options = LibraryOptions(
      includesHiddenFiles: includesHiddenFiles,
      selection: FileSelection(extensions: extensions, excluding: excludedPatterns),
      index: indexPath.map { .file(URL(fileURLWithPath: $0)) }
        ?? (usesDefaultIndex || keepsPageIndex ? .userCache : .none),
      verifiesFileEnds: verifiesFileEnds, pictureCache: usesPictureCache ? .freedesktop : .none)
    // The page's own index was not asked for: where it cannot be kept, the page says
    // nothing of it (the pictures' cache is as quiet).
    options.keepsIndexQuietly = keepsPageIndex
    return options
  }
  /// Whether this run is a page that keeps the library's own index although no index
  /// option asked for it: a page drawn through the desktop's thumbnail cache (not
  /// `--no-cache`, not `--no-index`) caches its listing beside its pictures, so that a page
  /// made again reads only the files that changed, as it draws only their pictures.
  var keepsPageIndex: Bool {
    command == .list && format == .html && usesPictureCache && !keepsNoIndex
      && indexPath == nil && !usesDefaultIndex
  }
  /// Whether `thumbnail` may replace an existing `--output` file, or `--format html` a
  /// page it made before in the `--output` folder (`--force`).
  var replacesOutput = false
  /// The box `thumbnail` draws the asset in, in pixels a side (`--size`); `nil` writes the
  /// embedded thumbnail as stored.
  var pictureSize: Int?
  /// Whether `thumbnail` fills the `--size` square and crops (`--fill`) rather than fits.
  var fillsPicture = false
  /// Whether `thumbnail` writes the embedded thumbnail as stored (`--embedded`), as it
  /// does without `--size`.
  var embeddedOnly = false
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
