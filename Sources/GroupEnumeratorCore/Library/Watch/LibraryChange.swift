import FoundationEssentials

/// What changed in a library between two moments: the assets and groups that appeared,
/// changed or went away, as ``AssetsLibrary/changes(coalescing:)`` reports them.
///
/// Each change is the difference between two complete readings of the affected folders,
/// so it agrees with what ``AssetsLibrary/enumerate(filter:progress:)`` would have said
/// before and after:
///
/// - An asset is identified by its ``Asset/id`` (from its primary file's path). A renamed
///   or moved file is therefore one deleted asset and one inserted asset with the new
///   URL.
/// - An asset is updated when any of its files changed (device, inode, size, modification
///   or change time) or when what is read from them changed. A movie that arrives beside
///   its still turns the photo into a Live Photo: an update of the still's asset (and the
///   movie is no asset of its own). A movie that leaves turns it back into a photo, again
///   an update.
/// - A group is inserted with its first asset, deleted with its last, and updated when
///   any of its assets is inserted, updated or deleted.
public struct LibraryChange: Sendable, Hashable {
  /// Assets that did not exist before, as they are now, by path.
  public let insertedAssets: [Asset]
  /// Assets whose files or metadata changed, as they are now, by path.
  public let updatedAssets: [Asset]
  /// Assets that no longer exist, by path: their ``Asset/id``, path, group, type, files
  /// (each with its size, without its format) and modification time as last seen. Their
  /// metadata is empty: a watch keeps only what tells a change, not what was read.
  public let deletedAssets: [Asset]
  /// Groups that did not exist before, with their counts now, by path.
  public let insertedGroups: [AssetGroup]
  /// Groups that gained, changed or lost assets, with their counts now, by path.
  public let updatedGroups: [AssetGroup]
  /// Groups that no longer exist, as they were last seen, by path.
  public let deletedGroups: [AssetGroup]

  /// Creates a change.
  public init(
    insertedAssets: [Asset] = [], updatedAssets: [Asset] = [], deletedAssets: [Asset] = [],
    insertedGroups: [AssetGroup] = [], updatedGroups: [AssetGroup] = [],
    deletedGroups: [AssetGroup] = []
  ) {
    self.insertedAssets = insertedAssets
    self.updatedAssets = updatedAssets
    self.deletedAssets = deletedAssets
    self.insertedGroups = insertedGroups
    self.updatedGroups = updatedGroups
    self.deletedGroups = deletedGroups
  }

  /// Whether nothing changed.
  public var isEmpty: Bool {
    insertedAssets.isEmpty && updatedAssets.isEmpty && deletedAssets.isEmpty
      && insertedGroups.isEmpty && updatedGroups.isEmpty && deletedGroups.isEmpty
  }
}
