import Foundation
import GroupEnumerator
import Testing

@testable import Demo

@Suite struct TableFormatterTests {
  @Test(arguments: [
    ("abc", 3), ("", 0), ("京都", 4), ("カメラロール", 12), ("ｶﾒﾗ", 3), ("ＡＢ", 4),
    ("한국", 4), ("e\u{301}", 1), ("📷", 2), ("❤\u{FE0F}", 2), ("a\u{200B}b", 2),
    ("(不明)", 6),
  ])
  func displayWidthCountsWideCharactersTwice(text: String, width: Int) {
    #expect(DisplayWidth.of(text) == width, "\(text.unicodeScalars.map(\.value))")
  }

  /// The page's and the table's coordinates are written as `String(format: "%.5f")` wrote
  /// them: halves of the binary value, negative zero, the extremes, huge values.
  @Test(arguments: [
    0.0, -0.0, 35.689_5, 139.691_71, -22.906_8, 0.000_005, 0.000_015, -0.000_004_9, 1.234_565,
    2.675_005, 90, -90, 180, -180, 1e-300, 123_456_789.123_456, 1e300,
    -Double.greatestFiniteMagnitude,
  ])
  func fiveDecimalsAreWhatFormatWrites(value: Double) {
    #expect(DecimalText.fiveDecimals(value) == String(format: "%.5f", value))
  }

  /// The exact formatting without `vsnprintf` is `%.5f`'s for every coordinate: ties of
  /// the binary value (multiples of 2^-6 … 2^-20 halve a last decimal), values next to
  /// them, subnormals, negative ones, the largest it takes, and a sweep of random ones.
  @Test func fiveDecimalsWithoutPrintfAreWhatFormatWrites() {
    var values: [Double] = [0, -0.0, 0x1p33.nextDown, -0x1p33.nextDown, .leastNonzeroMagnitude]
    for power in 1...24 {
      let step = Double(sign: .plus, exponent: -power, significand: 1)
      for multiple in [1.0, 3, 5, 7, 11, 1001, 12_345] {
        let tie = step * multiple
        values += [tie, -tie, tie.nextUp, tie.nextDown, 179.5 + tie, -89.5 - tie]
      }
    }
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<20_000 {
      values.append(Double.random(in: -180...180, using: &generator))
      values.append(Double.random(in: -1...1, using: &generator) * 1e-4)
      values.append(Double(Int.random(in: -18_000_000...18_000_000, using: &generator)) / 1e5)
    }
    var wrong: [Double] = []
    for value in values where DecimalText.exactFiveDecimals(value) != String(format: "%.5f", value)
    {
      wrong.append(value)
    }
    #expect(
      wrong.isEmpty, "\(wrong.prefix(5).map { ($0, DecimalText.exactFiveDecimals($0) ?? "nil") })")
    #expect(DecimalText.exactFiveDecimals(0x1p33) == nil)
    #expect(DecimalText.exactFiveDecimals(.nan) == nil)
  }

  @Test func controlCharactersArePrintedAsQuestionMarks() {
    #expect(DisplayWidth.printable("a\nb\tc\u{1B}[K") == "a?b?c?[K")
    #expect(DisplayWidth.printable("京都") == "京都")
  }

  @Test func columnsAreAlignedByDisplayWidthInEnglish() throws {
    let assets = [
      try SampleAssets.photoWithGPS(), SampleAssets.photoWithoutGPS(), try SampleAssets.video(),
      try SampleAssets.livePhoto(),
    ]
    let text = TableFormatter(strings: Strings(language: .english)).format(assets: assets)
    #expect(
      text == """
        Name                         Group        Taken                Source              Dimensions   Length  GPS                    Problems
        ---------------------------  -----------  -------------------  ------------------  -----------  ------  ---------------------  ---------
        IMG_0001.JPG                 Camera Roll  2019/05/01 12:34:56  EXIF original       3024 x 4032       -  -33.85678, -151.21530  -
        京都の写真.png               旅行         2023/11/14 22:13:20  file time (UTC)     -                 -  -                      malformed
        MOV_0002.MOV                 Camera Roll  2020/01/02 03:04:05  movie header (UTC)  1920 x 1080   00:04  -                      -
        IMG_0003.HEIC, IMG_0003.MOV  Camera Roll  2023/10/31 11:44:43  EXIF digitized      3024 x 4032   00:03  -                      -

        4 assets (3 photos, 1 video), 1 with problems

        """)
  }

  @Test func headersGroupNamesAndSummaryFollowTheLanguage() throws {
    let assets = [
      try SampleAssets.video(), SampleAssets.photoWithoutGPS(), try SampleAssets.livePhoto(),
    ]
    let japanese = TableFormatter(strings: Strings(language: .japanese)).format(assets: assets)
    #expect(
      japanese == """
        ファイル名                   アルバム      撮影日時             日時の出典            サイズ        長さ  GPS  問題
        ---------------------------  ------------  -------------------  --------------------  -----------  -----  ---  ---------
        MOV_0002.MOV                 カメラロール  2020/01/02 03:04:05  ムービーヘッダ (UTC)  1920 x 1080  00:04  -    -
        京都の写真.png               旅行          2023/11/14 22:13:20  ファイル日時 (UTC)    -                -  -    malformed
        IMG_0003.HEIC, IMG_0003.MOV  カメラロール  2023/10/31 11:44:43  EXIF デジタル化日時   3024 x 4032  00:03  -    -

        3 件(写真 2 件、ビデオ 1 件)、問題あり 1 件

        """)
    let chinese = TableFormatter(strings: Strings(language: .simplifiedChinese))
    #expect(
      chinese.row(try SampleAssets.video()) == [
        "MOV_0002.MOV", "相机胶卷", "2020/01/02 03:04:05", "影片头 (UTC)", "1920 x 1080", "00:04", "-",
        "-",
      ])
    #expect(chinese.row(try SampleAssets.livePhoto())[0] == "IMG_0003.HEIC, IMG_0003.MOV")
    #expect(
      chinese.row(SampleAssets.photoWithoutGPS())[2...3] == ["2023/11/14 22:13:20", "文件时间 (UTC)"])
    #expect(
      chinese.format(assets: []).hasSuffix("\n共 0 项(0 张照片，0 个视频)\n"))
  }

  @Test(arguments: Language.allCases)
  func everyDateSourceHasItsOwnShortLabel(language: Language) {
    let strings = Strings(language: language)
    let labels = CaptureDate.Source.allCases.map(strings.dateSource)
    #expect(Set(labels).count == CaptureDate.Source.allCases.count, "\(labels)")
    #expect(labels.allSatisfy { DisplayWidth.of($0) <= 20 }, "\(labels)")
  }

  @Test(
    arguments: [
      (nil, "-"), (0, "00:00"), (0.49, "00:00"), (0.5, "00:01"), (7, "00:07"), (59.6, "01:00"),
      (754, "12:34"), (3599.4, "59:59"), (3600, "1:00:00"), (3723, "1:02:03"),
      (36_000, "10:00:00"), (-1, "-"), (.nan, "-"), (.infinity, "-"), (1e300, "-"),
    ] as [(Double?, String)])
  func lengthsAreMinutesAndSecondsOrHoursMinutesAndSeconds(seconds: Double?, text: String) {
    let formatter = TableFormatter(strings: Strings(language: .english))
    #expect(formatter.length(seconds) == text)
  }

  @Test func stillsHaveNoLengthAndLivePhotosTheirMovies() throws {
    let formatter = TableFormatter(strings: Strings(language: .english))
    var metadata = MediaMetadata()
    metadata.duration = 5
    let path = LibraryPath("odd.jpg")
    let still = Asset(
      path: path, group: .savedPhotos, groupPath: .root, type: .photo,
      resources: [AssetResource(path: path, role: .photo, format: .jpeg, fileSize: 1)],
      fileModificationDate: Date(timeIntervalSince1970: 0), metadata: metadata)
    #expect(formatter.row(still)[5] == "-")
    #expect(formatter.row(try SampleAssets.livePhoto())[5] == "00:03")
  }

  @Test func aLivePhotoIsNamedByItsTwoFilesNotItsSidecars() throws {
    let formatter = TableFormatter(strings: Strings(language: .english))
    let row = formatter.row(try SampleAssets.livePhotoWithSidecars())
    #expect(row[0] == "IMG_0003.HEIC, IMG_0003.MOV")
  }

  @Test func aFileTimeIsShownInUTCWithItsSourceAsJSONGivesIt() throws {
    let formatter = TableFormatter(strings: Strings(language: .english))
    let fileTime = try #require(
      CaptureDate(
        year: 2024, month: 1, day: 2, hour: 3, minute: 4, second: 5, zone: .utc,
        source: .fileModificationTime))
    let local = try #require(
      CaptureDate(
        year: 987, month: 12, day: 31, hour: 23, minute: 59, second: 60, zone: .unknown,
        source: .exifDateTime))
    #expect(formatter.takenDate(fileTime) == "2024/01/02 03:04:05")
    #expect(formatter.takenDate(nil) == "(unknown)")
    #expect(formatter.takenDate(local) == "0987/12/31 23:59:60")
    let photo = SampleAssets.photoWithoutGPS()
    // JSON: "creationDate": "2023-11-14T22:13:20Z", "creationDateSource": "file:mtime".
    #expect(photo.creationDate?.iso8601 == "2023-11-14T22:13:20Z")
    #expect(formatter.row(photo)[2...3] == ["2023/11/14 22:13:20", "file time (UTC)"])
  }

  @Test func theProblemsCellIsTheFirstCodeAndHowManyMore() {
    let formatter = TableFormatter(strings: Strings(language: .english))
    let malformed = AssetProblem(.malformed, "The JPEG ends early.")
    let invalid = AssetProblem(.invalidValue, "GPS latitude 501 is out of range.")
    #expect(formatter.problems([]) == "-")
    #expect(formatter.problems([malformed]) == "malformed")
    #expect(formatter.problems([malformed, invalid, invalid]) == "malformed +2")
  }

  @Test(arguments: [
    ("IMG_20240202_100000000.MP.jpg", 16, "IMG_2024….MP.jpg"),
    ("IMG_20240202_100000000.MP.jpg", 12, "IMG_20…P.jpg"),
    ("IMG_0001.JPG", 12, "IMG_0001.JPG"), ("IMG_0001.JPG", 8, "IMG….JPG"),
    ("IMG_0001.JPG", 5, "IM…PG"), ("IMG_0001.JPG", 1, "…"), ("IMG_0001.JPG", 0, ""),
    ("京都の写真.png", 10, "京都….png"), ("京都の写真.png", 9, "京都….png"),
    ("no extension here", 9, "no e…here"), ("a.verylongextension", 6, "a.v…on"),
  ])
  func namesAreShortenedInTheMiddleKeepingTheExtension(text: String, width: Int, cut: String) {
    let result = DisplayWidth.truncatedMiddle(text, to: width)
    #expect(result == cut)
    #expect(DisplayWidth.of(result) <= max(0, width))
  }

  @Test func otherCellsAreCutAtTheEnd() {
    #expect(DisplayWidth.truncatedEnd("EXIF original", to: 6) == "EXIF …")
    #expect(DisplayWidth.truncatedEnd("EXIF original", to: 13) == "EXIF original")
    #expect(DisplayWidth.truncatedEnd("カメラロール", to: 5) == "カメ…")
    #expect(DisplayWidth.truncatedEnd("カメラロール", to: 1) == "…")
    #expect(DisplayWidth.truncatedEnd("abc", to: 0) == "")
  }

  @Test func columnsAreNarrowedInOrderBeforeAnyIsDropped() {
    let fit = ColumnFit(narrowing: [(0, 5), (1, 4)], dropping: [[2], [1]])
    #expect(fit.widths(natural: [10, 10, 3], limit: nil) == [10, 10, 3])
    #expect(fit.widths(natural: [10, 10, 3], limit: 27) == [10, 10, 3])
    // 3 too many: the first column gives them up.
    #expect(fit.widths(natural: [10, 10, 3], limit: 24) == [7, 10, 3])
    // The first down to its minimum, then the second.
    #expect(fit.widths(natural: [10, 10, 3], limit: 18) == [5, 6, 3])
    // Even at their minimums (5 + 4 + 3 + 4) too wide: the third column goes.
    #expect(fit.widths(natural: [10, 10, 3], limit: 15) == [5, 8, nil])
    #expect(fit.widths(natural: [10, 10, 3], limit: 8) == [8, nil, nil])
    // The last column left takes what there is, down to one.
    #expect(fit.widths(natural: [10, 10, 3], limit: 2) == [2, nil, nil])
    #expect(fit.widths(natural: [10, 10, 3], limit: 1) == [1, nil, nil])
  }

  @Test func aFittedTableIsCutInTheMiddleOfNamesThenLosesColumnsInOrder() throws {
    let assets = [
      try SampleAssets.photoWithGPS(), SampleAssets.photoWithoutGPS(), try SampleAssets.video(),
      try SampleAssets.livePhoto(),
    ]
    let strings = Strings(language: .english)
    #expect(
      TableFormatter(strings: strings, maximumWidth: 60).format(assets: assets) == """
        Name           Taken                Source          Problems
        -------------  -------------------  --------------  --------
        IMG_0001.JPG   2019/05/01 12:34:56  EXIF original   -
        京都の…真.png  2023/11/14 22:13:20  file time (UT…  malform…
        MOV_0002.MOV   2020/01/02 03:04:05  movie header …  -
        IMG_00…03.MOV  2023/10/31 11:44:43  EXIF digitized  -

        4 assets (3 photos, 1 video), 1 with problems

        """)
    #expect(
      TableFormatter(strings: strings, maximumWidth: 12).format(assets: assets) == """
        Name
        ------------
        IMG_0001.JPG
        京都の….png
        MOV_0002.MOV
        IMG_00…3.MOV

        4 assets (3…

        """)
  }

  @Test(arguments: [20, 40, 60, 80, 100, 132])
  func noLineOfAFittedTableIsWiderThanTheLimit(width: Int) throws {
    let assets = [
      try SampleAssets.photoWithGPS(), SampleAssets.photoWithoutGPS(), try SampleAssets.video(),
      try SampleAssets.livePhoto(),
    ]
    for language in Language.allCases {
      let formatter = TableFormatter(strings: Strings(language: language), maximumWidth: width)
      let text = formatter.format(assets: assets) + formatter.format(groups: groups)
      for line in text.split(separator: "\n") {
        #expect(DisplayWidth.of(String(line)) <= width, "\(language) \(width): \(line)")
      }
    }
  }

  private var groups: [AssetGroup] {
    [
      AssetGroup(kind: .savedPhotos, path: .root, counts: [.photo: 12, .video: 3]),
      AssetGroup(kind: .album, path: LibraryPath("旅行/2019 京都 紅葉"), counts: [.livePhoto: 1]),
    ]
  }

  @Test func theGroupTableDropsTypeThenURLThenNarrowsNames() {
    let strings = Strings(language: .english)
    let roll = groups[0]
    #expect(
      TableFormatter(strings: strings, maximumWidth: 80).format(groups: groups) == """
        Name                 Photos  Live Photos  Videos
        -------------------  ------  -----------  ------
        Camera Roll              12            0       3
        旅行/2019 京都 紅葉       0            1       0

        2 groups

        """)
    // At 120 the name gives up 6 columns and everything else stays.
    let wide = TableFormatter(strings: strings, maximumWidth: 120).format(groups: groups)
    #expect(
      wide.contains("\nCamera Roll    savedPhotos      12            0       3  \(roll.url)\n"))
    #expect(wide.contains("\n旅行/20… 紅葉  album "))
  }

  @Test(
    arguments: [
      ("80", nil, 80), ("80", 120, 80), (nil, 120, 120), (nil, nil, nil), ("", 100, 100),
      ("abc", 100, 100), ("0", nil, nil), ("-5", 90, 90), ("5000", nil, 1000),
      ("99999999999999999999999", nil, 1000), (nil, 0, 1),
    ] as [(String?, Int?, Int?)])
  func theTableWidthIsCOLUMNSThenTheTerminalThenNoLimit(
    variable: String?, terminal: Int?, width: Int?
  ) {
    #expect(Terminal.tableWidth(columnsVariable: variable, terminalColumns: terminal) == width)
  }

  @Test func englishSummariesUseSingularForOne() {
    let strings = Strings(language: .english)
    #expect(strings.summary(photos: 1, videos: 0, withProblems: 0) == "1 asset (1 photo, 0 videos)")
    #expect(
      strings.summary(photos: 10, videos: 2, withProblems: 1)
        == "12 assets (10 photos, 2 videos), 1 with problems")
  }

  @Test func groupsListTheirCountsRightAligned() {
    let roll = AssetGroup(kind: .savedPhotos, path: .root, counts: [.photo: 12, .video: 3])
    let album = AssetGroup(kind: .album, path: LibraryPath("旅行"), counts: [.livePhoto: 1])
    let text = TableFormatter(strings: Strings(language: .english)).format(groups: [roll, album])
    #expect(
      text == """
        Name         Type         Photos  Live Photos  Videos  URL
        -----------  -----------  ------  -----------  ------  \(String(repeating: "-", count: 63))
        Camera Roll  savedPhotos      12            0       3  \(roll.url.absoluteString)
        旅行         album             0            1       0  \(album.url.absoluteString)

        2 groups

        """)
  }
}
