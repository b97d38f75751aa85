// A library of measured utilization profiles and the seeded rule that
// attaches them to jobs whose trace records no utilization.
//
// Classes: a job's class is (GPU bucket, duration bucket):
//   GPU buckets       0: < 1 GPU (fractional or CPU-only)  1: 1 GPU
//                     2: 2-8 GPUs  3: > 8 GPUs
//   duration buckets  0: < 10 min  1: 10 min - 1 h  2: 1 h - 6 h  3: >= 6 h
// Rule (AttachProfiles): for each job with util_known == false, in workload
// order, draw uniformly (stream "profile-attach", run = job index) one entry
// of the same class; if the class is empty, of the same GPU bucket; if that is
// empty too, of the whole library. kMean sets Job::util to the entry's mean;
// kSeries also gives the job the entry's series, stretched linearly from the
// entry's duration to the job's recorded runtime (so its mean is kept).
// Jobs whose util is known are never changed.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "utilsim/engine/job.h"
#include "utilsim/engine/status.h"
#include "utilsim/engine/units.h"

namespace utilsim {

struct ProfileEntry {
  std::string key;                    // where it came from, e.g. "genai:pod-17" or "philly:job-3"
  int64_t gpu_milli = kMilliPerUnit;  // total GPU share of the measured entity
  Micros duration{0};                 // measured span (> 0)
  UtilSeries series;                  // offsets from 0 within [0, duration)
  double mean = 0;                    // time-weighted mean of series over [0, duration)
};

int GpuBucket(int64_t gpu_milli);
int DurationBucket(Micros d);

class ProfileLibrary {
 public:
  // Adds an entry; computes its mean. Errors: empty series, duration <= 0,
  // offsets not starting at 0 / not increasing, busy outside 0..1.
  Status Add(ProfileEntry e);
  size_t size() const { return entries_.size(); }
  const std::vector<ProfileEntry>& entries() const { return entries_; }
  UtilSignal signal = UtilSignal::kUnknown;
  std::string source;  // description of where the library came from

  // Entry indices of one class, in insertion order.
  const std::vector<uint32_t>& Class(int gpu_bucket, int duration_bucket) const;

 private:
  std::vector<ProfileEntry> entries_;
  std::array<std::vector<uint32_t>, 16> classes_;
};

enum class AttachMode { kMean, kSeries };

struct AttachReport {
  int64_t attached = 0;         // jobs that got a profile
  int64_t exact_class = 0;      // ... from their own class
  int64_t gpu_bucket_only = 0;  // ... from their GPU bucket, any duration
  int64_t any_class = 0;        // ... from the whole library
  int64_t kept = 0;             // jobs whose util was already known
  std::string rule;             // one-line statement of the rule, for result metadata
};

// Precondition: library.size() > 0 (else nothing is attached and the report
// says so).
AttachReport AttachProfiles(Workload* w, const ProfileLibrary& library, AttachMode mode,
                            uint64_t seed);

}  // namespace utilsim
