import Dispatch
import FoundationEssentials
import Glibc
import Synchronization

/// A 128-bit summary of everything in a folder tree that a listing could depend on: every
/// entry's path relative to the root, type, permissions, owner, size, inode, link count,
/// and modification and change times in nanoseconds, folders and the root included.
///
/// The tree is walked raw: every folder listed with `readdir` and every entry examined with
/// one `fstatat(AT_SYMLINK_NOFOLLOW)` relative to its folder's descriptor, hidden names
/// and all, no symbolic link followed, on several threads. Each entry is hashed on its own,
/// twice with two different mixes, and the hashes are summed, so the order in which the
/// threads meet the entries does not matter and nothing is sorted. A file whose bytes
/// change changes its change time; a name added, removed or renamed changes its folder's
/// entries and times; so an equal fingerprint means the library reads as it read before.
package struct TreeFingerprint: Equatable, Sendable {
  /// The sum of the entries' hashes under the first mix.
  package var first: UInt64
  /// The sum of the entries' hashes under the second mix.
  package var second: UInt64
  /// How many entries the tree holds, the root included.
  package var entries: UInt64

  package init(first: UInt64, second: UInt64, entries: UInt64) {
    self.first = first
    self.second = second
    self.entries = entries
  }

  /// What one walk may cost before it gives up (a tripped budget takes no fingerprint).
  package struct Budget: Sendable {
    /// The most entries walked.
    package var entries = 1_000_000
    /// The deepest folder entered, below the root; the library's walk reports folders
    /// deeper than its own limit (256) without reading them, and this one goes a little
    /// further so that such a folder still has a fingerprint.
    package var depth = 300

    package init(entries: Int = 1_000_000, depth: Int = 300) {
      self.entries = entries
      self.depth = depth
    }
  }

  /// How recently an entry may have changed for the fingerprint to be trusted: a file
  /// written twice within one tick of the file system's clock keeps its change time, so a
  /// fingerprint taken between the two writes would match the second. The index waits as
  /// long before it stores a file.
  package static let settlingNanoseconds: Int64 = 100_000_000

  /// The fingerprint of the tree under the open folder `root`, and the latest change time
  /// (or modification time, when later) of any entry, in nanoseconds since 1970; `nil`
  /// when a budget tripped or an entry could not be examined (anything but a folder
  /// whose permissions keep it closed, which the library cannot read either).
  ///
  /// `root` stays open; the walk opens its own descriptors and closes them.
  /// `workers` threads walk it (this one and `workers - 1` more, at least one). Four by
  /// default, more than the cores: from a cold disk each waits for its folders and inodes
  /// (on the shared 10k library the API's second run walked for 0.072 s with two, 0.051 s
  /// with four), and warm four cost no more than two (docs/Performance.md).
  ///
  /// `isAbandoned`, when given, is asked before each folder: once it says yes, the walk
  /// stops and takes no fingerprint.
  package static func take(
    root: Int32, budget: Budget = Budget(), workers: Int = 4,
    isAbandoned: (@Sendable () -> Bool)? = nil
  ) -> (fingerprint: TreeFingerprint, latestChange: Int64)? {
    var status = stat()
    guard fstat(root, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else { return nil }
    let walk = TreeWalk(budget: budget, isAbandoned: isAbandoned)
    var rootHash = EntryHash()
    rootHash.add(status, folder: PathHash.root, name: UnsafeRawBufferPointer(start: nil, count: 0))
    let copy = DescriptorReserve.admit(openat(root, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC))
    guard copy >= 0 else { return nil }
    walk.start(Folder(descriptor: copy, path: PathHash.root, depth: 0))
    let group = DispatchGroup()
    // One slot per helper, written once by it and read once the group is done: the group
    // orders them (ThreadSanitizer sees its ordering, not a `Mutex`'s).
    let helpers = (1..<max(workers, 1)).map { _ in HelperHash() }
    // A thread of its own for each helper: the global queue runs no more blocks at once
    // than there are cores.
    for slot in helpers {
      group.enter()
      SpawnedThread.run {
        let hash = walk.work()
        slot.hash.withLock { $0 = hash }
        group.leave()
      }
    }
    var total = walk.work()
    group.wait()
    guard !walk.hasTripped else { return nil }
    for slot in helpers { total.merge(slot.hash.withLock { $0 }) }
    total.merge(rootHash)
    return (
      TreeFingerprint(first: total.first, second: total.second, entries: total.entries),
      total.latestChange
    )
  }
}

/// What one helper thread of ``TreeFingerprint/take(root:budget:workers:)`` examined.
private final class HelperHash: Sendable {
  let hash = Mutex(EntryHash())
}

/// A folder waiting to be listed: its open descriptor, its path's hash and its depth.
private struct Folder: Sendable {
  var descriptor: Int32
  var path: PathHash
  var depth: Int
}

/// A path relative to the root, hashed under both mixes: a folder's is its parent's with
/// its name mixed in, so each entry is hashed with its whole path at the cost of its name.
private struct PathHash: Sendable {
  var first: UInt64
  var second: UInt64

  static let root = PathHash(first: 0x243F_6A88_85A3_08D3, second: 0x1319_8A2E_0370_7344)

  /// This path followed by `name`.
  func appending(_ name: UnsafeRawBufferPointer) -> PathHash {
    PathHash(
      first: Mix.bytes(name, into: first, key: Mix.firstKey),
      second: Mix.bytes(name, into: second, key: Mix.secondKey))
  }
}

/// The two mixes: a multiply of the state, a value and a key folded from 128 bits to 64
/// (each 64-bit half of the product depends on every bit of the factors' low halves).
package enum Mix {
  package static let firstKey: UInt64 = 0x9E37_79B9_7F4A_7C15
  package static let secondKey: UInt64 = 0xC2B2_AE3D_27D4_EB4F

  /// `state` with `value` mixed in under `key`.
  @inline(__always) package static func word(_ value: UInt64, into state: UInt64, key: UInt64)
    -> UInt64
  {
    let product = (state ^ value).multipliedFullWidth(by: key)
    return (product.high ^ product.low) &+ (state >> 29 | state << 35)
  }

  /// `state` with `bytes` and their count mixed in under `key`, eight at a time.
  package static func bytes(_ bytes: UnsafeRawBufferPointer, into state: UInt64, key: UInt64)
    -> UInt64
  {
    var state = word(UInt64(bytes.count), into: state, key: key)
    var offset = 0
    while offset + 8 <= bytes.count {
      state = word(
        bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self), into: state, key: key)
      offset += 8
    }
    if offset < bytes.count {
      var last: UInt64 = 0
      for index in offset..<bytes.count {
        last |= UInt64(bytes[index]) << (8 * UInt64(index - offset))
      }
      state = word(last, into: state, key: key)
    }
    return state
  }

  /// A final scramble, so that the sum of many entries' hashes does not carry structure.
  @inline(__always) package static func finish(_ state: UInt64, key: UInt64) -> UInt64 {
    var value = state ^ (state >> 31)
    value = value &* key
    return value ^ (value >> 29)
  }
}

/// The running sums of the entries one thread examined.
private struct EntryHash: Sendable {
  var first: UInt64 = 0
  var second: UInt64 = 0
  var entries: UInt64 = 0
  var latestChange = Int64.min

  /// Adds the entry `name` of the folder whose path hashes to `folder`, as `status`
  /// describes it (a failure to open a folder passes its `errno` as `closedFolder`).
  mutating func add(
    _ status: stat, folder: PathHash, name: UnsafeRawBufferPointer, closedFolder: Int32 = 0
  ) {
    let modified = Int64(status.st_mtim.tv_sec) &* 1_000_000_000 &+ Int64(status.st_mtim.tv_nsec)
    let changed = Int64(status.st_ctim.tv_sec) &* 1_000_000_000 &+ Int64(status.st_ctim.tv_nsec)
    var one = Mix.bytes(name, into: folder.first, key: Mix.firstKey)
    var two = Mix.bytes(name, into: folder.second, key: Mix.secondKey)
    // Each field into both mixes (a function, not an array: no allocation per entry).
    func add(_ field: UInt64) {
      one = Mix.word(field, into: one, key: Mix.firstKey)
      two = Mix.word(field, into: two, key: Mix.secondKey)
    }
    add(UInt64(status.st_mode))
    add(UInt64(status.st_uid) << 32 | UInt64(status.st_gid))
    add(UInt64(bitPattern: Int64(status.st_size)))
    add(UInt64(status.st_ino))
    add(UInt64(status.st_dev))
    add(UInt64(status.st_nlink))
    add(UInt64(bitPattern: modified))
    add(UInt64(bitPattern: changed))
    add(UInt64(bitPattern: Int64(closedFolder)))
    first = first &+ Mix.finish(one, key: Mix.secondKey)
    second = second &+ Mix.finish(two, key: Mix.firstKey)
    entries += 1
    latestChange = max(latestChange, modified, changed)
  }

  mutating func merge(_ other: EntryHash) {
    first = first &+ other.first
    second = second &+ other.second
    entries += other.entries
    latestChange = max(latestChange, other.latestChange)
  }
}

/// The folders the threads share: each lists a folder, examines its entries and enters
/// its subfolders itself (depth first), except that it hands a subfolder to the others
/// while fewer than ``shareBelow`` wait, so that all stay busy. Descriptors held: one per
/// folder on each thread's path down, plus the few waiting.
///
/// `ConditionLock` (a pthread mutex and condition) rather than `Mutex`: ThreadSanitizer sees
/// the ordering it gives.
private final class TreeWalk: Sendable {
  static let shareBelow = 4

  private struct State {
    var waiting: [Folder] = []
    var busy = 0
    var done = false
  }

  let budget: TreeFingerprint.Budget
  private let condition = ConditionLock()
  // Guarded by `condition`; mutated only between lock() and unlock().
  private nonisolated(unsafe) var state = State()
  private let tripped = Atomic<Bool>(false)
  private let walked = Atomic<Int>(0)

  /// Asked before each folder; a yes trips the walk.
  let isAbandoned: (@Sendable () -> Bool)?

  init(budget: TreeFingerprint.Budget, isAbandoned: (@Sendable () -> Bool)?) {
    self.budget = budget
    self.isAbandoned = isAbandoned
  }

  var hasTripped: Bool { tripped.load(ordering: .acquiring) }

  /// Queues the root before the threads start.
  func start(_ folder: Folder) {
    condition.lock()
    state.waiting.append(folder)
    condition.unlock()
  }

  /// Takes folders until none is left and no thread is listing one; returns what this
  /// thread examined.
  func work() -> EntryHash {
    var hash = EntryHash()
    while let folder = next() {
      list(folder, into: &hash)
      condition.lock()
      state.busy -= 1
      if state.busy == 0, state.waiting.isEmpty { state.done = true }
      condition.broadcast()
      condition.unlock()
    }
    return hash
  }

  /// The next waiting folder (this thread then counts as busy), or `nil` when the walk is
  /// over; waits while another thread may still hand one over.
  private func next() -> Folder? {
    condition.lock()
    defer { condition.unlock() }
    while true {
      if let isAbandoned, isAbandoned() { trip() }
      if hasTripped {
        for folder in state.waiting { _ = close(folder.descriptor) }
        state.waiting = []
      }
      if let folder = state.waiting.popLast() {
        state.busy += 1
        return folder
      }
      if state.done || state.busy == 0 {
        state.done = true
        condition.broadcast()
        return nil
      }
      condition.wait()
    }
  }

  /// Hands `folder` to another thread when few wait; `false` leaves it to the caller.
  private func share(_ folder: Folder) -> Bool {
    condition.lock()
    defer { condition.unlock() }
    guard state.waiting.count < TreeWalk.shareBelow else { return false }
    state.waiting.append(folder)
    condition.signal()
    return true
  }

  private func trip() { tripped.store(true, ordering: .releasing) }

  /// Lists `folder` (closing its descriptor), adds its entries to `hash` and walks its
  /// subfolders.
  private func list(_ folder: Folder, into hash: inout EntryHash) {
    guard let stream = fdopendir(folder.descriptor) else {
      _ = close(folder.descriptor)
      return trip()
    }
    defer { closedir(stream) }
    let descriptor = dirfd(stream)
    let nameOffset = MemoryLayout<dirent>.offset(of: \.d_name) ?? 19
    var count = 0
    defer {
      if walked.add(count, ordering: .relaxed).newValue > budget.entries { trip() }
    }
    while !hasTripped {
      errno = 0
      guard let entry = readdir(stream) else {
        if errno != 0 { trip() }
        break
      }
      let namePointer = UnsafeRawPointer(entry).advanced(by: nameOffset)
        .assumingMemoryBound(to: CChar.self)
      let length = strlen(namePointer)
      let name = UnsafeRawBufferPointer(start: namePointer, count: length)
      if length <= 2, name.allSatisfy({ $0 == UInt8(ascii: ".") }) { continue }
      var status = stat()
      guard fstatat(descriptor, namePointer, &status, AT_SYMLINK_NOFOLLOW) == 0 else {
        return trip()
      }
      count += 1
      // The budget is checked every 256 entries too, so one huge folder trips it early.
      if count == 256 {
        if walked.add(count, ordering: .relaxed).newValue > budget.entries { return trip() }
        count = 0
      }
      guard status.st_mode & S_IFMT == S_IFDIR else {
        hash.add(status, folder: folder.path, name: name)
        continue
      }
      guard folder.depth < budget.depth else { return trip() }
      let child = DescriptorReserve.admit(
        openat(
          descriptor, namePointer, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK))
      guard child >= 0 else {
        let code = errno
        // A folder closed to this user: the library cannot list it either, and opening
        // it up changes its change time. Anything else (a descriptor shortage, a folder
        // gone) may read differently next time.
        guard code == EACCES || code == EPERM else { return trip() }
        hash.add(status, folder: folder.path, name: name, closedFolder: code)
        continue
      }
      hash.add(status, folder: folder.path, name: name)
      let subfolder = Folder(
        descriptor: child, path: folder.path.appending(name), depth: folder.depth + 1)
      if !share(subfolder) { list(subfolder, into: &hash) }
    }
  }
}
