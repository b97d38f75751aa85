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

#include "utilsim/engine/cluster_spec.h"
#include "utilsim/engine/status.h"

namespace utilsim {

struct GpuPower {
  double idle_w = 0;     // bare idle, no context (W, >= 0)
  double context_w = 0;  // allocated, not busy (W, >= idle_w)
  double active_w = 0;   // allocated, busy 100 % of the time (W, >= context_w)
  std::string source;    // where the figures come from (shown in docs and results)
  double tdp_w = 0;      // board power limit by default (datasheet TDP), W; 0 = unknown
  double cap_w = 0;      // a power cap in force (ApplyPowerCaps), W; 0 = none
};

// --- Power caps (docs/energy.md, "Power caps") ---
//
// A cap C on a GPU model (nvidia-smi -pl) slows the GPU-busy part of its jobs
// and lowers its busy power, by a published power-cap curve indexed by
// g = C / active_w (the cap over the model's busy power): at g the busy part
// takes time(g) times as long, and uses energy(g) times the energy, so
//   speed'    = speed / time(g)     (ClusterSpec: the progress model slows
//                                    only the busy part, u / speed)
//   active_w' = active_w x energy(g) / time(g)
// Idle and context power, and non-busy time, are unchanged. Linear between
// the curve's points; g at or above the last point changes nothing; below the
// first point is an error (no data).
struct CapPoint {
  double g = 1;       // cap / active_w
  double time = 1;    // relative time of the busy part (>= 1)
  double energy = 1;  // relative energy of the busy part (> 0)
};
// The default curve: Zeus (You, Chung, Chowdhury, NSDI'23), its published
// V100 trace of ResNet-50 on ImageNet (batch 256) at power limits 100..250 W,
// indexed by the limit over the uncapped average draw (220.25 W).
const std::vector<CapPoint>& DefaultCapCurve();

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
  // How a power cap trades speed for power (ApplyPowerCaps); must pass
  // CheckCapCurve.
  std::vector<CapPoint> cap_curve = DefaultCapCurve();
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

// One cap: every GPU of `model` ("" = every GPU model of the cluster)
// limited to `watts`, or to `tdp_fraction` of its tdp_w when watts is 0.
struct PowerCap {
  std::string model;
  double watts = 0;
  double tdp_fraction = 0;
};

// Parses "W", "P%", "MODEL=W" or "MODEL=P%", comma-separated ("300",
// "A100=250,V100=60%"). Errors name the entry.
Result<std::vector<PowerCap>> ParsePowerCaps(const std::string& text);

// Applies `caps` (in order; a later cap of a model replaces an earlier one)
// to the cluster's GPU models by power->cap_curve: each
// capped model's speed in *spec and its power figures in *power (an exact
// entry is added for a model the power model matched by fallback). Errors:
// an unknown model, a % cap of a model without tdp_w, a cap at or below
// context_w or below the curve's first point, a bad curve.
Status ApplyPowerCaps(const std::vector<PowerCap>& caps, ClusterSpec* spec, PowerModel* power);
// The curve's (time, energy) at g (clamped to the last point above).
CapPoint CapAt(const std::vector<CapPoint>& curve, double g);
// "" when the curve is usable (>= 1 point, g increasing and > 0, times >= 1,
// energies > 0, the last point time 1 and energy 1).
std::string CheckCapCurve(const std::vector<CapPoint>& curve);

// Watts one whole allocated GPU counts against a power budget above its idle
// draw: its cap if capped, else its tdp_w, else active_w; minus idle_w.
double BudgetWatts(const GpuPower& p);

}  // namespace utilsim
