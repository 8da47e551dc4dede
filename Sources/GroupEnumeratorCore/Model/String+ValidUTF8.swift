extension String {
  /// The text `bytes` encode when they are valid UTF-8, else `nil`: what
  /// `String(validating:as:)` gives, but bytes that are all ASCII (nearly every file name
  /// and stored text) are taken without its generic validation, which looks up generic
  /// metadata on every call (3 % of the CPU time of a second run with the index, where
  /// every asset's texts and names are made again).
  init?(validUTF8 bytes: UnsafeBufferPointer<UInt8>) {
    if !bytes.contains(where: { $0 >= 0x80 }) {
      self = String(decoding: bytes, as: UTF8.self)
      return
    }
    guard let text = String(validating: bytes, as: UTF8.self) else { return nil }
    self = text
  }

  /// ``init(validUTF8:)`` for the bytes of an array.
  init?(validUTF8 bytes: [UInt8]) {
    guard let text = bytes.withUnsafeBufferPointer({ String(validUTF8: $0) }) else {
      return nil
    }
    self = text
  }
}
