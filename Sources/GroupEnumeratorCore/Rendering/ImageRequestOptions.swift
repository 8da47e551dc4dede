/// How a picture fills its target size (`PHImageContentMode`).
public enum ImageContentMode: String, Sendable, Hashable, CaseIterable {
  /// The whole picture, scaled to fit inside the target size; one side may be shorter.
  case aspectFit
  /// The target size exactly: the picture scaled to cover it, its centre cropped.
  case aspectFill
}

/// What a request may deliver (`PHImageRequestOptionsDeliveryMode`).
public enum ImageDeliveryMode: String, Sendable, Hashable, CaseIterable {
  /// The thumbnail or preview the file embeds, when it covers the target size (one read,
  /// nothing decoded); otherwise the decoded image.
  case fastFormat
  /// The decoded image (for a RAW, its largest embedded preview), drawn at the target size.
  case highQualityFormat
  /// Both, fast first: ``AssetsLibrary/images(for:targetSize:contentMode:options:)``
  /// yields the embedded thumbnail (when there is one), then the decoded image.
  case opportunistic
}

/// How closely the picture must match the target size (`PHImageRequestOptionsResizeMode`).
public enum ImageResizeMode: String, Sendable, Hashable, CaseIterable {
  /// An embedded thumbnail or preview that covers the target size and needs no turning is
  /// returned as stored, larger than asked; anything else is drawn exactly.
  case fast
  /// The picture is drawn at the target size: for ``ImageContentMode/aspectFit`` its
  /// longer side (relative to the target) matches; for ``ImageContentMode/aspectFill``
  /// both sides do.
  case exact
}

/// The encoding of a drawn picture.
public enum ImageEncoding: String, Sendable, Hashable, CaseIterable {
  /// JPEG, unless the source has an alpha channel, then PNG.
  case automatic
  /// JPEG always (transparency is flattened onto white).
  case jpeg
  /// PNG always.
  case png
}

/// Options of a picture request (`PHImageRequestOptions`).
public struct ImageRequestOptions: Sendable, Hashable {
  /// What may be delivered; ``ImageDeliveryMode/fastFormat`` by default.
  public var deliveryMode: ImageDeliveryMode
  /// How closely the size must match; ``ImageResizeMode/exact`` by default.
  public var resizeMode: ImageResizeMode
  /// The encoding of drawn pictures; ``ImageEncoding/automatic`` by default.
  public var encoding: ImageEncoding
  /// JPEG quality, 1…100 (clamped); 85 by default.
  public var jpegQuality: Int
  /// The still's pixels as stored (``AssetsLibrary/fullResolutionImage(for:)``): its EXIF
  /// orientation not applied, and a picture smaller than the target never enlarged.
  var isAsStored = false

  /// Creates options.
  ///
  /// - Parameters:
  ///   - deliveryMode: What may be delivered.
  ///   - resizeMode: How closely the size must match.
  ///   - encoding: The encoding of drawn pictures.
  ///   - jpegQuality: JPEG quality, 1…100 (clamped).
  public init(
    deliveryMode: ImageDeliveryMode = .fastFormat, resizeMode: ImageResizeMode = .exact,
    encoding: ImageEncoding = .automatic, jpegQuality: Int = 85
  ) {
    self.deliveryMode = deliveryMode
    self.resizeMode = resizeMode
    self.encoding = encoding
    self.jpegQuality = min(max(jpegQuality, 1), 100)
  }
}
