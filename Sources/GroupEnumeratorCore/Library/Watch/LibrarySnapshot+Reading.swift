import FoundationEssentials

extension LibrarySnapshot {
  /// The groups `keys` as a reading found them, with the assets whose files are being
  /// written as `old` knew them; and, when `keepsAssets`, the assets read that are not in
  /// `old` or differ from it.
  ///
  /// - Parameters:
  ///   - keys: The groups read, each read whole; a group without assets is left out.
  ///   - assets: What the reading found in those groups.
  ///   - old: The state the watch knew before.
  ///   - pending: Files being written, which the reading left out.
  ///   - root: The library's root, beneath which each file's key is taken.
  ///   - keepsAssets: Whether the assets that differ from `old` are returned.
  static func reading(
    of keys: [ScannedGroup.Key], assets: [Asset], previous old: LibrarySnapshot,
    pending: Set<LibraryPath>, root: LibraryRoot, keepsAssets: Bool
  ) -> (LibrarySnapshot, [UUID: Asset]) {
    var new = LibrarySnapshot()
    var read: [UUID: Asset] = [:]
    var assetsByGroup: [ScannedGroup.Key: [Asset]] = [:]
    for asset in assets {
      assetsByGroup[ScannedGroup.Key(kind: asset.group, path: asset.groupPath), default: []]
        .append(asset)
    }
    let isPending: (Asset) -> Bool = { asset in
      asset.resources.contains { pending.contains($0.path) }
    }
    for key in keys {
      var entries: [Entry] = []
      var taken: Set<UUID> = []
      for asset in assetsByGroup[key] ?? [] {
        if isPending(asset) {
          // A sidecar or movie still being written: the asset stays as it was.
          if let before = old.assets[asset.id], taken.insert(asset.id).inserted {
            entries.append(before)
          }
          continue
        }
        let fileKeys = asset.resources.map { FileKey.of($0.path, beneath: root.descriptor) }
        let entry = Entry(asset, keys: fileKeys)
        if keepsAssets, old.assets[asset.id] != entry { read[asset.id] = asset }
        entries.append(entry)
        taken.insert(asset.id)
      }
      // Assets whose file is being rewritten were left out of the reading: keep them.
      let used = Set(entries.flatMap { $0.files.map(\.path) })
      let isPendingEntry: (Entry) -> Bool = { entry in
        entry.files.contains { pending.contains($0.path) }
      }
      for id in old.groups[key]?.assets ?? [] {
        guard let before = old.assets[id], !taken.contains(id), isPendingEntry(before),
          !before.files.contains(where: { used.contains($0.path) })
        else { continue }
        entries.append(before)
      }
      guard !entries.isEmpty else { continue }
      entries.sort { $0.path < $1.path }
      new.add(kind: key.kind, path: key.path, entries: entries)
    }
    return (new, read)
  }
}

/// The changes of a reading done a group at a time, gathered into one
/// ``LibraryChange`` in the order ``LibrarySnapshot/change(from:to:read:)`` gives.
struct ChangeCollector {
  private var insertedAssets: [Asset] = []
  private var updatedAssets: [Asset] = []
  private var deletedAssets: [Asset] = []
  private var insertedGroups: [AssetGroup] = []
  private var updatedGroups: [AssetGroup] = []
  private var deletedGroups: [AssetGroup] = []

  /// Adds the change of some groups; no asset or group may be in two changes added.
  mutating func add(_ change: LibraryChange) {
    insertedAssets += change.insertedAssets
    updatedAssets += change.updatedAssets
    deletedAssets += change.deletedAssets
    insertedGroups += change.insertedGroups
    updatedGroups += change.updatedGroups
    deletedGroups += change.deletedGroups
  }

  /// Everything added, each list in its order.
  var change: LibraryChange {
    LibraryChange.sorted(
      insertedAssets: insertedAssets, updatedAssets: updatedAssets,
      deletedAssets: deletedAssets, insertedGroups: insertedGroups,
      updatedGroups: updatedGroups, deletedGroups: deletedGroups)
  }
}

extension LibraryChange {
  /// A change with its assets by path and its groups in library order (the Camera Roll
  /// first, then by path).
  static func sorted(
    insertedAssets: [Asset], updatedAssets: [Asset], deletedAssets: [Asset],
    insertedGroups: [AssetGroup], updatedGroups: [AssetGroup], deletedGroups: [AssetGroup]
  ) -> LibraryChange {
    let byAssetPath: (Asset, Asset) -> Bool = { $0.path < $1.path }
    let byGroupPath: (AssetGroup, AssetGroup) -> Bool = {
      ($0.kind == .savedPhotos ? 0 : 1, $0.path) < ($1.kind == .savedPhotos ? 0 : 1, $1.path)
    }
    return LibraryChange(
      insertedAssets: insertedAssets.sorted(by: byAssetPath),
      updatedAssets: updatedAssets.sorted(by: byAssetPath),
      deletedAssets: deletedAssets.sorted(by: byAssetPath),
      insertedGroups: insertedGroups.sorted(by: byGroupPath),
      updatedGroups: updatedGroups.sorted(by: byGroupPath),
      deletedGroups: deletedGroups.sorted(by: byGroupPath))
  }
}
