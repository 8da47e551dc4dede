import GroupEnumerator
import Testing

@testable import GroupEnumeratorCore

/// Bytes from hex text; spaces are ignored. Test input only (invalid digits become 0).
func hexBytes(_ text: String) -> [UInt8] {
  let digits = Array(text.filter { !$0.isWhitespace })
  return stride(from: 0, to: digits.count - 1, by: 2).map {
    UInt8(String(digits[$0...($0 + 1)]), radix: 16) ?? 0
  }
}

/// ASCII text's bytes.
func ascii(_ text: String) -> [UInt8] { Array(text.utf8) }

/// One header and the format it must sniff as.
struct SniffCase: Sendable, CustomTestStringConvertible {
  let label: String
  let header: [UInt8]
  let expected: MediaFormat?
  var testDescription: String { label }
}

@Suite struct MediaSnifferTests {
  /// Headers copied from real files (the source is named), plus built ones for formats
  /// without a sample at hand.
  static let headerCases: [SniffCase] = [
    SniffCase(
      label: "JPEG with EXIF (exiftool Sony.jpg)",
      header: hexBytes("ffd8ffe1 09de4578 69660000 49492a00 08000000"), expected: .jpeg),
    SniffCase(
      label: "JPEG with JFIF", header: hexBytes("ffd8ffe0 00104a46 49460001"), expected: .jpeg),
    SniffCase(
      label: "PNG (pillow exif_imagemagick.png)",
      header: hexBytes("89504e47 0d0a1a0a 0000000d 49484452"), expected: .png),
    SniffCase(
      label: "GIF89a (exiftool GIF.gif)", header: hexBytes("47494638 39610800 0800f700"),
      expected: .gif),
    SniffCase(label: "GIF87a", header: ascii("GIF87a") + [1, 0, 1, 0], expected: .gif),
    SniffCase(
      label: "BMP (exiftool BMP.bmp)",
      header: hexBytes("424d7604 00000000 00003604 00002800 00000800 0000"), expected: .bmp),
    SniffCase(
      label: "TIFF big-endian (exiftool DNG.dng content)",
      header: hexBytes("4d4d002a 00000008 002a00fe"), expected: .tiff),
    SniffCase(
      label: "TIFF little-endian", header: hexBytes("49492a00 08000000 1100"), expected: .tiff),
    SniffCase(label: "BigTIFF", header: hexBytes("49492b00 08000000 10000000"), expected: .tiff),
    SniffCase(
      label: "Canon CR2 (exiftool CanonRaw.cr2)",
      header: hexBytes("49492a00 10000000 43520200 58210000"), expected: .raw),
    SniffCase(
      label: "Panasonic RW2 (exiftool Panasonic.rw2)",
      header: hexBytes("49495500 18000000 88e774d8"), expected: .raw),
    SniffCase(label: "Olympus ORF", header: ascii("IIRO") + [8, 0, 0, 0], expected: .raw),
    SniffCase(
      label: "Fujifilm RAF (exiftool FujiFilm.raf)", header: ascii("FUJIFILMCCD-RAW 0201FF39"),
      expected: .raw),
    SniffCase(
      label: "WebP (pillow flower.webp)",
      header: hexBytes("52494646 6c730000 57454250 56503858"), expected: .webp),
    SniffCase(
      label: "JPEG XL container (exifreader test.jxl)",
      header: hexBytes("0000000c 4a584c20 0d0a870a 00000014 66747970 6a786c20"),
      expected: .jpegXL),
    SniffCase(label: "JPEG XL codestream", header: hexBytes("ff0afa7f"), expected: .jpegXL),
    SniffCase(
      label: "HEIC (photoview subsec_timezone.heic)",
      header: hexBytes("0000002c 66747970 68656963 00000000 6d696631 4d694842"),
      expected: .heic),
    SniffCase(
      label: "HEIF heix (exiv2 Sony.HIF)",
      header: hexBytes("00000028 66747970 68656978 00000000 6d696631 68656978 6d696166"),
      expected: .heic),
    SniffCase(
      label: "HEIF mif1 major brand (exif-py spring_1440x960.heic)",
      header: hexBytes("00000018 66747970 6d696631 00000000 6d696631 68656963"),
      expected: .heic),
    SniffCase(
      label: "AVIF (pillow rot1mir0.avif)",
      header: hexBytes("00000020 66747970 61766966 00000000 61766966 6d696631 6d696166"),
      expected: .avif),
    SniffCase(
      label: "AVIF sequence (libavif poc avis)",
      header: hexBytes("00000028 66747970 61766973 00000000 61766966 61766973 6d736631"),
      expected: .avif),
    SniffCase(
      label: "AVIF mif1 major, avif compatible",
      header: hexBytes("00000018 66747970 6d696631 00000000 6d696631 61766966"),
      expected: .avif),
    SniffCase(
      label: "AVIF low-overhead mif3 (libheif avif32-mini.heif)",
      header: hexBytes("00000010 66747970 6d696633 61766966 00000059 6d696e69"),
      expected: .avif),
    SniffCase(
      label: "QuickTime (livephoto IMG_7943.MOV)",
      header: hexBytes("00000014 66747970 71742020 00000000 71742020 00000008 77696465"),
      expected: .quickTime),
    SniffCase(
      label: "MP4 mp42 (photoview mp4.mp4)",
      header: hexBytes("0000001c 66747970 6d703432 00000000 6d703432 69736f6d 61766331"),
      expected: .mp4),
    SniffCase(
      label: "MP4 mp4v major (photoprism christmas.mp4)",
      header: hexBytes("0000001c 66747970 6d703476 00000000 6d703476 6d703432 69736f6d"),
      expected: .mp4),
    SniffCase(
      label: "MP4 isom", header: hexBytes("00000018 66747970 69736f6d 00000200 69736f6d 69736f32"),
      expected: .mp4),
    SniffCase(
      label: "M4V",
      header: hexBytes("0000001c 66747970") + ascii("M4V ") + [0, 0, 0, 1]
        + ascii("M4V M4A mp42"), expected: .m4v),
    SniffCase(
      label: "M4V with an unknown major brand and M4VP compatible",
      header: hexBytes("00000014 66747970") + ascii("abcd") + [0, 0, 0, 0] + ascii("M4VP"),
      expected: .m4v),
    SniffCase(
      label: "3GP (nom-exif 3gp_640x360.3gp)",
      header: hexBytes("00000020 66747970 33677036 00000100 69736f6d 69736f32 61766331"),
      expected: .threeGPP),
    SniffCase(
      label: "3G2",
      header: hexBytes("00000014 66747970") + ascii("3g2a") + [0, 0, 0, 0]
        + ascii("3g2a"), expected: .threeGPP),
    SniffCase(
      label: "Canon CR3 (exiftool CanonRaw.cr3)",
      header: hexBytes("00000018 66747970 63727820 00000001 63727820 69736f6d"),
      expected: .raw),
    SniffCase(
      label: "QuickTime starting with moov",
      header: hexBytes("00000100") + ascii("moov") + hexBytes("0000006c") + ascii("mvhd"),
      expected: .quickTime),
    SniffCase(
      label: "QuickTime starting with wide then mdat",
      header: hexBytes("00000008") + ascii("wide") + hexBytes("00001000") + ascii("mdat"),
      expected: .quickTime),
    SniffCase(
      label: "QuickTime starting with pnot",
      header: hexBytes("00000014") + ascii("pnot") + [0, 0, 0, 0], expected: .quickTime),
    SniffCase(
      label: "QuickTime free atom", header: hexBytes("00000010") + ascii("free"),
      expected: .quickTime),
    SniffCase(
      label: "QuickTime skip atom", header: hexBytes("00000010") + ascii("skip"),
      expected: .quickTime),
    SniffCase(label: "Empty", header: [], expected: nil),
    SniffCase(label: "Text", header: ascii("Hello, photos!\n"), expected: nil),
    SniffCase(
      label: "Text starting with BM", header: ascii("BMW trip notes, 2019\n"), expected: nil),
    SniffCase(label: "JPEG SOI without a marker", header: [0xFF, 0xD8], expected: nil),
    SniffCase(
      label: "RIFF that is not WebP (AVI)", header: ascii("RIFF\0\0\0\0AVI LIST"), expected: .avi),
    SniffCase(
      label: "RIFF that is neither WebP nor AVI", header: ascii("RIFF\0\0\0\0WAVEfmt "),
      expected: nil),
    SniffCase(
      label: "Matroska", header: hexBytes("1a45dfa3 9f428681 01"), expected: .matroska),
    SniffCase(
      label: "ASF (Windows Media)", header: hexBytes("3026b275 8e66cf11 a6d900aa 0062ce6c"),
      expected: .windowsMedia),
    SniffCase(
      label: "ftyp with unknown brands (nom-exif compatible-brands-fail.mov)",
      header: hexBytes("00000014 66747970 71712020 00000000 71712020 00000008 77696465"),
      expected: nil),
    SniffCase(
      label: "ftyp cut short", header: hexBytes("00000018 66747970 6865"), expected: nil),
    SniffCase(
      label: "moov with an impossible size", header: hexBytes("00000004") + ascii("moov"),
      expected: nil),
    SniffCase(label: "AppleDouble", header: hexBytes("00051607 00020000"), expected: nil),
  ]

  @Test(arguments: headerCases)
  func sniffsFormatFromHeader(_ sample: SniffCase) {
    #expect(MediaSniffer.format(ofHeader: sample.header) == sample.expected)
  }

  @Test func readsOnlyTheFirstHeaderLengthBytes() {
    let late = [UInt8](repeating: 0, count: MediaSniffer.headerLength) + [0xFF, 0xD8, 0xFF]
    #expect(MediaSniffer.format(ofHeader: late) == nil)
    let long = [0xFF, 0xD8, 0xFF] + [UInt8](repeating: 7, count: 10_000)
    #expect(MediaSniffer.format(ofHeader: long) == .jpeg)
  }

  @Test func brandsPastTheFileTypeBoxAreIgnored() {
    // The ftyp box is 16 bytes (no compatible brands); the "avif" after it is another box.
    let header = hexBytes("00000010 66747970 6d703432 00000000 00000010 61766966")
    #expect(MediaSniffer.format(ofHeader: header) == .mp4)
  }

  @Test func everyPrefixOfEveryHeaderIsSafe() {
    for sample in MediaSnifferTests.headerCases {
      var results: [MediaFormat?] = []
      for length in 0...sample.header.count {
        results.append(MediaSniffer.format(ofHeader: Array(sample.header.prefix(length))))
      }
      // Nothing is known of no bytes, the whole header is its format, and once a prefix
      // is enough to tell it, more bytes never change the answer. (A shorter prefix may
      // name a broader format: a TIFF-based RAW's first bytes are a TIFF's.)
      #expect(results.first == .some(nil), "\(sample.label)")
      #expect(results.last == sample.expected, "\(sample.label)")
      if let known = results.firstIndex(where: { $0 == sample.expected }) {
        #expect(results[known...].allSatisfy { $0 == sample.expected }, "\(sample.label)")
      }
    }
  }

  @Test(arguments: [
    ("a.jpg", MediaFormat.jpeg), ("A.JPG", .jpeg), ("b.Jpeg", .jpeg), ("c.jpe", .jpeg),
    ("d.JFIF", .jpeg), ("e.png", .png), ("f.gif", .gif), ("g.bmp", .bmp), ("h.tif", .tiff),
    ("i.TIFF", .tiff), ("j.webp", .webp), ("k.HEIC", .heic), ("l.heif", .heic),
    ("m.hif", .heic), ("n.avif", .avif), ("o.jxl", .jpegXL), ("p.dng", .raw), ("q.CR2", .raw),
    ("r.cr3", .raw), ("s.nef", .raw), ("t.ARW", .raw), ("u.orf", .raw), ("v.rw2", .raw),
    ("w.pef", .raw), ("x.srw", .raw), ("y.RAF", .raw), ("z.MOV", .quickTime),
    ("z.qt", .quickTime), ("z.mp4", .mp4), ("z.M4V", .m4v), ("z.3gp", .threeGPP),
    ("z.3G2", .threeGPP), ("archive.tar.jpg", .jpeg),
  ])
  func mapsMediaExtensions(_ name: String, _ format: MediaFormat) {
    #expect(MediaSniffer.format(forName: ascii(name)) == format)
  }

  @Test(arguments: [
    "README.txt", "IMG_0001.AAE", "meta.json", "IMG_0001.xmp", "noextension", ".jpg", "dot.",
    "jpg", "photo.jpg.txt", "photo.jpgx",
  ])
  func ignoresOtherNames(_ name: String) {
    #expect(MediaSniffer.format(forName: ascii(name)) == nil)
  }

  @Test func nonASCIIExtensionIsNotMedia() {
    #expect(MediaSniffer.format(forName: ascii("a.") + [0xFF, 0x6A, 0x70, 0x67]) == nil)
    #expect(MediaSniffer.format(forName: ascii("caf\u{E9}.JPG")) == .jpeg)
  }

  @Test func tiffIsRawOnlyWhenNamedLikeATIFFRaw() {
    let tiff = hexBytes("49492a00 08000000 1900fe00")
    for name in ["a.dng", "a.NEF", "a.arw", "a.cr2", "a.orf", "a.rw2", "a.pef", "a.srw"] {
      #expect(MediaSniffer.format(ofHeader: tiff, name: ascii(name)) == .raw, "\(name)")
    }
    for name in ["a.tif", "a.jpg", "a.raf", "noextension"] {
      #expect(MediaSniffer.format(ofHeader: tiff, name: ascii(name)) == .tiff, "\(name)")
    }
    let jpeg = hexBytes("ffd8ffe0 00104a46")
    #expect(MediaSniffer.format(ofHeader: jpeg, name: ascii("a.dng")) == .jpeg)
  }

  @Test func recognisesSidecarsAndAppleDouble() {
    #expect(MediaSniffer.isSidecar(name: ascii("MVI_0001.THM")))
    #expect(MediaSniffer.isSidecar(name: ascii("GH010001.LRV")))
    #expect(MediaSniffer.isSidecar(name: ascii("GH010001.lrf")))
    #expect(MediaSniffer.isSidecar(name: ascii("IMG_0001.xmp")))
    #expect(MediaSniffer.isSidecar(name: ascii("IMG_0001.JPG.XMP")))
    #expect(MediaSniffer.isSidecar(name: ascii("IMG_0001.AAE")))
    #expect(!MediaSniffer.isSidecar(name: ascii("IMG_0001.JPG")))
    #expect(!MediaSniffer.isSidecar(name: ascii("xmp")))
    #expect(!MediaSniffer.isSidecar(name: ascii("IMG_0001.xmp.txt")))
    #expect(MediaSniffer.isAppleDouble(header: hexBytes("00051607 00020000")))
    #expect(!MediaSniffer.isAppleDouble(header: hexBytes("ffd8ffe0")))
  }

  @Test func videoNamesAreVideoContainersWhetherReadOrNot() {
    for name in ["a.MPG", "a.mpeg", "a.flv", "a.vob", "a.webm", "a.avi", "a.MOV", "a.LRV", "a.mts"]
    {
      #expect(MediaSniffer.isVideoName(ascii(name)), "\(name)")
    }
    for name in ["a.psd", "a.wav", "a.txt", "a.jpg", "a.ts", "mpg", "noextension", "a.xmp"] {
      #expect(!MediaSniffer.isVideoName(ascii(name)), "\(name)")
    }
  }
}
