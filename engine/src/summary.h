// The summary without the rows (private to the engine): what ComputeSummary
// and AddSampleFigures (metrics.h) need of each job record and sample, kept
// as the run goes, so that a run with SimConfig::keep_rows = false computes
// exactly (bit for bit) the summary of a run that keeps its rows.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "utilsim/engine/metrics.h"
#include "utilsim/engine/time.h"

namespace utilsim::internal {

// The figures of one job record that the summary uses (a few scalars).
struct JobFigures {
  JobOutcome outcome = JobOutcome::kUnfinished;
  bool started = false;  // start >= 0: counts in the wait and queued figures
  uint32_t tenant = 0;
  double wait_s = 0, queued_s = 0;  // when started
  double jct_s = 0, slowdown = 0;   // when finished or killed
  int32_t interruptions = 0;
  double lost_gpu_s = 0;
  double ettr = -1;  // JobRecord::ettr
};
JobFigures FiguresOf(const JobRecord& r);

// Sorts v ascending, to the same vector std::sort gives (the summary's
// percentiles and means read the sorted figures).
void SortFigures(std::vector<double>& v);

// Queued microseconds by wait cause, summed over jobs: integers, so the sum
// is exact and the same in any order (the engine adds each record as it
// becomes final; ComputeSummary adds the records in job order). A record's
// wait_cause_s is its integer microseconds / 1e6, which llround recovers.
using WaitMicros = std::array<int64_t, kWaitCauses>;
void AddWaitMicros(const JobRecord& r, WaitMicros* sum);

// ComputeSummary over the figures of the jobs, in job order, with their
// queued time by cause summed in `wait_us` (AddWaitMicros).
Summary SummaryOf(const std::vector<JobFigures>& jobs, const WaitMicros& wait_us,
                  const WindowTotals& totals, int64_t capacity_gpus, Micros window_start,
                  Micros window_end, double makespan_s, double price_per_gpu_h);

// The fragmentation percentage that AddSampleFigures averages for sample x
// (frag_gpu_milli / free GPU share x 100): false when x does not count (not
// computed, or no free GPU share).
bool FragPct(const Sample& x, int64_t capacity_gpus, double* pct);

// AddSampleFigures without the samples: the sums it would form, kept as the
// samples are taken, for every window the run can end up reporting. A
// window starts at one of `starts` (fixed when the run begins) and ends at
// `cut` (fixed too: the last submit), at the last finish, or at or after
// the last sample (the end of a run). Samples come in increasing time.
class FragMeter {
 public:
  FragMeter(std::vector<Micros> starts, Micros cut, int64_t capacity_gpus);
  void Add(const Sample& x);
  // A job finished at t, the latest finish so far. Every sample taken so far
  // is before t (samples are taken after the finishes of their instant).
  void Finished(Micros t);
  // Sets s->frag_mean_pct as AddSampleFigures would from the samples in
  // [s->window_start, s->window_end) (left NaN when none counts). False when
  // that window is not one of those kept (a bug of the caller).
  bool Fill(Summary* s) const;

 private:
  struct Sum {
    double pct = 0;
    int64_t n = 0;
  };
  struct PerStart {
    Micros start;
    Sum all;          // every sample at or after start
    Sum before_last;  // ... taken before the last one
    Sum before_cut;   // ... before cut_
    Sum before_fin;   // ... before fin_
  };
  std::vector<PerStart> per_;
  Micros cut_;
  Micros fin_{0};  // the last finish (0 before any, as Simulation::last_finish_)
  bool fin_ok_ = true;
  int64_t capacity_gpus_;
  bool any_ = false;
  Micros last_{0};  // time of the last sample, when any_
};

}  // namespace utilsim::internal
