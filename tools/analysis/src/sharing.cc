#include "utilsim/analysis/sharing.h"

#include <vector>

#include "utilsim/engine/units.h"
#include "utilsim/policies/fgd.h"

namespace utilsim {

Result<SharingMode> ParseSharingMode(const std::string& name, double mps_thread_pct) {
  if (!(mps_thread_pct > 0 && mps_thread_pct <= 100))
    return Status::Error("--mps-thread-pct: expected a percentage in (0, 100], got " +
                         std::to_string(mps_thread_pct));
  if (name == "fractional") return SharingMode::kFractional;
  if (name == "exclusive") return SharingMode::kExclusive;
  if (name == "timeslice") return SharingMode::kTimeSlice;
  if (name == "mps") return SharingMode::kMps;
  return Status::Error("--sharing: expected fractional, exclusive, timeslice or mps, got '" + name +
                       "'");
}

SharingConfig SharingConfigOf(SharingMode mode, double mps_thread_pct) {
  SharingConfig c;
  c.mode = mode == SharingMode::kMps ? GpuSharing::kMps : GpuSharing::kTimeSlice;
  c.mps_default_thread_fraction = mps_thread_pct / 100.0;
  return c;
}

int64_t RoundUpFractional(Workload* w) {
  int64_t n = 0;
  for (Job& j : w->jobs) {
    if (!j.task.fractional()) continue;
    const float share = static_cast<float>(j.task.gpu_milli) / kMilliPerUnit;
    j.task.gpu_milli = kMilliPerUnit;
    // The job keeps its GPU time: busy `util` of its share is util x share
    // of the whole GPU, so its useful GPU-seconds do not change.
    j.util *= share;
    if (j.series >= 0) {
      UtilSeries s = w->series[static_cast<size_t>(j.series)];
      for (float& b : s.busy) b *= share;
      j.series = static_cast<int32_t>(w->series.size());
      w->series.push_back(std::move(s));
    }
    ++n;
  }
  return n;
}

std::function<double(const ClusterState&)> MakeFragmentationSampler(
    std::shared_ptr<const FragmentationMeter> meter) {
  struct Cache {
    std::vector<int64_t> scaled;  // per node: F_n x total weight
    std::vector<int64_t> key;     // per node: free CPU, memory, then each GPU's share
    std::vector<size_t> offset;   // per node: start in key
    int64_t sum = 0;
    bool ready = false;
  };
  auto cache = std::make_shared<Cache>();
  return [meter = std::move(meter), cache](const ClusterState& c) -> double {
    Cache& k = *cache;
    const int64_t total = meter->total_weight();
    if (total == 0) return 0;
    const size_t n = c.num_nodes();
    if (!k.ready) {
      k.scaled.assign(n, 0);
      k.offset.assign(n + 1, 0);
      for (NodeIndex i = 0; i < n; ++i)
        k.offset[i + 1] = k.offset[i] + 2 + static_cast<size_t>(c.node(i).gpus);
      k.key.assign(k.offset[n], -1);
      k.ready = true;
    }
    for (NodeIndex i = 0; i < n; ++i) {
      int64_t* key = k.key.data() + k.offset[i];
      bool same = key[0] == c.free_cpu(i) && key[1] == c.free_mem(i);
      const int g = c.node(i).gpus;
      for (int x = 0; x < g && same; ++x) same = key[2 + x] == c.gpu_free_milli(i, x);
      if (same) continue;
      key[0] = c.free_cpu(i);
      key[1] = c.free_mem(i);
      for (int x = 0; x < g; ++x) key[2 + x] = c.gpu_free_milli(i, x);
      const int64_t v = meter->NodeScaled(c, i);
      k.sum += v - k.scaled[i];
      k.scaled[i] = v;
    }
    return static_cast<double>(k.sum) / static_cast<double>(total);
  };
}

}  // namespace utilsim
