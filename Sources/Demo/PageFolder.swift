import FoundationEssentials
import Glibc
import GroupEnumeratorCore

/// The `--output` folder of `--format html`: `index.html`, the `pictures/` beside it, and
/// the mark that says this command made the folder.
///
/// The folder must not exist (it is made; the folder above it must exist), or be empty,
/// or, with `--force`, be one this command made before: it holds the mark file
/// ``markName`` with ``markContents``, and nothing but `index.html`, `pictures/` with
/// numbered pictures (`000001.jpg`, `000002.png`) and leftovers of a run that stopped
/// (`.index.html.*.tmp`); those are removed, `index.html` first. Anything else there is
/// refused, so `--force` never deletes a file the user made. A symbolic link at the output
/// or at `pictures` is refused, and the folder may not be the library or inside it (its
/// real path is compared with the library's): the library is never written to.
///
/// Everything is written beneath the folder's descriptor (`openat`, `O_NOFOLLOW`,
/// `O_EXCL`), so a link swapped in during the run is not followed. `index.html` is written
/// under a temporary name and renamed last (after an `fsync`): a run that fails or is
/// interrupted leaves no `index.html`, only pictures that no page shows.
final class PageFolder: Sendable {
  /// Why the page cannot be written there, in words for people.
  struct Failure: Error, Equatable {
    /// The reason, without a final period.
    var reason: String
  }

  /// The file whose presence (with ``markContents``) says this command made the folder.
  static let markName = ".groupenumerator-page"
  /// What the mark file holds.
  static let markContents = "A page written by GroupEnumerator's Demo (--format html).\n"
  /// The folder of the pictures, beside `index.html`.
  static let picturesName = "pictures"

  /// The output folder, open (`O_DIRECTORY | O_NOFOLLOW`).
  private let folder: Int32
  /// The pictures folder, open.
  private let pictures: Int32

  private init(folder: Int32, pictures: Int32) {
    self.folder = folder
    self.pictures = pictures
  }

  deinit {
    close(pictures)
    close(folder)
  }

  /// Checks that the page may be written to `path` without touching anything, so that a
  /// wrong `--output` is said before the library is read.
  static func check(_ path: String, replacing: Bool, library: URL) throws(Failure) {
    try checkOutsideLibrary(path, library: library)
    var status = stat()
    guard lstat(path, &status) == 0 else {
      guard errno == ENOENT else { throw failure(errno: errno) }
      // It will be made: the folder above it must be there.
      let trimmed = path.hasSuffix("/") && path.count > 1 ? String(path.dropLast()) : path
      let parent = PathText.parent(of: trimmed)
      var above = stat()
      guard stat(parent.isEmpty ? "." : parent, &above) == 0 else { throw failure(errno: errno) }
      guard above.st_mode & S_IFMT == S_IFDIR else { throw failure(errno: ENOTDIR) }
      return
    }
    try checkIsFolder(status)
    let descriptor = Glibc.open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
    guard descriptor >= 0 else { throw failure(errno: errno) }
    defer { close(descriptor) }
    _ = try leftovers(in: descriptor, replacing: replacing)
  }

  /// Makes or empties the folder at `path` (see the type's rules) and opens it.
  static func open(_ path: String, replacing: Bool, library: URL) throws(Failure) -> PageFolder {
    try checkOutsideLibrary(path, library: library)
    if mkdir(path, 0o755) != 0, errno != EEXIST {
      throw failure(errno: errno)
    }
    var status = stat()
    guard lstat(path, &status) == 0 else { throw failure(errno: errno) }
    try checkIsFolder(status)
    let folder = Glibc.open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
    guard folder >= 0 else { throw failure(errno: errno) }
    do throws(Failure) {
      let old = try leftovers(in: folder, replacing: replacing)
      try remove(old, in: folder)
      try writeMark(in: folder)
      if mkdirat(folder, picturesName, 0o755) != 0, errno != EEXIST {
        throw failure(errno: errno)
      }
      let pictures = openat(
        folder, picturesName, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
      guard pictures >= 0 else {
        throw errno == ELOOP || errno == ENOTDIR
          ? Failure(reason: "'\(picturesName)' in it is not a folder") : failure(errno: errno)
      }
      return PageFolder(folder: folder, pictures: pictures)
    } catch {
      close(folder)
      throw error
    }
  }

  /// The folder may be neither the library nor inside it: the real path of the output (or,
  /// when it does not exist yet, of the folder above it) must not start with the library's.
  private static func checkOutsideLibrary(_ path: String, library: URL) throws(Failure) {
    guard let root = realPath(library.path) else { return }
    let output: String
    if let real = realPath(path) {
      output = real
    } else {
      let trimmed = path.hasSuffix("/") && path.count > 1 ? String(path.dropLast()) : path
      let parent = PathText.parent(of: trimmed)
      guard let real = realPath(parent.isEmpty ? "." : parent) else { return }
      output = real + "/" + PathText.lastComponent(of: trimmed)
    }
    if output == root || output.hasPrefix(root == "/" ? "/" : root + "/") {
      throw Failure(reason: "it is inside the library, which is never written to")
    }
  }

  private static func realPath(_ path: String) -> String? {
    guard let resolved = realpath(path, nil) else { return nil }
    defer { free(resolved) }
    return String(cString: resolved)
  }

  private static func checkIsFolder(_ status: stat) throws(Failure) {
    switch status.st_mode & S_IFMT {
    case S_IFDIR: return
    case S_IFLNK:
      throw Failure(reason: "it is a symbolic link; name the folder itself, not a link")
    default: throw Failure(reason: "it is a file; name a folder that does not exist or is empty")
    }
  }

  /// What a page made before left in the folder open as `folder` (empty when it is empty):
  /// names relative to the folder, `index.html` first. Throws when the folder holds
  /// anything else, or is not empty and `replacing` is not set.
  private static func leftovers(in folder: Int32, replacing: Bool) throws(Failure) -> [String] {
    let names = try entries(of: folder)
    guard !names.isEmpty else { return [] }
    let isMarked = names.contains(markName) && markIsOurs(in: folder)
    guard replacing else {
      throw Failure(
        reason: isMarked
          ? "it holds a page written before; add --force to replace it"
          : "it is not empty; name a folder that does not exist or is empty")
    }
    guard isMarked else {
      throw Failure(
        reason: "it is not empty and was not made by 'Demo --format html', so --force does"
          + " not empty it")
    }
    var old: [String] = []
    for name in names where name != markName {
      if name == "index.html" || isTemporaryIndex(name) {
        old.append(name)
      } else if name == picturesName {
        let pictures = openat(folder, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard pictures >= 0 else {
          throw Failure(reason: "'\(name)' in it is not a folder this command made")
        }
        defer { close(pictures) }
        for picture in try entries(of: pictures) {
          guard isPictureName(picture), isRegularFile(picture, in: pictures) else {
            throw Failure(
              reason: "'\(name)/\(picture)' in it was not made by 'Demo --format html', so"
                + " --force does not empty it")
          }
          old.append(name + "/" + picture)
        }
      } else {
        throw Failure(
          reason: "'\(name)' in it was not made by 'Demo --format html', so --force does not"
            + " empty it")
      }
    }
    // The page goes first: a run stopped while removing leaves no page that misses pictures.
    return old.sorted { ($0 == "index.html" ? 0 : 1, $0) < ($1 == "index.html" ? 0 : 1, $1) }
  }

  /// Removes `names` (from ``leftovers(in:replacing:)``) beneath `folder`.
  private static func remove(_ names: [String], in folder: Int32) throws(Failure) {
    for name in names where unlinkat(folder, name, 0) != 0 && errno != ENOENT {
      throw failure(errno: errno)
    }
  }

  /// The names in the folder open as `descriptor`, without `.` and `..`.
  private static func entries(of descriptor: Int32) throws(Failure) -> [String] {
    let copy = dup(descriptor)
    guard copy >= 0 else { throw failure(errno: errno) }
    guard let stream = fdopendir(copy) else {
      let code = errno
      close(copy)
      throw failure(errno: code)
    }
    defer { closedir(stream) }
    rewinddir(stream)
    var names: [String] = []
    while let entry = readdir(stream) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
      }
      if name != "." && name != ".." { names.append(name) }
    }
    return names
  }

  private static func markIsOurs(in folder: Int32) -> Bool {
    guard isRegularFile(markName, in: folder) else { return false }
    let descriptor = openat(folder, markName, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
    guard descriptor >= 0 else { return false }
    defer { close(descriptor) }
    var buffer = [UInt8](repeating: 0, count: 256)
    let count = read(descriptor, &buffer, buffer.count)
    return count > 0 && Array(buffer[..<count]) == Array(markContents.utf8)
  }

  private static func isRegularFile(_ name: String, in folder: Int32) -> Bool {
    var status = stat()
    return fstatat(folder, name, &status, AT_SYMLINK_NOFOLLOW) == 0
      && status.st_mode & S_IFMT == S_IFREG
  }

  /// `000001.jpg`: six or more digits, then `.jpg` or `.png` (``pictureName(number:isPNG:)``).
  static func isPictureName(_ name: String) -> Bool {
    let parts = name.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 2, parts[1] == "jpg" || parts[1] == "png" else { return false }
    return parts[0].utf8.count >= 6 && parts[0].utf8.allSatisfy { (0x30...0x39).contains($0) }
  }

  private static func isTemporaryIndex(_ name: String) -> Bool {
    name.hasPrefix(".index.html.") && name.hasSuffix(".tmp")
  }

  /// The picture of the page's `number`th row: `000042.jpg`.
  static func pictureName(number: Int, isPNG: Bool) -> String {
    let digits = String(number)
    return String(repeating: "0", count: max(0, 6 - digits.count)) + digits
      + (isPNG ? ".png" : ".jpg")
  }

  private static func writeMark(in folder: Int32) throws(Failure) {
    if isRegularFile(markName, in: folder) { return }
    let descriptor = openat(
      folder, markName, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else { throw failure(errno: errno) }
    defer { close(descriptor) }
    try writeAll(Array(markContents.utf8), to: descriptor)
  }

  /// Writes a picture into `pictures/` under `name`, which must not exist yet.
  func writePicture(_ data: Data, named name: String) throws(Failure) {
    let outcome = data.withUnsafeBytes { bytes -> Failure? in
      do throws(Failure) {
        try writePicture(bytes, named: name)
        return nil
      } catch {
        return error
      }
    }
    if let outcome { throw outcome }
  }

  private func writePicture(_ bytes: UnsafeRawBufferPointer, named name: String) throws(Failure) {
    let descriptor = openat(
      pictures, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else { throw PageFolder.failure(errno: errno) }
    var outcome: Failure?
    do throws(Failure) {
      try PageFolder.writeAll(bytes, to: descriptor)
    } catch {
      outcome = error
    }
    if close(descriptor) != 0, outcome == nil { outcome = PageFolder.failure(errno: errno) }
    if let outcome {
      unlinkat(pictures, name, 0)
      throw outcome
    }
  }

  /// Puts the picture cache's stored entry (`descriptor`: its file, open) into
  /// `pictures/` as the picture of row `number`: a hard link to that very file when the
  /// folder is on the cache's file system (no new file is made, and an entry is replaced
  /// by renaming a new file over it, so the link keeps the old one whole), else a copy of
  /// its bytes. A linked picture has the entry's mode, 0600 (readable by its owner only).
  func handOn(_ entry: StoredPicture, descriptor: Int32, number: Int) throws(Failure)
    -> PagePicture
  {
    let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    guard entry.bytes.starts(with: png), entry.width > 0, entry.height > 0 else {
      return .missing(reason: "the stored picture is not a PNG")
    }
    let name = PageFolder.pictureName(number: number, isPNG: true)
    // `/proc/self/fd/N` names the open file itself, not whatever has its name now; any
    // failure (another file system, no /proc, a link limit) falls back to the copy, whose
    // own failure (a full disk) is the one reported.
    if linkat(AT_FDCWD, "/proc/self/fd/\(descriptor)", pictures, name, AT_SYMLINK_FOLLOW) != 0 {
      let code = entry.bytes.withUnsafeBytes { bytes -> Failure? in
        do throws(Failure) {
          try writePicture(bytes, named: name)
          return nil
        } catch {
          return error
        }
      }
      if let code { throw code }
    }
    let (width, height) = HTMLPage.fitted(width: entry.width, height: entry.height)
    return .file(path: PageFolder.picturesName + "/" + name, width: width, height: height)
  }

  /// What ``linkStored(_:number:reader:folders:accepting:)`` did.
  enum Linking: Equatable {
    /// The picture of the row, linked from the picture cache.
    case linked(PagePicture)
    /// The cache holds no valid entry that covers the picture (or one not accepted).
    case noEntry
    /// An entry cannot be linked here: ``handOn(_:descriptor:number:)`` takes it.
    case notLinked
  }

  /// Puts the picture cache's valid entry of `asset` into `pictures/` as the picture of row
  /// `number`, as a hard link made from the cache's folder by the entry's name and checked
  /// through its new name (``StoredPictureReader/linkPicture(for:fitting:into:named:folders:accepting:)``:
  /// a stale or foreign entry is unlinked again, never shown). The file's key is the
  /// listing's own status of it. A linked picture has the entry's mode, 0600.
  func linkStored(
    _ asset: Asset, number: Int, reader: StoredPictureReader,
    folders: StoredPictureReader.EntryFolders,
    accepting accepts: (_ width: Int, _ height: Int) -> Bool = { _, _ in true }
  ) -> Linking {
    let name = PageFolder.pictureName(number: number, isPNG: true)
    switch reader.linkPicture(
      for: asset, fitting: HTMLPage.side, into: pictures, named: name, folders: folders,
      accepting: accepts)
    {
    case .linked(let width, let height):
      let (shownWidth, shownHeight) = HTMLPage.fitted(width: width, height: height)
      return .linked(
        .file(
          path: PageFolder.picturesName + "/" + name, width: shownWidth, height: shownHeight))
    case .none: return .noEntry
    case .notLinked: return .notLinked
    }
  }

  /// Starts `index.html` under a temporary name; ``IndexFile/publish()`` gives it its name.
  func startIndex() throws(Failure) -> IndexFile {
    let name = ".index.html.\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
    let descriptor = openat(
      folder, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else { throw PageFolder.failure(errno: errno) }
    return IndexFile(folder: folder, temporaryName: name, descriptor: descriptor)
  }

  static func writeAll(_ bytes: [UInt8], to descriptor: Int32) throws(Failure) {
    var outcome: Failure?
    bytes.withUnsafeBytes { raw in
      do throws(Failure) {
        try writeAll(raw, to: descriptor)
      } catch {
        outcome = error
      }
    }
    if let outcome { throw outcome }
  }

  private static func writeAll(_ raw: UnsafeRawBufferPointer, to descriptor: Int32)
    throws(Failure)
  {
    let code = ThumbnailFile.writeAll(raw, to: descriptor)
    if code != 0 { throw failure(errno: code) }
  }

  /// The plain reason for `errno` `code`.
  static func failure(errno code: Int32) -> Failure {
    switch code {
    case ENOSPC, EDQUOT: Failure(reason: "the disk is full")
    case ENOENT: Failure(reason: "the folder above it does not exist")
    case ENOTDIR: Failure(reason: "a part of the path is not a folder")
    case ELOOP: Failure(reason: "it is a symbolic link; name the folder itself, not a link")
    case EACCES, EPERM, EROFS: Failure(reason: "this user may not write there")
    default: Failure(reason: String(cString: strerror(code)).lowercased())
    }
  }
}
