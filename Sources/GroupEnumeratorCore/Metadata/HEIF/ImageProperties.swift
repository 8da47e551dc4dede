/// The image spatial extents property, `ispe`: an image item's width and height in
/// pixels, before any transformative property (`clap`, `irot`, `imir`) is applied.
///
/// A full box of version 0 holding
/// `image_width` and `image_height`, both 32-bit. Every image item has one; for a `grid`
/// it is the size of the whole canvas, not of a tile.
struct ImageSpatialExtentsProperty: Hashable, Sendable {
  /// The width in pixels.
  let width: UInt32
  /// The height in pixels.
  let height: UInt32

  /// Parses an `ispe` box's content.
  ///
  /// - Throws: ``BoxParsingError/unsupportedVersion(type:offset:version:)`` for a version
  ///   other than 0; ``BoxParsingError/contentTooShort(type:offset:needed:available:)``
  ///   when the fields are cut short.
  init(parsing content: BoxContent) throws(BoxParsingError) {
    let version = try content.version()
    guard version == 0 else {
      throw .unsupportedVersion(
        type: content.header.type, offset: content.header.offset, version: version)
    }
    width = try content.uint32(at: 4)
    height = try content.uint32(at: 8)
  }
}

/// The image rotation property, `irot`: how far to turn the image, anticlockwise, for
/// display.
///
/// Not a full box: one byte whose low two
/// bits are `angle`, in units of 90° anticlockwise; the other six bits are reserved.
struct ImageRotation: Hashable, Sendable {
  /// Quarter turns anticlockwise, 0…3.
  let quarterTurnsAnticlockwise: Int

  /// Parses an `irot` box's content.
  ///
  /// - Throws: ``BoxParsingError/contentTooShort(type:offset:needed:available:)`` when
  ///   the box is empty.
  init(parsing content: BoxContent) throws(BoxParsingError) {
    quarterTurnsAnticlockwise = Int(try content.uint8(at: 0) & 0x3)
  }
}

/// The image mirroring property, `imir`: a flip for display.
///
/// Not a full box (the axis as HEIF has defined it since 2022): one byte whose low
/// bit is `axis` — 0 exchanges the top and bottom (EXIF orientation 4), 1 exchanges left
/// and right (EXIF orientation 2); the other seven bits are reserved.
struct ImageMirror: Hashable, Sendable {
  /// Whether left and right are exchanged (`axis` 1) rather than top and bottom (0).
  let exchangesLeftAndRight: Bool

  /// Parses an `imir` box's content.
  ///
  /// - Throws: ``BoxParsingError/contentTooShort(type:offset:needed:available:)`` when
  ///   the box is empty.
  init(parsing content: BoxContent) throws(BoxParsingError) {
    exchangesLeftAndRight = try content.uint8(at: 0) & 0x1 == 1
  }
}

/// One property in an `ipco` box, as far as this reader cares.
enum ItemProperty: Hashable, Sendable {
  /// `ispe`.
  case spatialExtents(ImageSpatialExtentsProperty)
  /// `irot`.
  case rotation(ImageRotation)
  /// `imir`.
  case mirror(ImageMirror)
  /// A property this reader does not interpret (`hvcC`, `colr`, `pixi`, `clap`…).
  case other(FourCharacterCode)
  /// A property of a kind this reader interprets that could not be parsed.
  case malformed(BoxParsingError)

  /// Parses one child of an `ipco` box.
  init(parsing content: BoxContent) {
    do throws(BoxParsingError) {
      switch content.header.type {
      case .imageSpatialExtents:
        self = .spatialExtents(try ImageSpatialExtentsProperty(parsing: content))
      case .imageRotation: self = .rotation(try ImageRotation(parsing: content))
      case .imageMirror: self = .mirror(try ImageMirror(parsing: content))
      default: self = .other(content.header.type)
      }
    } catch {
      self = .malformed(error)
    }
  }
}
