// Fuzzed parsers of the live mode (docs/live-k8s.md): the extender's
// request bodies on every verb, Kubernetes objects and watch lines, and the
// extender's YAML configuration; the Slurm advisor's readers of squeue and
// sinfo JSON with the model and advice built from what they read, and its
// advice-log report. Each reads the fuzzer's file and must
// answer (a 400, an error) without crashing, hanging or reading out of
// bounds.
#pragma once

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "fuzz_targets.h"
#include "utilsim/live/extender.h"
#include "utilsim/live/extender_config.h"
#include "utilsim/live/slurm_model.h"
#include "utilsim/live/slurm_objects.h"
#include "utilsim/live/slurm_report.h"

namespace utilsim::fuzz {

inline std::string Slurp(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A small synced state (two 8-GPU nodes, one bound pod) the requests decide on.
inline live::LiveState& FuzzState() {
  static live::LiveState* s = [] {
    auto made = live::LiveState::Create(live::LiveStateOptions{});
    live::LiveState* st = made.value().release();
    for (const char* n : {"g-0", "g-1"}) {
      nlohmann::json node = {
          {"metadata", {{"name", n}}},
          {"status",
           {{"allocatable", {{"cpu", "64"}, {"memory", "512Gi"}, {"nvidia.com/gpu", "8"}}}}}};
      st->OnNode(live::WatchEvent::Type::kAdded, live::ParseNode(node).value());
    }
    st->OnSynced();
    return st;
  }();
  return *s;
}

inline void AddLiveTargets(std::map<std::string, Target>* t) {
  (*t)["extender-request"] = {".json", [](const std::string& p) {
                                static live::Extender ext(&FuzzState(), live::ExtenderOptions{});
                                const std::string body = Slurp(p);
                                live::VerbRecord r;
                                const auto none = live::LiveState::Deadline::max();
                                (void)ext.Filter(body, none, &r);
                                (void)ext.Prioritize(body, none, &r);
                                (void)ext.Preempt(body, none, &r);
                                (void)ext.Bind(
                                    body, [](auto&, auto&, auto&, auto&) { return std::string(); },
                                    &r);
                                (void)ext.NoOpinion("filter", body, "fuzz", &r);
                              }};
  (*t)["k8s-objects"] = {".json", [](const std::string& p) {
                           const nlohmann::json j =
                               nlohmann::json::parse(Slurp(p), nullptr, /*allow_exceptions=*/false);
                           if (j.is_discarded()) return;
                           (void)live::ParsePod(j);
                           (void)live::ParseNode(j);
                           (void)live::ParsePodList(j);
                           (void)live::ParseNodeList(j);
                         }};
  (*t)["k8s-watch-lines"] = {".jsonl", [](const std::string& p) {
                               std::istringstream in(Slurp(p));
                               for (std::string line; std::getline(in, line);) {
                                 (void)live::ParsePodWatchEvent(line);
                                 (void)live::ParseNodeWatchEvent(line);
                               }
                             }};
  (*t)["extender-config"] = {".yaml",
                             [](const std::string& p) { (void)live::LoadExtenderConfig(p); }};
  // One document may hold both "jobs" and "nodes": then the model is built
  // and every pending job advised, as a poll would.
  (*t)["slurm-json"] = {".json", [](const std::string& p) {
                          const std::string text = Slurp(p);
                          auto jobs = live::ParseSlurmJobs(text);
                          auto nodes = live::ParseSlurmNodes(text);
                          if (!jobs.ok() || !nodes.ok()) return;
                          auto m = live::SlurmModel::Build(nodes.value(), jobs.value(), {});
                          if (!m.ok()) return;
                          (void)m.value()->Advise(1000000000);
                          (void)m.value()->Usage(nullptr);
                        }};
  (*t)["slurm-advice-log"] = {".jsonl", [](const std::string& p) {
                                auto r = live::ReadSlurmReport(p, "");
                                if (r.ok()) (void)live::FormatSlurmReport(r.value(), true);
                              }};
}

}  // namespace utilsim::fuzz
