import FoundationEssentials
import Glibc
import GroupEnumeratorCore

/// The replay file, as read: its header checked against the key, its standard error
/// read; its output read when ``checkOutput()`` is asked for.
///
/// Layout: ``ListingReplay/magic``, the header's numbers, the key, the output, standard
/// error. A file that is not regular (a FIFO, a folder: opened without blocking), a
/// symbolic link (never followed), too short or too long for its header, of another
/// version or key, or whose checksums fail, is no replay file.
final class StoredListing {
  let descriptor: Int32
  let status: Int32
  let errors: String
  let fingerprint: TreeFingerprint
  let outputOffset: Int
  let outputLength: Int
  let checksum: OutputChecksum
  /// The file's size and times when it was opened: a write into it since changes them.
  private let stateWhenOpened: FileState

  /// Opens and checks the replay file at `path` for `key`; `nil` when it is missing, of
  /// another key, or damaged.
  init?(path: String, key: [UInt8]) {
    var opened: Int32
    repeat {
      opened = DescriptorReserve.admit(
        open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY))
    } while opened < 0 && errno == EINTR
    guard opened >= 0 else { return nil }
    descriptor = opened
    var fileStatus = stat()
    let headerLength = ListingReplay.headerLength
    var header = [UInt8](repeating: 0, count: headerLength)
    guard fstat(opened, &fileStatus) == 0, fileStatus.st_mode & S_IFMT == S_IFREG,
      fileStatus.st_size >= headerLength,
      StoredListing.read(opened, into: &header, at: 0),
      header.starts(with: ListingReplay.magic)
    else {
      _ = Glibc.close(opened)
      return nil
    }
    func number(_ index: Int) -> UInt64 {
      var value: UInt64 = 0
      for byte in 0..<8 {
        value |= UInt64(header[ListingReplay.magic.count + index * 8 + byte]) << (8 * byte)
      }
      return value
    }
    let keyLength = number(1)
    let outputLength = number(2)
    let errorsLength = number(3)
    guard keyLength == UInt64(key.count), outputLength <= UInt64(ListingReplay.maximumOutput),
      errorsLength <= UInt64(ListingReplay.maximumErrors),
      let status = Int32(exactly: Int64(bitPattern: number(0))),
      UInt64(headerLength) + keyLength + outputLength + errorsLength
        == UInt64(fileStatus.st_size)
    else {
      _ = Glibc.close(opened)
      return nil
    }
    var stored = [UInt8](repeating: 0, count: key.count)
    var errors = [UInt8](repeating: 0, count: Int(errorsLength))
    let errorsOffset = headerLength + key.count + Int(outputLength)
    var headerChecksum = OutputChecksum()
    guard StoredListing.read(opened, into: &stored, at: headerLength), stored == key,
      StoredListing.read(opened, into: &errors, at: errorsOffset),
      let text = String(validating: errors, as: UTF8.self)
    else {
      _ = Glibc.close(opened)
      return nil
    }
    let covered = Array(header.prefix(headerLength - 16)) + key + errors
    covered.withUnsafeBytes { headerChecksum.add(whole: $0) }
    guard headerChecksum.first == number(9), headerChecksum.second == number(10) else {
      _ = Glibc.close(opened)
      return nil
    }
    self.status = status
    self.errors = text
    fingerprint = TreeFingerprint(first: number(5), second: number(6), entries: number(4))
    outputOffset = headerLength + key.count
    self.outputLength = Int(outputLength)
    checksum = OutputChecksum(first: number(7), second: number(8))
    stateWhenOpened = FileState(fileStatus)
  }

  func close() { _ = Glibc.close(descriptor) }

  /// Reads the output in chunks and checks its checksum; `false` when it fails.
  func checkOutput() -> Bool {
    Self.outputMatches(
      descriptor, offset: outputOffset, length: outputLength, checksum: checksum)
  }

  /// Starts ``checkOutput()`` on a thread of its own, through a descriptor of its own (so
  /// that this file may be closed meanwhile), while the caller walks the tree; `nil` when
  /// no descriptor is left. Nothing of the output is kept: it is sent from the file once
  /// the tree matched (``ByteOutputStream/send(from:offset:length:)``).
  func checkOutputAhead() -> ThreadResult<Bool>? {
    let copy = DescriptorReserve.admit(fcntl(descriptor, F_DUPFD_CLOEXEC, 0))
    guard copy >= 0 else { return nil }
    let offset = outputOffset
    let length = outputLength
    let checksum = checksum
    return ThreadResult {
      defer { _ = Glibc.close(copy) }
      return StoredListing.outputMatches(copy, offset: offset, length: length, checksum: checksum)
    }
  }

  /// Whether the `length` bytes at `offset` of `descriptor`, read in chunks, match
  /// `checksum`.
  private static func outputMatches(
    _ descriptor: Int32, offset: Int, length: Int, checksum: OutputChecksum
  ) -> Bool {
    var computed = OutputChecksum()
    let complete = chunks(of: descriptor, offset: offset, length: length) { chunk in
      computed.add(whole: chunk)
      return true
    }
    return complete && computed == checksum
  }

  /// Whether the file still has the size and times it had when it was opened: a write
  /// into it (the file is replaced, never written in place, so another program's) changes
  /// its modification and change times, which no program sets back.
  var isUnchanged: Bool {
    var status = stat()
    return fstat(descriptor, &status) == 0 && FileState(status) == stateWhenOpened
  }

  /// Writes the output to `stream`: sent from the file by the kernel where the stream can
  /// (standard output), else read and written in chunks; `false` when the file changed
  /// since it was opened, or came short. A stream that stopped (a closed pipe, a signal)
  /// is the caller's to report.
  func writeOutput(to stream: inout some ByteOutputStream) -> Bool {
    guard
      let sent = stream.send(from: descriptor, offset: outputOffset, length: outputLength)
    else { return copyOutput(to: &stream) }
    let stopped = stream.isBroken || OutputGate.standardOutput.isClosed
    return stopped || (sent == outputLength && isUnchanged)
  }

  /// Writes the output to `stream` in chunks, checking it again; `false` when it could not
  /// be read or no longer matches its checksum.
  private func copyOutput(to stream: inout some ByteOutputStream) -> Bool {
    var computed = OutputChecksum()
    var stopped = false
    let complete = chunks { chunk in
      computed.add(whole: chunk)
      stream.write(contentsOf: chunk.assumingMemoryBound(to: UInt8.self))
      stopped = stream.isBroken || OutputGate.standardOutput.isClosed
      return !stopped
    }
    // Output that stopped (a closed pipe, a signal) is the caller's to report.
    return stopped || (complete && computed == checksum)
  }

  /// Calls `body` with the output in chunks of a multiple of the checksum's block size,
  /// until it returns `false`; `false` when a read failed or came short.
  private func chunks(_ body: (UnsafeRawBufferPointer) -> Bool) -> Bool {
    Self.chunks(of: descriptor, offset: outputOffset, length: outputLength, body)
  }

  /// Calls `body` with the `length` bytes at `offset` of `descriptor` in chunks of a
  /// multiple of the checksum's block size (one buffer of 1 MiB, reused), until it returns
  /// `false`; `false` when a read failed or came short.
  private static func chunks(
    of descriptor: Int32, offset start: Int, length: Int,
    _ body: (UnsafeRawBufferPointer) -> Bool
  ) -> Bool {
    let size = 16 * OutputChecksum.blockSize
    var chunk = [UInt8](repeating: 0, count: min(size, length))
    var offset = 0
    while offset < length {
      let count = min(size, length - offset)
      guard read(descriptor, into: &chunk, count: count, at: start + offset) else { return false }
      let goOn = chunk.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
      offset += count
      guard goOn else { return true }
    }
    return true
  }

  /// Reads `count` bytes (all of `buffer` by default) at `offset`, retrying short reads
  /// and `EINTR`; `false` when the file ends first or a read fails.
  static func read(
    _ descriptor: Int32, into buffer: inout [UInt8], count: Int? = nil, at offset: Int
  ) -> Bool {
    let wanted = count ?? buffer.count
    var done = 0
    while done < wanted {
      let got = buffer.withUnsafeMutableBytes { bytes -> Int in
        guard let base = bytes.baseAddress else { return -1 }
        return pread(descriptor, base + done, wanted - done, off_t(offset + done))
      }
      if got > 0 {
        done += got
      } else if got < 0, errno == EINTR {
        continue
      } else {
        return false
      }
    }
    return true
  }
}

/// A file's size and modification and change times, to tell whether it was written.
private struct FileState: Equatable {
  let size: Int64
  let modified: Int64
  let changed: Int64

  init(_ status: stat) {
    size = Int64(status.st_size)
    modified = Int64(status.st_mtim.tv_sec) &* 1_000_000_000 &+ Int64(status.st_mtim.tv_nsec)
    changed = Int64(status.st_ctim.tv_sec) &* 1_000_000_000 &+ Int64(status.st_ctim.tv_nsec)
  }
}

/// A replay file being written while the listing runs: created unnamed in the index's
/// folder (`O_TMPFILE`, mode 0600; a named temporary file where the file system has no
/// unnamed ones), filled with the output as it is written, and named `F-listing` by
/// `rename` once the listing ended normally, so that a reader never sees half a file and
/// two runs at once leave one whole file or the other. Any failure (a full disk, a
/// read-only folder, an output past ``ListingReplay/maximumOutput``) drops the recording
/// quietly: the listing itself is complete either way.
struct ListingRecording: Sendable {
  let path: String
  let key: [UInt8]
  let fingerprint: TreeFingerprint
  private var descriptor: Int32
  private var temporaryName: String?
  private var buffer: [UInt8] = []
  private var checksum = OutputChecksum()
  private var length = 0
  private var failed = false

  /// How much output is kept before it is checksummed and written.
  static let flushSize = 16 * OutputChecksum.blockSize

  init?(path: String, key: [UInt8], fingerprint: TreeFingerprint) {
    self.path = path
    self.key = key
    self.fingerprint = fingerprint
    let folderPath = PathText.parent(of: path)
    let folder = folderPath.isEmpty ? "." : folderPath
    // `O_TMPFILE` is a macro of two flags that Swift does not import as one.
    var opened = DescriptorReserve.admit(
      open(folder, __O_TMPFILE | O_DIRECTORY | O_WRONLY | O_CLOEXEC, 0o600))
    if opened < 0 {
      var template = Array((path + ".XXXXXX").utf8CString)
      opened = mkstemp(&template)
      guard opened >= 0 else { return nil }
      _ = fcntl(opened, F_SETFD, FD_CLOEXEC)
      temporaryName = String(
        decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
    descriptor = opened
    let placeholder = [UInt8](repeating: 0, count: ListingReplay.headerLength) + key
    if !write(placeholder) {
      abandon()
      return nil
    }
  }

  /// Adds output bytes.
  mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
    guard !failed else { return }
    guard length + bytes.count <= ListingReplay.maximumOutput else { return abandon() }
    length += bytes.count
    buffer.append(contentsOf: bytes)
    if buffer.count >= ListingRecording.flushSize { writeBlocks(all: false) }
  }

  /// Checksums and writes the buffered blocks: the whole ones, or with `all` the rest too.
  private mutating func writeBlocks(all: Bool) {
    let count =
      all ? buffer.count : buffer.count - buffer.count % OutputChecksum.blockSize
    guard count > 0 || (all && length == 0) else { return }
    buffer.withUnsafeBytes { checksum.add(whole: UnsafeRawBufferPointer(rebasing: $0[..<count])) }
    if !write(buffer[..<count]) { return abandon() }
    buffer.removeFirst(count)
  }

  /// Writes `bytes` at the end of the file; `false` on a failure.
  private func write(_ bytes: some Collection<UInt8>) -> Bool {
    let array = Array(bytes)
    var done = 0
    while done < array.count {
      let result = array.withUnsafeBytes { bytes -> Int in
        guard let base = bytes.baseAddress else { return -1 }
        return Glibc.write(descriptor, base + done, bytes.count - done)
      }
      if result > 0 {
        done += result
      } else if result < 0, errno == EINTR {
        continue
      } else {
        return false
      }
    }
    return true
  }

  /// Completes the file with the header and `errors` (what the run printed on standard
  /// error besides progress) and puts it in place; with `keep` false, drops it.
  mutating func finish(status: Int32, errors: String, keep: Bool) {
    guard keep, !failed else { return abandon() }
    writeBlocks(all: true)
    let errorBytes = Array(errors.utf8)
    guard !failed, errorBytes.count <= ListingReplay.maximumErrors, write(errorBytes) else {
      return abandon()
    }
    var numbers: [UInt64] = [
      UInt64(bitPattern: Int64(status)), UInt64(key.count), UInt64(length),
      UInt64(errorBytes.count), fingerprint.entries, fingerprint.first, fingerprint.second,
      checksum.first, checksum.second,
    ]
    var header = ListingReplay.magic
    for number in numbers { withUnsafeBytes(of: number.littleEndian) { header += $0 } }
    var headerChecksum = OutputChecksum()
    (header + key + errorBytes).withUnsafeBytes { headerChecksum.add(whole: $0) }
    numbers = [headerChecksum.first, headerChecksum.second]
    for number in numbers { withUnsafeBytes(of: number.littleEndian) { header += $0 } }
    let written = header.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
    guard written == header.count, !ListingRecording.holdsDatabase(path) else {
      return abandon()
    }
    if let temporaryName {
      if rename(temporaryName, path) != 0 { unlink(temporaryName) }
    } else {
      // An unnamed file gets a name beside the target through its /proc link (linkat with
      // AT_EMPTY_PATH needs a capability), then takes the target's name at once.
      let named = path + ".\(getpid()).new"
      unlink(named)
      if linkat(AT_FDCWD, "/proc/self/fd/\(descriptor)", AT_FDCWD, named, AT_SYMLINK_FOLLOW) == 0,
        rename(named, path) != 0
      {
        unlink(named)
      }
    }
    _ = close(descriptor)
    failed = true
  }

  /// Whether the file at `path` is an SQLite database (an index named like a replay
  /// file, say `--index photos-listing` beside `--index photos`): it is never replaced.
  /// Anything else there that is not a replay file of ours (damaged, foreign, a FIFO, a
  /// link) is replaced, as it would be ignored.
  static func holdsDatabase(_ path: String) -> Bool {
    let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
    guard descriptor >= 0 else { return false }
    defer { _ = close(descriptor) }
    var status = stat()
    guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
      return false
    }
    let signature = Array("SQLite format 3\0".utf8)
    var first = [UInt8](repeating: 0, count: signature.count)
    return StoredListing.read(descriptor, into: &first, at: 0) && first == signature
  }

  /// Drops the recording: the file is closed and, when it has a name, removed.
  mutating func abandon() {
    guard !failed else { return }
    failed = true
    buffer = []
    _ = close(descriptor)
    if let temporaryName { unlink(temporaryName) }
  }
}

/// A stream that writes through to `base` and records what it writes.
struct RecordingStream<Base: ByteOutputStream>: ByteOutputStream {
  var base: Base
  var recording: ListingRecording

  var isBroken: Bool { base.isBroken }

  mutating func write(_ string: String) {
    base.write(string)
    var string = string
    string.withUTF8 { recording.append($0) }
  }

  mutating func write(bytes: [UInt8]) {
    base.write(bytes: bytes)
    bytes.withUnsafeBufferPointer { recording.append($0) }
  }

  mutating func write(contentsOf bytes: UnsafeBufferPointer<UInt8>) {
    base.write(contentsOf: bytes)
    recording.append(bytes)
  }

  mutating func flush() { base.flush() }
}
