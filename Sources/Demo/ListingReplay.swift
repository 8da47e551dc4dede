import FoundationEssentials
import Glibc
import GroupEnumeratorCore

/// The listing a run with `--index F` printed, kept beside the index in `F-listing` so that
/// the next run of the same command on an unchanged library prints it again without
/// starting the library: a walk of the tree (``TreeFingerprint``) and a copy of bytes.
///
/// The file holds a header, the ``key`` (everything the output depends on besides the
/// tree), the output bytes and the lines the run printed on standard error. It is
/// replayed only when the key is equal byte for byte, the tree's fingerprint is equal,
/// and both checksums hold; anything else (no file, another command, a changed file, a
/// damaged or foreign replay file) is a normal run, which writes a new one.
struct ListingReplay {
  /// What is appended to the index's path to name the replay file.
  static let suffix = "-listing"
  /// The file's first bytes: its kind and the layout's version.
  static let magic = Array("GroupEnumerator listing replay 1\n".utf8)
  /// The header: ``magic``, then nine 64-bit little-endian numbers (exit status, key
  /// length, output length, standard error's length, entry count, the fingerprint's two
  /// halves, the output checksum's two halves), then the header checksum's two halves.
  static let headerLength = magic.count + 11 * 8
  /// The longest output recorded; a longer listing leaves no replay file.
  static let maximumOutput = 1 << 30
  /// The longest key and standard error recorded.
  static let maximumKey = 1 << 20
  static let maximumErrors = 1 << 20

  /// The replay file's path.
  let path: String
  /// Everything besides the tree that the output depends on.
  let key: [UInt8]
  /// The library root, open.
  let root: Int32

  /// The replay of `options`' listing of the library open at `root`, or `nil` when the
  /// command is not one that is replayed: a listing in `json`, `csv` or `ndjson` with
  /// `--index` and without `--statistics` (whose timings describe the library's run).
  init?(_ options: DemoOptions, root: Int32, rawArguments: [[UInt8]]) {
    guard options.command == .list, [.json, .csv, .ndjson].contains(options.format),
      let index = options.indexPath, !options.showsStatistics, root >= 0,
      let key = ListingReplay.key(arguments: rawArguments, root: root)
    else { return nil }
    path = index + ListingReplay.suffix
    self.key = key
    self.root = root
  }

  // MARK: - The key

  /// The environment variables the Demo, the library or the C libraries under them read,
  /// besides every `LC_*` and `GROUPENUMERATOR_*`.
  static let keyVariables: Set<String> = [
    "LANG", "LANGUAGE", "TZ", "COLUMNS", "HOME", "XDG_CACHE_HOME", "TMPDIR",
  ]

  /// Everything besides the tree that a listing's output depends on, as bytes: the
  /// executable (its device, inode, size and times, and the version), the arguments as
  /// typed, the working directory, the environment variables in ``keyVariables``, the
  /// time zone file, the user and groups, and the root's canonical path and identity.
  /// `nil` when one of them cannot be had.
  static func key(arguments: [[UInt8]], root: Int32) -> [UInt8]? {
    var key = KeyWriter()
    key.text("version " + groupEnumeratorVersion)
    var status = stat()
    guard stat("/proc/self/exe", &status) == 0 else { return nil }
    key.identity("executable", status)
    key.text("arguments")
    key.number(UInt64(arguments.count))
    for argument in arguments { key.bytes(argument) }
    key.text("directory")
    key.bytes(workingDirectory())
    key.text("environment")
    var variables: [[UInt8]] = []
    var entry = environ
    while let pointer = entry.pointee {
      let bytes = Array(UnsafeRawBufferPointer(start: pointer, count: strlen(pointer)))
      let name = String(decoding: bytes.prefix { $0 != UInt8(ascii: "=") }, as: UTF8.self)
      if keyVariables.contains(name) || name.hasPrefix("LC_") || name.hasPrefix("GROUPENUMERATOR_")
      {
        variables.append(bytes)
      }
      entry += 1
    }
    for variable in variables.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
      key.bytes(variable)
    }
    key.text("localtime")
    key.bytes(linkTarget("/etc/localtime"))
    if stat("/etc/localtime", &status) == 0 { key.identity("zone", status) }
    key.text("user")
    key.number(UInt64(getuid()) << 32 | UInt64(geteuid()))
    key.number(UInt64(getgid()) << 32 | UInt64(getegid()))
    var groups = [gid_t](repeating: 0, count: 256)
    let groupCount = getgroups(Int32(groups.count), &groups)
    guard groupCount >= 0 else { return nil }
    for group in groups.prefix(Int(groupCount)).sorted() { key.number(UInt64(group)) }
    guard fstat(root, &status) == 0 else { return nil }
    key.identity("root", status)
    key.bytes(linkTarget("/proc/self/fd/\(root)"))
    return key.bytes
  }

  /// The working directory's bytes, or none.
  private static func workingDirectory() -> [UInt8] {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    guard getcwd(&buffer, buffer.count) != nil else { return [] }
    return buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
  }

  /// What the symbolic link at `path` points to, or none.
  private static func linkTarget(_ path: String) -> [UInt8] {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let count = readlink(path, &buffer, buffer.count)
    guard count > 0 else { return [] }
    return buffer.prefix(count).map { UInt8(bitPattern: $0) }
  }

  // MARK: - Replaying

  /// What ``replay(to:stderr:)`` did.
  enum Outcome {
    /// The stored listing was written; the run ends with this status.
    case replayed(status: Int32)
    /// Nothing was written: the listing must run. The tree's fingerprint, when it was
    /// taken, and the latest change in it (for the recording).
    case missed(TreeFingerprint?, latestChange: Int64)
  }

  /// Writes the stored listing and its standard error when the replay file's key, the
  /// tree's fingerprint and the checksums all match; otherwise writes nothing.
  func replay(
    to stdout: inout some ByteOutputStream, stderr: inout some TextOutputStream
  ) -> Outcome {
    let stored = StoredListing(path: path, key: key)
    // The output is checked while the tree is walked: the walk mostly waits for the kernel.
    let ahead = stored?.checkOutputAhead()
    guard let walked = TreeFingerprint.take(root: root) else {
      stored?.close()
      return .missed(nil, latestChange: 0)
    }
    guard let stored else { return .missed(walked.fingerprint, latestChange: walked.latestChange) }
    defer { stored.close() }
    guard stored.fingerprint == walked.fingerprint, ahead?.value() ?? stored.checkOutput()
    else {
      return .missed(walked.fingerprint, latestChange: walked.latestChange)
    }
    if !stored.writeOutput(to: &stdout) {
      // The file changed after it was checked (it is replaced, never written in place, so
      // another program did it): what went out cannot be taken back.
      stderr.write("Error: the stored listing '\(path)' changed while it was written.\n")
      return .replayed(status: DemoCommand.failure)
    }
    stderr.write(stored.errors)
    return .replayed(status: stored.status)
  }

  // MARK: - Recording

  /// A recording of the listing about to run, or `nil` when none can be made: the tree
  /// changed too recently to trust its fingerprint, the replay file's folder is inside the
  /// library, or no file can be created there.
  func record(_ fingerprint: TreeFingerprint, latestChange: Int64) -> ListingRecording? {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    let nanoseconds = Int64(now.tv_sec) &* 1_000_000_000 &+ Int64(now.tv_nsec)
    guard nanoseconds &- latestChange >= TreeFingerprint.settlingNanoseconds,
      !isInsideLibrary
    else { return nil }
    return ListingRecording(path: path, key: key, fingerprint: fingerprint)
  }

  /// Whether the replay file's folder is the library root or beneath it (by device and
  /// inode, other names of the root included). The index beside it was accepted, which
  /// checks this too; the check is repeated because nothing may ever be written there.
  private var isInsideLibrary: Bool {
    var rootStatus = stat()
    guard fstat(root, &rootStatus) == 0 else { return true }
    let folder = PathText.parent(of: path)
    guard let resolved = realpath(folder.isEmpty ? "." : folder, nil) else { return true }
    var current = String(cString: resolved)
    free(resolved)
    while true {
      var status = stat()
      guard stat(current, &status) == 0 else { return true }
      if status.st_dev == rootStatus.st_dev, status.st_ino == rootStatus.st_ino { return true }
      let parent = PathText.parent(of: current)
      if parent == current || parent.isEmpty { return false }
      current = parent
    }
  }
}

/// Bytes of a key: each part length-prefixed, so that no two lists of parts give one key.
private struct KeyWriter {
  var bytes: [UInt8] = []

  mutating func number(_ value: UInt64) {
    withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
  }

  mutating func bytes(_ part: [UInt8]) {
    number(UInt64(part.count))
    bytes.append(contentsOf: part)
  }

  mutating func text(_ part: String) { bytes(Array(part.utf8)) }

  mutating func identity(_ label: String, _ status: stat) {
    text(label)
    number(UInt64(status.st_dev))
    number(UInt64(status.st_ino))
    number(UInt64(bitPattern: Int64(status.st_size)))
    number(UInt64(status.st_mode))
    number(UInt64(bitPattern: Int64(status.st_mtim.tv_sec)))
    number(UInt64(bitPattern: Int64(status.st_mtim.tv_nsec)))
    number(UInt64(bitPattern: Int64(status.st_ctim.tv_sec)))
    number(UInt64(bitPattern: Int64(status.st_ctim.tv_nsec)))
  }
}

/// A 128-bit checksum of a stream of bytes taken in blocks of ``blockSize`` (the last
/// may be shorter): four lanes of eight bytes at a time, folded into the running state
/// after each block. Not a defence against a forger (the file is the user's own, mode
/// 0600), a check that the bytes are the ones written.
struct OutputChecksum: Equatable {
  static let blockSize = 1 << 16
  var first: UInt64 = 0x4528_21E6_38D0_1377
  var second: UInt64 = 0xBE54_66CF_34E9_0C6C

  /// Adds one block; every block but the last must be ``blockSize`` bytes long.
  mutating func add(_ block: UnsafeRawBufferPointer) {
    var lanes: (UInt64, UInt64, UInt64, UInt64) = (first, second, ~first, ~second)
    var offset = 0
    while offset + 32 <= block.count {
      lanes.0 = Mix.word(
        block.loadUnaligned(fromByteOffset: offset, as: UInt64.self), into: lanes.0,
        key: Mix.firstKey)
      lanes.1 = Mix.word(
        block.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self), into: lanes.1,
        key: Mix.secondKey)
      lanes.2 = Mix.word(
        block.loadUnaligned(fromByteOffset: offset + 16, as: UInt64.self), into: lanes.2,
        key: Mix.firstKey)
      lanes.3 = Mix.word(
        block.loadUnaligned(fromByteOffset: offset + 24, as: UInt64.self), into: lanes.3,
        key: Mix.secondKey)
      offset += 32
    }
    let tail = UnsafeRawBufferPointer(rebasing: block[offset...])
    lanes.0 = Mix.bytes(tail, into: lanes.0, key: Mix.firstKey)
    lanes.3 = Mix.bytes(tail, into: lanes.3, key: Mix.secondKey)
    first = Mix.word(
      lanes.1, into: Mix.word(lanes.0, into: first, key: Mix.firstKey), key: Mix.firstKey)
    first = Mix.word(UInt64(block.count), into: first, key: Mix.firstKey)
    second = Mix.word(
      lanes.3, into: Mix.word(lanes.2, into: second, key: Mix.secondKey), key: Mix.secondKey)
    second = Mix.word(lanes.0, into: second, key: Mix.secondKey)
  }

  /// Adds `bytes` whole, in blocks.
  mutating func add(whole bytes: UnsafeRawBufferPointer) {
    var offset = 0
    repeat {
      let end = min(offset + OutputChecksum.blockSize, bytes.count)
      add(UnsafeRawBufferPointer(rebasing: bytes[offset..<end]))
      offset = end
    } while offset < bytes.count
  }
}
