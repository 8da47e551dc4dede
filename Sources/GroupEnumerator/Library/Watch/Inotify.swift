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
  let descriptor: Int32
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
  static let folderMask: UInt32 =
    UInt32(IN_CLOSE_WRITE) | UInt32(IN_MOVED_FROM) | UInt32(IN_MOVED_TO) | UInt32(IN_CREATE)
    | UInt32(IN_DELETE) | UInt32(IN_DELETE_SELF) | UInt32(IN_MOVE_SELF) | UInt32(IN_ATTRIB)
    | UInt32(IN_MODIFY) | UInt32(IN_ONLYDIR)

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
    self.descriptor = descriptor
    self.watchLimit = watchLimit
  }

  deinit {
    _ = Glibc.close(descriptor)
  }

  /// Watches the open folder `folder` (by its descriptor, so no path is resolved again).
  ///
  /// The corresponding C function is `inotify_add_watch`.
  ///
  /// - Returns: The watch descriptor; the same one again for a folder already watched.
  /// - Throws: `ENOSPC` when the user's `max_user_watches` is reached.
  func addWatch(folder: FileDescriptor, mask: UInt32 = Inotify.folderMask)
    throws(SystemCallError) -> Int32
  {
    let path = "/proc/self/fd/\(folder.rawValue)"
    let watch = inotify_add_watch(descriptor, path, mask)
    guard watch >= 0 else { throw SystemCallError(function: "inotify_add_watch", errno: .current) }
    if let watchLimit {
      let isAllowed = watches.withLock { watches in
        guard !watches.contains(watch) else { return true }
        guard watches.count < watchLimit else { return false }
        watches.insert(watch)
        return true
      }
      guard isAllowed else {
        _ = inotify_rm_watch(descriptor, watch)
        throw SystemCallError(function: "inotify_add_watch", errno: Errno(rawValue: ENOSPC))
      }
    }
    return watch
  }

  /// Stops a watch (the kernel then queues `IN_IGNORED` for it).
  ///
  /// The corresponding C function is `inotify_rm_watch`.
  func removeWatch(_ watch: Int32) {
    _ = inotify_rm_watch(descriptor, watch)
    if watchLimit != nil { _ = watches.withLock { $0.remove(watch) } }
  }

  /// Waits until events are queued, at most `milliseconds`.
  ///
  /// The corresponding C function is `poll`.
  ///
  /// - Returns: Whether events are waiting.
  func waitForEvents(milliseconds: Int32) -> Bool {
    var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
    return poll(&request, 1, max(0, milliseconds)) > 0
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
      let count = read(descriptor, buffer.baseAddress, capacity)
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { break }
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
      events.append(InotifyEvent(watch: watch, mask: mask, cookie: cookie, name: name))
      offset += header + length
    }
    return events
  }
}

/// One inotify event: which watch, what happened, and the entry's name in the watched
/// folder (empty for events about the folder itself).
struct InotifyEvent: Sendable, Hashable {
  var watch: Int32
  var mask: UInt32
  var cookie: UInt32
  var name: [UInt8]

  /// Whether the mask has any of `bits`.
  func has(_ bits: UInt32) -> Bool { mask & bits != 0 }

  /// Whether the entry is a folder (`IN_ISDIR`).
  var isFolder: Bool { has(UInt32(IN_ISDIR)) }
}
