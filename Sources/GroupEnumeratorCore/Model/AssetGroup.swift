public import FoundationEssentials

/// A group of assets: the Camera Roll, an album (a folder), or the whole library.
public struct AssetGroup: Sendable, Hashable, Identifiable {
  /// What kind of group it is, as ALAssetsGroupType had it.
  public enum Kind: String, Sendable, Hashable, CaseIterable, Codable {
    /// The Camera Roll: files in the root folder and under `DCIM/`.
    case savedPhotos
    /// A folder of the library, named by its path relative to the root.
    case album
    /// Every asset of the library (virtual; only listed when asked for).
    case library
  }

  /// A set of group kinds to enumerate.
  public struct Types: OptionSet, Sendable, Hashable {
    /// The set's bits.
    public let rawValue: Int
    /// Creates a set from its raw bits.
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// The Camera Roll.
    public static let savedPhotos = Types(rawValue: 1)
    /// Albums.
    public static let album = Types(rawValue: 2)
    /// The virtual group of every asset.
    public static let library = Types(rawValue: 4)
    /// The Camera Roll and every album: each asset exactly once.
    public static let all: Types = [.savedPhotos, .album]

    /// Whether the set includes groups of `kind`.
    public func contains(kind: Kind) -> Bool {
      switch kind {
      case .savedPhotos: contains(.savedPhotos)
      case .album: contains(.album)
      case .library: contains(.library)
      }
    }
  }

  /// A stable identifier derived from the group's folder path.
  public let id: UUID
  /// The kind of group.
  public let kind: Kind
  /// The folder, relative to the root: the root for the Camera Roll and All Photos.
  public let path: LibraryPath
  /// How many assets of each type the group holds.
  public let counts: [AssetType: Int]

  /// Creates a group.
  public init(kind: Kind, path: LibraryPath, counts: [AssetType: Int] = [:]) {
    self.kind = kind
    self.path = path
    self.counts = counts
    self.id = StableIdentifier.uuid(namespace: "group:" + kind.rawValue, path: path)
  }

  /// The number of assets in the group.
  public var count: Int { counts.values.reduce(0, +) }

  /// `assets-library://group/?id=<UUID>`.
  public var url: URL {
    URL(string: "assets-library://group/?id=\(id.uuidString)")
      ?? URL(fileURLWithPath: "/")
  }

  /// The group's name in English: `Camera Roll`, `All Photos`, or the album's path.
  public var name: String { localizedName(in: .english) }

  /// The group's name for people in `language`. Album names are folder paths and are
  /// never translated.
  ///
  /// - Parameter language: The language to name the group in.
  /// - Returns: The name.
  public func localizedName(in language: Language) -> String {
    switch (kind, language) {
    case (.savedPhotos, .english): "Camera Roll"
    case (.savedPhotos, .simplifiedChinese): "相机胶卷"
    case (.savedPhotos, .japanese): "カメラロール"
    case (.library, .english): "All Photos"
    case (.library, .simplifiedChinese): "所有照片"
    case (.library, .japanese): "すべての写真"
    case (.album, _): path.escaped
    }
  }
}
