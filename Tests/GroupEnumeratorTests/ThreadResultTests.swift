import Foundation
import Synchronization
import Testing

@testable import GroupEnumeratorCore

#if canImport(Glibc)
  import Glibc
#endif

/// `ThreadResult` runs its work on a thread of its own at once, and `value()` waits for it.
@Suite struct ThreadResultTests {
  @Test func theValueIsMadeOnAnotherThreadWhileTheCallerGoesOn() {
    let caller = pthread_self()
    let started = ConditionLock()
    let release = Atomic(false)
    let result = ThreadResult { () -> (Bool, Int) in
      started.lock()
      started.broadcast()
      started.unlock()
      // Runs only once the caller has gone on past the initialiser.
      while !release.load(ordering: .acquiring) { usleep(1000) }
      return (pthread_equal(pthread_self(), caller) != 0, 42)
    }
    release.store(true, ordering: .releasing)
    let (onCaller, value) = result.value()
    #expect(!onCaller)
    #expect(value == 42)
  }

  @Test func valueWaitsForASlowBody() {
    let clock = ContinuousClock()
    let start = clock.now
    let result = ThreadResult { () -> [UInt8] in
      usleep(50_000)
      return [1, 2, 3]
    }
    #expect(result.value() == [1, 2, 3])
    #expect(clock.now - start >= .milliseconds(50))
    // Asked again, the same value, at once.
    #expect(result.value() == [1, 2, 3])
  }

  @Test func aNilValueIsHandedBackAsNil() {
    let result = ThreadResult { () -> String? in nil }
    #expect(result.value() == nil)
  }

  @Test func manyResultsAtOnceEachGetTheirOwnValue() {
    let results = (0..<200).map { index in ThreadResult { index * index } }
    #expect(results.map { $0.value() } == (0..<200).map { $0 * $0 })
  }

  @Test func aResultNobodyAsksForStillRunsToItsEnd() {
    let done = Atomic(false)
    do {
      _ = ThreadResult { done.store(true, ordering: .releasing) }
    }
    var waited = 0
    while !done.load(ordering: .acquiring), waited < 5_000 {
      usleep(1000)
      waited += 1
    }
    let finished = done.load(ordering: .acquiring)
    #expect(finished)
  }
}
