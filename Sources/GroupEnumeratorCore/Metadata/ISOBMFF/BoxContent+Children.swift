extension BoxContent {
  /// The boxes packed in this content from byte `start` on, each with its content, for
  /// containers whose content is already in memory (the children of a loaded `meta`).
  ///
  /// Each child's header is parsed by ``BoxHeader`` with this content's end as its
  /// parent's end, so a child that declares more than is left is clamped and marked
  /// ``BoxHeader/isTruncated`` (the caller reports ``BoxHeader/truncation``) and is the
  /// last one. Fewer than 8 trailing bytes that are all zero are accepted as padding.
  ///
  /// - Parameters:
  ///   - start: Where the first child starts, counted from the start of this content
  ///     (4 for a full box's version and flags, more when fields come first).
  ///   - limit: The most children accepted.
  /// - Returns: The children in file order.
  /// - Throws: ``BoxParsingError/truncatedHeader(offset:available:)`` or
  ///   ``BoxParsingError/sizeTooSmall(type:offset:declared:minimum:)`` for a malformed
  ///   child header; ``BoxParsingError/invalidField(type:offset:field:detail:)`` when
  ///   there are more than `limit` children.
  /// - Complexity: O(*n*) in the number of bytes; each child is copied once.
  func children(from start: Int, limit: Int) throws(BoxParsingError) -> [BoxContent] {
    let contentStart = header.contentRange.lowerBound
    let (contentEnd, overflow) = contentStart.addingReportingOverflow(bytes.count)
    guard !overflow else { throw tooShort(needing: start) }
    var position = max(0, start)
    var children: [BoxContent] = []
    while position < bytes.count {
      let remaining = bytes.count - position
      let fileOffset = contentStart + position
      if remaining < 8 {
        if bytes[position...].allSatisfy({ $0 == 0 }) { break }
        throw .truncatedHeader(offset: fileOffset, available: remaining)
      }
      guard children.count < limit else {
        throw invalid("number of child boxes", "more than the \(limit) this reader accepts")
      }
      let headerBytes = Array(
        bytes[position..<(position + min(remaining, BoxHeader.maximumLength))])
      let child = try BoxHeader(parsing: headerBytes, at: fileOffset, parentEnd: contentEnd)
      let childStart = position + child.headerLength
      let childEnd = child.end - contentStart
      guard childStart <= childEnd, childEnd <= bytes.count else {
        throw .truncatedHeader(offset: fileOffset, available: remaining)
      }
      children.append(BoxContent(header: child, bytes: Array(bytes[childStart..<childEnd])))
      position = childEnd
    }
    return children
  }

  /// The unsigned big-endian field of `width` bytes at `offset`; 0 when `width` is 0,
  /// as ISO-BMFF fields whose size is given by another field may be absent.
  func uint64Field(at offset: Int, width: Int) throws(BoxParsingError) -> UInt64 {
    width == 0 ? 0 : try unsigned(at: offset, width: width)
  }
}
