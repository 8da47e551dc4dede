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
        Name                         Group        Taken                Source              Size         Length  GPS
        ---------------------------  -----------  -------------------  ------------------  -----------  ------  ---------------------
        IMG_0001.JPG                 Camera Roll  2019/05/01 12:34:56  EXIF original       3024 x 4032       -  -33.85678, -151.21530
        京都の写真.png               旅行         (unknown)            file time           -                 -  -
        MOV_0002.MOV                 Camera Roll  2020/01/02 03:04:05  movie header (UTC)  1920 x 1080   00:04  -
        IMG_0003.HEIC, IMG_0003.MOV  Camera Roll  2023/10/31 11:44:43  EXIF digitized      3024 x 4032   00:03  -

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
        ファイル名                   アルバム      撮影日時             日時の出典            サイズ        長さ  GPS
        ---------------------------  ------------  -------------------  --------------------  -----------  -----  ---
        MOV_0002.MOV                 カメラロール  2020/01/02 03:04:05  ムービーヘッダ (UTC)  1920 x 1080  00:04  -
        京都の写真.png               旅行          (不明)               ファイル日時          -                -  -
        IMG_0003.HEIC, IMG_0003.MOV  カメラロール  2023/10/31 11:44:43  EXIF デジタル化日時   3024 x 4032  00:03  -

        3 件(写真 2 件、ビデオ 1 件)、問題あり 1 件

        """)
    let chinese = TableFormatter(strings: Strings(language: .simplifiedChinese))
    #expect(
      chinese.row(try SampleAssets.video()) == [
        "MOV_0002.MOV", "相机胶卷", "2020/01/02 03:04:05", "影片头 (UTC)", "1920 x 1080", "00:04", "-",
      ])
    #expect(chinese.row(try SampleAssets.livePhoto())[0] == "IMG_0003.HEIC, IMG_0003.MOV")
    #expect(chinese.row(SampleAssets.photoWithoutGPS())[2...3] == ["(未知)", "文件时间"])
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

  @Test func aFileTimeIsNotATakenDate() throws {
    let formatter = TableFormatter(strings: Strings(language: .english))
    let fileTime = try #require(
      CaptureDate(
        year: 2024, month: 1, day: 2, hour: 3, minute: 4, second: 5, zone: .utc,
        source: .fileModificationTime))
    let local = try #require(
      CaptureDate(
        year: 987, month: 12, day: 31, hour: 23, minute: 59, second: 60, zone: .unknown,
        source: .exifDateTime))
    #expect(formatter.takenDate(fileTime) == "(unknown)")
    #expect(formatter.takenDate(nil) == "(unknown)")
    #expect(formatter.takenDate(local) == "0987/12/31 23:59:60")
    let row = formatter.row(SampleAssets.photoWithoutGPS())
    #expect(row[2...3] == ["(unknown)", "file time"])
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
