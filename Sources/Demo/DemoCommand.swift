import CStandardDescriptors
import Dispatch
import FoundationEssentials
import Glibc
import GroupEnumeratorCore
import Synchronization

/// What `Demo` does, without processes: arguments in, text and an exit status out.
@MainActor enum DemoCommand {
  /// Success.
  nonisolated static let success: Int32 = 0
  /// A library fault, or `lookup` found nothing.
  nonisolated static let failure: Int32 = 1
  /// A usage error (`EX_USAGE`).
  nonisolated static let usageFailure: Int32 = 64
  /// Standard output could not be written (`EX_IOERR`): a full disk, `/dev/full`.
  nonisolated static let outputFailureStatus: Int32 = 74
  /// Interrupted (128 + SIGINT).
  nonisolated static let interrupted: Int32 = 130
  /// The reader of standard output went away (128 + SIGPIPE), as a shell reports it.
  nonisolated static let brokenPipe: Int32 = 141

  /// The bundled sample library, found from this source file so that the working
  /// directory does not matter: `<package>/Fixtures/Library`.
  nonisolated static let bundledLibrary = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent()  // Sources/Demo
    .deletingLastPathComponent()  // Sources
    .deletingLastPathComponent()  // the package root
    .appendingPathComponent("Fixtures")
    .appendingPathComponent("Library")

  /// Parses `arguments`, runs the command and writes its output.
  ///
  /// - Parameters:
  ///   - arguments: The arguments after the executable's name.
  ///   - rawArguments: The same arguments as bytes (paths that are not UTF-8 survive);
  ///     `nil` takes `arguments`' UTF-8.
  ///   - stdout: Where results and help go.
  ///   - stderr: Where errors go.
  ///   - progressBar: The bar to draw while reading, or `nil` (not a terminal).
  ///   - tableWidth: The widest line `--format table` may write, or `nil` for no limit
  ///     (``Terminal/tableWidth(columnsVariable:terminalColumns:)``).
  ///   - pictureWorker: The Demo executable that draws pictures in worker processes
  ///     (``WorkerPictures``), or `nil` to draw them in this process.
  ///   - replaysListings: Whether a listing with `--index` may be printed from, and is
  ///     recorded in, its replay file beside the index (``ListingReplay``): only where
  ///     standard output is the process's own and not a terminal.
  /// - Returns: The exit status: 0, 1, 64 or 130 (74 and 141 come from the caller,
  ///   which owns the real standard output).
  static func run(
    arguments: [String], rawArguments: [[UInt8]]? = nil, stdout: inout some ByteOutputStream,
    stderr: inout some TextOutputStream, progressBar: ProgressBar? = nil, tableWidth: Int? = nil,
    pictureWorker: String? = nil, replaysListings: Bool = false
  ) async -> Int32 {
    let parsed: ParsedArguments
    do {
      parsed = try ArgumentParser.parse(arguments)
    } catch {
      stderr.write(OutputHygiene.lines(HelpText.usageError(error)))
      return usageFailure
    }
    let options: DemoOptions
    switch parsed {
    case .help(let command):
      stdout.write(HelpText.help(command))
      return success
    case .version:
      stdout.write(HelpText.version + "\n")
      return success
    case .run(let parsedOptions):
      options = parsedOptions
    }
    let progressBar = options.showsProgress ? progressBar : nil
    progressBar?.strings = Strings(language: options.language)
    do {
      let rawArguments = rawArguments ?? arguments.map { Array($0.utf8) }
      let location = try open(options, rawArguments: rawArguments)
      switch options.command {
      case .list where options.format == .html:
        return try await page(
          options, location, stderr: &stderr, progressBar: progressBar,
          pictureWorker: pictureWorker)
      case .list:
        if replaysListings,
          let replay = ListingReplay(
            options, root: location.rootDescriptor, rawArguments: rawArguments)
        {
          return try await replayOrList(
            replay, options, location.library, stdout: &stdout, stderr: &stderr,
            progressBar: progressBar)
        }
        try await list(
          options, location.library, stdout: &stdout, stderr: &stderr, progressBar: progressBar,
          tableWidth: tableWidth)
        return success
      case .groups:
        try await groups(
          options, location.library, stdout: &stdout, stderr: &stderr, tableWidth: tableWidth)
        return success
      case .lookup:
        return try await lookup(options, location, stdout: &stdout, stderr: &stderr)
      case .thumbnail:
        return try await thumbnail(
          options, location, stdout: &stdout, stderr: &stderr, pictureWorker: pictureWorker)
      case .watch:
        return try await WatchCommand.run(location, stdout: &stdout, stderr: &stderr)
      }
    } catch {
      progressBar?.clear()
      if Task.isCancelled { return interrupted }
      stderr.write("Error: \(OutputHygiene.message(error.message(in: options.language)))\n")
      return failure
    }
  }

  /// The exit status once standard output is flushed, and the message to print: `EPIPE`
  /// (the reader went away) is 141 and quiet; any other write error is 74 with
  /// `Error: cannot write the output: <reason>`.
  ///
  /// - Parameters:
  ///   - status: What ``run(arguments:rawArguments:stdout:stderr:progressBar:)`` returned.
  ///   - outputFailure: The `errno` of the write to standard output that failed, if any.
  nonisolated static func exitStatus(
    _ status: Int32, outputFailure: Int32?
  ) -> (status: Int32, message: String?) {
    guard let code = outputFailure else { return (status, nil) }
    if code == EPIPE { return (status == success ? brokenPipe : status, nil) }
    let reason = String(cString: strerror(code))
    return (outputFailureStatus, "Error: cannot write the output: \(reason)\n")
  }

  /// The library the options name, or the bundled one, opened from its bytes.
  static func open(
    _ options: DemoOptions, rawArguments: [[UInt8]]
  ) throws(LibraryError) -> LibraryLocation {
    guard let library = options.library else {
      return try LibraryLocation(
        bytes: Array(bundledLibrary.path.utf8), options: options.libraryOptions)
    }
    return try LibraryLocation(
      bytes: LibraryLocation.bytes(of: library, in: rawArguments), options: options.libraryOptions)
  }

  /// The stream and the format's state, which the delivering worker owns in turn.
  private struct Pipeline<Stream: ByteOutputStream, Writer: ListingWriter>: Sendable {
    var stream: Stream
    var writer: Writer

    mutating func begin() { writer.begin(to: &stream) }
    mutating func write(_ item: Writer.Item) { writer.write(item, to: &stream) }
    mutating func finish(_ end: ListingEnd) { writer.finish(end, to: &stream) }
  }

  /// Streams the listing in `options.format`; returns what the library found besides the
  /// assets (`nil` when the output stopped first, or for `html`, which is not streamed).
  @discardableResult
  static func list(
    _ options: DemoOptions, _ library: AssetsLibrary, stdout: inout some ByteOutputStream,
    stderr: inout some TextOutputStream, progressBar: ProgressBar?, tableWidth: Int?,
    taint: ListingTaint? = nil
  ) async throws(LibraryError) -> AssetsLibrary.StreamSummary? {
    let strings = Strings(language: options.language)
    switch options.format {
    case .table:
      return try await stream(
        TableListingWriter(strings: strings, maximumWidth: tableWidth), options, library,
        stdout: &stdout,
        stderr: &stderr, progressBar: progressBar)
    case .json:
      return try await stream(
        JSONListingWriter(), options, library, stdout: &stdout, stderr: &stderr,
        progressBar: progressBar, taint: taint)
    case .ndjson:
      return try await stream(
        NDJSONListingWriter(), options, library, stdout: &stdout, stderr: &stderr,
        progressBar: progressBar, taint: taint)
    case .csv:
      return try await stream(
        CSVListingWriter(), options, library, stdout: &stdout, stderr: &stderr,
        progressBar: progressBar, taint: taint)
    case .html:
      // Written to a folder, not streamed: run(…) calls page(…) instead.
      return nil
    }
  }

  /// Streams the listing: each asset is formatted on the worker that read it and written
  /// in order as soon as it and all before it are read; with `--include-other` the files
  /// that are not assets follow, by path (the table counts them either way); folder
  /// problems follow as `warning:` lines on standard error (and in the table and ndjson).
  ///
  /// With a `taint`, each asset is also checked for what makes a listing unfit to replay.
  private static func stream<Stream: ByteOutputStream, Writer: ListingWriter>(
    _ writer: Writer, _ options: DemoOptions, _ library: AssetsLibrary,
    stdout: inout Stream, stderr: inout some TextOutputStream, progressBar: ProgressBar?,
    taint: ListingTaint? = nil
  ) async throws(LibraryError) -> AssetsLibrary.StreamSummary? {
    let clock = ContinuousClock()
    var pipeline = Pipeline(stream: stdout, writer: writer)
    pipeline.begin()
    let prototype = writer
    let shared = Mutex(pipeline)
    let gate = OutputGate.standardOutput
    let summary: AssetsLibrary.StreamSummary
    do throws(LibraryError) {
      summary = try await library.streamAssets(
        filter: options.filter,
        progress: { current, total in progressBar?.update(current: current, total: total) },
        prepare: { (asset: Asset) -> Writer.Item in
          taint?.check(asset)
          return prototype.prepare(asset)
        },
        deliver: { (item: Writer.Item) -> Bool in
          shared.withLock { pipeline in
            pipeline.write(item)
            return !gate.isClosed && !pipeline.stream.isBroken
          }
        })
    } catch {
      stdout = shared.withLock { $0.stream }
      // The listing stopped because its output did (a closed pipe, a full disk, a
      // signal): the caller reports that, not a cancelled library.
      if error == .cancelled, stdout.isBroken || gate.isClosed { return nil }
      throw error
    }
    progressBar?.clear()
    let outputStart = clock.now
    let strings = Strings(language: options.language)
    let folderProblems = summary.folderProblems.sorted { $0.key < $1.key }.map {
      (path: $0.key, problem: $0.value)
    }
    stdout = shared.withLock { pipeline in
      pipeline.finish(
        ListingEnd(
          folderProblems: folderProblems, otherFiles: summary.otherFiles,
          listsOtherFiles: options.includesOtherFiles))
      return pipeline.stream
    }
    for (path, problem) in folderProblems {
      stderr.write(
        "warning: "
          + OutputHygiene.message(strings.folderProblem(path.escaped, problem.description))
          + "\n")
    }
    for warning in summary.warnings {
      stderr.write("warning: " + OutputHygiene.message(warning) + "\n")
    }
    if options.showsStatistics {
      stderr.write(
        statisticsLine(
          summary.statistics, assets: summary.assetCount, output: clock.now - outputStart))
    }
    return summary
  }

  /// The `--statistics` line: one line, `key value` pairs, seconds with 4 decimals.
  static func statisticsLine(
    _ statistics: EnumerationStatistics, assets: Int, output: Duration
  ) -> String {
    func seconds(_ duration: Duration) -> String {
      let value =
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
      return DecimalText.printed(value, decimalPlaces: 4)
    }
    return "statistics: assets \(assets) files-read \(statistics.filesRead)"
      + " files-from-index \(statistics.filesFromIndex)"
      + " walk-s \(seconds(statistics.walk)) metadata-s \(seconds(statistics.metadata))"
      + " delivery-s \(seconds(statistics.delivery)) output-s \(seconds(output))"
      + " bytes-read \(statistics.bytesRead) read-calls \(statistics.readCalls)"
      + " bytes-per-file \(DecimalText.printed(statistics.bytesPerFile, decimalPlaces: 0))"
      + " main-actor-hops \(statistics.mainActorHops)\n"
  }

  private static func groups(
    _ options: DemoOptions, _ library: AssetsLibrary, stdout: inout some ByteOutputStream,
    stderr: inout some TextOutputStream, tableWidth: Int?
  ) async throws(LibraryError) {
    let groups = try await library.groups(types: [.all, .library])
    switch options.format {
    case .table:
      let formatter = TableFormatter(
        strings: Strings(language: options.language), maximumWidth: tableWidth)
      stdout.write(formatter.format(groups: groups))
    case .json:
      stdout.write(JSONFormatter.format(groups: groups))
    case .ndjson:
      for group in groups { stdout.write(bytes: JSONFormatter.line(for: group)) }
    case .csv:
      stdout.write(CSVFormatter.format(groups: groups))
    case .html:
      // Refused by the parser: `Demo groups` has no page.
      break
    }
  }
}
