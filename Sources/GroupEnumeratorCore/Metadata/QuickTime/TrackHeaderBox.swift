/// The track header box, `tkhd`: a track's presentation size and transformation matrix.
///
/// The same in the ISO base media file format and QuickTime. A full box; version 1 widens the times
/// and duration to 64 bits. `width` and `height` are unsigned 16.16 fixed-point numbers; the matrix
/// `{a, b, u, c, d, v, x, y, w}` holds 16.16 values except `u`, `v`, `w` (2.30).
struct TrackHeaderBox: TwoVersionFullBox, Hashable, Sendable {
  /// The box version, 0 or 1.
  let version: UInt8
  /// The track's identifier.
  let trackID: UInt32
  /// The transformation matrix, nine signed values in file order `a b u c d v x y w`.
  let matrix: [Int32]
  /// Width as 16.16 fixed point.
  let widthFixed: UInt32
  /// Height as 16.16 fixed point.
  let heightFixed: UInt32

  /// Through the matrix, then width and height.
  static var requiredLengths: (version0: Int, version1: Int) { (84, 96) }

  /// Parses a `tkhd` box's content (a version other than 0 or 1, or a content shorter
  /// than its layout, throws what ``BoxContent/version(of:)`` throws).
  init(parsing content: BoxContent) throws(BoxParsingError) {
    version = try content.version(of: TrackHeaderBox.self)
    // Version 1: creation(8) modification(8) track_ID(4) reserved(4) duration(8);
    // version 0: the same with 4-byte times and duration.
    trackID = try content.uint32(at: version == 1 ? 20 : 12)
    let matrixOffset = version == 1 ? 52 : 40
    var matrix: [Int32] = []
    for index in 0..<9 { matrix.append(try content.int32(at: matrixOffset + 4 * index)) }
    self.matrix = matrix
    widthFixed = try content.uint32(at: matrixOffset + 36)
    heightFixed = try content.uint32(at: matrixOffset + 40)
  }

  /// Width in whole pixels (16.16 rounded to nearest); `nil` when 0.
  var width: Int? { TrackHeaderBox.roundedPixels(widthFixed) }

  /// Height in whole pixels (16.16 rounded to nearest); `nil` when 0.
  var height: Int? { TrackHeaderBox.roundedPixels(heightFixed) }

  /// The EXIF orientation (1…8) equivalent to the matrix, or `nil` when the matrix is
  /// not a quarter-turn rotation or mirror (a shear or an arbitrary angle).
  ///
  /// QuickTime maps a point `(x, y)` to `(a·x + c·y, b·x + d·y)` in a y-down space, so
  /// `b > 0, c < 0` turns the picture 90° clockwise (EXIF 6) and `b < 0, c > 0` 270° (8).
  var orientation: Int? {
    guard matrix.count == 9 else { return nil }
    let a = matrix[0].signum()
    let b = matrix[1].signum()
    let c = matrix[3].signum()
    let d = matrix[4].signum()
    switch (a, b, c, d) {
    case (1, 0, 0, 1): return 1
    case (-1, 0, 0, 1): return 2
    case (-1, 0, 0, -1): return 3
    case (1, 0, 0, -1): return 4
    case (0, 1, 1, 0): return 5
    case (0, 1, -1, 0): return 6
    case (0, -1, -1, 0): return 7
    case (0, -1, 1, 0): return 8
    default: return nil
    }
  }

  /// The clockwise rotation in degrees (0, 90, 180, 270) of an unmirrored matrix.
  var rotation: Int? {
    switch orientation {
    case 1: return 0
    case 6: return 90
    case 3: return 180
    case 8: return 270
    default: return nil
    }
  }

  private static func roundedPixels(_ fixed: UInt32) -> Int? {
    let whole = Int(fixed >> 16) + (fixed & 0x8000 != 0 ? 1 : 0)
    return whole > 0 ? whole : nil
  }
}
