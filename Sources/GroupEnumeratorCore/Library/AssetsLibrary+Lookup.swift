public import FoundationEssentials

/// Lookup: one asset or group, by its `assets-library://` URL or by a file's path.
extension AssetsLibrary {
  /// Finds the asset an `assets-library://asset/…` URL names.
  ///
  /// - Parameter url: An asset URL from ``Asset/url``.
  /// - Returns: The asset, or `nil` when no file of the library has that identifier.
  /// - Throws: ``LibraryError`` for a library-level fault.
  public func asset(for url: URL) async throws(LibraryError) -> Asset? {
    guard let id = AssetsLibrary.assetIdentifier(in: url) else { return nil }
    let contents = try await list(
      filter: .all,
      fileSelection: { StableIdentifier.uuid(namespace: "asset", path: $0.path) == id },
      progress: { _, _ in })
    return contents.assets.first
  }

  /// The group an `assets-library://group/?id=…` URL names
  /// (`groupForURL:resultBlock:failureBlock:`).
  ///
  /// - Parameter url: A group URL from ``AssetGroup/url``.
  /// - Returns: The group, or `nil` when the library has no such group.
  /// - Throws: ``LibraryError`` for a library-level fault.
  public func group(for url: URL) async throws(LibraryError) -> AssetGroup? {
    guard let id = AssetsLibrary.identifier(in: url, host: "group") else { return nil }
    return try await groups(types: [.savedPhotos, .album, .library]).first { $0.id == id }
  }

  /// The `id` query item of an `assets-library://asset/…` URL.
  static func assetIdentifier(in url: URL) -> UUID? {
    identifier(in: url, host: "asset")
  }

  /// The `id` query item of an `assets-library://<host>/…` URL (`asset` or `group`).
  static func identifier(in url: URL, host: String) -> UUID? {
    guard url.scheme == "assets-library", url.host == host,
      let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems,
      let value = items.first(where: { $0.name == "id" })?.value
    else { return nil }
    return UUID(uuidString: value)
  }

  /// Finds the asset one of whose files is at `path`.
  ///
  /// The path is relative to the library root, as in ``Asset/path`` and
  /// ``AssetResource/path``: `DCIM/100APPLE/IMG_0100.JPG`, never `/srv/photos/…` and
  /// without `./`. Any of an asset's resources finds it: the movie of a Live Photo and a
  /// sidecar (`IMG_0200.AAE`) give the Live Photo, as its still does.
  ///
  /// ```swift
  /// if let asset = try await library.asset(at: LibraryPath("DCIM/100APPLE/IMG_0200.MOV")) {
  ///   print(asset.type)  // livePhoto
  /// }
  /// ```
  ///
  /// Only the group that holds `path` is considered, and only that file (with the other
  /// half of its Live Photo, when it may have one) is read, so a lookup costs one walk and
  /// one or two file reads. With an index (``LibraryOptions/index``) those files are taken
  /// from it when unchanged, and stored when read; the rows of other files are kept.
  ///
  /// - Parameter path: A file's path relative to the library root, compared byte for byte.
  /// - Returns: The asset, or `nil` when no asset has a file at `path`: nothing there, a
  ///   folder, a hidden or skipped file, a symbolic link, or a file that is not a photo or
  ///   video (``otherFile(at:)`` then gives the reason; it is not an error, as
  ///   ``LibraryError`` is kept for faults of the whole library).
  /// - Throws: ``LibraryError`` for a missing, non-folder or unreadable root, or
  ///   ``LibraryError/cancelled``.
  public func asset(at path: LibraryPath) async throws(LibraryError) -> Asset? {
    let walked = try await LibraryRun.start(self, index: .later)
    guard let group = walked.group(holding: path) else { return nil }
    // One file (or a pair) is read: its rows are looked up one by one, not all loaded.
    let run = await walked.openingIndex()
    let found = try await run.asset(at: path, in: group)
    await run.finish()
    return found
  }

  /// Finds the file at `path` that is not an asset, with the reason it is not.
  ///
  /// ```swift
  /// if try await library.asset(at: path) == nil,
  ///   let other = try await library.otherFile(at: path)
  /// {
  ///   print(other.message)  // 'Notes/todo.txt' is a .txt file, not a photo or video …
  /// }
  /// ```
  ///
  /// Only the walk runs; nothing is read beyond the first bytes that decide whether a
  /// file is media.
  ///
  /// - Parameter path: A file's path relative to the library root, compared byte for byte.
  /// - Returns: The other file, or `nil` when the file at `path` is an asset's, or there
  ///   is no listed file there.
  /// - Throws: ``LibraryError`` for a missing, non-folder or unreadable root, or
  ///   ``LibraryError/cancelled``.
  public func otherFile(at path: LibraryPath) async throws(LibraryError) -> OtherFile? {
    try await LibraryRun.start(self, index: .later).scan.otherFiles.first { $0.path == path }
  }
}
