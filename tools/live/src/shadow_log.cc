#include "utilsim/live/shadow_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

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
  auto refuse = [&](const std::string& why) {
    return Status::Error(StatusCode::kIo, "shadow log: " + path + ": " + why);
  };
  if (path.empty() || path == "-") return refuse("give a file path");
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    if (S_ISLNK(st.st_mode))
      return refuse("is a symbolic link; refusing to write through it (give the target's path)");
    if (!S_ISREG(st.st_mode))
      return refuse(std::string(S_ISFIFO(st.st_mode) ? "is a FIFO" : "is not a regular file") +
                    "; refusing to write to it");
  }
  // O_NOFOLLOW and the check after opening close the race with a swap.
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) return refuse(std::string("cannot open: ") + std::strerror(errno));
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return refuse("is not a regular file; refusing to write to it");
  }
  std::FILE* f = ::fdopen(fd, "a");
  if (!f) {
    ::close(fd);
    return Status::Error(StatusCode::kIo, "shadow log: " + path + ": cannot open");
  }
  return std::unique_ptr<ShadowLog>(new ShadowLog(f));
}

ShadowLog::~ShadowLog() {
  if (f_) std::fclose(f_);
}

void ShadowLog::Write(const std::string& line) {
  std::lock_guard<std::mutex> lock(mu_);
  std::fwrite(line.data(), 1, line.size(), f_);
  std::fputc('\n', f_);
  std::fflush(f_);
  ++lines_;
}

uint64_t ShadowLog::lines() const {
  std::lock_guard<std::mutex> lock(mu_);
  return lines_;
}

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
