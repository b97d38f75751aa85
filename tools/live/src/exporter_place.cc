// Replay::Build and EntityId (exporter.h): recorded tracks -> placed,
// labelled series. The map file is read here too.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "exporter_labels.h"
#include "utilsim/engine/csv.h"
#include "utilsim/live/exporter.h"
#include "utilsim/traces/dcgm_series.h"

namespace utilsim::live {

std::string EntityId(const traces::UtilTrack& t) {
  std::string s;
  auto add = [&s](const std::string& part) { s += (s.empty() ? "" : ";") + part; };
  if (!t.job.empty())
    add("pod=" + (t.namespace_name.empty() ? "" : t.namespace_name + "/") + t.job);
  if (!t.container.empty()) add("container=" + t.container);
  if (!t.host.empty()) add("host=" + t.host);
  if (t.gpu >= 0) add("gpu=" + std::to_string(t.gpu));
  if (!t.gpu_instance.empty()) add("instance=" + t.gpu_instance);
  return s.empty() ? "series" : s;
}

namespace {

using Target = Replay::Target;

bool IsUtil(const traces::UtilTrack& t) {
  return !traces::DcgmUtilMetric(t.signal).empty() && !t.time.empty();
}

}  // namespace

std::string EntitySkeletonCsv(const traces::TelemetryData& data) {
  std::map<std::string, const traces::UtilTrack*> entities;
  for (const traces::UtilTrack& t : data.tracks)
    if (IsUtil(t)) entities.emplace(EntityId(t), &t);
  std::string out = "entity,node,gpu,pod,namespace\n";
  for (const auto& [id, t] : entities) {
    out += internal::CsvField(id) + "," + internal::CsvField(t->host) + "," +
           (t->gpu >= 0 ? std::to_string(t->gpu) : "") + "," + internal::CsvField(t->job) + "," +
           internal::CsvField(t->namespace_name) + "\n";
  }
  return out;
}

namespace {

struct MapRow {
  Target target;
  int64_t line = 0;
};

// entity -> row.
Result<std::map<std::string, MapRow>> ReadMap(const std::string& path) {
  CsvOptions o;
  o.comment_prefix = "#";
  auto opened = CsvReader::OpenPlain(path, o);
  if (!opened.ok()) return opened.status();
  CsvReader& r = opened.value();
  const char* known[] = {"entity", "node", "gpu", "pod", "namespace"};
  for (const std::string& c : r.columns()) {
    if (std::find(std::begin(known), std::end(known), c) == std::end(known))
      return Status::Error(path + ":1: unknown column '" + c +
                           "' (expected entity,node,gpu[,pod][,namespace])");
  }
  const int ce = r.Find("entity"), cn = r.Find("node"), cg = r.Find("gpu");
  const int cp = r.Find("pod"), cns = r.Find("namespace");
  for (const auto& [col, name] : {std::pair{ce, "entity"}, {cn, "node"}, {cg, "gpu"}}) {
    if (col < 0)
      return Status::Error(path + ":1: no column '" + name +
                           "' (expected entity,node,gpu[,pod][,namespace])");
  }
  std::map<std::string, MapRow> rows;
  for (;;) {
    auto next = r.Next();
    if (!next.ok()) return next.status();
    if (!next.value()) break;
    MapRow row;
    row.line = r.line();
    row.target.entity = std::string(r.field(ce));
    if (row.target.entity.empty())
      return r.FieldError(ce, "an entity (utilsim exporter --list-entities)");
    row.target.node = std::string(r.field(cn));
    if (row.target.node.empty()) return r.FieldError(cn, "a node name");
    auto gpu = r.Int(cg);
    if (!gpu.ok()) return gpu.status();
    if (gpu.value() < 0 || gpu.value() > 1'000'000) return r.FieldError(cg, "a GPU index >= 0");
    row.target.gpu = static_cast<int32_t>(gpu.value());
    if (cp >= 0) row.target.pod = std::string(r.field(cp));
    if (cns >= 0) row.target.namespace_name = std::string(r.field(cns));
    const auto [it, fresh] = rows.emplace(row.target.entity, row);
    if (!fresh)
      return r.RowError("entity '" + row.target.entity + "' is mapped already on line " +
                        std::to_string(it->second.line));
  }
  return rows;
}

}  // namespace

Result<Replay> Replay::Build(const traces::TelemetryData& data, const PlacementOptions& placement,
                             const ServeOptions& serve, std::vector<std::string>* notes) {
  std::vector<std::string> sink;
  std::vector<std::string>& note = notes ? *notes : sink;
  if (serve.hostname_label != "Hostname" && serve.hostname_label != "hostname")
    return Status::Error(
        StatusCode::kInvalidArgument,
        "host label must be Hostname or hostname, got '" + serve.hostname_label + "'");
  if (!(serve.hold_s >= 0) || !(serve.hold_s <= kMaxSeconds))
    return Status::Error(StatusCode::kInvalidArgument, "hold must be a number of seconds >= 0");
  // Entities of the utilization tracks, in id order.
  std::map<std::string, std::vector<const traces::UtilTrack*>> entities;
  size_t other = 0;
  for (const traces::UtilTrack& t : data.tracks) {
    if (!IsUtil(t)) {
      ++other;
      continue;
    }
    entities[EntityId(t)].push_back(&t);
  }
  if (other > 0)
    note.push_back("skipped " + std::to_string(other) + " series of no DCGM signal or no samples");
  if (entities.empty()) return Status::Error("no GPU utilization series in the telemetry");
  std::map<std::string, Target> placed;
  if (!placement.map_path.empty()) {
    auto rows = ReadMap(placement.map_path);
    if (!rows.ok()) return rows.status();
    for (const auto& [entity, row] : rows.value()) {
      if (!entities.count(entity))
        return Status::Error(placement.map_path + ":" + std::to_string(row.line) +
                             ": field 'entity': no series '" + entity +
                             "' in the telemetry (utilsim exporter --list-entities lists them)");
      placed[entity] = row.target;
    }
    if (placed.size() < entities.size())
      note.push_back(std::to_string(entities.size() - placed.size()) + " of " +
                     std::to_string(entities.size()) + " entities not in " + placement.map_path +
                     ": not served");
  } else if (placement.nodes > 0) {
    if (placement.gpus_per_node <= 0)
      return Status::Error(StatusCode::kInvalidArgument, "GPUs per node must be > 0");
    int64_t k = 0;
    for (const auto& [entity, tracks] : entities) {
      Target& t = placed[entity];
      t.entity = entity;
      t.node = placement.node_prefix + "-" + std::to_string(k % placement.nodes);
      t.gpu = static_cast<int32_t>((k / placement.nodes) % placement.gpus_per_node);
      ++k;
    }
    note.push_back(std::to_string(k) + " entities placed round-robin on " +
                   std::to_string(placement.nodes) + " nodes x " +
                   std::to_string(placement.gpus_per_node) + " GPUs");
  } else {
    size_t missing = 0;
    std::string example;
    for (const auto& [entity, tracks] : entities) {
      const traces::UtilTrack& t = *tracks.front();
      if (t.host.empty() || t.gpu < 0) {
        if (missing++ == 0) example = entity;
        continue;
      }
      placed[entity] = Target{entity, t.host, t.gpu, "", "", "", ""};
    }
    if (missing > 0)
      return Status::Error(StatusCode::kInvalidArgument,
                           std::to_string(missing) + " of " + std::to_string(entities.size()) +
                               " series have no host or GPU index (e.g. '" + example +
                               "'): place them with --nodes N [--gpus-per-node G] or --map FILE "
                               "(utilsim exporter --list-entities)");
  }
  Replay out;
  out.serve_ = serve;
  // (metric, node, gpu, instance, namespace, pod, container) -> entity.
  std::map<std::tuple<std::string, std::string, int32_t, std::string, std::string, std::string,
                      std::string>,
           std::string>
      seen;
  std::set<std::string> memory_served;  // one FB_USED series per target labels
  for (const auto& [entity, target] : placed) {
    for (const traces::UtilTrack* t : entities[entity]) {
      Series s;
      s.target = target;
      s.target.entity = entity;
      s.target.gpu_instance = t->gpu_instance;
      if (s.target.pod.empty()) s.target.pod = t->job;
      if (s.target.namespace_name.empty()) s.target.namespace_name = t->namespace_name;
      if (s.target.namespace_name.empty() && !s.target.pod.empty())
        s.target.namespace_name = serve.pod_namespace;
      s.target.container = t->container;
      s.signal = t->signal;
      s.uuid = internal::MakeUuid(s.target.node, s.target.gpu);
      s.labels = internal::LabelSet(s, serve);
      const std::string metric = traces::DcgmUtilMetric(s.signal);
      const auto [it, fresh] =
          seen.emplace(std::tuple{metric, s.target.node, s.target.gpu, s.target.gpu_instance,
                                  s.target.namespace_name, s.target.pod, s.target.container},
                       entity);
      if (!fresh)
        return Status::Error(StatusCode::kInvalidArgument,
                             "entities '" + it->second + "' and '" + entity +
                                 "' would both be served as " + metric + s.labels +
                                 " (give them different GPUs or pods)");
      s.time = t->time;
      s.busy = t->busy;
      if (!t->mem_bytes.empty() && memory_served.insert(s.labels).second)
        s.mem_bytes = t->mem_bytes;
      out.series_.push_back(std::move(s));
    }
  }
  std::sort(out.series_.begin(), out.series_.end(), [](const Series& a, const Series& b) {
    return std::tie(a.signal, a.labels) < std::tie(b.signal, b.labels);
  });
  out.first_ = kNever;
  out.last_ = Micros(INT64_MIN);
  out.spacing_ = kNever;
  for (const Series& s : out.series_) {
    out.first_ = std::min(out.first_, s.time.front());
    out.last_ = std::max(out.last_, s.time.back());
    for (size_t i = 1; i < s.time.size(); ++i)
      out.spacing_ = std::min(out.spacing_, s.time[i] - s.time[i - 1]);
  }
  if (out.spacing_ == kNever) out.spacing_ = Seconds(1);
  note.push_back("serving " + std::to_string(out.series_.size()) + " series of " +
                 std::to_string(placed.size()) + " entities");
  return out;
}

}  // namespace utilsim::live
