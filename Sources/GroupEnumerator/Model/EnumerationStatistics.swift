/// Where the time of one enumeration went, for benchmarks and diagnostics.
///
/// The phases follow each other: the walk lists the folders; metadata reading then opens
/// and reads every file (the Live Photo candidates first) on the worker threads; delivery
/// puts the assets in order, counts the groups and makes the last progress call.
public struct EnumerationStatistics: Sendable, Hashable {
  /// Listing the folders and classifying their entries.
  public let walk: Duration
  /// Reading every file's metadata, from the end of the walk to the last file read.
  public let metadata: Duration
  /// Assembling the result after the last file was read.
  public let delivery: Duration
  /// How many files were opened and read.
  public let filesRead: Int
  /// How many times the enumeration came to the main actor to report progress
  /// (progress updates are coalesced, so this stays small however many files there are).
  public let mainActorHops: Int

  /// Creates statistics.
  public init(
    walk: Duration, metadata: Duration, delivery: Duration, filesRead: Int, mainActorHops: Int
  ) {
    self.walk = walk
    self.metadata = metadata
    self.delivery = delivery
    self.filesRead = filesRead
    self.mainActorHops = mainActorHops
  }
}
