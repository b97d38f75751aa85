#include "utilsim/engine/parallel.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace utilsim {

size_t ResolveThreads(size_t requested) {
  if (requested > 0) return requested;
  return std::max(1u, std::thread::hardware_concurrency());
}

void ParallelFor(size_t n, size_t threads, const std::function<void(size_t i)>& fn) {
  if (n == 0) return;
  const size_t count = std::min(n, ResolveThreads(threads));
  std::atomic<size_t> next{0};
  // noexcept: an exception escaping fn ends the program on every thread alike,
  // rather than only when it happens on a started one.
  auto worker = [&]() noexcept {
    for (size_t i; (i = next++) < n;) fn(i);
  };
  std::vector<std::thread> pool;
  pool.reserve(count - 1);
  for (size_t t = 1; t < count; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
}

}  // namespace utilsim
