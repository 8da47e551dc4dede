internal import CZlib

/// Inflates a zlib stream through Debian's zlib, with a hard cap on the output.
///
/// Used for PNG `zTXt` chunks and compressed `iTXt` chunks. zlib is a C library but a
/// small and heavily fuzzed one, and Debian keeps it patched; writing our own inflater
/// would add code that has seen no such testing. The cap makes it zip-bomb safe: zlib is
/// given an output buffer of `limit + 1` bytes and never writes past it, so a stream
/// that would inflate to more stops there, after at most that much work, and is
/// reported rather than returned.
enum ZlibInflater {
  /// Why a stream could not be inflated.
  enum Failure: Error, Equatable {
    /// The stream inflates to more than the limit.
    case tooLarge(limit: Int)
    /// The stream is not valid zlib data (zlib's message, when it gave one).
    case corrupt(String)
    /// The stream ends before its end marker.
    case truncated
    /// zlib could not start (out of memory, version mismatch).
    case unavailable(Int32)
  }

  /// The inflated bytes of `input`, a complete zlib stream of at most `limit` bytes
  /// when inflated. Bytes after the end of the stream are ignored.
  static func inflate(_ input: [UInt8], limit: Int) throws(Failure) -> [UInt8] {
    let capacity = max(0, limit) + 1
    var output = [UInt8](repeating: 0, count: capacity)
    // zlib keeps a pointer back to the stream and checks it on every call, so the stream
    // lives at one fixed address, allocated here, rather than in a Swift variable.
    let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
    stream.initialize(to: z_stream())
    defer {
      stream.deinitialize(count: 1)
      stream.deallocate()
    }
    let status = CZlib_inflateInit(stream)
    guard status == Z_OK else { throw .unavailable(status) }
    defer { inflateEnd(stream) }
    var input = input
    let result: (status: Int32, produced: Int, message: String?) =
      input.withUnsafeMutableBufferPointer { inputBuffer in
        output.withUnsafeMutableBufferPointer { outputBuffer in
          stream.pointee.next_in = inputBuffer.baseAddress
          stream.pointee.avail_in = uInt(clamping: inputBuffer.count)
          stream.pointee.next_out = outputBuffer.baseAddress
          stream.pointee.avail_out = uInt(clamping: outputBuffer.count)
          let status = CZlib.inflate(stream, Z_FINISH)
          let produced = outputBuffer.count - Int(stream.pointee.avail_out)
          let message = stream.pointee.msg.map { String(cString: $0) }
          stream.pointee.next_in = nil
          stream.pointee.next_out = nil
          return (status, produced, message)
        }
      }
    if result.produced > limit { throw .tooLarge(limit: limit) }
    switch result.status {
    case Z_STREAM_END: return Array(output.prefix(result.produced))
    case Z_OK, Z_BUF_ERROR: throw .truncated
    default: throw .corrupt(result.message ?? "zlib error \(result.status)")
    }
  }
}
