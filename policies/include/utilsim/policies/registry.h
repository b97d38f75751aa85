// The explicit policy registry (no static self-registration): every policy a
// run can name, with its kind, version and a one-line description.
//
// A policy name given to `run`/`compare` is one of:
//   <placement>            e.g. "best-fit": the fifo queue with that placement
//   <queue>+<placement>    e.g. "fifo-skip+worst-fit"
//   as-recorded            the as-recorded queue with first-fit placement
//   <profile>              a profile from a YAML file (LoadProfiles) or built in
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "utilsim/engine/scheduler.h"
#include "utilsim/engine/status.h"
#include "utilsim/policies/placement_policy.h"
#include "utilsim/policies/queue_policy.h"

namespace utilsim {

struct PolicyInfo {
  std::string name;
  std::string kind;  // "queue", "placement" or "profile"
  std::string version;
  std::string description;
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

  // What Add* does with a name that is registered already.
  enum class OnDuplicate { kError, kReplace };

  // Each Add* registers a policy under info.name. The version List() gives
  // (and results record) is the policy's own id().version, read from an
  // instance when listed: info.version is ignored, so a policy's version
  // lives in one place, its id(). Errors: an empty name; a name registered
  // already (unless kReplace: decorators re-register every placement).
  Status AddQueue(PolicyInfo info, QueueFactory f, OnDuplicate dup = OnDuplicate::kError);
  Status AddPlacement(PolicyInfo info, PlacementFactory f, OnDuplicate dup = OnDuplicate::kError);
  Status AddSeededPlacement(PolicyInfo info, SeededPlacementFactory f,
                            OnDuplicate dup = OnDuplicate::kError);
  // Listed with kind "queue"; used as QUEUE in QUEUE+PLACEMENT.
  Status AddBatch(PolicyInfo info, BatchFactory f, OnDuplicate dup = OnDuplicate::kError);
  // A profile: a named pair of a registered queue and a placement factory.
  Status AddProfile(PolicyInfo info, std::string queue, PlacementFactory f,
                    OnDuplicate dup = OnDuplicate::kError);

  bool Has(const std::string& name) const;
  // All entries sorted by kind, then name, with their versions (each
  // policy built once to read its id()).
  std::vector<PolicyInfo> List() const;
  // Builds a scheduler for a policy name (forms above). Unknown names give an
  // error listing the known ones.
  // `seed` reaches placements that draw random numbers (random).
  Result<std::unique_ptr<Scheduler>> Make(const std::string& name, uint64_t seed = 1) const;
  // Builds a placement policy (or profile's placement) by name alone.
  Result<std::unique_ptr<PlacementPolicy>> MakePlacement(const std::string& name,
                                                         uint64_t seed = 1) const;

 private:
  struct Entry {
    PolicyInfo info;
    QueueFactory queue;
    PlacementFactory placement;
    std::string profile_queue;
    BatchFactory batch;
    SeededPlacementFactory seeded;  // set for seeded placements (then placement is unset)
    bool has_placement() const { return placement || seeded; }
    std::unique_ptr<PlacementPolicy> MakePlacement(uint64_t seed) const {
      return seeded ? seeded(seed) : placement();
    }
  };
  Status Insert(Entry e, OnDuplicate dup);
  std::string VersionOf(const Entry& e) const;
  std::map<std::string, Entry> entries_;
};

// The built-in policies of this version.
PolicyRegistry BuiltinPolicies();

// Adds the profiles of a YAML file to reg. Format:
//   profiles:
//     - name: tight-gpu
//       description: best fit on GPUs, then on CPU
//       queue: fifo                     # a registered queue policy
//       filters: [resources-fit, gpu-model]
//       scores:
//         - {plugin: gpu-least-leftover, weight: 10}
//         - {plugin: cpu-least-leftover, weight: 1}
// Errors name the file, line and key: unknown plugin, weight outside 1..100,
// a profile without the resources-fit filter (it could over-commit a node),
// a name that is already registered, unknown keys.
Status LoadProfiles(const std::string& path, PolicyRegistry* reg);
Status LoadProfilesFromString(const std::string& text, const std::string& source,
                              PolicyRegistry* reg);

}  // namespace utilsim
