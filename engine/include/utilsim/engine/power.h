// Power model of a run (docs/energy.md): what each GPU, node and the
// facility draw, so that a run reports energy beside GPU-hours.
//
// A GPU's power is a function of its state:
//   free (nothing allocated)              idle_w   (bare idle, powered on)
//   allocated, share s, busy fraction b   s x (context_w + (active_w - context_w) x b)
// i.e. linear in the busy signal between the allocated-idle power (a CUDA
// context alone raises an HBM GPU tens of watts above bare idle) and the
// power when busy all the time. A partly allocated GPU (sharing, MIG) draws
// context power over its whole area: its unallocated share is charged at
// context_w, apart from the jobs (the "free, on a used GPU" part of the
// free energy). Every node draws its non-GPU power (CPU, memory, NIC,
// fans) on top of its GPUs; the facility multiplies the IT power by pue.
//
// Thread-safety: plain data; pure functions.
#pragma once

#include <string>
#include <vector>

namespace utilsim {

struct GpuPower {
  double idle_w = 0;     // bare idle, no context (W, >= 0)
  double context_w = 0;  // allocated, not busy (W, >= idle_w)
  double active_w = 0;   // allocated, busy 100 % of the time (W, >= context_w)
  std::string source;    // where the figures come from (shown in docs and results)
};

struct PowerModel {
  // Per GPU model name (ClusterSpec's GpuModelSpec::name, matched exactly,
  // then case-insensitively); models not listed use `fallback`.
  std::vector<std::pair<std::string, GpuPower>> models;
  GpuPower fallback;
  // A node's non-GPU parts (CPU, memory, NIC, NVSwitch, fans), W >= 0: per
  // GPU it holds for a GPU node, and for a node without GPUs.
  double node_w_per_gpu = 0;
  double cpu_node_w = 0;
  double pue = 1.0;  // facility / IT power (>= 1)
};

// The built-in model: published idle and TDP figures per GPU model, the
// context step and the busy-to-power line calibrated on Acme's Seren cluster
// (docs/energy.md says which figure comes from where).
const PowerModel& DefaultPowerModel();

// The figures for GPU model `name` under `m` (exact name, then
// case-insensitive, then the fallback).
const GpuPower& PowerOf(const PowerModel& m, const std::string& name);

// Power of one GPU in watts: `allocated` (0..1) of it held by jobs, of which
// `busy` (0..allocated) is busy (the sum over its jobs of share x busy
// fraction); allocated 0 = free (idle_w), else context_w + (active_w -
// context_w) x busy.
double GpuWatts(const GpuPower& p, double allocated, double busy);

// "" when m is usable, else what is wrong ("model 'X': active_w 100 below
// context_w 120").
std::string CheckPowerModel(const PowerModel& m);

}  // namespace utilsim
