// CollectCandidates: ForEachCandidate (packing.h) into a vector.
#include <algorithm>
#include <vector>

#include "utilsim/policies/packing.h"

namespace utilsim {

void CollectCandidates(const ClusterState& c, const TaskDemand& d, ModelMask mask,
                       bool dedup_pristine, std::vector<NodeIndex>* out) {
  out->clear();
  if (dedup_pristine) {
    ForEachCandidate(
        c, d, mask, /*dedup_pristine=*/true, /*descending=*/false, [](int, int) { return true; },
        [out](NodeIndex n) {
          out->push_back(n);
          return true;
        });
    return;
  }
  // Without the dedup: each bucket's fitting nodes through CollectFits.
  const NodeIndex end = static_cast<NodeIndex>(c.num_nodes());
  thread_local std::vector<NodeIndex> room;  // CollectFits' room
  if (room.size() < end) room.resize(end);
  packing_internal::ForEachCandidateBucket(
      c, d, mask, /*descending=*/false, [&](int, int k, const NodeSet& nodes) {
        const size_t len = packing_internal::CollectFits(c, d, mask, k, nodes, 0, end, room.data());
        out->insert(out->end(), room.data(), room.data() + len);
        return true;
      });
}

namespace packing_internal {

size_t CollectFits(const ClusterState& c, const TaskDemand& d, ModelMask mask, int k,
                   const NodeSet& nodes, NodeIndex from, NodeIndex to, NodeIndex* out,
                   bool dense_ok) {
  from = nodes.Next(from);  // the chains split the range from the first member on
  if (from >= to) return 0;
  // Shares and a power budget: CandidateFits, one by one.
  const bool share = (k == 0 && d.gpus > 0) || c.power_budget_on();
  const int64_t cpu = d.cpu_milli, mem = d.mem_bytes;
  // Appends n to o (advancing len when it fits); returns the next member.
  auto step = [&](NodeIndex n, NodeIndex* o, size_t& len) {
    const bool fits =
        share ? CandidateFits(c, d, mask, k, n) : ((c.free_cpu(n) >= cpu) & (c.free_mem(n) >= mem));
    o[len] = n;
    len += fits ? 1 : 0;
    return nodes.Next(n + 1);
  };
  size_t len = 0;
  if (share || to - from < 256 || nodes.size() < 64) {  // one chain
    for (NodeIndex n = from; n < to;) n = step(n, out, len);
    return len;
  }
  if (dense_ok && 2 * nodes.size() >= to - from) {  // dense: every index, each test independent
    for (NodeIndex n = from; n < to; ++n) {
      out[len] = n;
      len += static_cast<size_t>((nodes.count(n) != 0) & (c.free_cpu(n) >= cpu) &
                                 (c.free_mem(n) >= mem));
    }
    return len;
  }
  const NodeIndex q = (to - from) / 4;
  const NodeIndex l1 = from + q, l2 = l1 + q, l3 = l2 + q;
  NodeIndex* ob = out + (l1 - from);
  NodeIndex* oc = out + (l2 - from);
  NodeIndex* od = out + (l3 - from);
  size_t nb = 0, nc = 0, nd = 0;
  NodeIndex a = from, b = nodes.Next(l1), e = nodes.Next(l2), f = nodes.Next(l3);
  while (a < l1 && b < l2 && e < l3 && f < to) {
    a = step(a, out, len);
    b = step(b, ob, nb);
    e = step(e, oc, nc);
    f = step(f, od, nd);
  }
  while (a < l1) a = step(a, out, len);
  while (b < l2) b = step(b, ob, nb);
  while (e < l3) e = step(e, oc, nc);
  while (f < to) f = step(f, od, nd);
  for (size_t i = 0; i < nb; ++i) out[len++] = ob[i];  // the quarters, in order
  for (size_t i = 0; i < nc; ++i) out[len++] = oc[i];
  for (size_t i = 0; i < nd; ++i) out[len++] = od[i];
  return len;
}

void DistinctShapes(const ClusterState& c, size_t limit, std::vector<NodeShape>* out) {
  out->clear();
  for (const NodeGroup& g : c.spec().groups) {
    const NodeShape s{g.gpu_model.empty() ? 0 : g.gpus, g.cpu_milli, g.mem_bytes};
    if (std::find(out->begin(), out->end(), s) != out->end()) continue;
    if (out->size() == limit) {
      out->clear();
      return;
    }
    out->push_back(s);
  }
}

std::vector<NodeShape> DistinctShapes(const ClusterState& c, size_t limit) {
  std::vector<NodeShape> out;
  DistinctShapes(c, limit, &out);
  return out;
}

}  // namespace packing_internal
}  // namespace utilsim
