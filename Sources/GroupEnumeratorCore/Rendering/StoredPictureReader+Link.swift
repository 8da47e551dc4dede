import FoundationEssentials

// Linking the picture cache's entries where a caller shows them (the Demo's page puts each
// beside its HTML) by the entry's name, and checking what was linked.
extension StoredPictureReader {
  /// What ``linkPicture(for:fitting:into:named:folders:accepting:)`` did.
  package enum Linked: Sendable, Equatable {
    /// The entry is now the file of that name in the folder: a valid entry, this pixel size.
    case linked(width: Int, height: Int)
    /// No valid entry covers the box, or the one that does was not accepted; nothing is
    /// left in the folder.
    case none
    /// An entry is there but cannot be linked into the folder (another file system, the
    /// name taken, no room, a file that may not be linked): take it through
    /// ``withPicture(for:fitting:folders:_:)``, which reads it and can copy its bytes.
    case notLinked
  }

  /// The picture cache's size folders (`normal/`, …), each opened the first time a link
  /// needs it and kept open as long as this is; one that cannot be opened is remembered
  /// as such. Threads may share it (the folders are looked up under a lock; a system call
  /// on an open folder needs none).
  package final class EntryFolders: Sendable {
    private let cache: PictureCache
    private let folders = SanitizerVisibleMutex<[PictureCache.Size: FileDescriptor?]>([:])

    fileprivate init(cache: PictureCache) {
      self.cache = cache
    }

    deinit {
      folders.withLock { folders in
        for case .some(let folder) in folders.values { folder.close() }
      }
    }

    /// The open folder of `size`'s entries; `nil` when it cannot be opened (there is none).
    fileprivate func folder(_ size: PictureCache.Size) -> FileDescriptor? {
      folders.withLock { folders in
        if let known = folders[size] { return known }
        let folder = try? FileDescriptor.open(
          cache.folder + "/" + size.folder, options: [.directory, .closeOnExec])
        folders[size] = folder
        return folder
      }
    }
  }

  /// The size folders for ``linkPicture(for:fitting:into:named:folders:accepting:)``
  /// calls, on one thread or several.
  package func entryFolders() -> EntryFolders {
    EntryFolders(cache: cache)
  }

  /// Links the valid entry of `asset` that fits a `side` × `side` box (aspect-fit) with no
  /// pixel enlarged into the open folder `folder` as `name`, which must not exist: the
  /// entry's file gets a second name (`linkat` from its size folder, by its name), then
  /// what was linked is read back through the new name and checked as
  /// ``StoredPictureReader`` checks every entry it hands on, an entry over 16 KiB from
  /// its head and its end (``PictureCache/handedOnContents(entry:in:)``). One that fails
  /// the check (stale, another file's, cut short, not a regular file, too large) is
  /// unlinked again and the next size is tried; the first valid entry that covers the box is kept when
  /// `accepts` takes its pixel size, and removed when it does not. The check reads the
  /// very file that was linked, so another file renamed over the entry meanwhile is never
  /// shown unchecked.
  ///
  /// The file's key (its modification time and size, which `Thumb::MTime` and
  /// `Thumb::Size` must match) is the listing's: `asset` carries the status the walk read
  /// from its file in this run, which is not read again. An entry is thus valid for the
  /// file as the listing saw it: the row the caller writes beside it describes the same
  /// version of the file. A picture not of the asset's first file is keyed as
  /// ``withPicture(for:fitting:folders:_:)`` keys it, from the file's status now.
  package func linkPicture(
    for asset: Asset, fitting side: Int, into folder: Int32, named name: String,
    folders: EntryFolders,
    accepting accepts: (_ width: Int, _ height: Int) -> Bool = { _, _ in true }
  ) -> Linked {
    let box = (width: side, height: side)
    guard (1...PictureCache.Size.xxLarge.rawValue).contains(side),
      let resource = AssetsLibrary.cachedResource(of: asset),
      let size = PictureCache.Size.smallest(
        atLeast: AssetsLibrary.neededSide(asset, box, .aspectFit)),
      let key = listedKey(of: resource, in: asset) ?? cache.key(for: resource.path, root: root)
    else { return .none }
    let target = FileDescriptor(rawValue: folder)
    for candidate in PictureCache.Size.allCases where candidate >= size {
      guard let entries = folders.folder(candidate) else { continue }
      do throws(SystemCallError) {
        try entries.link(entry: key.name, to: target, as: name)
      } catch {
        if error.errno == .noSuchFileOrDirectory { continue }
        return .notLinked
      }
      var refused = false
      if let contents = PictureCache.handedOnContents(entry: name, in: target),
        PictureCache.isValid(contents, for: key), contents.width <= candidate.rawValue,
        contents.height <= candidate.rawValue,
        AssetsLibrary.covers(
          contents.width, contents.height, size: candidate, box, .aspectFit, asset: asset)
      {
        if accepts(contents.width, contents.height) {
          return .linked(width: contents.width, height: contents.height)
        }
        refused = true
      }
      do throws(SystemCallError) {
        try target.removeEntry(name)
      } catch {
        return .notLinked
      }
      if refused { return .none }
    }
    return .none
  }

  /// The key of `resource` from the listing's `asset`, without a system call: when it is
  /// the asset's first file, whole, whose modification time the asset carries
  /// (``Asset/fileModificationDate``) and whose size the resource does.
  private func listedKey(of resource: AssetResource, in asset: Asset) -> PictureCache.Key? {
    guard resource.byteRange == nil, let first = asset.resources.first,
      first.path == resource.path, first.byteRange == nil
    else { return nil }
    return cache.key(
      for: resource.path, modificationDate: asset.fileModificationDate, size: resource.fileSize)
  }
}
