import Glibc
import GroupEnumerator
import Testing

@testable import GroupEnumeratorCore

/// The last descriptors below the limit are left to the runtime: libdispatch ends the
/// process with `SIGILL` when it cannot open one (it reads `/proc/<thread>/stat` every
/// second while work waits), so the library's opens fail with `EMFILE` before the table
/// is full.
struct DescriptorReserveTests {
  @Test func aDescriptorAmongTheLastFewIsClosedAndTheOpenFailsWithEMFILE() throws {
    var ends: [Int32] = [-1, -1]
    try #require(pipe(&ends) == 0)
    defer { close(ends[0]) }
    errno = 0
    let result = DescriptorReserve.admit(ends[1], below: ends[1])
    let code = errno
    #expect(result == -1)
    #expect(code == EMFILE)
    // The write end is closed: the read end meets the end of the pipe at once.
    var byte: UInt8 = 0
    #expect(read(ends[0], &byte, 1) == 0)
  }

  @Test func aFailedOpenKeepsItsOwnErrorUnderAnyCeiling() {
    errno = ENOENT
    let result = DescriptorReserve.admit(-1, below: -3)
    let code = errno
    #expect(result == -1)
    #expect(code == ENOENT)
  }

  @Test func aDescriptorBelowTheCeilingIsKept() throws {
    var ends: [Int32] = [-1, -1]
    try #require(pipe(&ends) == 0)
    defer {
      close(ends[0])
      close(ends[1])
    }
    #expect(DescriptorReserve.admit(ends[1], below: ends[1] + 1) == ends[1])
    // Under this process's real limit too.
    #expect(DescriptorReserve.admit(ends[1]) == ends[1])
    var byte: UInt8 = 7
    #expect(write(ends[1], &byte, 1) == 1)
    #expect(read(ends[0], &byte, 1) == 1)
  }
}
