// State shared by the PAI table readers while ReadPai joins the tables.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "pai_internal.h"
#include "utilsim/traces/pai.h"
#include "utilsim/traces/trace.h"

namespace utilsim::traces::internal {

struct PaiJobInfo {
  std::optional<Micros> submit;
  uint32_t tenant = 0;
  std::string inst_id;  // kept only when a group tag table is read
  int64_t line = 0;
};

// A task row: the index of its Job in the workload (-1: skipped) and its line.
struct PaiTaskRef {
  int64_t job = -1;
  int64_t line = 0;
};

// Sensor sums of one task (one entry per kept task, same index as its Job).
struct PaiTaskAgg {
  double plan_gpu = 0;
  double util_sum = 0, cpu_sum = 0, mem_sum = 0;
  int64_t util_n = 0, cpu_n = 0, mem_n = 0;
  int64_t instances = 0;
};

struct PaiState {
  std::unordered_map<std::string, PaiJobInfo> jobs;
  std::unordered_map<std::string, std::string> spec_by_inst;
  std::unordered_map<std::string, uint32_t> tenant_cache;
  std::unordered_map<std::string, PaiTaskRef> task_index;
  std::vector<PaiTaskAgg> agg;
  std::map<std::string, int64_t> status;
  uint32_t Tenant(std::string_view user, Workload* w) {
    const std::string name = user.empty() ? std::string("default") : std::string(user);
    auto it = tenant_cache.find(name);
    if (it == tenant_cache.end()) it = tenant_cache.emplace(name, w->InternTenant(name)).first;
    return it->second;
  }
};

inline std::string PaiTaskKey(std::string_view job, std::string_view task) {
  std::string k(job);
  k += '\x1f';
  k += task;
  return k;
}

// An empty field gives nullopt; else a number >= 0 (resp. seconds >= 0).
Status OptNonNeg(const CsvReader& csv, size_t col, std::optional<double>* out);
Status OptSeconds(const CsvReader& csv, size_t col, std::optional<Micros>* out);

Status ReadPaiJobTable(const std::string& path, bool keep_inst_id, PaiState* st, TraceData* out);
Status ReadPaiGroupTags(const std::string& path, PaiState* st, TraceData* out);
Status ReadPaiTaskTable(const std::string& path, const PaiOptions& opt, PaiState* st,
                        TraceData* out);

}  // namespace utilsim::traces::internal
