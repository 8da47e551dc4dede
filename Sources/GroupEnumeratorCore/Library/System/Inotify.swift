import FoundationEssentials
import Synchronization

#if canImport(Glibc)
  internal import Glibc
#endif

/// One inotify instance: the descriptor the kernel queues events of watched folders on.
///
/// The descriptor is non-blocking and close-on-exec, and it is closed when the last
/// reference to the instance goes: whoever may still read events holds the instance, not
/// its number (as ``LibraryRoot`` does for the root).
final class Inotify: Sendable {
  /// The inotify descriptor.
  let descriptor: FileDescriptor
  /// At most this many watches, as if `max_user_watches` were reached beyond (`nil`: only
  /// the kernel's limit); a stand-in for the sysctl in tests, which must not change it.
  private let watchLimit: Int?
  /// The watches made while a ``watchLimit`` is set.
  private let watches = Mutex<Set<Int32>>([])

  /// What a folder watch asks for: files finished (`IN_CLOSE_WRITE`), files and folders
  /// moved in or out, created and deleted, attributes (a `touch` moves the modification
  /// time), writes (to hold back a file still being written), and the folder itself
  /// deleted or moved.
  ///
  /// `IN_DONT_FOLLOW` is not set: folders are watched through `/proc/self/fd/N`, a link to
  /// the folder already opened beneath the root without following any link, which must be
  /// followed; `IN_ONLYDIR` makes sure it is still a folder.
  static let folderMask: InotifyEvent.Mask = [
    .closedAfterWriting, .movedFrom, .movedTo, .created, .deleted, .folderDeleted,
    .folderMoved, .attributesChanged, .modified, .onlyFolder,
  ]

  /// Creates an inotify instance.
  ///
  /// The corresponding C function is `inotify_init1`.
  ///
  /// - Parameter watchLimit: At most this many watches (`ENOSPC` beyond); `nil`: as many
  ///   as the kernel allows.
  /// - Throws: `EMFILE` when this user has too many instances or the process too many
  ///   descriptors, `ENFILE`, `ENOMEM`.
  init(watchLimit: Int? = nil) throws(SystemCallError) {
    let descriptor = inotify_init1(Int32(IN_NONBLOCK) | Int32(IN_CLOEXEC))
    guard descriptor >= 0 else {
      throw SystemCallError(function: "inotify_init1", errno: .current)
    }
    self.descriptor = FileDescriptor(rawValue: descriptor)
    self.watchLimit = watchLimit
  }

  deinit {
    descriptor.close()
  }

  /// Watches the open folder `folder` (by its descriptor, so no path is resolved again).
  ///
  /// The corresponding C function is `inotify_add_watch`.
  ///
  /// - Returns: The watch descriptor; the same one again for a folder already watched.
  /// - Throws: `ENOSPC` when the user's `max_user_watches` is reached.
  func addWatch(folder: FileDescriptor, mask: InotifyEvent.Mask = Inotify.folderMask)
    throws(SystemCallError) -> Int32
  {
    let path = "/proc/self/fd/\(folder.rawValue)"
    let watch = inotify_add_watch(descriptor.rawValue, path, mask.rawValue)
    guard watch >= 0 else { throw SystemCallError(function: "inotify_add_watch", errno: .current) }
    if let watchLimit {
      let isAllowed = watches.withLock { watches in
        guard !watches.contains(watch) else { return true }
        guard watches.count < watchLimit else { return false }
        watches.insert(watch)
        return true
      }
      guard isAllowed else {
        _ = inotify_rm_watch(descriptor.rawValue, watch)
        throw SystemCallError(function: "inotify_add_watch", errno: .noSpace)
      }
    }
    return watch
  }

  /// Stops a watch (the kernel then queues `IN_IGNORED` for it).
  ///
  /// The corresponding C function is `inotify_rm_watch`.
  func removeWatch(_ watch: Int32) {
    _ = inotify_rm_watch(descriptor.rawValue, watch)
    if watchLimit != nil { _ = watches.withLock { $0.remove(watch) } }
  }

  /// Waits until events are queued, at most `milliseconds`.
  ///
  /// The corresponding C function is `poll`.
  ///
  /// - Returns: Whether events are waiting.
  func waitForEvents(milliseconds: Int32) -> Bool {
    descriptor.waitUntilReadable(milliseconds: milliseconds)
  }

  /// Reads every event queued now, without waiting.
  ///
  /// The corresponding C function is `read`.
  ///
  /// - Parameter limit: At most this many events are returned (the rest stay queued).
  func readEvents(limit: Int = 65_536) -> [InotifyEvent] {
    var events: [InotifyEvent] = []
    let capacity = 64 * 1024
    let buffer = UnsafeMutableRawBufferPointer.allocate(
      byteCount: capacity, alignment: MemoryLayout<inotify_event>.alignment)
    defer { buffer.deallocate() }
    while events.count < limit {
      // Nothing queued (`EAGAIN`) or a failure ends the reading.
      guard let count = try? descriptor.read(into: buffer), count > 0 else { break }
      events += Inotify.parse(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
    }
    return events
  }

  /// The events packed in `bytes`, as `read` returned them (each a fixed header and a
  /// name padded with NULs); a header or name running past the end ends the list.
  static func parse(_ bytes: UnsafeRawBufferPointer) -> [InotifyEvent] {
    var events: [InotifyEvent] = []
    let header = MemoryLayout<inotify_event>.size
    var offset = 0
    while offset + header <= bytes.count {
      let watch = bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self)
      let mask = bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
      let cookie = bytes.loadUnaligned(fromByteOffset: offset + 8, as: UInt32.self)
      let length = Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
      guard length <= bytes.count - offset - header else { break }
      let nameBytes = bytes[(offset + header)..<(offset + header + length)]
      let name = Array(nameBytes.prefix { $0 != 0 })
      events.append(
        InotifyEvent(
          watch: watch, mask: InotifyEvent.Mask(rawValue: mask), cookie: cookie, name: name))
      offset += header + length
    }
    return events
  }

  /// The user's limit of inotify watches: the smaller of `fs.inotify.max_user_watches`
  /// and, in a user namespace, `user.max_inotify_watches`; `nil` when neither can be read.
  static func userWatchLimit() -> Int? {
    let limits = ["/proc/sys/fs/inotify/max_user_watches", "/proc/sys/user/max_inotify_watches"]
      .compactMap { path in
        (try? String(contentsOfFile: path, encoding: .utf8))
          .flatMap { Int($0.filter { !$0.isWhitespace }) }
      }
    return limits.min()
  }
}

/// One inotify event: which watch, what happened, and the entry's name in the watched
/// folder (empty for events about the folder itself).
struct InotifyEvent: Sendable, Hashable {
  var watch: Int32
  var mask: Mask
  var cookie: UInt32
  var name: [UInt8]

  /// The bits of an event's mask, and of what a watch asks for.
  struct Mask: OptionSet, Sendable, Hashable {
    let rawValue: UInt32
    init(rawValue: UInt32) { self.rawValue = rawValue }

    /// `IN_CLOSE_WRITE`: a file open for writing was closed.
    static let closedAfterWriting = Mask(rawValue: UInt32(IN_CLOSE_WRITE))
    /// `IN_MOVED_FROM`: an entry was moved out of the folder (or renamed from).
    static let movedFrom = Mask(rawValue: UInt32(IN_MOVED_FROM))
    /// `IN_MOVED_TO`: an entry was moved into the folder (or renamed to).
    static let movedTo = Mask(rawValue: UInt32(IN_MOVED_TO))
    /// `IN_CREATE`: an entry was created.
    static let created = Mask(rawValue: UInt32(IN_CREATE))
    /// `IN_DELETE`: an entry was deleted.
    static let deleted = Mask(rawValue: UInt32(IN_DELETE))
    /// `IN_DELETE_SELF`: the watched folder itself was deleted.
    static let folderDeleted = Mask(rawValue: UInt32(IN_DELETE_SELF))
    /// `IN_MOVE_SELF`: the watched folder itself was moved.
    static let folderMoved = Mask(rawValue: UInt32(IN_MOVE_SELF))
    /// `IN_ATTRIB`: an entry's metadata (times, permissions, links) changed.
    static let attributesChanged = Mask(rawValue: UInt32(IN_ATTRIB))
    /// `IN_MODIFY`: a file was written to.
    static let modified = Mask(rawValue: UInt32(IN_MODIFY))
    /// `IN_ONLYDIR`: watch only if it is a folder (asked for, never reported).
    static let onlyFolder = Mask(rawValue: UInt32(IN_ONLYDIR))
    /// `IN_UNMOUNT`: the file system of the watched folder was unmounted.
    static let unmounted = Mask(rawValue: UInt32(IN_UNMOUNT))
    /// `IN_IGNORED`: the watch was removed (by ``Inotify/removeWatch(_:)`` or the kernel).
    static let watchRemoved = Mask(rawValue: UInt32(IN_IGNORED))
    /// `IN_Q_OVERFLOW`: the kernel's event queue overflowed; events were lost.
    static let queueOverflowed = Mask(rawValue: UInt32(IN_Q_OVERFLOW))
    /// `IN_ISDIR`: the entry is a folder.
    static let isFolder = Mask(rawValue: UInt32(IN_ISDIR))
  }

  /// Whether the mask has any of `bits`.
  func has(_ bits: Mask) -> Bool { !mask.isDisjoint(with: bits) }

  /// Whether the entry is a folder (`IN_ISDIR`).
  var isFolder: Bool { has(.isFolder) }
}
