import Glibc

/// A text stream that also takes UTF-8 bytes as they are, so that large output made as
/// bytes is not turned into a `String` only to be turned back into bytes.
protocol ByteOutputStream: TextOutputStream {
  /// Appends `bytes`, which are UTF-8 text.
  mutating func write(bytes: [UInt8])
}

extension String: ByteOutputStream {
  mutating func write(bytes: [UInt8]) {
    self += String(decoding: bytes, as: UTF8.self)
  }
}

/// A text stream over a file descriptor, written with `write(2)`.
///
/// Output is buffered up to ``capacity`` bytes (0: every write goes out at once). When
/// the reader has gone away (`EPIPE`, e.g. `Demo | head -1`; `SIGPIPE` is ignored), the
/// stream drops everything from then on and sets ``isBroken``, so the command can stop
/// quietly instead of dying mid-line or printing a backtrace.
struct FileDescriptorStream: ByteOutputStream {
  /// The descriptor written to.
  let descriptor: Int32
  /// How many bytes are kept before they are written.
  let capacity: Int
  /// Whether a write failed (the reader closed the pipe, the disk is full…).
  private(set) var isBroken = false
  private var buffer: [UInt8] = []

  /// Standard output, buffered.
  static func standardOutput() -> FileDescriptorStream {
    FileDescriptorStream(descriptor: 1, capacity: 64 * 1024)
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
  init(descriptor: Int32, capacity: Int) {
    self.descriptor = descriptor
    self.capacity = capacity
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

  /// Writes out everything buffered, retrying short writes and `EINTR`.
  mutating func flush() {
    writeOut(buffer)
    buffer.removeAll(keepingCapacity: true)
  }

  /// Writes all of `bytes`, retrying short writes and `EINTR`; sets ``isBroken`` when
  /// that fails.
  private mutating func writeOut(_ bytes: [UInt8]) {
    guard !isBroken else { return }
    var written = 0
    while written < bytes.count {
      let result = bytes[written...].withUnsafeBytes { bytes in
        Glibc.write(descriptor, bytes.baseAddress, bytes.count)
      }
      if result > 0 {
        written += result
      } else if result < 0, errno == EINTR {
        continue
      } else {
        isBroken = true
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

  /// The width in columns of the terminal on `descriptor`: `TIOCGWINSZ`, else the
  /// `COLUMNS` variable, else 80.
  static func columns(of descriptor: Int32) -> Int {
    var size = winsize()
    if ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 {
      return Int(size.ws_col)
    }
    if let text = getenv("COLUMNS"), let value = Int(String(cString: text)), value > 0 {
      return value
    }
    return 80
  }
}
