/// The turn and flip that the `irot` and `imir` properties of an image item ask for, as
/// the EXIF orientation (1…8) that says the same thing.
///
/// The transformative properties apply in association order (the specification requires
/// `clap`, then `irot`, then `imir`; other orders are applied as listed). Each is a 2×2
/// matrix on pixel coordinates (x to the right, y downwards) and they compose by
/// multiplication; the product is one of the eight EXIF orientations.
struct HEIFTransform: Hashable, Sendable {
  /// The matrix `(a, b, c, d)`: a point `(x, y)` goes to `(a·x + b·y, c·x + d·y)`.
  private(set) var a = 1
  private(set) var b = 0
  private(set) var c = 0
  private(set) var d = 1

  /// The identity: nothing to turn or flip.
  init() {}

  /// Applies `rotation` after what is already there.
  mutating func apply(_ rotation: ImageRotation) {
    // One quarter turn anticlockwise on screen (y down) sends (x, y) to (y, −x).
    for _ in 0..<rotation.quarterTurnsAnticlockwise { then(0, 1, -1, 0) }
  }

  /// Applies `mirror` after what is already there.
  mutating func apply(_ mirror: ImageMirror) {
    if mirror.exchangesLeftAndRight { then(-1, 0, 0, 1) } else { then(1, 0, 0, -1) }
  }

  /// The EXIF orientation (1…8) that displays the stored pixels the same way.
  var exifOrientation: Int {
    switch (a, b, c, d) {
    case (-1, 0, 0, 1): 2
    case (-1, 0, 0, -1): 3
    case (1, 0, 0, -1): 4
    case (0, 1, 1, 0): 5
    case (0, -1, 1, 0): 6
    case (0, -1, -1, 0): 7
    case (0, 1, -1, 0): 8
    default: 1
    }
  }

  /// Replaces the matrix M by N·M, N being `(na, nb, nc, nd)`.
  private mutating func then(_ na: Int, _ nb: Int, _ nc: Int, _ nd: Int) {
    (a, b, c, d) = (na * a + nb * c, na * b + nb * d, nc * a + nd * c, nc * b + nd * d)
  }
}
