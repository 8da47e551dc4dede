// The only declaration is in include/CFuzzDriver.h; this file holds the one definition
// every fuzz target shares.

/// LeakSanitizer's suppressions (a weak hook the sanitizer runtime calls at exit):
/// swift-corelibs-foundation's FoundationXML (Swift 6.3.1) leaks a CFString for every XML
/// parse error (`_CFErrorCreateFromXMLInterface`, 72 bytes; Tests/lsan.supp has the same
/// entry for `make asan`). Every target that reaches XMP (JPEG, PNG, HEIF, the exiv2
/// formats, FuzzXMP) would otherwise report each malformed packet as a leak of ours.
const char *__lsan_default_suppressions(void) {
  return "leak:_CFErrorCreateFromXMLInterface\n";
}
