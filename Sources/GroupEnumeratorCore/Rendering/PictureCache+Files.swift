import FoundationEssentials
import Glibc

// The picture cache's files: reading an entry, writing one atomically, and the bound of a
// private cache.
extension PictureCache {
  // MARK: Files

  /// The bytes of the regular file at `path` (not followed if a link), at most
  /// ``ThumbnailPNG/maximumFileSize``, and the file, open (the caller closes it); `nil`
  /// when there is none or it is larger.
  static func readFile(_ path: String) -> (bytes: [UInt8], file: FileDescriptor)? {
    guard
      let file = try? FileDescriptor.open(path, options: [.noFollow, .nonBlocking, .closeOnExec])
    else { return nil }
    guard let bytes = readAll(file) else {
      file.close()
      return nil
    }
    return (bytes, file)
  }

  /// The size and text of the entry `name` of `folder`, for a picture handed on undecoded:
  /// a regular file (not followed if a link) of at most ``ThumbnailPNG/maximumFileSize``,
  /// checked as ``ThumbnailPNG/read(_:checksImageData:)`` checks it without its image
  /// data's CRCs. A file over ``wholeReadLimit`` bytes is read from its first
  /// ``headLength`` bytes and its last 12 only (``ThumbnailPNG/readHead(_:tail:fileSize:)``),
  /// and whole when its head does not reach the image data or lacks `Thumb::URI` or
  /// `Thumb::MTime`. `nil` when it is none or not well-formed.
  static func handedOnContents(entry name: String, in folder: FileDescriptor)
    -> ThumbnailPNG.Contents?
  {
    guard
      let file = try? folder.open(
        at: Array(name.utf8), options: [.noFollow, .nonBlocking, .closeOnExec])
    else { return nil }
    defer { file.close() }
    guard let status = try? file.status(), status.kind == .regular, status.size > 0,
      status.size <= ThumbnailPNG.maximumFileSize
    else { return nil }
    let size = Int(status.size)
    if size > wholeReadLimit {
      guard let head = read(file, at: 0, count: headLength),
        let tail = read(file, at: size - 12, count: 12)
      else { return nil }
      do throws(ThumbnailPNG.Corrupt) {
        if let contents = try ThumbnailPNG.readHead(head, tail: tail, fileSize: size),
          contents.text["Thumb::URI"] != nil, contents.text["Thumb::MTime"] != nil
        {
          return contents
        }
      } catch {
        return nil
      }
    }
    guard let bytes = read(file, at: 0, count: size) else { return nil }
    return try? ThumbnailPNG.read(bytes, checksImageData: false)
  }

  /// The largest entry handed on that is read whole: a larger one is read from its head
  /// and its end (the image data between is the browser's to decode).
  static let wholeReadLimit = 16 << 10
  /// How much of a larger entry's start is read: its header and text chunks (about 250
  /// bytes in the entries written here; a longer head is read whole).
  static let headLength = 1 << 10

  /// Exactly `count` bytes of `file` at `offset`; `nil` when fewer can be read.
  private static func read(_ file: FileDescriptor, at offset: Int, count: Int) -> [UInt8]? {
    var complete = false
    let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
      var done = 0
      while done < count {
        let got = try? file.read(
          into: UnsafeMutableRawBufferPointer(
            UnsafeMutableBufferPointer(rebasing: buffer[done...])),
          atAbsoluteOffset: offset + done)
        guard let got, got > 0 else { break }
        done += got
      }
      if done < count { buffer[done...].initialize(repeating: 0) }
      complete = done == count
      initialized = count
    }
    return complete ? bytes : nil
  }

  /// The whole of the open `file` when it is a regular file of 1 byte to
  /// ``ThumbnailPNG/maximumFileSize``, read completely; `nil` otherwise.
  private static func readAll(_ file: FileDescriptor) -> [UInt8]? {
    guard let status = try? file.status(), status.kind == .regular, status.size > 0,
      status.size <= ThumbnailPNG.maximumFileSize
    else { return nil }
    let length = Int(status.size)
    var complete = true
    let bytes = [UInt8](unsafeUninitializedCapacity: length) { buffer, count in
      var done = 0
      while done < length {
        let got = try? file.read(
          into: UnsafeMutableRawBufferPointer(
            UnsafeMutableBufferPointer(rebasing: buffer[done...])),
          atAbsoluteOffset: done)
        guard let got, got > 0 else { break }
        done += got
      }
      // What was not read is zeroed, and the file not used.
      if done < length { buffer[done...].initialize(repeating: 0) }
      complete = done == length
      count = length
    }
    return complete ? bytes : nil
  }

  /// Writes `bytes` to `folder/name` atomically: a temporary file (mode 0600) in the same
  /// folder, renamed over the entry. Folders are made with mode 0700.
  func write(_ bytes: [UInt8], folder entryFolder: String, name: String) {
    guard FileSystem.makeFolders(atPath: entryFolder, permissions: 0o700) == nil else { return }
    let temporary =
      entryFolder + "/." + name + "." + String(CurrentProcess.identifier) + "-"
      + String(
        Self.counter.withLock { value -> Int in
          value += 1
          return value
        }) + ".tmp"
    guard let file = try? FileDescriptor.createNew(temporary, permissions: 0o600) else { return }
    do throws(SystemCallError) {
      do {
        defer { file.close() }
        try file.writeAll(bytes)
        // The mode the standard asks, whatever the umask left.
        try file.setPermissions(0o600)
      }
      try FileSystem.rename(atPath: temporary, to: entryFolder + "/" + name)
    } catch {
      try? FileSystem.removeFile(atPath: temporary)
      return
    }
    noteWritten(bytes.count)
  }

  private static let counter = SanitizerVisibleMutex(0)

  // MARK: Bound

  /// Bytes written to each private cache folder by this process since it was last swept.
  private static let unswept = SanitizerVisibleMutex<[String: Int]>([:])

  /// Counts a written entry; a private cache is swept (``sweep()``) at its first write in
  /// this process and after every sixteenth of its bound written since.
  private func noteWritten(_ count: Int) {
    guard !isShared else { return }
    let due = Self.unswept.withLock { written -> Bool in
      let before = written[folder]
      let total = (before ?? 0) + count
      if before == nil || total >= maximumBytes / 16 {
        written[folder] = 0
        return true
      }
      written[folder] = total
      return false
    }
    if due { sweep() }
  }

  /// Deletes the oldest entries (by the time they were written) of a private cache until
  /// it holds at most nine tenths of its bound, when it holds more than the bound.
  func sweep() {
    var files: [(path: String, time: Int, size: Int)] = []
    let folders =
      Size.allCases.map { folder + "/" + $0.folder } + [folder + "/fail/" + Self.failFolder]
    for entryFolder in folders {
      guard let names = try? FileManager.default.contentsOfDirectory(atPath: entryFolder) else {
        continue
      }
      for name in names {
        let path = entryFolder + "/" + name
        guard let status = try? FileSystem.statusRecord(atPath: path, followsLinks: false),
          status.st_mode & S_IFMT == S_IFREG
        else { continue }
        let time =
          Int(status.st_mtim.tv_sec).multipliedReportingOverflow(by: 1_000_000_000)
          .partialValue &+ Int(status.st_mtim.tv_nsec)
        files.append((path, time, Int(status.st_size)))
      }
    }
    var total = files.reduce(0) { $0.addingReportingOverflow($1.size).partialValue }
    guard total > maximumBytes else { return }
    let target = maximumBytes / 10 * 9
    for file in files.sorted(by: { ($0.time, $0.path) < ($1.time, $1.path) }) {
      guard total > target else { break }
      if (try? FileSystem.removeFile(atPath: file.path)) != nil { total -= file.size }
    }
  }
}
