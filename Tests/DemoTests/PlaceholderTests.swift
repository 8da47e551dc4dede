import Testing

@testable import Demo

@Suite struct DemoSmokeTests {}
