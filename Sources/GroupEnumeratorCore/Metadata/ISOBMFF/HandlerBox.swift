/// The handler reference box, `hdlr`: what kind of data a track or a `meta` box holds.
///
/// The same in the ISO base media file format and QuickTime (for tracks and for metadata).
/// A full box: `pre_defined`
/// (QuickTime's component type, `mhlr` or `dhlr`), then `handler_type` — `vide` for
/// video, `soun` for sound, `mdta` for Apple's keyed metadata — then reserved words and a
/// name this reader does not need.
struct HandlerBox: Hashable, Sendable {
  /// The handler type: `vide`, `soun`, `mdta`, `mdir`…
  let handlerType: FourCharacterCode

  /// Parses an `hdlr` box's content.
  ///
  /// - Throws: ``BoxParsingError/contentTooShort(type:offset:needed:available:)`` when
  ///   the fixed fields are missing.
  init(parsing content: BoxContent) throws(BoxParsingError) {
    // Only version 0 is defined. The handler type is all we read; writers that cut the
    // reserved words or the name short still say what the handler is, so only the first
    // 12 bytes (version and flags, pre_defined, handler_type) are required.
    try content.require(12)
    handlerType = try content.fourCharacterCode(at: 8)
  }
}
