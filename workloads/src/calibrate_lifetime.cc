// LifetimeWindows (calibrate.h): one calibration window per job from
// lifetime averages of GPU utilization and CPU use.
#include <algorithm>

#include "utilsim/workloads/calibrate.h"

namespace utilsim {

std::vector<JobWindows> LifetimeWindows(const Workload& w) {
  std::vector<JobWindows> out;
  for (const Job& job : w.jobs) {
    if (job.task.gpus <= 0 || !job.util_known || job.host_cpu_used_milli < 0 ||
        job.task.cpu_milli <= 0)
      continue;
    CalibrationWindow win;
    win.gpu_busy = std::clamp(static_cast<double>(job.util), 0.0, 1.0);
    win.cpu_busy = std::min(1.0, static_cast<double>(job.host_cpu_used_milli) /
                                     static_cast<double>(job.task.cpu_milli));
    JobWindows jw;
    jw.job = job.name;
    jw.gpus = job.tasks * job.task.gpus;
    jw.windows.push_back(win);
    out.push_back(std::move(jw));
  }
  return out;
}

}  // namespace utilsim
