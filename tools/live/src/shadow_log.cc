#include "utilsim/live/shadow_log.h"

#include <nlohmann/json.hpp>
#include <utility>

namespace utilsim::live {
namespace {

using nlohmann::json;

void Demand(json& j, const TaskDemand& d) {
  j["gpus"] = d.gpus;
  j["gpu_milli"] = d.gpus > 0 ? d.gpu_milli : 0;
  j["cpu_milli"] = d.cpu_milli;
  j["mem_bytes"] = d.mem_bytes;
  j["gpu_mem_bytes"] = d.gpu_mem_bytes;
}

json Facts(const std::optional<LiveState::NodeFacts>& f) {
  if (!f) return nullptr;
  return {{"busy", f->busy},
          {"free_gpus", f->free_gpus},
          {"partial_gpus", f->partial_gpus},
          {"stranded_gpus", f->stranded_gpus}};
}

}  // namespace

Result<std::unique_ptr<ShadowLog>> ShadowLog::Open(const std::string& path) {
  auto f = JsonlFile::Open(path, "shadow log");
  if (!f.ok()) return f.status();
  return std::unique_ptr<ShadowLog>(new ShadowLog(std::move(f.value())));
}

ShadowLog::~ShadowLog() = default;

void ShadowLog::Write(const std::string& line) { file_->Write(line); }

uint64_t ShadowLog::lines() const { return file_->lines(); }

void ShadowLog::Verb(const VerbRecord& r, int status, int64_t unix_ms, int64_t latency_us) {
  json j{
      {"v", 1},           {"t", unix_ms},       {"event", r.verb},      {"pod", r.pod},
      {"uid", r.uid},     {"status", status},   {"opinion", r.opinion}, {"reason", r.reason},
      {"nodes", r.nodes}, {"failed", r.failed}, {"top", r.top},         {"latency_us", latency_us}};
  json best = json::array();
  for (const auto& [n, s] : r.best) best.push_back({n, s});
  j["best"] = std::move(best);
  j["pod_util"] = r.pod_util;
  Demand(j, r.demand);
  Write(j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

void ShadowLog::Bound(const BindingSeen& b, const std::string& recommended,
                      const std::optional<LiveState::NodeFacts>& chosen,
                      const std::optional<LiveState::NodeFacts>& recommended_facts) {
  json j{{"v", 1},       {"t", b.unix_ms}, {"event", "bound"},          {"pod", b.pod_key},
         {"uid", b.uid}, {"node", b.node}, {"recommended", recommended}};
  Demand(j, b.demand);
  j["chosen"] = Facts(chosen);
  j["recommended_facts"] = Facts(recommended_facts);
  Write(j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

void ShadowLog::Cluster(const ClusterSpec& spec, int64_t unix_ms) {
  json models = json::array(), nodes = json::array();
  for (const GpuModelSpec& m : spec.models)
    models.push_back({{"name", m.name}, {"memory_bytes", m.memory_bytes}});
  for (const NodeGroup& g : spec.groups)
    nodes.push_back({{"name", g.name},
                     {"gpu_model", g.gpu_model},
                     {"gpus", g.gpus},
                     {"cpu_milli", g.cpu_milli},
                     {"mem_bytes", g.mem_bytes}});
  Write(json{{"v", 1},
             {"t", unix_ms},
             {"event", "cluster"},
             {"models", std::move(models)},
             {"nodes", std::move(nodes)}}
            .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

void ShadowLog::Finished(const BindingSeen& b) {
  Write(json{{"v", 1},
             {"t", b.unix_ms},
             {"event", "finished"},
             {"pod", b.pod_key},
             {"uid", b.uid},
             {"node", b.node}}
            .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

}  // namespace utilsim::live
