import FoundationEssentials

extension IndexStore {
  /// One line of `/proc/self/mountinfo`: where a file system (or a part of it) is mounted.
  struct Mount: Equatable {
    /// The file system's device, `major:minor`.
    var device: String
    /// The folder of the file system that is mounted (`/` for the whole; a bind mount of
    /// a subfolder names it).
    var root: String
    /// Where it is mounted.
    var mountPoint: String
    /// The file system's type (`ext4`, `overlay`).
    var type: String
    /// Its options (`upperdir=…,lowerdir=…` for an overlay).
    var superOptions: String
  }

  /// The mounts of `/proc/self/mountinfo` text, in its order (a later mount on the same
  /// point hides an earlier one). Paths are unescaped (`\040` is a space).
  static func mounts(in text: String) -> [Mount] {
    text.split(separator: "\n").compactMap { line in
      let fields = line.split(separator: " ", omittingEmptySubsequences: false)
      guard fields.count >= 10, let dash = fields.firstIndex(of: "-"), dash >= 6,
        dash + 3 < fields.count
      else { return nil }
      return Mount(
        device: String(fields[2]), root: unescaped(fields[3]), mountPoint: unescaped(fields[4]),
        type: String(fields[dash + 1]), superOptions: String(fields[dash + 3]))
    }
  }

  /// The library folder (as the index's path names it) that the folder `folder` is, seen
  /// through the mounts: a bind mount of a library folder elsewhere, or the upper or a
  /// lower folder of the overlay the library is on, are the library's too, though no
  /// folder above them is the root. `nil` when it is not.
  ///
  /// - Parameters:
  ///   - folder: The index's folder, its links resolved.
  ///   - rootPath: The library root, its links resolved.
  ///   - mounts: The process's mounts (``mounts(in:)`` of `/proc/self/mountinfo`).
  static func mountedLibraryFolder(holding folder: String, rootPath: String, mounts: [Mount])
    -> String?
  {
    guard let folderMount = mount(holding: folder, in: mounts),
      let rootMount = mount(holding: rootPath, in: mounts)
    else { return nil }
    if rootMount.type == "overlay" {
      // The folders the overlay is made of: writing there is writing in the library.
      for option in rootMount.superOptions.split(separator: ",") {
        let parts = option.split(separator: "=", maxSplits: 1)
        guard parts.count == 2, ["upperdir", "lowerdir", "workdir"].contains(parts[0]) else {
          continue
        }
        for layer in parts[1].split(separator: ":") where isWithin(folder, String(layer)) {
          return folder
        }
      }
    }
    guard folderMount.device == rootMount.device else { return nil }
    let inside = pathWithinFileSystem(folder, folderMount)
    return isWithin(inside, pathWithinFileSystem(rootPath, rootMount)) ? folder : nil
  }

  /// The mounts of this process, or none when `/proc/self/mountinfo` cannot be read.
  static func currentMounts() -> [Mount] {
    guard let text = try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8) else {
      return []
    }
    return mounts(in: text)
  }

  /// The mount `path` lies on: the one with the longest mount point above it, the last of
  /// those when several share it.
  private static func mount(holding path: String, in mounts: [Mount]) -> Mount? {
    var best: Mount?
    for mount in mounts where isWithin(path, mount.mountPoint) {
      if best == nil || mount.mountPoint.count >= (best?.mountPoint.count ?? 0) { best = mount }
    }
    return best
  }

  /// `path` as a path inside its file system: the mount's root, then what follows the
  /// mount point.
  private static func pathWithinFileSystem(_ path: String, _ mount: Mount) -> String {
    let rest = path.dropFirst(mount.mountPoint == "/" ? 0 : mount.mountPoint.count)
    let joined = (mount.root == "/" ? "" : mount.root) + rest
    return joined.isEmpty ? "/" : joined
  }

  /// Whether `path` is `folder` or lies beneath it (by whole components).
  private static func isWithin(_ path: String, _ folder: String) -> Bool {
    folder == "/" || path == folder || path.hasPrefix(folder.hasSuffix("/") ? folder : folder + "/")
  }

  /// A mountinfo field with its octal escapes (`\040`, `\011`, `\012`, `\134`) decoded.
  private static func unescaped(_ field: Substring) -> String {
    guard field.contains("\\") else { return String(field) }
    var bytes: [UInt8] = []
    let source = Array(field.utf8)
    var index = 0
    while index < source.count {
      if source[index] == UInt8(ascii: "\\"), index + 3 < source.count,
        let value = UInt8(
          String(decoding: source[(index + 1)...(index + 3)], as: UTF8.self), radix: 8)
      {
        bytes.append(value)
        index += 4
      } else {
        bytes.append(source[index])
        index += 1
      }
    }
    return String(decoding: bytes, as: UTF8.self)
  }
}
