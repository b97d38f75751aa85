"""A placement policy written in Python, run inside the engine and compared
with the built-in best-fit (docs/embedding.md, "Python"):

    PYTHONPATH=/opt/utilsim/lib/python3/dist-packages python3 custom_policy.py

tests/install/python_example_test.sh runs it and checks what it prints
(everything but the timings).
"""

import time

import utilsim


class BestFit:
    """Best fit in Python: each task to the node left with the fewest
    whole-free GPUs (ties: the lowest index). The same rule as the built-in
    best-fit for whole-GPU tasks, which is all the demo workload has."""

    def choose_node(self, job, cluster):
        nodes = cluster.fitting_nodes()  # where one task fits now
        if not nodes:
            return None  # cannot start now
        return min(nodes, key=lambda n: (cluster.free_gpus(n), n))


class BestFitCpuAware(BestFit):
    """Best fit on GPUs, ties to the node with the most free CPU (a variant
    the built-ins do not have)."""

    def choose_node(self, job, cluster):
        nodes = cluster.fitting_nodes()
        if not nodes:
            return None
        return min(nodes, key=lambda n: (cluster.free_gpus(n), -cluster.free_cpu_milli(n), n))


# A class is instantiated once per run; an instance would be shared by them.
utilsim.register_placement("py-best-fit", BestFit, description="best fit, in Python")
utilsim.register_placement("py-best-fit-cpu", BestFitCpuAware, version="2")

timings = {}
runs = {}
for name in ("best-fit", "py-best-fit", "py-best-fit-cpu"):
    start = time.perf_counter()
    runs[name] = utilsim.run("builtin:demo", policies="fifo-skip+" + name, jobs=2000, threads=1)
    timings[name] = time.perf_counter() - start

same = runs["best-fit"].jobs.equals(runs["py-best-fit"].jobs)
print(f"py-best-fit places every job as best-fit does: {same}")
for name, r in runs.items():
    s = r.summary
    print(f"{name:16} v{r.meta['placement_policy_version']}  allocation {s['allocation_pct']:.2f}%  "
          f"p95 wait {s['wait_p95_s'] / 60:.1f} min  stranded {s['stranded_gpu_h']:.1f} GPU-h")
base = timings["best-fit"]
for name, t in timings.items():
    print(f"time {name}: {t:.2f} s ({t / base:.1f}x best-fit)")
