/// Where the time of one enumeration went: diagnostics for benchmarks and bug reports
/// (the Demo's `--statistics` line), not part of what an enumeration finds. The figures
/// and their meaning may change between versions; do not build behaviour on them.
///
/// The phases follow each other: the walk lists the folders; metadata reading then opens
/// and reads every file (the Live Photo candidates first) on the worker threads; delivery
/// puts the assets in order, counts the groups and makes the last progress call.
///
/// The phase times and file counts are public; the engine's own diagnostics (main-actor
/// hops, bytes and read calls) have package access, for the Demo's `--statistics` line and
/// the benchmarks.
public struct EnumerationStatistics: Sendable, Hashable {
  /// Listing the folders and classifying their entries.
  public let walk: Duration
  /// Reading every file's metadata, from the end of the walk to the last file read.
  public let metadata: Duration
  /// Assembling the result after the last file was read.
  public let delivery: Duration
  /// How many files were opened and read.
  public let filesRead: Int
  /// How many files were not opened because the index (``LibraryOptions/index``) held
  /// their unchanged asset; 0 without an index.
  public let filesFromIndex: Int
  /// How many times the enumeration came to the main actor to report progress
  /// (progress updates are coalesced, so this stays small however many files there are).
  /// A diagnostic of the engine's progress plumbing, for benchmarks.
  package let mainActorHops: Int
  /// How many bytes the `pread` calls on the library's files returned: the media files
  /// and their sidecars (not the few bytes the walk reads to tell the format of a file
  /// whose name does not). A diagnostic of the readers' I/O (what a first scan from a
  /// cold disk costs), counted as the reads return.
  package let bytesRead: Int
  /// How many `pread` calls were made on the library's files.
  package let readCalls: Int

  /// The mean bytes read per file read (0 when no file was read).
  package var bytesPerFile: Double {
    filesRead > 0 ? Double(bytesRead) / Double(filesRead) : 0
  }

  /// Creates statistics (only the engine does).
  init(
    walk: Duration, metadata: Duration, delivery: Duration, filesRead: Int,
    filesFromIndex: Int = 0, mainActorHops: Int, bytesRead: Int = 0, readCalls: Int = 0
  ) {
    self.walk = walk
    self.metadata = metadata
    self.delivery = delivery
    self.filesRead = filesRead
    self.filesFromIndex = filesFromIndex
    self.mainActorHops = mainActorHops
    self.bytesRead = bytesRead
    self.readCalls = readCalls
  }
}
