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
    ]
    let text = TableFormatter(strings: Strings(language: .english)).format(assets: assets)
    #expect(
      text == """
        Name            Group        Taken                Size         GPS
        --------------  -----------  -------------------  -----------  ---------------------
        IMG_0001.JPG    Camera Roll  2019/05/01 12:34:56  3024 x 4032  -33.85678, -151.21530
        京都の写真.png  旅行         (unknown)            -            -
        MOV_0002.MOV    Camera Roll  2020/01/02 03:04:05  1920 x 1080  -

        3 assets (2 photos, 1 video), 1 with problems

        """)
  }

  @Test func headersGroupNamesAndSummaryFollowTheLanguage() throws {
    let assets = [try SampleAssets.video(), SampleAssets.photoWithoutGPS()]
    let japanese = TableFormatter(strings: Strings(language: .japanese)).format(assets: assets)
    #expect(
      japanese == """
        ファイル名      アルバム      撮影日時             サイズ       GPS
        --------------  ------------  -------------------  -----------  ---
        MOV_0002.MOV    カメラロール  2020/01/02 03:04:05  1920 x 1080  -
        京都の写真.png  旅行          (不明)               -            -

        2 件(写真 1 件、ビデオ 1 件)、問題あり 1 件

        """)
    let chinese = TableFormatter(strings: Strings(language: .simplifiedChinese))
    #expect(chinese.row(try SampleAssets.video())[1] == "相机胶卷")
    #expect(
      chinese.format(assets: []).hasSuffix("\n共 0 项(0 张照片，0 个视频)\n"))
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
