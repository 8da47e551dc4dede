import GroupEnumeratorCore

/// The `--help` texts, laid out as swift-argument-parser lays them out, and the usage
/// lines shown with usage errors.
enum HelpText {
  /// The version `--version` prints.
  static let version = "GroupEnumerator Demo \(groupEnumeratorVersion)"

  /// The usage line of `command`, without the `USAGE: ` or `Usage: ` prefix.
  static func usage(_ command: DemoOptions.Command) -> String {
    switch command {
    case .list: "Demo [<options>] [<library>]"
    case .groups: "Demo groups [<options>] [<library>]"
    case .lookup: "Demo lookup [<options>] <asset> [<library>]"
    case .thumbnail: "Demo thumbnail [<options>] <asset> [<library>] --output <file>"
    case .watch: "Demo watch [<options>] [<library>]"
    }
  }

  /// What a usage error prints on standard error.
  static func usageError(_ error: UsageError) -> String {
    """
    Error: \(error.message)
    Usage: \(usage(error.command))
      See '\(error.command.commandName) --help' for more information.

    """
  }

  /// The help of `command`, ending in a newline.
  static func help(_ command: DemoOptions.Command) -> String {
    switch command {
    case .list: main
    case .groups: groups
    case .lookup: lookup
    case .thumbnail: thumbnail
    case .watch: watch
    }
  }

  private static let escaping = """
    File names on Linux are bytes. Paths and names are printed as UTF-8 text; each
    byte that is not part of valid UTF-8 is written as %XX (two upper-case hex
    digits) and '%' itself as %25, so the text names exactly one file. Asset URLs
    do not depend on it: 'Demo lookup <asset>' finds the same file.
    """

  private static let libraryArgument = """
      <library>               The library's root folder. (default: the bundled
                              Fixtures/Library)
    """

  private static let libraryOption = """
      --library <library>     The library's root folder, as an option; when
                              <library> is given too, both must be the same.
    """

  private static let selectionOptions = """
      --ext <ext>             Read only files with this extension, ignoring case
                              (jpg, .HEIC); repeatable: --ext jpg --ext heic.
                              A Live Photo needs both: --ext heic --ext mov.
      --exclude <pattern>     Leave out files and folders that match this shell
                              pattern (*, ?, [a-z]); repeatable. A pattern
                              without '/' matches a name at any depth (Trash,
                              '*.mov'), one with '/' the path from the library
                              root ('Trips/Kyoto 2019'), one ending in '/'
                              folders only. Excluded folders are not entered.
      --hidden                Read hidden files and folders (names starting
                              with '.') too.
    """

  /// The index options of the subcommands (the listing explains them at length).
  private static let indexOptions = """
      --index <file>          Take unchanged files from this index file, and keep
                              what was read in it (see 'Demo --help').
      --default-index         The same with this library's own index.
    """

  private static let commonOptions = """
      --version               Show the version.
      -h, --help              Show help information.
    """

  private static let assetArgument = """
      <asset>                 An asset URL as listed, such as
                              assets-library://asset/asset.JPG?id=<UUID>&ext=JPG,
                              or the path of a file inside the library: relative
                              to the library's root, or absolute or relative to
                              the working directory.
    """

  private static let main = """
    OVERVIEW: List the photos and videos of a photo library (a folder tree).

    Reads every photo, Live Photo and video under the library folder, grouped the
    way ALAssetsLibrary grouped them (Camera Roll, then albums by folder), and
    prints them as a table, JSON or CSV, or writes them as a web page with a
    picture of each. While reading, a progress bar is drawn on standard error when
    it is a terminal. --ext, --exclude and --hidden choose the
    files; the progress bar and 'Demo groups' count the same ones.

    \(escaping)

    Exit status: 0 on success, 1 when the library cannot be read, 64 on a usage
    error, 74 when the output cannot be written, 130 when interrupted (143 for
    SIGTERM, 129 for SIGHUP), 141 when the reader of the output went away.
    Folders that cannot be read are listed as 'warning:' lines on standard error
    and do not change the status.

    USAGE: \(usage(.list))
           Demo <subcommand>

    ARGUMENTS:
    \(libraryArgument)
                              A library named like a subcommand: Demo ./groups

    OPTIONS:
    \(libraryOption)
      --format <format>       How to print the assets: table (for people, as wide
                              as COLUMNS or the terminal), json (one array, one
                              object per asset), csv (RFC 4180) or ndjson (one
                              object per line, as each is read) or html (a page
                              with an 80x80 picture of each asset, written to the
                              --output folder). (default: table)
      --output <folder>       Where --format html writes index.html and its
                              pictures/: a folder that does not exist or is
                              empty, outside the library. index.html is written
                              last, so a failed run leaves no page.
      --force                 Replace the page an earlier --format html wrote in
                              the --output folder (it holds nothing else).
      --no-cache              Draw the page's pictures without the desktop's
                              thumbnail cache (~/.cache/thumbnails), and keep
                              no index.
      --filter <filter>       Which assets to list: photos (with Live Photos),
                              videos or all. (default: all)
      --include-other         Also list the files that are not photos or videos
                              (text files, Thumbs.db, PDFs, sidecars that fit no
                              asset) after the assets, by path, with type 'other'
                              and the reason. Without it the table only counts
                              them on its last line.
    \(selectionOptions)
      --index <file>          Keep what was read in this index file (SQLite,
                              outside the library; created when missing), so that
                              the next listing opens only new and changed files.
                              The output is the same as without it.
      --default-index         Keep what was read in this library's own index in
                              $XDG_CACHE_HOME/groupenumerator (else
                              ~/.cache/groupenumerator), one file per library.
                              A page (--format html) keeps it unless --no-cache
                              or --no-index is given.
      --no-index              Keep no index, not even a page's.
      --verify                Check that every photo is whole: read each JPEG's and
                              PNG's last bytes for its end marker, and report a
                              file cut short as 'truncated'. Without it only files
                              whose end was read anyway (up to 16 KiB) are
                              checked: on a cold disk the check costs about a
                              third more time. With an index, a file checked once
                              is not checked again until it changes.
      --lang <lang>           The language of the table, the page, the progress
                              bar and library errors: en, zh-Hans or ja.
                              (default: en)
      --no-progress           Draw no progress bar, even on a terminal.
      --statistics            After the listing, print on standard error how long
                              the walk, the metadata, the delivery and the output
                              took, how many files were read and how many taken
                              from the index, and how many main-actor hops there
                              were.
    \(commonOptions)

    SUBCOMMANDS:
      groups                  List the groups with their counts and URLs.
      lookup                  Print one asset, named by its URL or path, as JSON.
      thumbnail               Write a picture of an asset to a file.
      watch                   Print the library's changes as they happen.
      help                    Show the help of Demo or of a subcommand.

      See 'Demo help <subcommand>' for detailed help.

    """

  private static let groups = """
    OVERVIEW: List the groups with their counts and URLs.

    Lists the Camera Roll, then every album (a folder, named by its path), then
    All Photos, with how many photos, Live Photos and videos each holds and its
    assets-library://group/ URL. With the same --ext, --exclude and --hidden, the
    counts are those of the listing.

    \(escaping)

    USAGE: \(usage(.groups))

    ARGUMENTS:
    \(libraryArgument)

    OPTIONS:
    \(libraryOption)
      --format <format>       How to print the groups: table, json, csv or ndjson.
                              (default: table)
    \(selectionOptions)
    \(indexOptions)
      --lang <lang>           The language of group names and library errors: en,
                              zh-Hans or ja. (default: en)
    \(commonOptions)

    """

  private static let lookup = """
    OVERVIEW: Print one asset, named by its URL or path, as JSON.

    Prints one JSON object with the same keys as 'Demo --format json' prints for
    each asset. Exits with status 1 when the library has no such asset (the
    message says why when the path names a file that is not a photo or video),
    or the path is outside the library.

    \(escaping)

    USAGE: \(usage(.lookup))

    ARGUMENTS:
    \(assetArgument)
    \(libraryArgument)

    OPTIONS:
    \(libraryOption)
      --hidden                Find hidden files and files in hidden folders too.
    \(indexOptions)
      --lang <lang>           The language of library errors: en, zh-Hans or ja.
                              (default: en)
    \(commonOptions)

    """

  private static let thumbnail = """
    OVERVIEW: Write a picture of an asset to a file.

    With --size, draws any photo, RAW, video or Live Photo upright in a square of
    that many pixels, as JPEG (PNG when it has transparency). Without it, or with
    --embedded, copies the thumbnail embedded in the photo's EXIF data byte for
    byte. Exits with status 1 when the asset cannot be drawn or has no thumbnail.
    Pictures are kept in the desktop's thumbnail cache (~/.cache/thumbnails),
    shared with file managers; --no-cache draws without it.

    USAGE: \(usage(.thumbnail))

    ARGUMENTS:
    \(assetArgument)
    \(libraryArgument)

    OPTIONS:
    \(libraryOption)
      --output <file>         The file to write ('-': standard output). It is
                              written under a temporary name and then renamed,
                              so a failure leaves nothing behind.
      --force                 Replace the output file if it exists.
      --size <pixels>         Draw the picture to fit a square this many pixels
                              a side (1 to 16384).
      --fill                  Fill the --size square, cropping the picture's
                              centre, instead of fitting it.
      --embedded              Write the embedded thumbnail as stored.
      --no-cache              Draw without the thumbnail cache.
      --hidden                Find hidden files and files in hidden folders too.
      --lang <lang>           The language of library errors: en, zh-Hans or ja.
                              (default: en)
    \(commonOptions)

    """

  private static let watch = """
    OVERVIEW: Print the library's changes as they happen.

    Watches every folder of the library and prints one line of JSON for each
    change: the assets inserted, updated and deleted (each object as
    'Demo --format ndjson' prints it; a deleted asset with its files only),
    then the groups inserted, updated and deleted (as 'Demo groups --format
    ndjson' prints them). A file is reported once it is complete (closed after
    writing, or moved in); a burst of changes is one line, at most four lines a
    second. A line on standard error says when watching has begun. Runs until
    Ctrl-C (exit status 130), or until the library folder is deleted or moved
    (exit status 1, with a message).

    \(escaping)

    USAGE: \(usage(.watch))

    ARGUMENTS:
    \(libraryArgument)

    OPTIONS:
    \(libraryOption)
    \(selectionOptions)
    \(indexOptions)
      --lang <lang>           The language of library errors: en, zh-Hans or ja.
                              (default: en)
    \(commonOptions)

    """
}
