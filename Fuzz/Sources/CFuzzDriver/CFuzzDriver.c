// Empty: SwiftPM wants a source file in every C target. The only declaration is in
// include/CFuzzDriver.h.
