// Per-node co-resource reservation for GPU work, and decorating every
// placement of a registry.
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "utilsim/engine/units.h"
#include "utilsim/policies/coresource.h"

namespace utilsim {

namespace {

// Parses a decimal number >= 0 covering all of `text`.
bool ParseAmount(const std::string& text, double* out) {
  if (text.empty()) return false;
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (errno != 0 || end != text.c_str() + text.size() || !std::isfinite(v) || v < 0) return false;
  *out = v;
  return true;
}

std::string Gib(int64_t bytes) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g GiB", static_cast<double>(bytes) / kBytesPerGiB);
  return buf;
}

}  // namespace

Result<GpuReservation> ParseGpuReservation(const std::string& text) {
  const std::string what =
      "expected CORES_PER_GPU[,MEM_GIB_PER_GPU] (numbers >= 0), got '" + text + "'";
  const size_t comma = text.find(',');
  double cores = 0, gib = 0;
  if (!ParseAmount(text.substr(0, comma), &cores)) return Status::Error(what);
  if (comma != std::string::npos && !ParseAmount(text.substr(comma + 1), &gib))
    return Status::Error(what);
  if (cores > 1e6 || gib > 1e6) return Status::Error(what);  // keeps x 64 GPUs in range
  GpuReservation r;
  r.cpu_milli_per_gpu = std::llround(cores * kMilliPerUnit);
  r.mem_bytes_per_gpu = std::llround(gib * static_cast<double>(kBytesPerGiB));
  return r;
}

Status ValidateGpuReservation(const ClusterSpec& spec, const GpuReservation& r) {
  if (r.cpu_milli_per_gpu < 0)
    return Status::Error("reservation: CPU per GPU must be >= 0, got " +
                         std::to_string(r.cpu_milli_per_gpu) + " milli-CPU");
  if (r.mem_bytes_per_gpu < 0)
    return Status::Error("reservation: memory per GPU must be >= 0, got " +
                         std::to_string(r.mem_bytes_per_gpu) + " bytes");
  for (const NodeGroup& g : spec.groups) {
    if (g.gpus <= 0) continue;
    const std::string per =
        " per GPU x " + std::to_string(g.gpus) + " GPUs exceeds node group '" + g.name + "' (";
    if (r.cpu_milli_per_gpu > g.cpu_milli / g.gpus)  // a x g > c, without overflow
      return Status::Error("reservation " + std::to_string(r.cpu_milli_per_gpu) + " milli-CPU" +
                           per + std::to_string(g.cpu_milli) + " milli-CPU)");
    if (r.mem_bytes_per_gpu > g.mem_bytes / g.gpus)
      return Status::Error("reservation " + std::to_string(r.mem_bytes_per_gpu) +
                           " bytes of memory (" + Gib(r.mem_bytes_per_gpu) + ")" + per +
                           std::to_string(g.mem_bytes) + " bytes, " + Gib(g.mem_bytes) + ")");
  }
  return Status::Ok();
}

GpuReservationPlacement::GpuReservationPlacement(std::unique_ptr<PlacementPolicy> inner,
                                                 GpuReservation r)
    : inner_(std::move(inner)), r_(r) {}

PolicyId GpuReservationPlacement::id() const {
  PolicyId p = inner_->id();
  p.name += "+gpu-reserve(" + std::to_string(r_.cpu_milli_per_gpu) + "m," +
            std::to_string(r_.mem_bytes_per_gpu) + "B)";
  return p;
}

std::optional<Placement> GpuReservationPlacement::Place(const Job& job, ModelMask mask,
                                                        ClusterState& c) {
  if (job.task.gpus > 0 || !r_.active()) return inner_->Place(job, mask, c);
  held_.clear();
  const int max_gpus = c.max_gpus_per_node();
  for (int m = 0; m < c.num_models(); ++m) {
    for (int k = 1; k <= max_gpus; ++k) {
      for (NodeIndex n : c.Bucket(m, k)) {
        TaskDemand d;
        d.gpus = 0;
        // min(free, k x per GPU), without overflow.
        auto capped = [k](int64_t free, int64_t per) {
          return per <= 0 ? 0 : per > free / k ? free : k * per;
        };
        d.cpu_milli = capped(c.free_cpu(n), r_.cpu_milli_per_gpu);
        d.mem_bytes = capped(c.free_mem(n), r_.mem_bytes_per_gpu);
        if (d.cpu_milli <= 0 && d.mem_bytes <= 0) continue;
        // Cannot fail: the amounts are capped at what is free and take no GPU.
        if (c.Allocate(TaskPlacement{n, 0}, d).ok()) held_.emplace_back(n, d);
      }
    }
  }
  std::optional<Placement> p = inner_->Place(job, mask, c);
  for (auto it = held_.rbegin(); it != held_.rend(); ++it)
    c.Release(TaskPlacement{it->first, 0}, it->second);
  held_.clear();
  return p;
}

std::unique_ptr<PlacementPolicy> MakeGpuReservation(std::unique_ptr<PlacementPolicy> inner,
                                                    int64_t cpu_milli_per_gpu,
                                                    int64_t mem_bytes_per_gpu) {
  return std::make_unique<GpuReservationPlacement>(
      std::move(inner), GpuReservation{cpu_milli_per_gpu, mem_bytes_per_gpu});
}

Result<PolicyRegistry> DecoratePlacements(const PolicyRegistry& reg, PlacementDecorator decorate) {
  auto base = std::make_shared<const PolicyRegistry>(reg);
  auto deco = std::make_shared<const PlacementDecorator>(std::move(decorate));
  PolicyRegistry out = reg;
  for (const PolicyInfo& info : reg.List()) {
    if (info.kind != "placement" && info.kind != "profile") continue;
    const std::string name = info.name;
    // The parameters reach the base registry's factory as their canonical
    // text, which parses back to the same values.
    auto make = [base, deco, name](const ParamValues& v,
                                   uint64_t seed) -> std::unique_ptr<PlacementPolicy> {
      const std::string params = v.Canonical();
      auto p = base->MakePlacement(params.empty() ? name : name + ":" + params, seed);
      if (!p.ok()) return nullptr;  // cannot happen: the name is registered in base
      return (*deco)(std::move(p).value());
    };
    if (info.kind == "placement") {
      if (Status s = out.AddPlacement(info, make, PolicyRegistry::OnDuplicate::kReplace); !s.ok())
        return s;
      continue;
    }
    // A profile: its queue (with its parameters) is the one the scheduler
    // it makes names.
    auto sched = reg.Make(name);
    if (!sched.ok()) return sched.status();
    const PolicyId qid = sched.value()->queue_policy();
    if (!reg.Has(qid.name))
      return Status::Error("profile '" + name + "': queue '" + qid.name +
                           "' is not a registered queue policy");
    const std::string queue = qid.params.empty() ? qid.name : qid.name + ":" + qid.params;
    // Profiles are built with the default seed, as PolicyRegistry::Make does.
    if (Status s = out.AddProfile(
            info, queue, [make](const ParamValues& v, uint64_t /*seed*/) { return make(v, 1); },
            PolicyRegistry::OnDuplicate::kReplace);
        !s.ok())
      return s;
  }
  return out;
}

}  // namespace utilsim
