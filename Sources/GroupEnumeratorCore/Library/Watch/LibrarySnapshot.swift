import FoundationEssentials

/// What a watcher last knew of a library, kept small: per asset only what tells whether
/// it changed (the keys of its files and a digest of what was read) and what names it when
/// it goes, and every group with the folders its assets' files are in. No ``Asset`` is
/// kept: a change's inserted and updated assets come from the reading that found them.
struct LibrarySnapshot: Sendable {
  /// One file of an asset: its path, role, the part of it that is the resource, and its
  /// ``FileKey`` (`nil` for a file that was gone by the time it was looked at).
  struct File: Sendable, Equatable {
    var path: LibraryPath
    var role: AssetResource.Role
    var byteRange: Range<Int64>?
    var size: Int64
    var key: FileKey?
  }

  /// One asset, compactly: its files (the primary first, as ``Asset/resources`` lists
  /// them) and a digest of the whole asset as read (its metadata and problems included).
  struct Entry: Sendable, Equatable {
    var id: UUID
    var group: ScannedGroup.Key
    var type: AssetType
    var files: [File]
    var modificationDate: Date
    var digest: Int

    /// The entry of `asset`, whose resources have the keys `keys`.
    init(_ asset: Asset, keys: [FileKey?]) {
      id = asset.id
      group = ScannedGroup.Key(kind: asset.group, path: asset.groupPath)
      type = asset.type
      files = asset.resources.enumerated().map { index, resource in
        File(
          path: resource.path, role: resource.role, byteRange: resource.byteRange,
          size: resource.fileSize, key: index < keys.count ? keys[index] : nil)
      }
      modificationDate = asset.fileModificationDate
      digest = asset.hashValue
    }

    /// The primary file's path.
    var path: LibraryPath { files.first?.path ?? .root }

    /// The asset as it is named when it is gone: its identity, group, type and files
    /// (each file's size as last seen), without the metadata, which is not kept.
    var lastSeen: Asset {
      let resources = files.map { file in
        AssetResource(
          path: file.path, role: file.role, format: nil, fileSize: file.size,
          byteRange: file.byteRange)
      }
      return Asset(
        path: path, group: group.kind, groupPath: group.path, type: type, resources: resources,
        fileModificationDate: modificationDate, metadata: MediaMetadata())
    }
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
      counts[entry.type, default: 0] += 1
      for file in entry.files { folders.insert(file.path.parent) }
      assets[entry.id] = entry
    }
    let key = ScannedGroup.Key(kind: kind, path: path)
    groups[key] = Group(
      group: AssetGroup(kind: kind, path: path, counts: counts), assets: entries.map(\.id),
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
      for id in group.assets where assets[id]?.group == key { assets[id] = nil }
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
      entry.files.contains { pending.contains($0.path) }
    }
    var result = LibrarySnapshot()
    for (key, group) in groups {
      let entries = group.assets.compactMap { assets[$0] }
      guard entries.contains(where: isPending) else {
        result.copy(key, from: self)
        continue
      }
      let kept = entries.compactMap { isPending($0) ? old.assets[$0.id] : $0 }
      guard !kept.isEmpty else { continue }
      result.add(kind: key.kind, path: key.path, entries: kept)
    }
    return result
  }

  /// What changed from `old` to `new`; `read` holds the assets as read for the entries
  /// of `new` that are not in `old` or differ from it (an entry without one there is
  /// reported as it was last seen).
  ///
  /// - Complexity: O(*n* log *n*) in the number of assets of both.
  static func change(
    from old: LibrarySnapshot, to new: LibrarySnapshot, read: [UUID: Asset]
  ) -> LibraryChange {
    var inserted: [Asset] = []
    var updated: [Asset] = []
    var deleted: [Asset] = []
    var touchedGroups: Set<ScannedGroup.Key> = []
    for (id, entry) in new.assets {
      guard let before = old.assets[id] else {
        inserted.append(read[id] ?? entry.lastSeen)
        touchedGroups.insert(entry.group)
        continue
      }
      if before != entry {
        updated.append(read[id] ?? entry.lastSeen)
        touchedGroups.insert(entry.group)
      }
    }
    for (id, entry) in old.assets where new.assets[id] == nil {
      deleted.append(entry.lastSeen)
      touchedGroups.insert(entry.group)
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
    return LibraryChange.sorted(
      insertedAssets: inserted, updatedAssets: updated, deletedAssets: deleted,
      insertedGroups: insertedGroups, updatedGroups: updatedGroups, deletedGroups: deletedGroups)
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
