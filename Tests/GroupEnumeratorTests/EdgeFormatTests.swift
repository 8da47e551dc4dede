import Foundation
import GroupEnumerator
import Testing

@testable import GroupEnumeratorCore

/// The forms real cameras and phones write that the readers' first versions missed, on the
/// files `Resources/make-edge-formats.sh` makes with FFmpeg, ExifTool and Python.
@Suite struct EdgeFormatTests {
  func bytes(_ name: String) throws -> [UInt8] { try TestMovies.bytes("EdgeFormats/" + name) }

  func avi(_ name: String) throws -> MediaMetadata {
    AVIMetadataReader.read(from: ArrayByteSource(try bytes(name)), format: .avi)
  }

  /// The asset an enumeration makes of one file.
  func asset(_ name: String, as fileName: String? = nil) async throws -> Asset {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    try folder.write(try bytes(name), as: fileName ?? name)
    let contents = try await AssetsLibrary(root: folder.root).enumerate(filter: .all)
    return try #require(contents.assets.first)
  }

  // MARK: AVI recording dates

  @Test func anAVIsIDITInAsctimeFormIsItsRecordingDate() throws {
    let metadata = try avi("idit-asctime.avi")
    #expect(metadata.problems == [])
    #expect(metadata.dateTimeOriginal?.iso8601 == "2012-09-10T20:52:00")
    #expect(metadata.dateTimeOriginal?.source == .aviIDIT)
    #expect(metadata.pixelWidth == 32 && metadata.pixelHeight == 16)
  }

  @Test func anAVIsIDITInEXIFFormIsItsRecordingDate() throws {
    let metadata = try avi("idit-exif.avi")
    #expect(metadata.problems == [])
    #expect(metadata.dateTimeOriginal?.iso8601 == "2012-09-10T20:52:00")
    #expect(metadata.dateTimeOriginal?.source == .aviIDIT)
  }

  @Test func anAVIsICRDIsTheDateWithoutIDIT() throws {
    let timed = try avi("icrd-time.avi")
    #expect(timed.problems == [])
    #expect(timed.dateTimeOriginal?.iso8601 == "2013-04-05T06:07:08")
    #expect(timed.dateTimeOriginal?.source == .aviICRD)
    let day = try avi("icrd-date-only.avi")
    #expect(day.problems == [])
    #expect(day.dateTimeOriginal?.iso8601 == "2012-09-10T00:00:00")
    #expect(day.dateTimeOriginal?.source == .aviICRDDateOnly)
    #expect(day.dateTimeOriginal?.source.isDateOnly == true)
  }

  @Test func anAVIAssetIsDatedByItsIDIT() async throws {
    let asset = try await asset("idit-asctime.avi")
    #expect(asset.type == .video)
    #expect(asset.creationDate?.source == .aviIDIT)
    #expect(asset.creationDate?.iso8601 == "2012-09-10T20:52:00")
  }

  @Test func aBadIDITIsReportedAndICRDTakesOver() throws {
    var file = try bytes("idit-asctime.avi")
    let marker = Array("MON SEP".utf8)
    let at = try #require(
      (0...(file.count - marker.count)).first { Array(file[$0..<($0 + marker.count)]) == marker })
    file.replaceSubrange(at..<(at + 3), with: Array("XYZ".utf8))
    file.replaceSubrange((at + 4)..<(at + 7), with: Array("FOO".utf8))
    let metadata = AVIMetadataReader.read(from: ArrayByteSource(file), format: .avi)
    #expect(metadata.problems.map(\.code) == [.invalidValue])
    #expect(metadata.dateTimeOriginal?.iso8601 == "2001-02-03T00:00:00")
    #expect(metadata.dateTimeOriginal?.source == .aviICRDDateOnly)
  }

  @Test(arguments: [
    ("MON SEP 10 20:52:00 2012\n", "2012-09-10T20:52:00"),
    ("Mon Sep 10 20:52:00 2012\n\0", "2012-09-10T20:52:00"),
    ("Tue Jan  1 00:00:00 2013", "2013-01-01T00:00:00"),
    ("WED FEB 29 23:59:59 2012\r\n", "2012-02-29T23:59:59"),
    ("2012:09:10 20:52:00", "2012-09-10T20:52:00"),
    ("2012-09-10 20:52:00\0", "2012-09-10T20:52:00"),
    ("2012/09/10 20:52", "2012-09-10T20:52:00"),
    ("2012-09-10T20:52:00", "2012-09-10T20:52:00"),
    ("2009/10/27 12:14:34\0", "2009-10-27T12:14:34"),
    ("2001/ 1/27  1:42PM", "2001-01-27T13:42:00"),
    ("2005/11/28/ 09:19", "2005-11-28T09:19:00"),
    ("2002-12-16  15:35:01\0\0", "2002-12-16T15:35:01"),
    ("2012/09/10 12:05AM", "2012-09-10T00:05:00"),
    ("2012/09/10 12:05 pm", "2012-09-10T12:05:00"),
  ])
  func iditForms(text: String, iso8601: String) throws {
    let parsed = try #require(
      AVIDateText.parse(Array(text.utf8), source: .aviIDIT, allowsDateOnly: false))
    #expect(parsed.date.iso8601 == iso8601 && parsed.hasTime)
  }

  @Test(arguments: [
    "", "\n", "MON SEP 10 20:52:00", "MON SEPT 10 20:52:00 2012", "MON SEP 31 20:52:00 2012",
    "MON SEP 10 24:52:00 2012", "MON SEP 10 20:52 2012", "MON SEP 10 20:52:00 12",
    "2012-09-10", "2012:09-10 20:52:00", "2012:09:10 20:52:00 PM", "10/09/2012 20:52:00",
    "2012:13:10 20:52:00", "2012:00:00 00:00:00", "MON SEP 10 20:52:00 2012 extra",
    "2012/09/10 13:00PM", "2012/09/10 00:10AM", "2012/09/10 20:52XM", "2012/09/10 20:5",
    "2012/9/10x", "2012/09/10 20:52:0", "2012/123/10 20:52", "2012/09/10T", "2012/09/10  ",
    String(repeating: "9", count: 10_000),
  ])
  func iditGarbageIsRefused(text: String) {
    #expect(AVIDateText.parse(Array(text.utf8), source: .aviIDIT, allowsDateOnly: false) == nil)
  }

  // MARK: 3GPP date

  @Test func a3GPPDateBeatsTheMovieHeader() async throws {
    let metadata = QuickTimeMetadataReader.read(from: ArrayByteSource(try bytes("3gpp-date.mp4")))
    #expect(metadata.problems == [])
    #expect(metadata.quickTimeCreationDate?.iso8601 == "2020-11-20T15:04:02+01:00")
    #expect(metadata.quickTimeCreationDate?.source == .threeGPPDate)
    #expect(metadata.movieHeaderCreationDate?.iso8601 == "2020-11-20T14:04:36Z")
    let asset = try await asset("3gpp-date.mp4")
    #expect(asset.creationDate?.source == .threeGPPDate)
    #expect(asset.creationDate?.iso8601 == "2020-11-20T15:04:02+01:00")
  }

  @Test func aBad3GPPDateIsReportedAndTheMovieHeaderStays() throws {
    var file = try bytes("3gpp-date.mp4")
    let marker = Array("2020-11-20T".utf8)
    let at = try #require(
      (0...(file.count - marker.count)).first { Array(file[$0..<($0 + marker.count)]) == marker })
    file[at + 5] = UInt8(ascii: "x")
    let metadata = QuickTimeMetadataReader.read(from: ArrayByteSource(file))
    #expect(metadata.problems.map(\.code) == [.invalidValue])
    #expect(metadata.quickTimeCreationDate == nil)
    #expect(metadata.movieHeaderCreationDate?.iso8601 == "2020-11-20T14:04:36Z")
  }

  // MARK: Audio and images no reader takes

  /// An enumeration of a folder holding `names` from EdgeFormats (kept under their names).
  func enumerate(_ names: [String], extra: [(String, [UInt8])] = []) async throws
    -> AssetsLibrary.Contents
  {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    for name in names {
      try folder.write(try bytes(name), as: String(name.split(separator: "/").last ?? ""))
    }
    for (name, content) in extra { try folder.write(content, as: name) }
    return try await AssetsLibrary(root: folder.root).enumerate(filter: .all)
  }

  static let audioFiles = [
    "tone.mp3", "tone-no-id3.mp3", "tone.wav", "tone.aac", "tone.flac", "tone.ogg",
    "tone.opus", "tone.m4a", "tone-isom.m4a", "tone-qt.m4a",
  ]

  @Test func audioFilesAreOtherFilesByContent() async throws {
    let contents = try await enumerate(Self.audioFiles.map { "Audio/" + $0 })
    #expect(contents.assets.isEmpty)
    #expect(contents.otherFiles.count == Self.audioFiles.count)
    #expect(contents.otherFiles.allSatisfy { $0.reason == .audio }, "\(contents.otherFiles)")
    let m4a = try #require(contents.otherFiles.first { $0.name == "tone-isom.m4a" })
    #expect(
      m4a.message
        == "'tone-isom.m4a' is audio (a movie of sound tracks only), not a photo or video.")
    let mp3 = try #require(contents.otherFiles.first { $0.name == "tone-no-id3.mp3" })
    #expect(mp3.message == "'tone-no-id3.mp3' is audio (MP3), not a photo or video.")
  }

  @Test func audioIsToldByContentNotByName() async throws {
    let renamed: [(String, [UInt8])] = [
      ("song.bin", try bytes("Audio/tone.flac")), ("noextension", try bytes("Audio/tone.wav")),
    ]
    let contents = try await enumerate([], extra: renamed)
    #expect(contents.otherFiles.map(\.reason) == [.audio, .audio])
    // A text file named like audio is not audio.
    let text = try await enumerate([], extra: [("notes.mp3", Array("ID3 notes\n".utf8))])
    #expect(text.otherFiles.map(\.reason) == [.notMedia])
  }

  @Test(arguments: [
    ("tone.mp3", "MP3"), ("tone-no-id3.mp3", "MP3"), ("tone.wav", "WAV"), ("tone.aac", "AAC"),
    ("tone.flac", "FLAC"), ("tone.ogg", "Ogg Vorbis"), ("tone.opus", "Opus"), ("tone.m4a", "M4A"),
  ])
  func audioFormatsBySignature(name: String, format: String) throws {
    let header = Array(try bytes("Audio/" + name).prefix(MediaSniffer.headerLength))
    #expect(MediaSniffer.audioFormat(ofHeader: header) == format)
  }

  @Test func noMediaSignatureIsTakenForAudio() throws {
    for header in [
      try bytes("3gpp-date.mp4"), try bytes("idit-exif.avi"), try TestMovies.bytes("tiny.mov"),
      [0xFF, 0xD8, 0xFF, 0xE0, 0, 16], Array("RIFF\0\0\0\0WEBPVP8 ".utf8),
      [0xFF, 0xFF, 0xFF, 0xFF], [0xFF, 0xE0, 0xF0, 0x00], Array("ID3".utf8),
    ] {
      #expect(MediaSniffer.audioFormat(ofHeader: Array(header.prefix(64))) == nil)
    }
  }

  @Test func imagesWithoutAReaderArePhotosWithTheirHeaderSize() async throws {
    let names = [
      "image.pcx", "image.tga", "image.sgi", "image.pbm", "image.pgm", "image.ppm", "image.pam",
      "image.qoi", "pcx-named.jpg",
    ]
    let contents = try await enumerate(names.map { "Images/" + $0 })
    #expect(contents.otherFiles.isEmpty)
    #expect(contents.assets.count == names.count)
    for asset in contents.assets {
      #expect(asset.type == .photo, "\(asset.name)")
      #expect(asset.problems.map(\.code) == [.unsupported], "\(asset.name)")
      #expect(asset.creationDate?.source == .fileModificationTime)
      // PAM gives its size on named lines, which this does not read.
      if asset.name != "image.pam" {
        #expect(asset.pixelWidth == 24 && asset.pixelHeight == 12, "\(asset.name)")
      }
    }
    let pcx = try #require(contents.assets.first { $0.name == "image.pcx" })
    #expect(
      pcx.problems.first?.message
        == "'image.pcx' is a PCX image, a photo format GroupEnumerator does not read; it is"
        + " listed with its header's size (24×12) and the file's size and time.")
  }

  @Test func lookalikesOfUnreadImagesAreNotImages() async throws {
    let contents = try await enumerate(
      [],
      extra: [
        ("notes.txt", Array("P1 is the first point\n".utf8)),
        ("pbm-cut.bin", Array("P4\n24".utf8)),
        ("plain.bin", try bytes("Images/image.tga")),  // TGA only by its name
        ("noise.tga", Array(repeating: 0x41, count: 40)),
        (
          "huge.pcx",
          [0x0A, 5, 1, 8, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF] + Array(repeating: 0, count: 52)
        ),
      ])
    #expect(contents.otherFiles.map(\.name).sorted() == ["notes.txt", "pbm-cut.bin", "plain.bin"])
    let noise = try #require(contents.assets.first { $0.name == "noise.tga" })
    #expect(noise.problems.map(\.code) == [.unsupported] && noise.pixelWidth == nil)
    let huge = try #require(contents.assets.first { $0.name == "huge.pcx" })
    #expect(huge.problems.map(\.code) == [.unsupported] && huge.pixelWidth == 65_536)
  }

  // MARK: XMP days and DNL heights

  @Test func aPNGWhoseOnlyDateIsAnXMPDayIsDatedByThatDay() async throws {
    let asset = try await asset("xmp-day.png")
    #expect(asset.problems == [])
    #expect(asset.creationDate?.iso8601 == "2019-09-02T00:00:00")
    #expect(asset.creationDate?.source == .xmpCreateDateDateOnly)
    #expect(asset.creationDate?.source.isDateOnly == true)
  }

  @Test func anXMPTimeBeatsAnXMPDay() async throws {
    let asset = try await asset("xmp-day-and-time.png")
    #expect(asset.creationDate?.iso8601 == "2019-09-03T10:11:12")
    #expect(asset.creationDate?.source == .xmpCreateDate)
  }

  @Test func aJPEGsHeightMayComeFromItsDNLSegment() throws {
    let file = try bytes("dnl.jpg")
    let metadata = JPEGMetadataReader.read(from: ArrayByteSource(file))
    #expect(metadata.problems == [])
    #expect(metadata.pixelWidth == 24 && metadata.pixelHeight == 12)
    // Without its DNL segment the height is unknown, not 0.
    let marker: [UInt8] = [0xFF, 0xDC, 0x00, 0x04]
    let at = try #require(
      (0...(file.count - 4)).first { Array(file[$0..<($0 + 4)]) == marker })
    var without = file
    without.removeSubrange(at..<(at + 6))
    let bare = JPEGMetadataReader.read(from: ArrayByteSource(without))
    #expect(bare.pixelWidth == 24 && bare.pixelHeight == nil)
    // A DNL of 0 lines gives no height either.
    var zero = file
    zero[at + 4] = 0
    zero[at + 5] = 0
    #expect(JPEGMetadataReader.read(from: ArrayByteSource(zero)).pixelHeight == nil)
  }

  @Test func aDNLBeforeAKilobytesLongTrailerIsFound() throws {
    // 3 KiB after EOI: still within the bytes the end check reads.
    let file = try bytes("dnl.jpg") + Array(repeating: 0x55, count: 3 * 1024)
    #expect(JPEGMetadataReader.read(from: ArrayByteSource(file)).pixelHeight == 12)
  }

  // MARK: Camera names

  @Test(arguments: ["htc-gps-first.jpg", "htc-gps-bad.jpg"])
  func aBadGPSEntryHidesNoCameraName(name: String) throws {
    let metadata = JPEGMetadataReader.read(from: ArrayByteSource(try bytes(name)))
    #expect(metadata.make == "HTC" && metadata.model == "HTC One_M8")
    #expect(metadata.dateTimeOriginal?.iso8601 == "2016-05-04T03:02:01")
    #expect(metadata.location == nil)
  }

  @Test func libexifsEarlyStopInIFD0IsReported() throws {
    let metadata = JPEGMetadataReader.read(from: ArrayByteSource(try bytes("htc-gps-first.jpg")))
    #expect(metadata.problems.map(\.code) == [.malformed])
    #expect(metadata.problems.first?.message.hasPrefix("libexif stopped early in IFD0") == true)
  }

  @Test func aCleanBlockWithoutACameraNameHasNoProblem() throws {
    let metadata = JPEGMetadataReader.read(
      from: ArrayByteSource(try bytes("htc-no-camera-name.jpg")))
    // (Its GPS IFD has a latitude and no longitude: that alone is reported.)
    #expect(metadata.problems.map(\.code) == [.invalidValue])
    #expect(metadata.make == nil && metadata.model == nil)
    #expect(metadata.dateTimeOriginal?.iso8601 == "2016-05-04T03:02:01")
  }

  @Test func aDamagedSoundOnlyMovieIsNotCalledAudio() async throws {
    var file = try bytes("Audio/tone-isom.m4a")
    let marker = Array("hdlr".utf8)
    let at = try #require(
      (0...(file.count - 4)).first { Array(file[$0..<($0 + 4)]) == marker })
    file[at - 1] = 12  // the handler box claims 12 bytes: too short for its fields
    #expect(!QuickTimeMetadataReader.isAudioOnly(ArrayByteSource(file)))
    #expect(QuickTimeMetadataReader.isAudioOnly(ArrayByteSource(try bytes("Audio/tone-isom.m4a"))))
    #expect(!QuickTimeMetadataReader.isAudioOnly(ArrayByteSource(try bytes("3gpp-date.mp4"))))
  }

  @Test func aGoProMoviesModelIsItsGPMFMINF() async throws {
    let metadata = QuickTimeMetadataReader.read(from: ArrayByteSource(try bytes("gopro-max.mp4")))
    #expect(metadata.problems == [])
    #expect(metadata.model == "GoPro Max")
    #expect(metadata.make == nil)
    let asset = try await asset("gopro-max.mp4")
    #expect(asset.metadata.model == "GoPro Max")
  }

  @Test func gpmfEntriesThatRunPastTheBoxGiveNoModel() throws {
    // DEVC claiming more than there is, then a MINF of another type, then a cut MINF.
    let cut: [UInt8] = Array("DEVC".utf8) + [0, 1, 0xFF, 0xFF] + Array("MINF".utf8) + [0x63, 4]
    #expect(GoProMetadata.model(in: cut[...]) == nil)
    let wrongType = Array("MINF".utf8) + [0x4C, 4, 0, 1, 1, 2, 3, 4]
    #expect(GoProMetadata.model(in: wrongType[...]) == nil)
    var deep: [UInt8] = Array("MINF".utf8) + [0x63, 3, 0, 1] + Array("Max".utf8) + [0]
    for _ in 0..<8 { deep = Array("DEVC".utf8) + [0, 1, 0, UInt8(deep.count)] + deep }
    #expect(GoProMetadata.model(in: deep[...]) == nil)
  }

  @Test func aSonyAVCHDModelIsItsMDPMName() throws {
    let metadata = TransportStreamReader.read(
      from: ArrayByteSource(try bytes("sony.MTS")), format: .mpegTransportStream)
    #expect(metadata.problems == [])
    #expect(metadata.make == "Sony" && metadata.model == "ILCE-7M3")
    #expect(metadata.dateTimeOriginal?.iso8601 == "2019-03-04T05:06:07+09:00")
  }

  // MARK: HEIC motion photos and Ultra HDR

  @Test func aHEICMotionPhotosVideoIsItsMpvdBox() async throws {
    let file = try bytes("heic-motion.heic")
    let asset = try await asset("heic-motion.heic")
    #expect(asset.problems == [])
    #expect(asset.type == .livePhoto)
    #expect(asset.resources.map(\.role) == [.photo, .pairedVideo])
    let range = try #require(asset.resources.last?.byteRange)
    // The box's content, to the end of the file: an MP4 that starts with `ftyp`.
    #expect(range.upperBound == Int64(file.count))
    let start = Int(range.lowerBound)
    #expect(Array(file[(start + 4)..<(start + 8)]) == Array("ftyp".utf8))
    #expect(Array(file[(start - 4)..<start]) == Array("mpvd".utf8))
    #expect(asset.duration.map { abs($0 - 0.4) < 0.01 } == true)
    #expect(asset.creationDate?.source == .exifDateTimeOriginal)
  }

  @Test func anMpvdBoxWithoutAnMP4IsReportedAndNothingIsPaired() async throws {
    var file = try bytes("heic-motion.heic")
    let marker = Array("mpvd".utf8)
    let at = try #require(
      (0...(file.count - 4)).first { Array(file[$0..<($0 + 4)]) == marker })
    file[at + 8] = UInt8(ascii: "x")  // `ftyp` → `xtyp`
    let metadata = HEIFMetadataReader.read(from: ArrayByteSource(file), format: .heic)
    #expect(metadata.embeddedVideoRange == nil)
    #expect(metadata.problems.map(\.code) == [.malformed])
    #expect(metadata.problems.first?.message.contains("'mpvd'") == true)
  }

  // MARK: AVIF image sequences

  @Test func anAVIFSequenceWithoutEXIFIsDatedByItsMovieHeader() async throws {
    let asset = try await asset("avis-date.avif")
    #expect(asset.problems == [])
    #expect(asset.type == .photo)
    #expect(asset.resources.map(\.format) == [.avif])
    #expect(asset.pixelWidth == 16 && asset.pixelHeight == 16)
    #expect(asset.creationDate?.source == .quickTimeMovieHeader)
    #expect(asset.creationDate?.iso8601 == "2021-05-06T07:08:09Z")
  }

  @Test func anAVIFSequenceWithoutItsMetaBoxIsReadAsAMovie() throws {
    // `meta` → `free`: the items are gone, the `moov` is left.
    var file = try bytes("avis-date.avif")
    let marker = Array("meta".utf8)
    let at = try #require(
      (0...(file.count - 4)).first { Array(file[$0..<($0 + 4)]) == marker })
    file.replaceSubrange(at..<(at + 4), with: Array("free".utf8))
    let metadata = AVIFReader.read(from: ArrayByteSource(file), format: .avif)
    #expect(metadata.problems == [])
    #expect(metadata.movieHeaderCreationDate?.iso8601 == "2021-05-06T07:08:09Z")
    // Read as a HEIC, the same bytes are not looked at for a movie.
    let still = MetadataReaderTable.read(from: ArrayByteSource(file), format: .heic)
    #expect(still.movieHeaderCreationDate == nil)
    #expect(!still.problems.isEmpty)
  }

  @Test func aBadMovieHeaderDateInAnAVIFSequenceIsAProblemOfTheSequence() throws {
    var file = try bytes("avis-date.avif")
    let marker = Array("mvhd".utf8)
    let at = try #require(
      (0...(file.count - 4)).first { Array(file[$0..<($0 + 4)]) == marker })
    // Version 0: the creation time follows version and flags; 1 second since 1904.
    file.replaceSubrange((at + 8)..<(at + 12), with: [0, 0, 0, 1])
    let metadata = AVIFReader.read(from: ArrayByteSource(file), format: .avif)
    #expect(metadata.movieHeaderCreationDate == nil)
    #expect(metadata.problems.map(\.code) == [.invalidValue])
    #expect(metadata.problems.first?.message.hasPrefix("The image sequence: ") == true)
    #expect(metadata.pixelWidth == 16)
  }

  @Test func anUltraHDRJPEGWithItsGainMapStaysAPlainPhoto() async throws {
    let asset = try await asset("ultra-hdr.jpg")
    #expect(asset.problems == [])
    #expect(asset.type == .photo)
    #expect(asset.resources.map(\.role) == [.photo])
    #expect(asset.metadata.model == "Pixel 8")
    #expect(asset.creationDate?.iso8601 == "2024-05-06T07:08:09")
  }
}
