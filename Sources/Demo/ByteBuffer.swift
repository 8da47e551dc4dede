/// A growable run of bytes with no copy-on-write checks: what ``JSONWriter`` writes into.
final class ByteBuffer {
  private var base: UnsafeMutablePointer<UInt8>
  private var count = 0
  private var capacity: Int

  /// An empty buffer with room for `capacity` bytes.
  init(capacity: Int) {
    self.capacity = max(capacity, 64)
    base = .allocate(capacity: self.capacity)
  }

  deinit { base.deallocate() }

  /// The bytes written, as an array.
  var array: [UInt8] { withBytes { Array($0) } }

  /// Calls `body` with the bytes written.
  func withBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
    body(UnsafeBufferPointer(start: base, count: count))
  }

  func append(_ byte: UInt8) {
    if count == capacity { grow(to: count + 1) }
    base[count] = byte
    count += 1
  }

  func append(_ bytes: UnsafeBufferPointer<UInt8>) {
    guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
    if count + bytes.count > capacity { grow(to: count + bytes.count) }
    (base + count).update(from: source, count: bytes.count)
    count += bytes.count
  }

  func append(_ text: StaticString) {
    text.withUTF8Buffer { append($0) }
  }

  /// Lets `body` write up to `maximum` bytes at the end, through the pointer it is given
  /// to room for exactly `maximum` of them, and keeps the number of bytes it returns.
  func append(atMost maximum: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int) {
    if count + maximum > capacity { grow(to: count + maximum) }
    let written = body(base + count)
    // More would have gone past the room made for them.
    precondition((0...maximum).contains(written), "wrote past the room made")
    count += written
  }

  /// Moves the bytes to a block of at least `needed` bytes (at least twice the size).
  private func grow(to needed: Int) {
    let newCapacity = max(needed, capacity * 2)
    let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
    newBase.update(from: base, count: count)
    base.deallocate()
    base = newBase
    capacity = newCapacity
  }
}
