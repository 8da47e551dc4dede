import FoundationEssentials
import Glibc
import Synchronization

/// A whole enumeration kept beside the index, in `INDEX-contents` (one per filter: see
/// ``path(index:filter:)``), and handed back by the next
/// ``AssetsLibrary/enumerate(filter:progress:)`` of a library that reads as it read then:
/// the index's second run without its walk, plan and lookups.
///
/// The library "reads as it read" when the tree's fingerprint (``TreeFingerprint``: every
/// entry's path, type, owner, size, inode and times, on four threads) is the one stored,
/// and so is the ``key(index:)``: everything else the enumeration depends on (this build,
/// the user, the time zone, the root, the options, the filter, the index file). Before
/// the fingerprint (or while it is taken, when contents are kept: a changed folder stops
/// it), the stored folders' own times are compared, one `fstatat` each: a
/// photo added, removed or renamed changes its folder, so most changed libraries are told
/// in well under a millisecond, and only a file rewritten in place costs a fingerprint.
///
/// The contents are kept under a fingerprint taken **before** the enumeration read
/// anything (``Before``), as the Demo's replay does: a change during or after it gives
/// another fingerprint next time, whatever the clocks of the machine and of a network
/// share say. The fingerprint is taken when the library may well read as it did at the
/// end of the last enumeration (see ``replay()``), so a library that changes before every
/// run does not pay for it every time: such a run leaves its folders' times instead, and
/// the next run, if they are unchanged, takes the fingerprint and leaves a snapshot.
/// Contents are kept only after an enumeration with no warning, nothing in it that
/// depends on the day (``AssetProblem/isPassing``, ``AssetProblem/dependsOnToday``), and
/// a fingerprint taken while the tree was settled.
///
/// The file: ``magic``, then the key, the folders, and either whether the last
/// enumeration read no file, or the fingerprint and the contents in ``StoredResult``'s
/// form (each asset its stored row, with its path, group and sidecars beside it), then a
/// 64-bit checksum of everything before it. Anything unexpected (a damaged, foreign or old file) is no snapshot: the
/// enumeration runs as without one. It is written to a new file that replaces the old
/// one, never in place, and never inside the library.
struct ContentsSnapshot: Sendable {
  /// What is appended to the index's path to name the snapshot file.
  static let suffix = "-contents"
  /// The file's first bytes: its kind and the layout's version.
  static let magic = Array("GroupEnumerator contents 1\n".utf8)
  /// The largest snapshot read or written (about 3,000 times the assets of a library of
  /// 100,000 files).
  static let maximumSize = 1 << 30

  /// The snapshot file's path.
  let path: String
  /// The index file's path.
  let indexPath: String
  /// The library's root, open.
  let root: LibraryRoot
  /// The enumeration's options and filter (part of the key).
  let options: LibraryOptions
  let filter: AssetFilter

  /// The snapshot of `library`'s enumerations through `filter`, or `nil` when it keeps
  /// none: no index, an index kept quietly (whose warnings are not seen), a root that
  /// cannot be opened (the enumeration reports it), an index location that cannot be
  /// used or one inside the library.
  init?(library: AssetsLibrary, filter: AssetFilter) {
    options = library.options
    guard !options.keepsIndexQuietly, options.index != .none,
      let root = try? LibraryRoot(
        path: library.rootPath, verifiesFileEnds: options.verifiesFileEnds)
    else { return nil }
    switch options.index {
    case .none: return nil
    case .file(let url): indexPath = url.path
    case .userCache:
      guard
        case .success(let url) = IndexStore.userCacheFile(
          for: root, environment: IndexLocation.environment)
      else { return nil }
      indexPath = url.path
    }
    path = Self.path(index: indexPath, filter: filter)
    // An index inside the library is refused (with a warning) at every run: no snapshot
    // is written there, so none is looked for (nor a fingerprint taken for one).
    guard let rootStatus = try? root.descriptor.status(),
      IndexStore.libraryFolder(
        holding: URL(fileURLWithPath: path), root: rootStatus.identity, rootPath: root.path)
        == nil
    else { return nil }
    self.root = root
    self.filter = filter
  }

  /// The snapshot file of the enumerations through `filter` beside the index at
  /// `index`: `INDEX-contents`, or `INDEX-contents-photos` and `-videos`, so that a
  /// program that lists through several filters keeps one of each rather than replacing
  /// one snapshot at every call.
  static func path(index: String, filter: AssetFilter) -> String {
    index + suffix + (filter == .all ? "" : "-" + filter.rawValue)
  }

  // MARK: - Replaying

  /// The tree's fingerprint taken before an enumeration read anything: what a snapshot of
  /// that enumeration is kept under, so that any change to the tree during or after the
  /// enumeration is a different fingerprint next time (whatever the clocks say).
  struct Before: Sendable {
    var fingerprint: TreeFingerprint
    /// Whether no entry had changed within ``TreeFingerprint/settlingNanoseconds`` of it: a
    /// file written twice within one tick of the file system's clock keeps its times, so
    /// a fingerprint taken between the two writes would match the second.
    var isSettled: Bool
    /// Whether there was no snapshot for this key yet (no file, a damaged one, one made
    /// for another key): then the enumeration keeps one even when it read some files (a
    /// first run through another filter reads the files that one did not need), where
    /// after a comparison it keeps one only when it read every file or none.
    var isFirst: Bool
  }

  /// What ``replay()`` found.
  enum Outcome: Sendable {
    /// The stored enumeration: the library reads as it did.
    case contents(AssetsLibrary.Contents)
    /// None: the enumeration must run. The fingerprint taken before it, when one was
    /// (for the snapshot it leaves).
    case missed(Before?)
  }

  /// The stored enumeration, when the snapshot file holds one for this key and the tree
  /// reads as it did; otherwise, the tree's fingerprint when the library may well read as
  /// at the end of the last enumeration (so that this one leaves a snapshot). Nothing is
  /// written.
  ///
  /// The fingerprint is taken (about `stat-floor`'s cost) when: there is no index or no
  /// snapshot yet, or the key differs (another build, the index written by another call,
  /// other options); the stored folders are unchanged and the last enumeration left only
  /// their times after reading no file; or the snapshot holds contents, to compare. It is
  /// not taken when a stored folder changed (such an enumeration reads new files or drops
  /// rows, and leaves its folders' times), nor after an enumeration that read files
  /// while its folders stayed the same (a file rewritten in place, perhaps again).
  func replay() -> Outcome {
    let started = ContinuousClock.now
    guard let index = try? FileSystem.statusRecord(atPath: indexPath), let key = key(index: index),
      let (head, size) = FileSystem.ownFile(
        atPath: path, maximumSize: Self.maximumSize, prefix: Self.headSize)
    else { return .missed(before(isFirst: true)) }
    // The head first: a changed folder is told without reading the contents.
    var found = head.withUnsafeBufferPointer { readHead($0, key: key) }
    var whole: [UInt8]? = head.count == size ? head : nil
    if case .malformed = found, whole == nil {
      whole = FileSystem.ownFile(atPath: path, maximumSize: Self.maximumSize)
      found =
        whole.map { bytes in bytes.withUnsafeBufferPointer { readHead($0, key: key) } }
        ?? .malformed
    }
    let stored: TreeFingerprint
    let unchecked: [StoredFolder]
    // Where the contents start in `whole`, when its head was the one read above.
    var contentsOffset: Int?
    switch found {
    case .malformed, .otherKey: return .missed(before(isFirst: true))
    case .foldersOnly(mayTakeFingerprint: true): return .missed(before(isFirst: false))
    case .foldersChanged, .foldersOnly(mayTakeFingerprint: false): return .missed(nil)
    case .contents(let fingerprint, let offset, let folders):
      stored = fingerprint
      unchecked = folders
      if whole != nil { contentsOffset = offset }
    }
    // The tree is walked at once, while the stored folders are compared here (a changed
    // folder abandons the walk: the library changed, and no fingerprint is needed); a
    // small snapshot's contents are read and decoded meanwhile too, and thrown away if
    // the tree changed (at most ``earlySize`` bytes read for nothing). The walk mostly
    // waits for the disk and the kernel.
    let abandon = Abandon()
    let isAbandoned = { @Sendable in abandon.flag.load(ordering: .relaxed) }
    let walking = ThreadResult { [self] in before(isFirst: false, isAbandoned: isAbandoned) }
    let early =
      size <= Self.earlySize
      ? ThreadResult { [self, whole, contentsOffset] () -> Body? in
        guard let whole, let contentsOffset else {
          return readBody(key: key, stored: stored, isAbandoned: isAbandoned)
        }
        return Self.body(of: whole, contentsOffset: contentsOffset, isAbandoned: isAbandoned)
      } : nil
    guard foldersUnchanged(unchecked) else {
      abandon.flag.store(true, ordering: .relaxed)
      return .missed(nil)
    }
    guard let walked = walking.value() else { return .missed(nil) }
    guard walked.fingerprint == stored else { return .missed(walked) }
    let walkedAt = ContinuousClock.now
    let body: Body?
    if let early {
      body = early.value()
    } else {
      body = readBody(key: key, stored: stored)
    }
    guard let body else { return .missed(walked) }
    let statistics = EnumerationStatistics(
      walk: walkedAt - started, metadata: ContinuousClock.now - walkedAt, delivery: .zero,
      filesRead: 0, filesFromIndex: body.files, mainActorHops: 1)
    return .contents(
      AssetsLibrary.Contents(
        groups: body.groups, assets: body.assets, otherFiles: body.otherFiles,
        folderProblems: body.folderProblems, statistics: statistics, warnings: []))
  }

  /// The contents of the snapshot file read whole now, when its head still says what it
  /// said (it may have been replaced since the head was read): this key, contents kept
  /// under `stored` (which the tree's fingerprint, folders included, matched).
  private func readBody(
    key: [UInt8], stored: TreeFingerprint, isAbandoned: (@Sendable () -> Bool)? = nil
  ) -> Body? {
    guard isAbandoned?() != true,
      let bytes = FileSystem.ownFile(atPath: path, maximumSize: Self.maximumSize),
      let offset = bytes.withUnsafeBufferPointer({
        headContentsOffset($0, key: key, stored: stored)
      })
    else { return nil }
    return Self.body(of: bytes, contentsOffset: offset, isAbandoned: isAbandoned)
  }

  /// The contents of a whole snapshot file whose contents start at `contentsOffset`, when
  /// its checksum holds and they decode to the end.
  ///
  /// `isAbandoned`, when given, is asked before each chunk of assets: once it says yes,
  /// nothing more is decoded and the result is `nil`.
  private static func body(
    of bytes: [UInt8], contentsOffset offset: Int, isAbandoned: (@Sendable () -> Bool)? = nil
  ) -> Body? {
    bytes.withUnsafeBufferPointer { buffer -> Body? in
      guard buffer.count > Self.magic.count + 8, let fileStart = buffer.baseAddress,
        Self.checksum(
          UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[..<(buffer.count - 8)]))
          == UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: buffer[(buffer.count - 8)...]))
          .loadUnaligned(as: UInt64.self).littleEndian,
        offset <= buffer.count - 8
      else { return nil }
      var reader = StoredResult.Reader(
        bytes: UnsafeBufferPointer(rebasing: buffer[offset..<(buffer.count - 8)]))
      guard
        let body = Self.decodeContents(
          &reader, file: bytes, fileStart: fileStart, isAbandoned: isAbandoned),
        reader.isAtEnd
      else { return nil }
      return body
    }
  }

  /// How much of the file is read first: the magic, the key, the folders and the
  /// fingerprint (unless the library has some six thousand folders: then the file is read
  /// whole at once). The rest is read while the tree is walked when the file is at most
  /// ``earlySize`` bytes, otherwise only once the fingerprint matches.
  static let headSize = 256 << 10

  /// The largest snapshot whose contents are read and decoded while the tree is walked
  /// (a library of about 25,000 files).
  static let earlySize = 8 << 20

  /// Where the contents start in `bytes`, a whole snapshot file read after its head was,
  /// when its head still says what it said: this key, contents kept under `stored`.
  private func headContentsOffset(
    _ bytes: UnsafeBufferPointer<UInt8>, key: [UInt8], stored: TreeFingerprint
  ) -> Int? {
    guard case .contents(let fingerprint, let offset, _) = readHead(bytes, key: key),
      fingerprint == stored
    else { return nil }
    return offset
  }

  /// What the head of a snapshot file says.
  private enum Head {
    /// Not a snapshot file, or not all of the head is in the bytes read.
    case malformed
    /// Made for another key.
    case otherKey
    /// A stored folder is not as it was.
    case foldersChanged
    /// The folders are as they were; the last enumeration left no contents, and says
    /// whether the next may take a fingerprint (it read no file: the library may have
    /// stopped changing).
    case foldersOnly(mayTakeFingerprint: Bool)
    /// The contents were kept under `fingerprint`, and start at `offset` in the file; the
    /// stored folders, `unchecked`, are left to the caller to compare
    /// (``foldersUnchanged(_:)``), beside the walk that takes the fingerprint.
    case contents(TreeFingerprint, offset: Int, unchecked: [StoredFolder])
  }

  /// A folder as the head stores it: its path beneath the root and its times then.
  private typealias StoredFolder = (path: [UInt8], times: FolderTimes)

  /// Reads the head of a snapshot file in `bytes` (its start, or all of it), comparing its
  /// key with `key` and, unless it holds contents, its folders with the folders now.
  private func readHead(_ bytes: UnsafeBufferPointer<UInt8>, key: [UInt8]) -> Head {
    guard bytes.count > Self.magic.count, bytes.prefix(Self.magic.count).elementsEqual(Self.magic)
    else { return .malformed }
    var reader = StoredResult.Reader(
      bytes: UnsafeBufferPointer(rebasing: bytes[Self.magic.count...]))
    guard let storedKey = reader.byteRun() else { return .malformed }
    guard storedKey.elementsEqual(key) else { return .otherKey }
    guard let count = reader.count() else { return .malformed }
    var folders: [StoredFolder] = []
    folders.reserveCapacity(count)
    for _ in 0..<count {
      guard let path = reader.byteRun(), let stored = reader.folderTimes() else {
        return .malformed
      }
      folders.append((Array(path), stored))
    }
    let found: Head
    switch reader.byte() {
    case Self.foldersOnly:
      switch reader.byte() {
      case 0: found = .foldersOnly(mayTakeFingerprint: false)
      case 1: found = .foldersOnly(mayTakeFingerprint: true)
      default: found = .malformed
      }
    case Self.withContents:
      guard let fingerprint = reader.fingerprint() else {
        found = .malformed
        break
      }
      return .contents(fingerprint, offset: Self.magic.count + reader.offset, unchecked: folders)
    default: found = .malformed
    }
    return foldersUnchanged(folders) ? found : .foldersChanged
  }

  /// Whether every folder in `folders` has the times stored, one `fstatat` each.
  private func foldersUnchanged(_ folders: [StoredFolder]) -> Bool {
    folders.allSatisfy { folder in
      folderStatus(folder.path).map { FolderTimes($0) == folder.times } ?? false
    }
  }

  /// The tree's fingerprint now, or `nil` when it cannot be taken (a budget tripped, an
  /// entry could not be examined).
  private func before(isFirst: Bool, isAbandoned: (@Sendable () -> Bool)? = nil) -> Before? {
    guard
      let walked = TreeFingerprint.take(root: root.descriptor.rawValue, isAbandoned: isAbandoned)
    else { return nil }
    return Before(
      fingerprint: walked.fingerprint,
      isSettled: CurrentProcess.wallClockNanoseconds &- walked.latestChange
        >= TreeFingerprint.settlingNanoseconds, isFirst: isFirst)
  }

  /// Set to stop a walk whose fingerprint is no longer wanted.
  private final class Abandon: Sendable {
    let flag = Atomic(false)
  }

  /// The status of the folder at `path` beneath the root (the root itself when empty),
  /// without following a symbolic link.
  private func folderStatus(_ path: [UInt8]) -> stat? {
    path.isEmpty
      ? try? root.descriptor.statusRecord() : try? root.descriptor.statusRecord(ofEntry: path)
  }

  // MARK: - Recording

  /// What follows the folders in the file: nothing more (the folders' times only, left by
  /// an enumeration that had no fingerprint from before it), or the fingerprint and the
  /// contents.
  static let foldersOnly: UInt8 = 0
  static let withContents: UInt8 = 1

  /// Leaves what the next enumeration needs after this one, which returned `contents`:
  /// with a fingerprint from `before` it, when there was no snapshot for this key yet or
  /// it read every file or none, a snapshot of them kept under that fingerprint;
  /// otherwise the folders' times alone, and whether it read no file (then the next enumeration, if the folders are unchanged, takes a
  /// fingerprint: the library may have stopped changing; after one that read files, it
  /// does not, so that a library with a file rewritten before every run pays nothing).
  /// Nothing is left after an enumeration with a warning (the index was not used) or
  /// inside the library; `contents` holding something that depends on when it ran, or a
  /// fingerprint taken while the tree was still changing, leaves the folders' times
  /// alone. Whatever goes wrong leaves nothing new (and says nothing: the snapshot
  /// is the index's, which said what it had to say).
  func record(_ contents: AssetsLibrary.Contents, before: Before?) {
    // Never inside the library: `init` refused a snapshot there.
    guard contents.warnings.isEmpty, let index = try? FileSystem.statusRecord(atPath: indexPath),
      let key = key(index: index)
    else { return }
    var folders: [StoredFolder] = []
    var seen = Set<[UInt8]>()
    for path in [LibraryPath.root] + contents.groups.map(\.path)
    where seen.insert(path.bytes).inserted {
      guard let status = folderStatus(path.bytes) else { return }
      folders.append((path.bytes, FolderTimes(status)))
    }
    var writer = StoredResult.Writer()
    writer.output = Self.magic
    writer.bytes(key)
    writer.integer(folders.count)
    for folder in folders {
      writer.bytes(folder.path)
      folder.times.write(into: &writer)
    }
    let statistics = contents.statistics
    if let before, before.isSettled, Self.isTimeless(contents),
      before.isFirst || statistics.filesRead == 0 || statistics.filesFromIndex == 0
    {
      writer.byte(Self.withContents)
      writer.integer(Int64(bitPattern: before.fingerprint.first))
      writer.integer(Int64(bitPattern: before.fingerprint.second))
      writer.integer(Int64(bitPattern: before.fingerprint.entries))
      Self.encodeContents(contents, into: &writer)
    } else {
      writer.byte(Self.foldersOnly)
      writer.bool(statistics.filesRead == 0)
    }
    guard writer.output.count + 8 <= Self.maximumSize else { return }
    let sum = writer.output.withUnsafeBytes { Self.checksum($0) }.littleEndian
    // Appended in place (the writer holds the only reference): no copy of the file.
    withUnsafeBytes(of: sum) { writer.output += $0 }
    FileSystem.replaceFile(atPath: path, with: writer.output)
  }

  /// Whether nothing in `contents` depends on when it was found: no passing problem (an
  /// unreadable file or folder for a reason that may be gone next time) and no problem
  /// found against today's date.
  static func isTimeless(_ contents: AssetsLibrary.Contents) -> Bool {
    !contents.assets.contains { asset in
      asset.problems.contains { $0.isPassing || $0.dependsOnToday }
    } && !contents.folderProblems.values.contains(where: \.isPassing)
      && !contents.otherFiles.contains(where: \.isPassing)
  }

  // MARK: - The key

  /// Everything besides the tree that the enumeration depends on, as bytes; `nil` when a
  /// part of it cannot be had. `index` is the index file's status: an index written to
  /// since (by another enumeration, or damaged) or replaced is another key, so that what
  /// the index would say about itself (a warning, a rebuild) is not skipped.
  func key(index: stat) -> [UInt8]? {
    var writer = StoredResult.Writer()
    writer.text(groupEnumeratorVersion)
    writer.byte(StoredResult.version)
    guard let executable = try? FileSystem.statusRecord(atPath: "/proc/self/exe"),
      let rootStatus = try? root.descriptor.statusRecord(),
      let credentials = CurrentProcess.credentials
    else { return nil }
    Self.identity(executable, into: &writer)
    writer.integer(credentials.user)
    writer.integer(credentials.group)
    writer.integer(credentials.groups.count)
    for group in credentials.groups { writer.integer(group) }
    writer.optional(IndexLocation.environment["TZ"]) { $0.text($1) }
    if let zone = try? FileSystem.statusRecord(atPath: "/etc/localtime") {
      writer.byte(1)
      Self.identity(zone, into: &writer)
    } else {
      writer.byte(0)
    }
    writer.text(root.path)
    Self.identity(rootStatus, into: &writer)
    writer.bool(options.includesHiddenFiles)
    writer.bool(options.verifiesFileEnds)
    writer.integer(options.selection.extensions.count)
    for name in options.selection.extensions.sorted() { writer.text(name) }
    writer.integer(options.selection.excludedPatterns.count)
    for pattern in options.selection.excludedPatterns { writer.text(pattern) }
    writer.text(filter.rawValue)
    Self.identity(index, into: &writer)
    return writer.output
  }

  /// Writes a file's device, inode, size and modification and change times.
  private static func identity(_ status: stat, into writer: inout StoredResult.Writer) {
    writer.integer(Int64(bitPattern: UInt64(status.st_dev)))
    writer.integer(Int64(bitPattern: UInt64(status.st_ino)))
    writer.integer(status.st_size)
    FolderTimes(status).write(into: &writer)
  }

  // MARK: - The file

  /// A 64-bit checksum of `bytes` (``Mix``): it tells a damaged file, not a forged one
  /// (whoever can write the file can write the index too).
  static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
    Mix.finish(Mix.bytes(bytes, into: 0, key: Mix.firstKey), key: Mix.secondKey)
  }
}

/// A folder's (or file's) modification and change times, in seconds and nanoseconds, with
/// its device and inode: what the quick check before the fingerprint compares.
struct FolderTimes: Equatable {
  var device: UInt64
  var inode: UInt64
  var modified: timespec
  var changed: timespec

  init(device: UInt64, inode: UInt64, modified: timespec, changed: timespec) {
    self.device = device
    self.inode = inode
    self.modified = modified
    self.changed = changed
  }

  init(_ status: stat) {
    self.init(
      device: UInt64(status.st_dev), inode: UInt64(status.st_ino), modified: status.st_mtim,
      changed: status.st_ctim)
  }

  static func == (lhs: FolderTimes, rhs: FolderTimes) -> Bool {
    lhs.device == rhs.device && lhs.inode == rhs.inode
      && lhs.modified.tv_sec == rhs.modified.tv_sec
      && lhs.modified.tv_nsec == rhs.modified.tv_nsec
      && lhs.changed.tv_sec == rhs.changed.tv_sec && lhs.changed.tv_nsec == rhs.changed.tv_nsec
  }

  func write(into writer: inout StoredResult.Writer) {
    writer.integer(Int64(bitPattern: device))
    writer.integer(Int64(bitPattern: inode))
    writer.integer(modified.tv_sec)
    writer.integer(modified.tv_nsec)
    writer.integer(changed.tv_sec)
    writer.integer(changed.tv_nsec)
  }
}

extension StoredResult.Reader {
  /// Bytes with their length first, in place.
  mutating func byteRun() -> UnsafeBufferPointer<UInt8>? {
    guard let count = integer(), count >= 0, end - offset >= count else { return nil }
    defer { offset += count }
    return UnsafeBufferPointer(rebasing: input[offset..<offset + count])
  }

  /// ``FolderTimes`` as ``FolderTimes/write(into:)`` wrote them.
  mutating func folderTimes() -> FolderTimes? {
    guard let device = integer(), let inode = integer(), let modifiedSeconds = integer(),
      let modifiedNanoseconds = integer(), let changedSeconds = integer(),
      let changedNanoseconds = integer()
    else { return nil }
    return FolderTimes(
      device: UInt64(bitPattern: Int64(device)), inode: UInt64(bitPattern: Int64(inode)),
      modified: timespec(tv_sec: modifiedSeconds, tv_nsec: modifiedNanoseconds),
      changed: timespec(tv_sec: changedSeconds, tv_nsec: changedNanoseconds))
  }

  /// A ``TreeFingerprint`` as three integers.
  mutating func fingerprint() -> TreeFingerprint? {
    guard let first = integer(), let second = integer(), let entries = integer() else {
      return nil
    }
    return TreeFingerprint(
      first: UInt64(bitPattern: Int64(first)), second: UInt64(bitPattern: Int64(second)),
      entries: UInt64(bitPattern: Int64(entries)))
  }
}
