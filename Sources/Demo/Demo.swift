import CStandardDescriptors
import Dispatch
import FoundationEssentials
import Glibc
import GroupEnumeratorCore
import Synchronization

/// The `Demo` executable: sets up signals and the terminal, runs ``DemoCommand``, and
/// exits with its status.
@main struct Demo {
  /// Runs the command on the main actor, which stays free while the library is read so
  /// that progress callbacks (main-actor closures) can run.
  @MainActor static func main() async {
    // Descriptors 0-2 that were closed at start are on /dev/null by now (a constructor in
    // CStandardDescriptors ran before the runtime); calling it keeps that object linked.
    _ = CStandardDescriptors_reopenedMask()
    // A picture worker first closes what it inherited by mistake, so it is not counted.
    if CommandLine.arguments.dropFirst().first == PictureWorker.subcommand {
      exit(await PictureWorker.run(arguments: Array(CommandLine.arguments.dropFirst(2))))
    }
    if let shortage = DescriptorBudget.shortage() {
      var standardError = FileDescriptorStream.standardError()
      standardError.write(shortage)
      exit(DemoCommand.failure)
    }
    // A closed pipe becomes EPIPE on write, which FileDescriptorStream handles quietly.
    signal(SIGPIPE, SIG_IGN)
    let terminal = SharedTerminal()
    let progressBar =
      Terminal.isTerminal(2)
      ? ProgressBar(columns: { Terminal.columns(of: 2) }) { text in terminal.drawBar(text) }
      : nil
    // On one terminal the bar and the listing would mix: the bar goes before the first
    // byte of output.
    let hideBar: (@Sendable () -> Void)? =
      progressBar != nil && Terminal.isTerminal(1) ? { @Sendable in terminal.hideBar() } : nil
    let arguments = Array(CommandLine.arguments.dropFirst())
    let rawArguments = LibraryLocation.rawArguments()
    let task = Task { @MainActor in
      var standardOutput = FileDescriptorStream.standardOutput(beforeFirstWrite: hideBar)
      var standardError = FileDescriptorStream.standardError()
      let status = await DemoCommand.run(
        arguments: arguments, rawArguments: rawArguments, stdout: &standardOutput,
        stderr: &standardError, progressBar: progressBar, tableWidth: Terminal.tableWidth(),
        pictureWorker: "/proc/self/exe", replaysListings: !Terminal.isTerminal(1))
      standardOutput.flush()
      return (status, standardOutput.failure)
    }
    let interrupt = Interrupt(task: task, progressBar: progressBar, terminal: terminal)
    let (status, outputFailure) = await task.value
    // The signals stay handled until the process ends: a Ctrl-C after the run (while the
    // process exits) must neither kill it by the signal nor change a status already due.
    if let signal = interrupt.signal { exit(128 + signal) }
    interrupt.cancel()
    let (exitStatus, message) = DemoCommand.exitStatus(status, outputFailure: outputFailure)
    if let message {
      var standardError = FileDescriptorStream.standardError()
      standardError.write(message)
    }
    exit(exitStatus)
  }
}

/// Standard error shared by the progress bar (main actor) and the listing's first write
/// (a worker), so that the bar is erased once and never drawn again after that.
final class SharedTerminal: Sendable {
  private let state = Mutex((isHidden: false, isDrawn: false))

  /// Draws `text` (a bar or its erasure) unless the bar is hidden for good.
  func drawBar(_ text: String) {
    state.withLock { state in
      guard !state.isHidden else { return }
      var standardError = FileDescriptorStream.standardError()
      standardError.write(text)
      state.isDrawn = true
    }
  }

  /// Erases the bar if it is drawn, and draws it no more.
  func hideBar() {
    state.withLock { state in
      if state.isDrawn {
        var standardError = FileDescriptorStream.standardError()
        standardError.write("\r\u{1B}[K")
      }
      state.isHidden = true
      state.isDrawn = false
    }
  }
}

/// Ctrl-C, SIGTERM and SIGHUP: the first stops standard output at once (nothing more is
/// written), erases the progress bar for good and cancels the run, which then exits with
/// 128 + the signal (130, 143, 129); if the run has not ended a second later (a file
/// inside a C library), or at a second signal, the process exits at once.
@MainActor final class Interrupt {
  /// The signals handled.
  static let signals = [SIGINT, SIGTERM, SIGHUP]
  /// How long the run may take to end after the first signal.
  static let grace: DispatchTimeInterval = .seconds(1)

  private var sources: [any DispatchSourceSignal] = []
  /// The first signal that arrived, if one did.
  private(set) var signal: Int32?

  /// Starts listening for the signals on the main queue (the main actor's executor).
  init<Success: Sendable>(
    task: Task<Success, Never>, progressBar: ProgressBar?, terminal: SharedTerminal
  ) {
    for number in Interrupt.signals {
      Glibc.signal(number, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: number, queue: .main)
      source.setEventHandler { [weak self] in
        MainActor.assumeIsolated {
          OutputGate.standardOutput.close()
          progressBar?.clear()
          terminal.hideBar()
          if let first = self?.signal { _exit(128 + first) }
          self?.signal = number
          task.cancel()
          DispatchQueue.main.asyncAfter(deadline: .now() + Interrupt.grace) {
            _exit(128 + number)
          }
        }
      }
      source.resume()
      sources.append(source)
    }
  }

  /// Stops listening. The signals stay ignored (the process is about to exit): restoring
  /// their default actions would let a late one kill it instead of letting it exit with the
  /// status it has.
  func cancel() {
    for source in sources { source.cancel() }
  }
}
