import Foundation
import Glibc

/// A whole enumeration kept beside the index, in `INDEX-contents` (one per filter: see
/// ``path(index:filter:)``), and handed back by the
/// next ``AssetsLibrary/enumerate(filter:progress:)`` of a library that reads as it read
/// then: the index's second run without its walk, plan and lookups.
///
/// The library "reads as it read" when the tree's fingerprint (``TreeFingerprint``: every
/// entry's path, type, owner, size, inode and times, on four threads) is the one stored,
/// and so is the ``key``: everything else the enumeration depends on (this build, the
/// user, the time zone, the root, the options, the filter, the index file). Before the
/// fingerprint, the stored folders' own times are compared, one `fstatat` each: a photo
/// added, removed or renamed changes its folder, so most changed libraries are told in
/// well under a millisecond, and only a file rewritten in place costs a fingerprint.
///
/// A snapshot is kept after an enumeration with no warning, nothing in it that depends on
/// the day (``AssetProblem/isPassing``, ``AssetProblem/dependsOnToday``), and nothing in
/// the tree changed since just before it started (the fingerprint, taken after it, says
/// when the tree last changed); and only by an enumeration that took every file from the
/// index or none: one that read a few changed files among stored ones leaves the snapshot
/// to the next run, which pays for it once, rather than every run of a library that
/// changes each time.
///
/// The file: ``magic``, then the key, the folders, the fingerprint and the contents in
/// ``StoredResult``'s form (each asset its stored row, with its path, group and sidecars
/// beside it), then a 64-bit checksum of everything before it. Anything unexpected (a
/// damaged, foreign or old file) is no snapshot: the enumeration runs as without one.
/// It is written to a new file that replaces the old one, never in place, and never
/// inside the library.
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
  /// cannot be opened (the enumeration reports it) or an index location that cannot be
  /// used.
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

  /// The stored enumeration, when the snapshot file holds one for this key and the tree
  /// reads as it did; `nil` otherwise (nothing is written).
  func replay() -> AssetsLibrary.Contents? {
    let started = ContinuousClock.now
    guard let index = try? FileSystem.statusRecord(atPath: indexPath),
      let bytes = FileSystem.ownFile(atPath: path, maximumSize: Self.maximumSize)
    else { return nil }
    return bytes.withUnsafeBufferPointer { buffer -> AssetsLibrary.Contents? in
      guard buffer.count > Self.magic.count + 8,
        buffer.prefix(Self.magic.count).elementsEqual(Self.magic)
      else { return nil }
      let checked = UnsafeBufferPointer(rebasing: buffer[..<(buffer.count - 8)])
      var reader = StoredResult.Reader(
        bytes: UnsafeBufferPointer(rebasing: checked[Self.magic.count...]))
      guard let storedKey = reader.byteRun(), let expected = key(index: index),
        storedKey.elementsEqual(expected), foldersAreUnchanged(&reader),
        let stored = reader.fingerprint(),
        let walked = TreeFingerprint.take(root: root.descriptor.rawValue),
        walked.fingerprint == stored,
        Self.checksum(UnsafeRawBufferPointer(checked))
          == UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: buffer[(buffer.count - 8)...]))
          .loadUnaligned(as: UInt64.self).littleEndian
      else { return nil }
      let walkedAt = ContinuousClock.now
      guard let fileStart = buffer.baseAddress,
        let body = Self.decodeContents(&reader, file: bytes, fileStart: fileStart), reader.isAtEnd
      else { return nil }
      let statistics = EnumerationStatistics(
        walk: walkedAt - started, metadata: ContinuousClock.now - walkedAt, delivery: .zero,
        filesRead: 0, filesFromIndex: body.files, mainActorHops: 1)
      return AssetsLibrary.Contents(
        groups: body.groups, assets: body.assets, otherFiles: body.otherFiles,
        folderProblems: body.folderProblems, statistics: statistics, warnings: [])
    }
  }

  /// Whether every folder the snapshot lists has the identity and times it had: each
  /// `(path, device, inode, modification and change times)` against `fstatat` now.
  private func foldersAreUnchanged(_ reader: inout StoredResult.Reader) -> Bool {
    guard let count = reader.integer(), count >= 0 else { return false }
    for _ in 0..<count {
      guard let path = reader.byteRun(), let stored = reader.folderTimes(),
        let now = folderStatus(Array(path))
      else { return false }
      if FolderTimes(now) != stored { return false }
    }
    return true
  }

  /// The status of the folder at `path` beneath the root (the root itself when empty),
  /// without following a symbolic link.
  private func folderStatus(_ path: [UInt8]) -> stat? {
    path.isEmpty
      ? try? root.descriptor.statusRecord() : try? root.descriptor.statusRecord(ofEntry: path)
  }

  // MARK: - Recording

  /// Keeps `contents` for the next enumeration when it may be handed back then (see the
  /// type's description); `started` is the wall clock's time, in nanoseconds since 1970,
  /// just before the enumeration began. Whatever goes wrong leaves no snapshot (and says
  /// nothing: the snapshot is the index's, which said what it had to say).
  func record(_ contents: AssetsLibrary.Contents, started: Int64) {
    let statistics = contents.statistics
    guard contents.warnings.isEmpty, statistics.filesRead == 0 || statistics.filesFromIndex == 0,
      Self.isTimeless(contents), let index = try? FileSystem.statusRecord(atPath: indexPath),
      let key = key(index: index), let rootStatus = try? root.descriptor.status(),
      IndexStore.libraryFolder(
        holding: URL(fileURLWithPath: path), root: rootStatus.identity, rootPath: root.path)
        == nil
    else { return }
    var folders: [(path: [UInt8], times: FolderTimes)] = []
    var seen = Set<[UInt8]>()
    for path in [LibraryPath.root] + contents.groups.map(\.path)
    where seen.insert(path.bytes).inserted {
      guard let status = folderStatus(path.bytes) else { return }
      folders.append((path.bytes, FolderTimes(status)))
    }
    guard let walked = TreeFingerprint.take(root: root.descriptor.rawValue),
      started &- walked.latestChange >= TreeFingerprint.settlingNanoseconds
    else { return }
    var writer = StoredResult.Writer()
    writer.output = Self.magic
    writer.bytes(key)
    writer.integer(folders.count)
    for folder in folders {
      writer.bytes(folder.path)
      folder.times.write(into: &writer)
    }
    writer.integer(Int64(bitPattern: walked.fingerprint.first))
    writer.integer(Int64(bitPattern: walked.fingerprint.second))
    writer.integer(Int64(bitPattern: walked.fingerprint.entries))
    Self.encodeContents(contents, into: &writer)
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
