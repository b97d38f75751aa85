#include "utilsim/workloads/profile_library.h"

#include <cmath>

#include "utilsim/engine/rng.h"
#include "utilsim/engine/units.h"

namespace utilsim {

int GpuBucket(int64_t gpu_milli) {
  if (gpu_milli < kMilliPerUnit) return 0;
  if (gpu_milli == kMilliPerUnit) return 1;
  if (gpu_milli <= 8 * kMilliPerUnit) return 2;
  return 3;
}

int DurationBucket(Micros d) {
  const int64_t s = d.us / kMicrosPerSecond;
  if (s < 600) return 0;
  if (s < 3600) return 1;
  if (s < 6 * 3600) return 2;
  return 3;
}

Status ProfileLibrary::Add(ProfileEntry e) {
  const std::string where = "profile '" + e.key + "': ";
  if (e.duration.us <= 0) return Status::Error(where + "duration must be > 0");
  if (e.series.offset.empty() || e.series.offset.size() != e.series.busy.size())
    return Status::Error(where + "empty or inconsistent series");
  if (e.series.offset.front().us != 0)
    return Status::Error(where + "series must start at offset 0");
  for (size_t i = 0; i < e.series.offset.size(); ++i) {
    if (i > 0 && e.series.offset[i] <= e.series.offset[i - 1])
      return Status::Error(where + "offsets must increase");
    const float b = e.series.busy[i];
    if (!(b >= 0.0f && b <= 1.0f)) return Status::Error(where + "busy must be within 0..1");
  }
  e.mean = SeriesMean(e.series, e.duration);
  const uint32_t idx = static_cast<uint32_t>(entries_.size());
  classes_[GpuBucket(e.gpu_milli) * 4 + DurationBucket(e.duration)].push_back(idx);
  entries_.push_back(std::move(e));
  return Status::Ok();
}

const std::vector<uint32_t>& ProfileLibrary::Class(int gpu_bucket, int duration_bucket) const {
  return classes_[gpu_bucket * 4 + duration_bucket];
}

namespace {

// The entry's series with offsets scaled by runtime / duration.
UtilSeries Stretch(const ProfileEntry& e, Micros runtime) {
  UtilSeries s;
  const double k = static_cast<double>(runtime.us) / static_cast<double>(e.duration.us);
  for (size_t i = 0; i < e.series.offset.size(); ++i) {
    const int64_t off = std::llround(static_cast<double>(e.series.offset[i].us) * k);
    if (!s.offset.empty() && off <= s.offset.back().us) continue;  // collapsed by rounding
    s.offset.push_back(Micros(off));
    s.busy.push_back(e.series.busy[i]);
  }
  return s;
}

}  // namespace

AttachReport AttachProfiles(Workload* w, const ProfileLibrary& library, AttachMode mode,
                            uint64_t seed) {
  AttachReport rep;
  rep.rule = "profile library '" + library.source + "' (" + std::to_string(library.size()) +
             " profiles, signal " + UtilSignalName(library.signal) +
             "), attach=" + (mode == AttachMode::kMean ? "mean" : "series") +
             ", class = GPU bucket x duration bucket, uniform draw (seed " + std::to_string(seed) +
             "), fallback GPU bucket then any";
  if (library.size() == 0) {
    rep.rule += "; library empty: nothing attached";
    return rep;
  }
  std::vector<uint32_t> all(library.size());
  for (uint32_t i = 0; i < all.size(); ++i) all[i] = i;
  for (size_t j = 0; j < w->jobs.size(); ++j) {
    Job& job = w->jobs[j];
    if (job.util_known) {
      ++rep.kept;
      continue;
    }
    const int gb = GpuBucket(job.task.total_gpu_milli() * job.tasks);
    const int db = DurationBucket(job.runtime);
    const std::vector<uint32_t>* pool = &library.Class(gb, db);
    std::vector<uint32_t> same_gpu;
    if (!pool->empty()) {
      ++rep.exact_class;
    } else {
      for (int d = 0; d < 4; ++d)
        for (uint32_t i : library.Class(gb, d)) same_gpu.push_back(i);
      if (!same_gpu.empty()) {
        pool = &same_gpu;
        ++rep.gpu_bucket_only;
      } else {
        pool = &all;
        ++rep.any_class;
      }
    }
    Rng rng(seed, j, "profile-attach");
    const ProfileEntry& e =
        library.entries()[(*pool)[rng.UniformInt(0, static_cast<int64_t>(pool->size()) - 1)]];
    if (mode == AttachMode::kSeries) {
      job.series = static_cast<int32_t>(w->series.size());
      w->series.push_back(Stretch(e, job.runtime));
      job.util = static_cast<float>(SeriesMean(w->series.back(), job.runtime));
    } else {
      job.util = static_cast<float>(e.mean);
    }
    job.util_known = true;
    ++rep.attached;
  }
  return rep;
}

}  // namespace utilsim
