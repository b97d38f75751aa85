// Stable input digests (64-bit FNV-1a) for result metadata.
//
// Every value is fed in a fixed order and a fixed encoding: integers as 8
// little-endian bytes, floats by their IEEE bit pattern, strings as their
// length then their bytes, optionals as a presence byte then the value. Changing
// anything here changes every digest: treat the order as a file format.
#include <bit>
#include <cstring>

#include "utilsim/traces/canonical.h"

namespace utilsim::traces {

namespace {

class Fnv {
 public:
  void Bytes(const void* p, size_t n) {
    const auto* b = static_cast<const unsigned char*>(p);
    for (size_t i = 0; i < n; ++i) {
      h_ ^= b[i];
      h_ *= 0x100000001b3ull;
    }
  }
  void U64(uint64_t v) {
    unsigned char b[8];
    for (int i = 0; i < 8; ++i) b[i] = static_cast<unsigned char>(v >> (8 * i));
    Bytes(b, 8);
  }
  void I64(int64_t v) { U64(static_cast<uint64_t>(v)); }
  void F64(double v) { U64(std::bit_cast<uint64_t>(v)); }
  void F32(float v) { U64(std::bit_cast<uint32_t>(v)); }
  void Str(const std::string& s) {
    U64(s.size());
    Bytes(s.data(), s.size());
  }
  void OptMicros(const std::optional<Micros>& t) {
    I64(t ? 1 : 0);
    if (t) I64(t->us);
  }
  std::string Hex() const {
    static const char kDigits[] = "0123456789abcdef";
    std::string s(16, '0');
    for (int i = 0; i < 16; ++i) s[15 - i] = kDigits[(h_ >> (4 * i)) & 15];
    return s;
  }

 private:
  uint64_t h_ = 0xcbf29ce484222325ull;
};

}  // namespace

std::string DigestWorkload(const Workload& w) {
  static const std::string kNoTenant = "default";
  Fnv f;
  f.Str("utilsim-workload-v2");
  f.I64(static_cast<int64_t>(w.signal));
  f.U64(w.jobs.size());
  for (const Job& j : w.jobs) {
    f.Str(j.name);
    f.I64(j.submit.us);
    f.Str(j.tenant < w.tenants.size() ? w.tenants[j.tenant] : kNoTenant);
    f.I64(j.priority);
    f.I64(j.tasks);
    f.I64(j.task.gpus);
    f.I64(j.task.gpu_milli);
    f.I64(j.task.cpu_milli);
    f.I64(j.task.mem_bytes);
    f.I64(j.task.gpu_mem_bytes);
    f.U64(j.gpu_models.size());
    for (const std::string& m : j.gpu_models) f.Str(m);
    f.I64(j.runtime.us);
    f.OptMicros(j.recorded_start);
    f.OptMicros(j.walltime_limit);
    f.I64(j.kill_at_limit ? 1 : 0);
    f.F64(j.stalls.input_cpu);
    f.F64(j.stalls.input_storage);
    f.F64(j.stalls.comm);
    f.F64(j.nic_bytes_s);
    f.F64(j.storage_bytes_s);
    f.F32(j.util);
    const bool has_series = j.series >= 0 && static_cast<size_t>(j.series) < w.series.size();
    f.I64(has_series ? 1 : 0);
    if (has_series) {
      const UtilSeries& s = w.series[static_cast<size_t>(j.series)];
      f.U64(s.offset.size());
      for (Micros t : s.offset) f.I64(t.us);
      f.U64(s.busy.size());
      for (float b : s.busy) f.F32(b);
    }
    f.I64(j.host_cpu_used_milli);
    f.I64(j.gpu_mem_used_bytes);
    // Added with the MIG demand by kind: only where set, so that the digest
    // of every workload without them is what it was.
    if (j.kind != JobKind::kUnknown || j.tokens_per_step > 0) {
      f.Str("mig-demand");
      f.I64(static_cast<int64_t>(j.kind));
      f.F32(j.tokens_per_step);
    }
  }
  return f.Hex();
}

std::string DigestCluster(const ClusterSpec& spec) {
  Fnv f;
  f.Str("utilsim-cluster-v2");
  f.Str(spec.name);
  f.U64(spec.models.size());
  for (const GpuModelSpec& m : spec.models) {
    f.Str(m.name);
    f.I64(m.memory_bytes);
    f.F64(m.speed);
  }
  f.U64(spec.groups.size());
  for (const NodeGroup& g : spec.groups) {
    f.Str(g.name);
    f.I64(g.count);
    f.Str(g.gpu_model);
    f.I64(g.gpus);
    f.I64(g.cpu_milli);
    f.I64(g.mem_bytes);
    f.I64(g.nvlink_domain);
    if (!g.mig.empty()) {  // only then, so digests of clusters without MIG are unchanged
      f.Str("mig");
      f.U64(g.mig.size());
      for (const std::string& layout : g.mig) f.Str(layout);
    }
  }
  const TopologySpec& t = spec.topology;
  f.F64(t.nvlink_bytes_s);
  f.F64(t.pcie_bytes_s);
  f.F64(t.nic_bytes_s);
  f.F64(t.storage_bytes_s);
  f.I64(t.nodes_per_rack);
  f.I64(t.racks_per_switch);
  f.F64(t.rack_oversubscription);
  f.F64(t.switch_oversubscription);
  f.U64(t.racks.size());
  for (const RackSpec& r : t.racks) {
    f.Str(r.name);
    f.Str(r.parent);
    f.F64(r.oversubscription);
    f.U64(r.members.size());
    for (const std::string& m : r.members) f.Str(m);
  }
  f.U64(t.switches.size());
  for (const SwitchSpec& s : t.switches) {
    f.Str(s.name);
    f.Str(s.parent);
    f.F64(s.oversubscription);
  }
  return f.Hex();
}

}  // namespace utilsim::traces
