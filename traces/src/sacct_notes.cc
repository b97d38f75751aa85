// The sacct builder's end: job names for requeued attempts, the time
// origin, the notes (utilsim/traces/sacct.h).
#include "row_helpers.h"
#include "sacct_internal.h"

namespace utilsim::traces::internal {

namespace {

std::string Counts(const std::map<std::string, int64_t>& m) {
  std::string s;
  for (const auto& [k, n] : m) s += (s.empty() ? "" : ", ") + k + " " + Thousands(n);
  return s;
}

}  // namespace

void SacctBuilder::CountFile(const std::string& path, const char* kind, int64_t records) {
  files_.push_back(path + ": " + kind + ", " + Thousands(records) + " records");
  bytes_done_ += file_bytes_;
  file_bytes_ = 0;
}

void SacctBuilder::Finish(const std::vector<std::string>& paths) {
  Workload& w = out_->workload;
  for (size_t k = 0; k < w.jobs.size(); ++k) {
    const Kept& kept = kept_[k];
    const int32_t total = records_of_id_[kept.id];
    w.jobs[k].name =
        kept.ordinal == total - 1 ? kept.id : kept.id + "#" + std::to_string(kept.ordinal + 1);
  }
  int64_t repeated = 0;
  for (const auto& [id, n] : records_of_id_) repeated += n > 1;
  const int64_t origin = w.jobs.empty() ? 0 : origin_;
  for (Job& j : w.jobs) {
    j.submit = j.submit - Seconds(origin);
    j.recorded_start = *j.recorded_start - Seconds(origin);
  }
  for (size_t i = 0; i < paths.size(); ++i) w.source += (i ? "," : "") + paths[i];
  w.Finalize();

  std::vector<std::string>& notes = out_->notes;
  notes.push_back(w.jobs.empty()
                      ? "time origin: none (no jobs)"
                      : "time origin: UNIX " + std::to_string(origin) + " = " + UtcText(origin) +
                            " (the earliest Submit of the jobs kept); submit and "
                            "recorded start are relative to it");
  for (const std::string& f : files_) notes.push_back("input: " + f);
  if (steps_ > 0)
    notes.push_back("steps skipped: " + Thousands(steps_) +
                    " records with '.' in JobID (jobs are allocations)");
  const std::string later = Thousands(eligible_later_) + " jobs became eligible after Submit " +
                            "(holds, dependencies, --begin; up to " +
                            Thousands(eligible_max_wait_) + " s later)";
  notes.push_back(opt_.submit_from == SacctSubmit::kEligible
                      ? "submit = Eligible where it is after Submit: " + later
                      : "submit = Submit as recorded (--sacct-submit submit): " + later);
  notes.push_back("states of the jobs replayed: " + (states_.empty() ? "none" : Counts(states_)));
  int64_t hit = 0;
  for (const char* s : {"NODE_FAIL", "PREEMPTED"})
    if (auto it = states_.find(s); it != states_.end()) hit += it->second;
  if (hit > 0)
    notes.push_back(Thousands(hit) +
                    " jobs ended by NODE_FAIL or PREEMPTED are replayed with their recorded run "
                    "time (under another policy they would have been hit differently)");
  if (repeated > 0)
    notes.push_back(Thousands(repeated) +
                    " job ids on several records (requeued attempts, --duplicates): the last "
                    "keeps the id, earlier ones are <JobID>#1, #2, ...");
  notes.push_back(
      "demand: AllocTRES (what each job held; ReqTRES when empty) split over its "
      "nodes; GPU model: " +
      Thousands(typed_) + " jobs asked for one GPU type in ReqTRES, other GPU jobs any model");
  if (opt_.conf)
    notes.push_back("slurm.conf: " + Thousands(by_partition_) +
                    " jobs without a GPU type limited to the GPU models of their partition "
                    "(an approximation of Slurm's partition placement)");
  notes.push_back(std::string("tenant = ") +
                  (opt_.tenant == SacctTenant::kUser ? "User" : "Account") +
                  "; priority = Slurm's Priority - 2^31 (order kept)");
  if (!partitions_.empty()) notes.push_back("partitions: " + Counts(partitions_));
  if (!qos_.empty()) notes.push_back("QOS: " + Counts(qos_));
  if (nonzero_exit_ > 0)
    notes.push_back("non-zero exit codes: " + Thousands(nonzero_exit_) + " jobs");
  notes.push_back("utilization: not in sacct (unknown; --telemetry or --util-library give it)");
}

}  // namespace utilsim::traces::internal
