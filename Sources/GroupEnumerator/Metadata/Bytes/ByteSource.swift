/// Random access to the bytes of one file, bounded and never trapping.
///
/// Readers get their input through this protocol so that they can be tested on byte
/// arrays and run on real files alike.
protocol ByteSource {
  /// The number of bytes available.
  var count: Int { get }

  /// Reads up to `length` bytes starting at `offset`.
  ///
  /// - Returns: Fewer bytes than asked for at the end of the source; empty past it.
  /// - Throws: An ``AssetProblem`` when the underlying read fails.
  func bytes(at offset: Int, length: Int) throws(AssetProblem) -> [UInt8]
}

/// A byte source over an in-memory array.
struct ArrayByteSource: ByteSource {
  let storage: [UInt8]

  init(_ storage: [UInt8]) { self.storage = storage }

  var count: Int { storage.count }

  func bytes(at offset: Int, length: Int) throws(AssetProblem) -> [UInt8] {
    guard offset >= 0, length > 0, offset < storage.count else { return [] }
    let end = offset + min(length, storage.count - offset)
    return Array(storage[offset..<end])
  }
}

/// A byte source that reads the first ``window`` bytes of another source once and
/// answers reads inside them from memory, so that a reader walking a file's header in
/// small steps (a JPEG's marker segments) costs one `pread` instead of one per step.
///
/// Reads that reach past the window go to the underlying source, so the bytes returned
/// are the same as the underlying source's. When the first read fails, nothing is kept
/// and every read goes to the underlying source, which then reports the failure itself.
struct PrefetchedByteSource<Base: ByteSource>: ByteSource {
  /// How many bytes are read at once: an `APP1` segment's largest size.
  static var window: Int { 64 * 1024 }

  private let base: Base
  private let prefix: [UInt8]

  /// Reads the first ``window`` bytes of `base` (fewer for a shorter source).
  init(_ base: Base) {
    self.base = base
    self.prefix = (try? base.bytes(at: 0, length: Self.window)) ?? []
  }

  /// Wraps `base` with its first bytes, already read (``window`` of them, or all of a
  /// shorter source): for a caller that needed them before choosing a reader.
  init(_ base: Base, prefix: [UInt8]) {
    self.base = base
    self.prefix = prefix
  }

  /// The first ``window`` bytes (fewer for a shorter source; none when the read failed).
  var prefetched: [UInt8] { prefix }

  var count: Int { base.count }

  func bytes(at offset: Int, length: Int) throws(AssetProblem) -> [UInt8] {
    guard offset >= 0, length > 0, offset < count else { return [] }
    let end = offset + min(length, count - offset)
    // Inside the window, or the window ends where the source does (a short read).
    if end <= prefix.count || (prefix.count == count && offset < prefix.count) {
      return Array(prefix[offset..<min(end, prefix.count)])
    }
    return try base.bytes(at: offset, length: length)
  }
}
