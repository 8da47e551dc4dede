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

extension AssetProblem: Error {}

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
