// The built-in power model (docs/energy.md, "Default figures"). One rule for
// every model: idle_w is the Acme Seren fit for the A100-SXM4-80GB and the
// median of public nvidia-smi snapshots of a free GPU for the others;
// context_w = idle_w + 10.8 W x TDP / 400 (Acme Seren's context step,
// scaled); active_w = context_w + 0.4652 x (TDP - context_w) (Acme Seren's
// busy line, which lies well below TDP because GPU utilization saturates);
// TDP from NVIDIA's datasheets and product briefs.
#include "utilsim/engine/power.h"

namespace utilsim {

const PowerModel& DefaultPowerModel() {
  static const PowerModel kModel = [] {
    PowerModel m;
    auto add = [&](std::initializer_list<const char*> names, double idle, double ctx, double act,
                   double tdp, const char* source) {
      for (const char* n : names) m.models.push_back({n, GpuPower{idle, ctx, act, source, tdp, 0}});
    };
    const char* kAcme = "Acme Seren fit (workloads/power_fit.h)";
    const char* kRule = "datasheet TDP, snapshot idle, Acme-scaled context and line";
    add({"A100-SXM4-80GB", "A100-80GB", "A100-SXM-80GB", "A100"}, 61.2, 72.0, 224.6, 400, kAcme);
    add({"A100-SXM4-40GB", "A100-40GB", "A100-SXM-40GB"}, 50, 60.8, 218.6, 400, kRule);
    add({"A100-PCIe-80GB", "A100-PCIE-80GB"}, 47, 55.1, 169.0, 300, kRule);
    add({"A100-PCIe-40GB", "A100-PCIE-40GB"}, 44, 50.8, 143.4, 250, kRule);
    add({"H100-SXM5-80GB", "H100-80GB", "H100-SXM", "H100"}, 70, 88.9, 373.2, 700, kRule);
    add({"H100-PCIe-80GB", "H100-PCIE-80GB", "H100-PCIe"}, 51, 60.4, 195.2, 350, kRule);
    add({"H800-SXM-80GB", "H800"}, 81, 99.9, 379.1, 700, kRule);
    add({"H800-PCIe-80GB"}, 50, 59.4, 194.6, 350, kRule);
    add({"H200-SXM-141GB", "H200"}, 78, 96.9, 377.5, 700, kRule);
    add({"H200-NVL-141GB"}, 71, 87.2, 325.8, 600, kRule);
    add({"V100-SXM2-16GB", "V100", "V100M16"}, 38.5, 46.6, 164.5, 300, kRule);
    add({"V100-SXM2-32GB", "V100M32"}, 41, 49.1, 165.8, 300, kRule);
    add({"V100-PCIe-16GB", "V100-PCIE-16GB"}, 35, 41.8, 138.6, 250, kRule);
    add({"V100-PCIe-32GB", "V100-PCIE-32GB"}, 33, 39.8, 137.6, 250, kRule);
    add({"P100-SXM2-16GB"}, 32, 40.1, 161.0, 300, kRule);
    add({"P100-PCIe-16GB", "P100"}, 28, 34.8, 134.9, 250, kRule);
    add({"T4"}, 9, 10.9, 38.4, 70, kRule);
    add({"A10"}, 17, 21.0, 81.0, 150, kRule);
    add({"A30"}, 32, 36.5, 96.3, 165, kRule);
    add({"L4"}, 16, 17.9, 43.1, 72, kRule);
    add({"L40S"}, 34, 43.4, 186.1, 350, kRule);
    add({"RTX-A6000", "RTXA6000"}, 19.5, 27.6, 154.3, 300, kRule);
    add({"RTX-4090", "RTX4090"}, 15, 27.1, 223.9, 450, kRule);
    // Unknown models: the A100-PCIe-80GB row, a mid-range assumption.
    m.fallback =
        GpuPower{47, 55.1, 169.0, "fallback (A100-PCIe-80GB figures, an assumption)", 300, 0};
    // Acme Seren: mean GPU-server power minus 8 x mean GPU power = 1,584 W
    // per 8-GPU server; CPU-only servers average 581 W.
    m.node_w_per_gpu = 198;
    m.cpu_node_w = 581;
    m.pue = 1.0;
    return m;
  }();
  return kModel;
}

}  // namespace utilsim
