// The power model file (`utilsim run --power FILE`, docs/energy.md): YAML
// that starts from the built-in model (DefaultPowerModel) and overrides or
// adds what it names:
//
//   pue: 1.3                 # facility / IT power, >= 1
//   node_w_per_gpu: 198      # a GPU node's non-GPU power per GPU, W
//   cpu_node_w: 581          # a node without GPUs, W
//   fallback: {idle_w: 47, context_w: 55.1, active_w: 169}
//   models:
//     A100-80GB: {idle_w: 61.2, context_w: 72, active_w: 224.6, tdp_w: 400}
//   cap_curve:               # power cap -> [cap / active_w, time, energy]
//     - [0.45, 1.93, 0.86]   # of the busy part (power.h CapPoint; the last
//     - [1.14, 1, 1]         # row is the uncapped draw: time 1, energy 1)
//
// Every key is optional; a model entry needs the three watts (tdp_w, for
// caps given as a share of TDP and the power budget, is optional). Errors name
// the file, line and key ("p.yaml:4: key 'models.A100.active_w': expected
// watts >= context_w (72), got '60'"); unknown keys are errors.
#pragma once

#include <string>

#include "utilsim/engine/power.h"
#include "utilsim/engine/status.h"

namespace utilsim {

Result<PowerModel> ParsePowerYaml(const std::string& text, const std::string& source_name);
Result<PowerModel> ReadPowerYaml(const std::string& path);

}  // namespace utilsim
