// The explicit policy registry (no static self-registration): every policy a
// run can name, with its kind, version, a one-line description and its
// parameters.
//
// A policy name given to `run`/`compare` is one of:
//   <placement>            e.g. "best-fit": the fifo queue with that placement
//   <queue>                e.g. "tiresias": that queue with first-fit placement
//   <queue>+<placement>    e.g. "fifo-skip+worst-fit"
//   as-recorded            the as-recorded queue with recorded-hosts placement
//   <profile>              a profile from a YAML file (LoadProfiles) or built in
// Each name (each side of QUEUE+PLACEMENT) may carry parameters, NAME:k=v,k=v
// (params.h), e.g. "tiresias:thresholds=3250/7200+epvm:base=2". The '+'
// between QUEUE and PLACEMENT is the first one not followed by a digit (a
// '+' followed by a digit belongs to a number, as in 1e+06).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "utilsim/engine/scheduler.h"
#include "utilsim/engine/status.h"
#include "utilsim/policies/framework.h"
#include "utilsim/policies/params.h"
#include "utilsim/policies/placement_policy.h"
#include "utilsim/policies/queue_policy.h"

namespace utilsim {

struct PolicyInfo {
  std::string name;
  std::string kind;  // "queue", "placement" or "profile"
  std::string version;
  std::string description;
  // The policy's parameters, declared once here (types, defaults, ranges);
  // its factory gets their values. Empty: the policy takes none.
  std::vector<ParamSpec> params = {};
};

class PolicyRegistry {
 public:
  using QueueFactory = std::function<std::unique_ptr<QueuePolicy>()>;
  using PlacementFactory = std::function<std::unique_ptr<PlacementPolicy>()>;
  // A placement that draws random numbers: built from the run's seed.
  using SeededPlacementFactory = std::function<std::unique_ptr<PlacementPolicy>(uint64_t seed)>;
  // A batch scheduler that needs a global view (backfilling, reservations):
  // built from a label and a placement policy; named like a queue policy.
  using BatchFactory = std::function<std::unique_ptr<Scheduler>(
      std::string label, std::unique_ptr<PlacementPolicy> placement)>;
  // The same, for policies with parameters: given every parameter of
  // info.params (defaults filled in), already checked against its range.
  // Placements get the run's seed too (those that do not draw random numbers
  // ignore it). The policy's id() should report values.Canonical() (or the
  // same text) as PolicyId::params.
  using ParamQueueFactory = std::function<std::unique_ptr<QueuePolicy>(const ParamValues& values)>;
  using ParamPlacementFactory =
      std::function<std::unique_ptr<PlacementPolicy>(const ParamValues& values, uint64_t seed)>;
  using ParamBatchFactory = std::function<std::unique_ptr<Scheduler>(
      std::string label, std::unique_ptr<PlacementPolicy> placement, const ParamValues& values)>;

  // What Add* does with a name that is registered already.
  enum class OnDuplicate { kError, kReplace };

  // Each Add* registers a policy under info.name. The version List() gives
  // (and results record) is the policy's own id().version, read from an
  // instance when listed: info.version is ignored, so a policy's version
  // lives in one place, its id(). Errors: an empty name; a name registered
  // already (unless kReplace: decorators re-register every placement); a
  // bad parameter declaration (ValidateParamSpecs); info.params given with a
  // factory that takes no ParamValues (those are for policies without
  // parameters).
  Status AddQueue(PolicyInfo info, QueueFactory f, OnDuplicate dup = OnDuplicate::kError);
  Status AddQueue(PolicyInfo info, ParamQueueFactory f, OnDuplicate dup = OnDuplicate::kError);
  Status AddPlacement(PolicyInfo info, PlacementFactory f, OnDuplicate dup = OnDuplicate::kError);
  Status AddPlacement(PolicyInfo info, ParamPlacementFactory f,
                      OnDuplicate dup = OnDuplicate::kError);
  Status AddSeededPlacement(PolicyInfo info, SeededPlacementFactory f,
                            OnDuplicate dup = OnDuplicate::kError);
  // Listed with kind "queue"; used as QUEUE in QUEUE+PLACEMENT.
  Status AddBatch(PolicyInfo info, BatchFactory f, OnDuplicate dup = OnDuplicate::kError);
  Status AddBatch(PolicyInfo info, ParamBatchFactory f, OnDuplicate dup = OnDuplicate::kError);
  // A profile: a named pair of a registered queue and a placement factory.
  // `queue` may carry parameters ("tiresias:thresholds=600/6000"), checked
  // when the profile is made.
  Status AddProfile(PolicyInfo info, std::string queue, PlacementFactory f,
                    OnDuplicate dup = OnDuplicate::kError);
  Status AddProfile(PolicyInfo info, std::string queue, ParamPlacementFactory f,
                    OnDuplicate dup = OnDuplicate::kError);

  // Filter and score plugins of the placement framework (framework.h), by
  // the name YAML profiles give them. BuiltinPolicies() adds the built-in
  // ones (FilterPluginNames, ScorePluginNames); out-of-tree code adds its
  // own before LoadProfiles. Errors: an empty name, one registered already
  // (unless kReplace), an empty factory.
  using FilterFactory = std::function<std::unique_ptr<FilterPlugin>()>;
  using ScoreFactory = std::function<std::unique_ptr<ScorePlugin>()>;
  Status AddFilterPlugin(const std::string& name, FilterFactory f,
                         OnDuplicate dup = OnDuplicate::kError);
  Status AddScorePlugin(const std::string& name, ScoreFactory f,
                        OnDuplicate dup = OnDuplicate::kError);
  // A new plugin of that name; nullptr for a name not registered.
  std::unique_ptr<FilterPlugin> MakeFilter(const std::string& name) const;
  std::unique_ptr<ScorePlugin> MakeScore(const std::string& name) const;
  // The factory registered under `name`; empty for an unknown name.
  FilterFactory FilterFactoryOf(const std::string& name) const;
  ScoreFactory ScoreFactoryOf(const std::string& name) const;
  std::vector<std::string> FilterNames() const;  // sorted
  std::vector<std::string> ScoreNames() const;   // sorted

  bool Has(const std::string& name) const;
  // All entries sorted by kind, then name, with their versions (each
  // policy built once to read its id()).
  std::vector<PolicyInfo> List() const;
  // Builds a scheduler for a policy name (forms above). Unknown names give an
  // error listing the known ones; bad parameters an error naming the
  // policy, the key and what it accepts (ParseParams). The label is `name`.
  // `seed` reaches placements that draw random numbers (random).
  Result<std::unique_ptr<Scheduler>> Make(const std::string& name, uint64_t seed = 1) const;
  // Builds a placement policy (or profile's placement) by name alone,
  // parameters allowed ("epvm:base=2").
  Result<std::unique_ptr<PlacementPolicy>> MakePlacement(const std::string& name,
                                                         uint64_t seed = 1) const;
  // The parameters of one registered policy reference NAME[:PARAMS] (not
  // QUEUE+PLACEMENT), defaults filled in; errors as Make's.
  Result<ParamValues> Params(const std::string& ref) const;

 private:
  // One of queue, batch, placement is set (a profile: placement and
  // profile_queue).
  struct Entry {
    PolicyInfo info;
    ParamQueueFactory queue;
    ParamPlacementFactory placement;
    std::string profile_queue;
    ParamBatchFactory batch;
    bool has_placement() const { return static_cast<bool>(placement); }
  };
  Status Insert(Entry e, OnDuplicate dup);
  std::string VersionOf(const Entry& e) const;
  std::map<std::string, Entry> entries_;
  std::map<std::string, FilterFactory> filters_;
  std::map<std::string, ScoreFactory> scores_;
};

// The built-in policies of this version.
PolicyRegistry BuiltinPolicies();

// Adds the profiles of a YAML file to reg. Format:
//   profiles:
//     - name: tight-gpu
//       description: best fit on GPUs, then on CPU
//       queue: fifo                     # a registered queue policy, parameters
//                                       # allowed (tiresias:thresholds=600/6000)
//       filters: [resources-fit, gpu-model]
//       scores:
//         - {plugin: gpu-least-leftover, weight: 10}
//         - {plugin: cpu-least-leftover, weight: 1}
// Errors name the file, line and key: unknown plugin, weight outside 1..100,
// an unknown queue or bad queue parameters,
// a profile without the resources-fit filter (it could over-commit a node),
// a name that is already registered, unknown keys.
Status LoadProfiles(const std::string& path, PolicyRegistry* reg);
Status LoadProfilesFromString(const std::string& text, const std::string& source,
                              PolicyRegistry* reg);

}  // namespace utilsim
