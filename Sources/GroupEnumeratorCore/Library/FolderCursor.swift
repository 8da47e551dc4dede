import FoundationEssentials
import Glibc

/// The folder a run of lookups examined last, kept open: the next file of it is examined
/// by its name relative to the folder's descriptor (`fstatat`), so the kernel looks up
/// one name instead of walking (and copying in) the whole path from the root for every
/// file. The files of a folder come one after another, so one folder is enough. The
/// index's second run takes its keys through one per worker, and the Demo's page its
/// picture cache's keys through one per thread.
///
/// The folder is opened beneath the root without following a symbolic link (as the walk
/// entered it). A folder that cannot be opened so is remembered as such, and its files are
/// examined from the root by their whole path, as without the cursor. One thread uses a
/// cursor at a time (it is not `Sendable`); its descriptor is closed with it.
package final class FolderCursor {
  private let root: LibraryRoot
  /// The path of the folder last looked in, and its open descriptor (`nil` when it could
  /// not be opened).
  private var folder: (path: [UInt8], descriptor: FileDescriptor?)?

  init(root: LibraryRoot) {
    self.root = root
  }

  deinit {
    folder?.descriptor?.close()
  }

  /// The key of the regular file at `path` (``FileKey/of(_:beneath:)``), taken relative
  /// to its folder.
  func key(of path: LibraryPath) -> FileKey? {
    lookUp(
      path, inFolder: { folder, name in FileKey.of(entry: name, in: folder) },
      fromRoot: { FileKey.of(path, beneath: root.descriptor) })
  }

  /// What `inFolder` answers for the entry `name` of the open folder of `path` (the root
  /// for a file at the top); what `fromRoot` answers when that folder cannot be opened
  /// beneath the root; `nil` for a path that names no entry (absolute, or ending in a
  /// slash).
  func lookUp<Value>(
    _ path: LibraryPath,
    inFolder: (_ folder: FileDescriptor, _ name: UnsafeBufferPointer<UInt8>) -> Value?,
    fromRoot: () -> Value?
  ) -> Value? {
    path.bytes.withUnsafeBufferPointer { bytes -> Value? in
      let slash = UInt8(ascii: "/")
      guard let first = bytes.first, first != slash else { return nil }
      guard let last = bytes.lastIndex(of: slash) else {
        return inFolder(root.descriptor, bytes)
      }
      let name = UnsafeBufferPointer(rebasing: bytes[(last + 1)...])
      guard !name.isEmpty else { return nil }
      guard let descriptor = descriptor(of: UnsafeBufferPointer(rebasing: bytes[..<last])) else {
        return fromRoot()
      }
      return inFolder(descriptor, name)
    }
  }

  /// The open folder at `path` (the bytes of a folder's path), opened when it is not the
  /// one last looked in; `nil` when it cannot be opened.
  private func descriptor(of path: UnsafeBufferPointer<UInt8>) -> FileDescriptor? {
    if let folder, folder.path.count == path.count,
      folder.path.withUnsafeBufferPointer({ known in
        guard let left = known.baseAddress, let right = path.baseAddress else { return true }
        return memcmp(left, right, path.count) == 0
      })
    {
      return folder.descriptor
    }
    folder?.descriptor?.close()
    let bytes = Array(path)
    let descriptor = root.openFolder(LibraryPath(bytes: bytes))
    folder = (bytes, descriptor)
    return descriptor
  }
}
