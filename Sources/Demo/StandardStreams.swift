import Glibc
import Synchronization

/// A text stream that also takes UTF-8 bytes as they are, so that large output made as
/// bytes is not turned into a `String` only to be turned back into bytes.
///
/// Streams are `Sendable` so that the listing can write from the worker that delivers
/// the assets.
protocol ByteOutputStream: TextOutputStream, Sendable {
  /// Appends `bytes`, which are UTF-8 text.
  mutating func write(bytes: [UInt8])
  /// Whether a write failed, so that writing more is pointless.
  var isBroken: Bool { get }
  /// Writes out what is buffered now (`Demo watch` writes each line at once).
  mutating func flush()
  /// Appends `bytes`, which are UTF-8 text, without an array made for them.
  mutating func write(contentsOf bytes: UnsafeBufferPointer<UInt8>)
  /// Appends the `length` bytes at `offset` of the file open as `source`, which are UTF-8
  /// text, copied by the kernel; how many went out (fewer when a write failed, the output
  /// was closed, or the file ended first), or `nil` when this stream cannot (nothing was
  /// written: the caller reads and writes the bytes itself).
  mutating func send(from source: Int32, offset: Int, length: Int) -> Int?
}

extension ByteOutputStream {
  var isBroken: Bool { false }
  mutating func flush() {}
  mutating func write(contentsOf bytes: UnsafeBufferPointer<UInt8>) { write(bytes: Array(bytes)) }
  mutating func send(from source: Int32, offset: Int, length: Int) -> Int? { nil }
}

extension String: ByteOutputStream {
  mutating func write(bytes: [UInt8]) {
    self += String(decoding: bytes, as: UTF8.self)
  }
}

/// Closed once, by a signal: from then on standard output writes nothing more.
///
/// A write already inside `write(2)` when the gate closes finishes (at most one chunk of
/// ``FileDescriptorStream/capacity`` bytes); no later one starts.
final class OutputGate: Sendable {
  /// The gate of standard output.
  static let standardOutput = OutputGate()

  private let closed = Atomic<Bool>(false)

  /// Whether the gate is closed.
  var isClosed: Bool { closed.load(ordering: .acquiring) }

  /// Closes the gate for good.
  func close() { closed.store(true, ordering: .releasing) }
}

/// A text stream over a file descriptor, written with `write(2)`.
///
/// Output is buffered up to ``capacity`` bytes (0: every write goes out at once). When a
/// write fails the stream drops everything from then on and keeps the `errno` in
/// ``failure``: `EPIPE` (the reader went away, e.g. `Demo | head -1`; `SIGPIPE` is
/// ignored) ends the command quietly with 141, any other error (a full disk, `/dev/full`)
/// with a message and 74. When its ``gate`` closes (Ctrl-C) it writes nothing more.
struct FileDescriptorStream: ByteOutputStream {
  /// The descriptor written to.
  let descriptor: Int32
  /// How many bytes are kept before they are written.
  let capacity: Int
  /// When closed, nothing more is written.
  let gate: OutputGate?
  /// The `errno` of the write that failed, if one did.
  private(set) var failure: Int32?
  /// Whether a write failed (the reader closed the pipe, the disk is full…).
  var isBroken: Bool { failure != nil }
  private var buffer: [UInt8] = []
  /// Called once before the first byte goes out (to erase a progress bar on the same
  /// terminal).
  private var beforeFirstWrite: (@Sendable () -> Void)?

  /// Standard output, buffered, behind ``OutputGate/standardOutput``.
  ///
  /// - Parameter beforeFirstWrite: Called once before the first byte is written.
  static func standardOutput(
    beforeFirstWrite: (@Sendable () -> Void)? = nil
  ) -> FileDescriptorStream {
    var stream = FileDescriptorStream(
      descriptor: 1, capacity: 64 * 1024, gate: OutputGate.standardOutput)
    stream.beforeFirstWrite = beforeFirstWrite
    return stream
  }

  /// Standard error, unbuffered.
  static func standardError() -> FileDescriptorStream {
    FileDescriptorStream(descriptor: 2, capacity: 0)
  }

  /// Creates a stream.
  ///
  /// - Parameters:
  ///   - descriptor: An open descriptor; the stream never closes it.
  ///   - capacity: The buffer size in bytes.
  ///   - gate: When closed, nothing more is written.
  init(descriptor: Int32, capacity: Int, gate: OutputGate? = nil) {
    self.descriptor = descriptor
    self.capacity = capacity
    self.gate = gate
  }

  /// Appends `string`, writing out the buffer when it is full.
  mutating func write(_ string: String) {
    guard !isBroken else { return }
    buffer.append(contentsOf: string.utf8)
    if buffer.count > capacity { flush() }
  }

  /// Appends `bytes`; a run larger than the buffer is written out directly, after what
  /// was buffered before it.
  mutating func write(bytes: [UInt8]) {
    guard !isBroken else { return }
    guard buffer.count + bytes.count > capacity else {
      buffer.append(contentsOf: bytes)
      return
    }
    flush()
    writeOut(bytes)
  }

  /// Appends `bytes` as ``write(bytes:)`` does, copied once, into the buffer: a run that
  /// fits in the emptied buffer (one listed asset) is kept there after the flush, not
  /// written out on its own.
  mutating func write(contentsOf bytes: UnsafeBufferPointer<UInt8>) {
    guard !isBroken else { return }
    guard buffer.count + bytes.count > capacity else {
      buffer.append(contentsOf: bytes)
      return
    }
    flush()
    guard bytes.count > capacity else {
      buffer.append(contentsOf: bytes)
      return
    }
    writeOut(UnsafeRawBufferPointer(bytes))
  }

  /// Writes out what is buffered, then sends the `length` bytes at `offset` of `source`
  /// with `sendfile` (a replayed listing of many megabytes never passes through this
  /// process), ``capacity`` bytes at a time so that a closed ``gate`` stops it as it stops
  /// a write; retries `EINTR`, and sets ``failure`` as a write does. `nil` when the kernel
  /// cannot send to this descriptor (`EINVAL`, `ENOSYS` before the first byte).
  mutating func send(from source: Int32, offset: Int, length: Int) -> Int? {
    flush()
    guard !isBroken else { return 0 }
    if length > 0, let beforeFirstWrite {
      self.beforeFirstWrite = nil
      beforeFirstWrite()
    }
    var sent = 0
    while sent < length {
      if gate?.isClosed == true { break }
      var position = off_t(offset + sent)
      let chunk = min(max(capacity, 1 << 16), length - sent)
      let result = sendfile(descriptor, source, &position, chunk)
      if result > 0 {
        sent += result
      } else if result == 0 {
        break
      } else if errno == EINTR {
        continue
      } else if sent == 0, errno == EINVAL || errno == ENOSYS {
        return nil
      } else {
        failure = errno
        break
      }
    }
    return sent
  }

  /// Writes out everything buffered, retrying short writes and `EINTR`.
  mutating func flush() {
    writeOut(buffer)
    buffer.removeAll(keepingCapacity: true)
  }

  /// Writes all of `bytes`, retrying short writes and `EINTR`; sets ``failure`` when
  /// that fails.
  private mutating func writeOut(_ bytes: [UInt8]) {
    bytes.withUnsafeBytes { writeOut($0) }
  }

  /// Writes all of `bytes` from where they are (a replayed listing of many megabytes is
  /// not copied first), retrying short writes and `EINTR`; sets ``failure`` when that
  /// fails.
  private mutating func writeOut(_ bytes: UnsafeRawBufferPointer) {
    guard !isBroken, let start = bytes.baseAddress, !bytes.isEmpty else { return }
    if let beforeFirstWrite {
      self.beforeFirstWrite = nil
      beforeFirstWrite()
    }
    var written = 0
    while written < bytes.count {
      if gate?.isClosed == true { return }
      let result = Glibc.write(descriptor, start + written, bytes.count - written)
      if result > 0 {
        written += result
      } else if result < 0, errno == EINTR {
        continue
      } else {
        failure = result < 0 ? errno : EIO
        break
      }
    }
  }
}

/// Facts about the terminal the command runs in.
enum Terminal {
  /// Whether `descriptor` is a terminal. The corresponding C function is `isatty`.
  static func isTerminal(_ descriptor: Int32) -> Bool {
    isatty(descriptor) == 1
  }

  /// The widest terminal the Demo believes in; wider reports are taken as this.
  static let maximumColumns = 1000

  /// The width in columns of the terminal on `descriptor`: `TIOCGWINSZ`, else the
  /// `COLUMNS` variable, else 80; clamped to 1…``maximumColumns`` (a terminal that
  /// reports 0 columns and `COLUMNS=10000000000` must not make a 10 GB line).
  static func columns(of descriptor: Int32) -> Int {
    var size = winsize()
    if ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 {
      return clampedColumns(Int(size.ws_col))
    }
    return columns(environment: getenv("COLUMNS").map { String(cString: $0) })
  }

  /// The width `COLUMNS` gives (80 when unset or not a positive number), clamped to
  /// 1…``maximumColumns``.
  static func columns(environment value: String?) -> Int {
    guard let value, let number = Int(value), number > 0 else {
      // Digits beyond Int's range are still "very wide".
      if let value, Int(value) == nil, !value.isEmpty, value.allSatisfy(\.isASCII),
        value.allSatisfy(\.isNumber)
      {
        return maximumColumns
      }
      return 80
    }
    return clampedColumns(number)
  }

  /// The widest line `--format table` writes: `COLUMNS` when it is a positive number,
  /// else the width of the terminal standard output is, else no limit (`nil`: a table
  /// piped to a file or a program keeps whole names); clamped to 1…``maximumColumns``.
  static func tableWidth() -> Int? {
    tableWidth(
      columnsVariable: getenv("COLUMNS").map { String(cString: $0) },
      terminalColumns: isTerminal(1) ? columns(of: 1) : nil)
  }

  /// ``tableWidth()`` from the `COLUMNS` variable's value and the width of the terminal
  /// on standard output (`nil` when it is not a terminal).
  static func tableWidth(columnsVariable value: String?, terminalColumns: Int?) -> Int? {
    if let value, !value.isEmpty, value.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
      value.utf8.contains(where: { $0 != 0x30 })
    {
      return columns(environment: value)
    }
    return terminalColumns.map(clampedColumns)
  }

  /// `columns` within 1…``maximumColumns``.
  static func clampedColumns(_ columns: Int) -> Int {
    min(max(columns, 1), maximumColumns)
  }
}
