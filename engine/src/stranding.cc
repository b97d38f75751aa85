#include "utilsim/engine/stranding.h"

#include <algorithm>
#include <tuple>
#include <unordered_set>

namespace utilsim {

namespace {

struct Shape {
  int32_t gpus;
  int64_t cpu, mem;
  bool operator<(const Shape& o) const {
    return std::tie(gpus, cpu, mem) < std::tie(o.gpus, o.cpu, o.mem);
  }
  bool operator==(const Shape& o) const { return gpus == o.gpus && cpu == o.cpu && mem == o.mem; }
};

}  // namespace

StrandingTest::StrandingTest(const Workload& w) {
  // The distinct shapes (a few hundred among a million jobs), sorted.
  struct Hash {
    size_t operator()(const Shape& x) const {
      return std::hash<int64_t>()(x.cpu) * 31 + std::hash<int64_t>()(x.mem) * 7 +
             static_cast<size_t>(x.gpus);
    }
  };
  std::unordered_set<Shape, Hash> seen;
  for (const Job& j : w.jobs)
    if (j.task.gpus >= 1) seen.insert({j.task.gpus, j.task.cpu_milli, j.task.mem_bytes});
  std::vector<Shape> shapes(seen.begin(), seen.end());
  std::sort(shapes.begin(), shapes.end());
  if (shapes.empty()) return;
  const int32_t max_gpus = shapes.back().gpus;
  frontier_.resize(static_cast<size_t>(max_gpus) + 1);
  std::vector<Point> pool;  // shapes needing <= g GPUs
  size_t next = 0;
  for (int32_t g = 1; g <= max_gpus; ++g) {
    bool grew = false;
    for (; next < shapes.size() && shapes[next].gpus == g; ++next) {
      pool.push_back({shapes[next].cpu, shapes[next].mem});
      grew = true;
    }
    if (!grew) {
      frontier_[static_cast<size_t>(g)] = frontier_[static_cast<size_t>(g) - 1];
      continue;
    }
    std::sort(pool.begin(), pool.end(), [](const Point& a, const Point& b) {
      return a.cpu != b.cpu ? a.cpu < b.cpu : a.mem < b.mem;
    });
    std::vector<Point> f;
    for (const Point& p : pool)
      if (f.empty() || p.mem < f.back().mem) f.push_back(p);
    pool = f;  // dominated shapes never return to the frontier
    frontier_[static_cast<size_t>(g)] = std::move(f);
  }
}

bool StrandingTest::HostsSlow(const std::vector<Point>& f, int64_t free_cpu, int64_t free_mem) {
  // The last point with cpu <= free_cpu has the least memory among them.
  auto it = std::upper_bound(f.begin(), f.end(), free_cpu,
                             [](int64_t cpu, const Point& p) { return cpu < p.cpu; });
  if (it == f.begin()) return false;
  return std::prev(it)->mem <= free_mem;
}

}  // namespace utilsim
