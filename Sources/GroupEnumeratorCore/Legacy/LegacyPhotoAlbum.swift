import FoundationEssentials

/// The legacy dictionary of one photo, as the original `SystemPhotoAlbum` code built it:
/// `photoDefaultPath`, `photoThumPath`, `photoName`, `photoGPS` and `photoDateTime`.
///
/// The modern equivalent is ``Asset`` itself.
public typealias LegacyPhotoDictionary = [String: any Sendable]

extension Asset {
  /// This asset as the legacy dictionary (docs/Formats.md, "Legacy dictionaries"):
  /// - `photoDefaultPath`, `photoThumPath`: the asset URL's text (both the same);
  /// - `photoName`: the file name;
  /// - `photoGPS`: `["Latitude": Double, "LatitudeRef": "N"|"S", "Longitude": Double,
  ///   "LongitudeRef": "E"|"W"]` in unsigned degrees, or exactly
  ///   `["Latitude": "0.0", "Longitude": "0.0"]` without a location;
  /// - `photoDateTime`: the raw TIFF DateTime, or `"0"`.
  ///
  /// The modern equivalents are ``url``, ``name``, ``location`` and
  /// ``MediaMetadata/dateTime``.
  public var legacyDictionary: LegacyPhotoDictionary {
    var builder = LegacyDictionaryBuilder()
    AssetSchema.visitLegacy(self, with: &builder)
    return builder.dictionary
  }

  /// `photoGPS` of ``legacyDictionary``.
  public var legacyGPS: LegacyGPS { LegacyGPS(location) }

  /// `photoDateTime` of ``legacyDictionary``: the raw TIFF DateTime, or `"0"`.
  public var legacyDateTime: String { metadata.dateTime ?? "0" }
}

@_spi(Demo) extension AssetSchema {
  /// Calls `visitor` for the members of `asset`'s legacy dictionary, in the order JSON
  /// writes them: the keys of ``Asset/legacyDictionary`` and of the `legacy` member.
  @inlinable
  public static func visitLegacy<Visitor: AssetSchemaVisitor>(
    _ asset: Asset, with visitor: inout Visitor
  ) {
    visitor.url("photoDefaultPath", of: asset)
    visitor.url("photoThumPath", of: asset)
    visitor.name("photoName", of: asset)
    let gps = asset.legacyGPS
    visitor.object("photoGPS") { AssetSchema.visit(gps, with: &$0) }
    visitor.string("photoDateTime", asset.legacyDateTime)
  }
}

@_spi(Demo) extension AssetSchemaVisitor {
  /// The legacy dictionary as an object through ``object(_:_:)``, or ``null(_:)`` for a
  /// video.
  @inlinable
  public mutating func legacy(_ key: StaticString, of asset: Asset?) {
    guard let asset else { return null(key) }
    object(key) { AssetSchema.visitLegacy(asset, with: &$0) }
  }
}

/// Collects what a legacy walk visits into a dictionary: texts as `String`, numbers as
/// `Double`, objects as nested dictionaries.
struct LegacyDictionaryBuilder: AssetSchemaVisitor {
  private(set) var dictionary: [String: any Sendable] = [:]

  private mutating func set(_ key: StaticString, _ value: (any Sendable)?) {
    guard let value else { return }
    dictionary[key.description] = value
  }

  mutating func string(_ key: StaticString, _ value: String?) { set(key, value) }

  mutating func integer<Value: FixedWidthInteger & Encodable>(
    _ key: StaticString, _ value: Value?
  ) {
    set(key, value.map { Int64(clamping: $0) })
  }

  mutating func number(_ key: StaticString, _ value: Double?) { set(key, value) }

  mutating func number(_ key: StaticString, _ value: Double?, decimalPlaces places: Int) {
    set(key, value.map { Location.rounded($0, decimalPlaces: places) })
  }

  mutating func bool(_ key: StaticString, _ value: Bool) { set(key, value) }

  mutating func null(_ key: StaticString) {}

  mutating func object(_ key: StaticString, _ members: (inout Self) -> Void) {
    var nested = LegacyDictionaryBuilder()
    members(&nested)
    set(key, nested.dictionary)
  }

  mutating func objects<Elements: Sequence>(
    _ key: StaticString, _ elements: Elements, _ members: (inout Self, Elements.Element) -> Void
  ) {
    set(
      key,
      elements.map { element in
        var nested = LegacyDictionaryBuilder()
        members(&nested, element)
        return nested.dictionary
      })
  }

  mutating func strings(_ key: StaticString, _ values: [String]) { set(key, values) }
}

/// A running legacy enumeration; ``cancel()`` stops it and makes it call `fail` with
/// ``LibraryError/cancelled``.
public struct LegacyEnumeration: Sendable {
  let task: Task<Void, Never>

  /// Stops the enumeration promptly; its `fail` closure then runs once with
  /// ``LibraryError/cancelled`` (unless `success` already ran).
  public func cancel() { task.cancel() }

  /// Waits until the enumeration has called `success` or `fail`.
  public func wait() async { await task.value }
}

extension AssetsLibrary {
  /// The port of the original `SystemPhotoAlbumPhotoSuccess:progress:fail:`: reads every
  /// photo of the library and hands over their legacy dictionaries.
  ///
  /// Unlike the original, `total` counts photos across all groups, and `success` also runs
  /// for an empty library and when the last file is a video. Exactly one of `success` and
  /// `fail` runs, once. All three closures run on the main actor.
  ///
  /// Photos are the files that are photos by name or by content, broken ones and formats
  /// no reader takes included (each dictionary has all five keys, with the defaults when
  /// nothing could be read), and Live Photos. Files that are not photos or videos (a
  /// `.txt`, a sidecar on its own: ``OtherFile``) are neither handed over nor counted in
  /// `total`.
  ///
  /// The modern equivalent is ``enumerate(filter:progress:)`` with ``AssetFilter/photos``.
  ///
  /// - Parameters:
  ///   - success: Receives one ``LegacyPhotoDictionary`` per photo, in group order, then
  ///     by file name.
  ///   - progress: Receives `(current, total)`; `current` only grows and the last call
  ///     is `(total, total)`.
  ///   - fail: Receives a library-level fault (missing or unreadable library, or
  ///     cancellation); bad files never fail the library.
  /// - Returns: A handle to cancel or await the enumeration.
  @discardableResult
  public func systemPhotoAlbumPhoto(
    success: @escaping @MainActor @Sendable ([LegacyPhotoDictionary]) -> Void,
    progress: @escaping @MainActor @Sendable (_ current: Int, _ total: Int) -> Void,
    fail: @escaping @MainActor @Sendable (LibraryError) -> Void
  ) -> LegacyEnumeration {
    let task = Task { @MainActor in
      do throws(LibraryError) {
        let contents = try await self.enumerate(filter: .photos, progress: progress)
        success(contents.assets.map(\.legacyDictionary))
      } catch {
        fail(error)
      }
    }
    return LegacyEnumeration(task: task)
  }
}
