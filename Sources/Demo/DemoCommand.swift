import Dispatch
import Foundation
import Glibc
import GroupEnumerator

/// The `Demo` executable: sets up signals and the terminal, runs ``DemoCommand``, and
/// exits with its status.
@main struct Demo {
  /// Runs the command on the main actor, which stays free while the library is read so
  /// that progress callbacks (main-actor closures) can run.
  @MainActor static func main() async {
    if let shortage = DescriptorBudget.shortage() {
      var standardError = FileDescriptorStream.standardError()
      standardError.write(shortage)
      exit(DemoCommand.failure)
    }
    // A closed pipe becomes EPIPE on write, which FileDescriptorStream handles quietly.
    signal(SIGPIPE, SIG_IGN)
    let progressBar =
      Terminal.isTerminal(2)
      ? ProgressBar(columns: { Terminal.columns(of: 2) }) { text in
        var standardError = FileDescriptorStream.standardError()
        standardError.write(text)
      } : nil
    let arguments = Array(CommandLine.arguments.dropFirst())
    let task = Task { @MainActor in
      var standardOutput = FileDescriptorStream.standardOutput()
      var standardError = FileDescriptorStream.standardError()
      let status = await DemoCommand.run(
        arguments: arguments, stdout: &standardOutput, stderr: &standardError,
        progressBar: progressBar)
      standardOutput.flush()
      return (status, standardOutput.isBroken)
    }
    let interrupt = Interrupt(task: task, progressBar: progressBar)
    let (status, isOutputBroken) = await task.value
    interrupt.cancel()
    if interrupt.wasInterrupted { exit(130) }
    // 141 = 128 + SIGPIPE: what a shell reports for a writer whose reader went away.
    exit(isOutputBroken && status == 0 ? 141 : status)
  }
}

/// Ctrl-C handling: the first SIGINT erases the progress bar and cancels the run (which
/// then exits with 130); a second one exits at once.
@MainActor final class Interrupt {
  private let source: any DispatchSourceSignal
  /// Whether SIGINT arrived.
  private(set) var wasInterrupted = false

  /// Starts listening for SIGINT on the main queue (the main actor's executor).
  init<Success: Sendable>(task: Task<Success, Never>, progressBar: ProgressBar?) {
    signal(SIGINT, SIG_IGN)
    source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .main)
    source.setEventHandler { [weak self] in
      MainActor.assumeIsolated {
        progressBar?.clear()
        if self?.wasInterrupted == true { exit(130) }
        self?.wasInterrupted = true
        task.cancel()
      }
    }
    source.resume()
  }

  /// Stops listening and restores the default SIGINT action.
  func cancel() {
    source.cancel()
    signal(SIGINT, SIG_DFL)
  }
}

/// What `Demo` does, without processes: arguments in, text and an exit status out.
@MainActor enum DemoCommand {
  /// Success.
  static let success: Int32 = 0
  /// A library fault, or `lookup` found nothing.
  static let failure: Int32 = 1
  /// A usage error (`EX_USAGE`).
  static let usageFailure: Int32 = 64
  /// Interrupted (128 + SIGINT).
  static let interrupted: Int32 = 130

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
  ///   - stdout: Where results and help go.
  ///   - stderr: Where errors go.
  ///   - progressBar: The bar to draw while reading, or `nil` (not a terminal).
  /// - Returns: The exit status: 0, 1, 64 or 130.
  static func run(
    arguments: [String], stdout: inout some ByteOutputStream,
    stderr: inout some TextOutputStream, progressBar: ProgressBar? = nil
  ) async -> Int32 {
    let parsed: ParsedArguments
    do {
      parsed = try ArgumentParser.parse(arguments)
    } catch {
      stderr.write(HelpText.usageError(error))
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
      switch options.command {
      case .list:
        try await list(options, stdout: &stdout, stderr: &stderr, progressBar: progressBar)
        return success
      case .groups:
        try await groups(options, stdout: &stdout)
        return success
      case .lookup:
        return try await lookup(options, stdout: &stdout, stderr: &stderr)
      case .thumbnail:
        return try await thumbnail(options, stderr: &stderr)
      }
    } catch {
      progressBar?.clear()
      if Task.isCancelled { return interrupted }
      stderr.write("Error: \(error.message(in: options.language))\n")
      return failure
    }
  }

  /// The library the options name, or the bundled one.
  static func library(_ options: DemoOptions) -> AssetsLibrary {
    AssetsLibrary(
      root: options.library.map { URL(fileURLWithPath: $0) } ?? bundledLibrary,
      options: options.libraryOptions)
  }

  private static func list(
    _ options: DemoOptions, stdout: inout some ByteOutputStream,
    stderr: inout some TextOutputStream, progressBar: ProgressBar?
  ) async throws(LibraryError) {
    let contents = try await library(options).enumerate(filter: options.filter) {
      current, total in
      progressBar?.update(current: current, total: total)
    }
    progressBar?.clear()
    let clock = ContinuousClock()
    let outputStart = clock.now
    switch options.format {
    case .table:
      let formatter = TableFormatter(strings: Strings(language: options.language))
      stdout.write(formatter.format(contents))
    case .json:
      JSONFormatter.write(assets: contents.assets, to: &stdout)
    case .csv:
      stdout.write(CSVFormatter.format(assets: contents.assets))
    }
    if options.showsStatistics {
      stderr.write(
        statisticsLine(
          contents.statistics, assets: contents.assets.count, output: clock.now - outputStart))
    }
  }

  /// The `--statistics` line: one line, `key value` pairs, seconds with 4 decimals.
  static func statisticsLine(
    _ statistics: EnumerationStatistics, assets: Int, output: Duration
  ) -> String {
    func seconds(_ duration: Duration) -> String {
      let value =
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
      return String(format: "%.4f", value)
    }
    return "statistics: assets \(assets) files-read \(statistics.filesRead)"
      + " walk-s \(seconds(statistics.walk)) metadata-s \(seconds(statistics.metadata))"
      + " delivery-s \(seconds(statistics.delivery)) output-s \(seconds(output))"
      + " main-actor-hops \(statistics.mainActorHops)\n"
  }

  private static func groups(
    _ options: DemoOptions, stdout: inout some TextOutputStream
  ) async throws(LibraryError) {
    let groups = try await library(options).groups(types: [.all, .library])
    switch options.format {
    case .table:
      let formatter = TableFormatter(strings: Strings(language: options.language))
      stdout.write(formatter.format(groups: groups))
    case .json:
      stdout.write(JSONFormatter.format(groups: groups))
    case .csv:
      stdout.write(CSVFormatter.format(groups: groups))
    }
  }

  private static func lookup(
    _ options: DemoOptions, stdout: inout some TextOutputStream,
    stderr: inout some TextOutputStream
  ) async throws(LibraryError) -> Int32 {
    guard let asset = try await findAsset(options, stderr: &stderr) else { return failure }
    stdout.write(JSONFormatter.object(for: asset) + "\n")
    return success
  }

  /// The asset `lookup` and `thumbnail` name, by URL or by path; `nil` after printing
  /// why there is none.
  private static func findAsset(
    _ options: DemoOptions, stderr: inout some TextOutputStream
  ) async throws(LibraryError) -> Asset? {
    guard let reference = options.asset else { return nil }
    let library = library(options)
    let strings = Strings(language: options.language)
    let root = library.root.path
    let url: URL
    let path: LibraryPath?
    do throws(AssetLocation.Failure) {
      (url, path) = try AssetLocation.resolve(reference, root: root)
    } catch {
      switch error {
      case .outsideLibrary(let given, let root):
        stderr.write("Error: \(strings.outsideLibrary(given, library: root))\n")
      }
      return nil
    }
    guard let asset = try await library.asset(for: url) else {
      let message =
        path.map { strings.noAssetAtPath($0.escaped, library: root) }
        ?? strings.assetNotFound(url.absoluteString, library: root)
      stderr.write("Error: \(message)\n")
      return nil
    }
    return asset
  }

  /// `Demo thumbnail`: writes the asset's embedded thumbnail, byte for byte, to the
  /// `--output` file (never into the library unless the user names a path there).
  private static func thumbnail(
    _ options: DemoOptions, stderr: inout some TextOutputStream
  ) async throws(LibraryError) -> Int32 {
    guard let output = options.output else { return usageFailure }
    let library = library(options)
    let strings = Strings(language: options.language)
    guard let asset = try await findAsset(options, stderr: &stderr) else { return failure }
    let thumbnail: AssetThumbnail
    do throws(ThumbnailError) {
      thumbnail = try await library.thumbnail(for: asset)
    } catch {
      switch error {
      case .library(let fault): throw fault
      case .noEmbeddedThumbnail(let name): stderr.write("Error: \(strings.noThumbnail(name))\n")
      case .unreadable(let problem): stderr.write("Error: \(problem.message)\n")
      }
      return failure
    }
    do {
      try thumbnail.data.write(to: URL(fileURLWithPath: output))
    } catch {
      let reason = (error as NSError).localizedDescription
      stderr.write("Error: \(strings.cannotWrite(output, reason: reason))\n")
      return failure
    }
    return success
  }
}
