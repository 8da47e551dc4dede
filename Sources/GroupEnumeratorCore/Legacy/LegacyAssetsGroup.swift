public import FoundationEssentials

extension AssetFilter {
  /// `ALAssetsFilter.allPhotos`: stills and Live Photos.
  public static let allPhotos = AssetFilter.photos
  /// `ALAssetsFilter.allVideos`: movies.
  public static let allVideos = AssetFilter.videos
  /// `ALAssetsFilter.allAssets`: everything.
  public static let allAssets = AssetFilter.all
}

/// How a legacy asset enumeration walks its assets.
public struct EnumerationOptions: OptionSet, Sendable, Hashable {
  /// The option bits.
  public let rawValue: Int
  /// Creates options from their bits.
  public init(rawValue: Int) { self.rawValue = rawValue }
  /// Last asset first (`NSEnumerationReverse`).
  public static let reverse = EnumerationOptions(rawValue: 2)
}

/// An `ALAssetsGroup`-shaped view of one group, for code ported from iOS.
///
/// It holds the group's assets, read when ``AssetsLibrary/enumerateGroups(types:using:failure:)``
/// ran, so its enumerations are synchronous, as they were on iOS. The modern equivalents
/// are ``AssetGroup`` and ``AssetsLibrary/assets(in:filter:)``.
@MainActor public final class LegacyAssetsGroup {
  /// The group.
  public let group: AssetGroup
  private let assets: [Asset]
  private var filter: AssetFilter = .all

  init(group: AssetGroup, assets: [Asset]) {
    self.group = group
    self.assets = assets
  }

  /// `ALAssetsGroupPropertyName`: the group's English name.
  public var name: String { group.name }
  /// `ALAssetsGroupPropertyType`: the kind of group.
  public var type: AssetGroup.Kind { group.kind }
  /// `ALAssetsGroupPropertyPersistentID`: stable across runs.
  public var persistentID: String { group.id.uuidString }
  /// `ALAssetsGroupPropertyURL`: `assets-library://group/?id=…`.
  public var url: URL { group.url }

  /// Limits what ``numberOfAssets`` counts and the enumerations yield
  /// (`setAssetsFilter:`). The default is ``AssetFilter/allAssets``.
  ///
  /// - Parameter filter: The filter to apply from now on.
  public func setAssetsFilter(_ filter: AssetFilter) { self.filter = filter }

  /// How many assets pass the current filter.
  public var numberOfAssets: Int { filtered.count }

  /// The asset that stands for the group (its first, under the current filter).
  public var posterAsset: Asset? { filtered.first }

  /// `NSNotFound`, the index of the closing call: `Int.max`, as Foundation defines it.
  package static let notFound = Int.max

  private var filtered: [Asset] { assets.filter { filter.includes($0.type) } }

  /// Calls `block` with each asset and its index, then once more with `nil` and
  /// `NSNotFound`. Setting `stop` to `true` skips the remaining assets (the closing call
  /// still comes).
  ///
  /// - Parameter block: Receives the asset (or `nil` at the end), its index, and `stop`.
  public func enumerateAssets(using block: (Asset?, Int, inout Bool) -> Void) {
    enumerateAssets(options: [], using: block)
  }

  /// Like ``enumerateAssets(using:)``, optionally last asset first.
  ///
  /// - Parameters:
  ///   - options: ``EnumerationOptions/reverse`` to go backwards.
  ///   - block: Receives the asset (or `nil` at the end), its index, and `stop`.
  public func enumerateAssets(
    options: EnumerationOptions, using block: (Asset?, Int, inout Bool) -> Void
  ) {
    enumerateAssets(atPositions: 0..<filtered.count, options: options, using: block)
  }

  /// `enumerateAssets(at:options:using:)` (in the `GroupEnumerator` module, for its
  /// `IndexSet`): the assets at `indexes`, in increasing order, only. Indexes past the
  /// end are ignored.
  package func enumerateAssets(
    atPositions indexes: some Sequence<Int>, options: EnumerationOptions,
    using block: (Asset?, Int, inout Bool) -> Void
  ) {
    let assets = filtered
    var positions = indexes.filter { $0 >= 0 && $0 < assets.count }
    if options.contains(.reverse) { positions.reverse() }
    var stop = false
    for index in positions {
      block(assets[index], index, &stop)
      if stop { break }
    }
    var closingStop = stop
    block(nil, Self.notFound, &closingStop)
  }
}

extension AssetsLibrary {
  /// `enumerateGroupsWithTypes:usingBlock:failureBlock:`: reads the library, then calls
  /// `block` once per group of the requested types, in order, and once more with `nil`.
  /// Setting `stop` skips the remaining groups (the closing `nil` call still comes).
  /// Either the closing call or `failure` runs, exactly once; everything runs on the
  /// main actor.
  ///
  /// The modern equivalents are ``groups(types:)`` and ``assets(in:filter:)``.
  ///
  /// - Parameters:
  ///   - types: The kinds of group to visit.
  ///   - block: Receives each group (then `nil`) and `stop`.
  ///   - failure: Receives a library-level fault.
  /// - Returns: A handle to cancel or await the enumeration.
  @discardableResult
  public func enumerateGroups(
    types: AssetGroup.Types,
    using block: @escaping @MainActor @Sendable (LegacyAssetsGroup?, inout Bool) -> Void,
    failure: @escaping @MainActor @Sendable (LibraryError) -> Void
  ) -> LegacyEnumeration {
    let task = Task { @MainActor in
      do throws(LibraryError) {
        let contents = try await self.enumerate(filter: .all)
        var groups = contents.groups.filter { types.contains(kind: $0.kind) }
        if types.contains(.library) {
          groups.append(
            AssetGroup(
              kind: .library, path: .root,
              counts: contents.groups.reduce(into: [:]) { total, group in
                total.merge(group.counts, uniquingKeysWith: +)
              }))
        }
        var stop = false
        for group in groups {
          let members = contents.assets.filter {
            group.kind == .library || ($0.group == group.kind && $0.groupPath == group.path)
          }
          block(LegacyAssetsGroup(group: group, assets: members), &stop)
          if stop { break }
        }
        block(nil, &stop)
      } catch {
        failure(error)
      }
    }
    return LegacyEnumeration(task: task)
  }
}
