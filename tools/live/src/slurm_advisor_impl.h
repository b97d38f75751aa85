// The Slurm advisor's state (slurm_advisor.h), shared by its parts:
// slurm_advisor.cc (polls, advice tracking, the advice log),
// slurm_apply.cc (pins) and slurm_metrics.cc (metrics and JSON).
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "utilsim/live/slurm_advisor.h"

namespace utilsim::live {

struct SlurmPin {
  std::string job;
  int64_t job_id = 0;
  std::string before, after;
  int64_t deadline_unix = 0;
};

struct SlurmAdvisor::Impl {
  SlurmAdvisorOptions o;
  SlurmSource* source = nullptr;
  JsonlFile* log = nullptr;
  JsonlFile* apply_log = nullptr;
  MeasuredUtil* measured = nullptr;

  // The latest good poll and the counters, under mu (read by other threads).
  mutable std::mutex mu;
  std::vector<SlurmAdvice> latest;
  SlurmUsage usage;
  bool has_measured = false;
  bool ready = false;
  int64_t last_ok_ms = 0;
  size_t unmodelled = 0;
  size_t pending_gpu_jobs = 0;
  std::string last_error, release, data_parser;
  uint64_t ok = 0, failed = 0;
  std::map<std::string, uint64_t> agreement;  // same_nodes, in_ranked, other
  std::map<std::string, uint64_t> apply;      // pinned, failed, unpinned_deadline, ...

  // Poll-thread state.
  std::map<std::string, SlurmAdvice> tracked;  // job -> the advice last logged
  std::map<std::string, SlurmPin> pins;        // job -> its pin
  double tokens = 0;
  int64_t tokens_ms = 0;
  bool in_error_streak = false;
  int64_t streak_failures = 0, streak_start_ms = 0;
  bool start_logged = false;

  void Log(nlohmann::json j, int64_t now_ms);
  void ApplyLog(nlohmann::json j, int64_t now_ms);
  void Failed(const Status& s, int64_t now_ms);
  // Pins (slurm_apply.cc): new pins for the advice, deadlines, ended pins.
  void Apply(const std::vector<SlurmAdvice>& advice,
             const std::map<std::string, const SlurmJobInfo*>& jobs, int64_t now_ms);
  void PinEnded(const std::string& job, const std::string& why,
                const std::vector<std::string>& nodes, int64_t now_ms);
};

// The advice as the log and /advice write it.
nlohmann::json AdviceJsonOf(const SlurmAdvice& a);

}  // namespace utilsim::live
