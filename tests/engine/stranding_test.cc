#include "utilsim/engine/stranding.h"

#include <gtest/gtest.h>

namespace utilsim {
namespace UTILSIM_UNITY_ID {

Job GpuJob(int32_t gpus, int64_t cpu_milli, int64_t mem_gib) {
  Job j;
  j.task.gpus = gpus;
  j.task.cpu_milli = cpu_milli;
  j.task.mem_bytes = mem_gib << 30;
  return j;
}

TEST(StrandingTest, JudgesAgainstTheWorkloadsShapes) {
  Workload w;
  w.jobs = {GpuJob(1, 4000, 16), GpuJob(1, 8000, 8), GpuJob(2, 2000, 4), GpuJob(0, 500, 1)};
  const StrandingTest t(w);
  ASSERT_FALSE(t.empty());
  // One free GPU: the 1-GPU shapes (4 cores, 16 GiB) and (8 cores, 8 GiB).
  EXPECT_TRUE(t.Hosts(1, 4000, int64_t{16} << 30));
  EXPECT_TRUE(t.Hosts(1, 8000, int64_t{8} << 30));
  EXPECT_FALSE(t.Hosts(1, 7999, int64_t{15} << 30));  // neither fits
  EXPECT_FALSE(t.Hosts(1, 3000, int64_t{64} << 30));
  // Two free GPUs add (2 cores, 4 GiB).
  EXPECT_TRUE(t.Hosts(2, 2000, int64_t{4} << 30));
  EXPECT_FALSE(t.Hosts(2, 1999, int64_t{64} << 30));
  // More free GPUs than any task asks for: every shape counts.
  EXPECT_TRUE(t.Hosts(8, 2000, int64_t{4} << 30));
  EXPECT_FALSE(t.Hosts(0, 100000, int64_t{1} << 40));
}

TEST(StrandingTest, FractionalTasksNeedOneGpuAndCpuOnlyTasksDoNotCount) {
  Workload w;
  Job frac = GpuJob(1, 1000, 2);
  frac.task.gpu_milli = 250;
  w.jobs = {frac, GpuJob(0, 1, 0)};
  const StrandingTest t(w);
  EXPECT_TRUE(t.Hosts(1, 1000, int64_t{2} << 30));
  EXPECT_FALSE(t.Hosts(1, 999, int64_t{2} << 30));
  Workload cpu_only;
  cpu_only.jobs = {GpuJob(0, 1000, 1)};
  EXPECT_TRUE(StrandingTest(cpu_only).empty());
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
