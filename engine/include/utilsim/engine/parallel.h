// One way to run independent tasks on several threads.
//
// Every place that runs a list of simulations (or other independent tasks) at
// once uses ParallelFor, so there is one thread-count rule and one join rule.
#pragma once

#include <cstddef>
#include <functional>

namespace utilsim {

// The number of threads a request for `requested` threads gets: `requested`
// when it is > 0, otherwise the hardware concurrency (at least 1).
size_t ResolveThreads(size_t requested);

// Calls fn(i) once for every i in [0, n), on min(n, ResolveThreads(threads))
// threads, the calling thread being one of them (threads - 1 are started).
// Indices are handed out in increasing order to whichever thread is free, so
// which thread runs which index is not fixed: fn(i) must write only what
// belongs to i (its own slot of an output vector), or synchronise.
//
// Contract: fn must not throw (catch inside fn and store the error in the
// slot); an escaping exception terminates the program. ParallelFor joins every
// thread it started before it returns, so everything fn wrote is visible to
// the caller afterwards. n == 0 calls nothing.
void ParallelFor(size_t n, size_t threads, const std::function<void(size_t i)>& fn);

}  // namespace utilsim
