import FoundationEssentials
import Glibc
import GroupEnumeratorCore

/// `LibraryBench LIBRARY [INDEX]`: enumerates the library once through the typed API
/// (``AssetsLibrary/enumerate(filter:progress:)``) and prints one line of figures on
/// standard error, as `Demo --statistics` does, for `Benchmarks/run.py`: the asset count,
/// the phase times the engine measured, how many progress calls and main-actor hops it
/// made, and the wall time of the call. With INDEX, the enumeration keeps its index in that
/// file (``LibraryOptions/index``) and the line says how many files it took from there.
///
/// Exit status: 0 on success, 1 when the library fails, 64 for a usage error.
@main struct LibraryBench {
  @MainActor static func main() async {
    let arguments = CommandLine.arguments.dropFirst()
    guard (1...2).contains(arguments.count), let path = arguments.first else {
      printError("usage: LibraryBench LIBRARY [INDEX]\n")
      exit(64)
    }
    let index = arguments.dropFirst().first.map { IndexLocation.file(URL(fileURLWithPath: $0)) }
    let library = AssetsLibrary(
      root: URL(fileURLWithPath: path), options: LibraryOptions(index: index ?? .none))
    var progressCalls = 0
    let clock = ContinuousClock()
    let start = clock.now
    do {
      let contents = try await library.enumerate { _, _ in progressCalls += 1 }
      let wall = clock.now - start
      let statistics = contents.statistics
      let line =
        "statistics: assets \(contents.assets.count) files-read \(statistics.filesRead)"
        + " walk-s \(seconds(statistics.walk)) metadata-s \(seconds(statistics.metadata))"
        + " delivery-s \(seconds(statistics.delivery)) enumerate-s \(seconds(wall))"
        + " progress-calls \(progressCalls) main-actor-hops \(statistics.mainActorHops)"
        + " files-from-index \(statistics.filesFromIndex)\n"
      printError(line)
      for warning in contents.warnings { printError("warning: \(warning)\n") }
    } catch {
      printError("LibraryBench: \(error)\n")
      exit(1)
    }
  }

  /// Writes `text` to standard error (file descriptor 2), whole.
  static func printError(_ text: String) {
    var text = text
    text.withUTF8 { bytes in
      guard let start = bytes.baseAddress else { return }
      var offset = 0
      while offset < bytes.count {
        let written = write(2, start + offset, bytes.count - offset)
        if written < 0, errno == EINTR { continue }
        guard written > 0 else { return }
        offset += written
      }
    }
  }

  /// `duration` in seconds, with 4 decimals (rounded to the nearest).
  static func seconds(_ duration: Duration) -> String {
    let (whole, fraction) = duration.components
    let units = whole * 10_000 + (fraction + 50_000_000_000_000) / 100_000_000_000_000
    let decimals = String(units % 10_000)
    return "\(units / 10_000)." + String(repeating: "0", count: 4 - decimals.count) + decimals
  }
}
