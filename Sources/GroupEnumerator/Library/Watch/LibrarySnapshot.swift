import Foundation

/// What a watcher last knew of a library: every asset with the keys of its files, and
/// every group with the folders its assets' files are in.
struct LibrarySnapshot: Sendable {
  /// One asset and the ``FileKey`` of each of its resources (`nil` for a file that was
  /// gone by the time it was looked at).
  struct Entry: Sendable, Equatable {
    var asset: Asset
    var keys: [FileKey?]
  }

  /// One group, its assets, and the folders their files are in.
  struct Group: Sendable, Equatable {
    var group: AssetGroup
    var assets: [UUID]
    var folders: Set<LibraryPath>
  }

  var assets: [UUID: Entry] = [:]
  var groups: [ScannedGroup.Key: Group] = [:]

  /// Adds a group and its assets; the group's counts are those of `entries`, as an
  /// enumeration of everything (``AssetFilter/all``) counts them.
  mutating func add(kind: AssetGroup.Kind, path: LibraryPath, entries: [Entry]) {
    var counts: [AssetType: Int] = [:]
    var folders: Set<LibraryPath> = [path]
    for entry in entries {
      counts[entry.asset.type, default: 0] += 1
      for resource in entry.asset.resources { folders.insert(resource.path.parent) }
      assets[entry.asset.id] = entry
    }
    let key = ScannedGroup.Key(kind: kind, path: path)
    groups[key] = Group(
      group: AssetGroup(kind: kind, path: path, counts: counts), assets: entries.map(\.asset.id),
      folders: folders)
  }

  /// Copies a group and its assets from `other`.
  mutating func copy(_ key: ScannedGroup.Key, from other: LibrarySnapshot) {
    guard let group = other.groups[key] else { return }
    groups[key] = group
    for id in group.assets { assets[id] = other.assets[id] }
  }

  /// The groups `keys` of this state and their assets.
  func part(_ keys: Set<ScannedGroup.Key>) -> LibrarySnapshot {
    var part = LibrarySnapshot()
    for key in keys { part.copy(key, from: self) }
    return part
  }

  /// Replaces the groups `keys` and their assets with the groups of `part` (whose keys
  /// must be among `keys`): a group of `keys` that `part` lacks is gone.
  mutating func replace(_ keys: Set<ScannedGroup.Key>, with part: LibrarySnapshot) {
    for key in keys {
      guard let group = groups.removeValue(forKey: key) else { continue }
      for id in group.assets { assets[id] = nil }
    }
    for (key, group) in part.groups {
      groups[key] = group
      for id in group.assets { assets[id] = part.assets[id] }
    }
  }

  /// This state with every asset that has a file in `pending` (a file being written) as
  /// it was in `old`, or left out when `old` did not have it.
  func holdingBack(_ pending: Set<LibraryPath>, as old: LibrarySnapshot) -> LibrarySnapshot {
    guard !pending.isEmpty else { return self }
    let isPending: (Entry) -> Bool = { entry in
      entry.asset.resources.contains { pending.contains($0.path) }
    }
    var result = LibrarySnapshot()
    for (key, group) in groups {
      let entries = group.assets.compactMap { assets[$0] }
      guard entries.contains(where: isPending) else {
        result.copy(key, from: self)
        continue
      }
      let kept = entries.compactMap { isPending($0) ? old.assets[$0.asset.id] : $0 }
      guard !kept.isEmpty else { continue }
      result.add(kind: key.kind, path: key.path, entries: kept)
    }
    return result
  }

  /// What changed from `old` to `new`.
  ///
  /// - Complexity: O(*n* log *n*) in the number of assets of both.
  static func change(from old: LibrarySnapshot, to new: LibrarySnapshot) -> LibraryChange {
    var inserted: [Asset] = []
    var updated: [Asset] = []
    var deleted: [Asset] = []
    var touchedGroups: Set<ScannedGroup.Key> = []
    for (id, entry) in new.assets {
      guard let before = old.assets[id] else {
        inserted.append(entry.asset)
        touchedGroups.insert(ScannedGroup.Key(kind: entry.asset.group, path: entry.asset.groupPath))
        continue
      }
      if before != entry {
        updated.append(entry.asset)
        touchedGroups.insert(ScannedGroup.Key(kind: entry.asset.group, path: entry.asset.groupPath))
      }
    }
    for (id, entry) in old.assets where new.assets[id] == nil {
      deleted.append(entry.asset)
      touchedGroups.insert(ScannedGroup.Key(kind: entry.asset.group, path: entry.asset.groupPath))
    }
    var insertedGroups: [AssetGroup] = []
    var updatedGroups: [AssetGroup] = []
    var deletedGroups: [AssetGroup] = []
    for (key, group) in new.groups {
      guard let before = old.groups[key] else {
        insertedGroups.append(group.group)
        continue
      }
      if before.group != group.group || touchedGroups.contains(key) {
        updatedGroups.append(group.group)
      }
    }
    for (key, group) in old.groups where new.groups[key] == nil {
      deletedGroups.append(group.group)
    }
    let byAssetPath: (Asset, Asset) -> Bool = { $0.path < $1.path }
    let byGroupPath: (AssetGroup, AssetGroup) -> Bool = {
      ($0.kind == .savedPhotos ? 0 : 1, $0.path) < ($1.kind == .savedPhotos ? 0 : 1, $1.path)
    }
    return LibraryChange(
      insertedAssets: inserted.sorted(by: byAssetPath),
      updatedAssets: updated.sorted(by: byAssetPath),
      deletedAssets: deleted.sorted(by: byAssetPath),
      insertedGroups: insertedGroups.sorted(by: byGroupPath),
      updatedGroups: updatedGroups.sorted(by: byGroupPath),
      deletedGroups: deletedGroups.sorted(by: byGroupPath))
  }
}

/// The folders whose contents must be read again.
struct DirtyFolders: Sendable {
  /// Folders whose files changed.
  var folders: Set<LibraryPath> = []
  /// Folders that appeared, moved or went away: they and everything below them.
  var subtrees: Set<LibraryPath> = []

  var isEmpty: Bool { folders.isEmpty && subtrees.isEmpty }

  /// Marks the whole library.
  mutating func markEverything() { subtrees.insert(.root) }

  /// Whether the folder at `path` is to be read again.
  func contains(_ path: LibraryPath) -> Bool {
    folders.contains(path) || subtrees.contains { $0.encloses(path) }
  }
}
