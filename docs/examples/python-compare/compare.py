"""Two packing policies on the built-in workload, into pandas DataFrames.

Notebook-style: each "# %%" cell can be pasted into Jupyter as it is. Run it
against an installed utilsim (docs/embedding.md, "Python"):

    PYTHONPATH=/opt/utilsim/lib/python3/dist-packages python3 compare.py

tests/install/python_example_test.sh runs it and checks what it prints.
"""

# %% Run both policies on 2,000 synthetic jobs (64 nodes x 8 GPUs). The two
# simulations run in parallel threads, without the GIL.
import pandas as pd

import utilsim

runs = utilsim.run(
    "builtin:demo", policies=["fifo-skip+best-fit", "fifo-skip+worst-fit"], jobs=2000, seed=1
)
print(f"utilsim {utilsim.__version__}: {len(runs)} runs of {runs[0].summary['jobs']} jobs")

# %% One row per policy, from the summaries (the runs table of a results
# database, docs/results.md).
summary = pd.DataFrame([r.summary for r in runs], index=[r.label for r in runs])
summary["wait_p95_min"] = summary["wait_p95_s"] / 60
summary["makespan_h"] = summary["makespan_s"] / 3600
columns = ["allocation_pct", "effective_util_pct", "idle_alloc_gpu_h", "wait_p95_min",
           "makespan_h"]
print(summary[columns].round(1).to_string())

# %% Per job (the jobs table): the mean wait by GPUs asked for, in minutes.
jobs = pd.concat([r.jobs.assign(policy=r.label) for r in runs])
waits = jobs.groupby(["gpus", "policy"])["wait_s"].mean().unstack("policy") / 60
print(waits.round(1).to_string())

# %% Over time (the samples table): the busiest sample of each run.
for r in runs:
    s = r.samples
    top = s.loc[s["gpus_busy"].idxmax()]
    print(f"{r.label}: {len(s)} samples, at most {top['gpus_busy']:.1f} GPUs busy "
          f"(t = {top['time_s'] / 3600:.1f} h, {int(top['queued'])} jobs queued)")
