"""Section 8 of slurm_e2e.py: `utilsim sweep` on the real Slurm (issue 17).

The same sweep (the demo workload x 3 policies x 2 cluster sizes x 2 seeds,
12 runs) runs twice: with the local executor on this machine, and with the
Slurm executor as job arrays on the test cluster, whose MaxArraySize is 4
(SLURM_TEST_MAX_ARRAY), so 10 array tasks must be split into chunks of 4, 4
and 2, with at most 3 tasks running at once (%3). Checked: three array jobs
were submitted with those ranges, every task completed (sacct), the runs
were run by several processes, `sweep status` reports them, and the merged
database is byte-identical to the local executor's.
"""
import os
import time
import subprocess

SWEEP = """name: e2e
base:
  trace: builtin:demo
  jobs: 400
  sample-interval: 3600
axes:
  policy: [best-fit, first-fit, fifo+worst-fit]
  cluster-scale: [0.25, 1]
  seed: [1, 2]
"""


def check_sweep(e, check, Failure):
    print("8. utilsim sweep: local executor vs Slurm job arrays (MaxArraySize 4)", flush=True)
    d = os.path.join(e.d, "sweep")
    os.makedirs(d, exist_ok=True)
    f = os.path.join(d, "s.yaml")
    open(f, "w").write(SWEEP)
    local = os.path.join(d, "local")
    slurm = os.path.join(d, "slurm")
    e.utilsim("sweep", "run", f, "--out", local, "--workers", "2", "-q")
    p = e.run([e.binary, "sweep", "run", f, "--out", slurm, "--executor", "slurm", "--tasks",
               "10", "--max-parallel", "3", "--sbatch-arg=--mem=200", "--sbatch-arg=-t",
               "--sbatch-arg=5", "--wait"])
    out = p.stdout
    print(out)
    check(out.count("submitted array job") == 3, "10 tasks went to 3 array jobs (MaxArraySize 4)")
    check("tasks 0..3 (--array=0-3%3)" in out and "tasks 4..7 (--array=0-3%3)" in out and
          "tasks 8..9 (--array=0-1%3)" in out, "chunks of 4, 4 and 2 tasks, at most 3 at once")
    ids = [l.strip() for l in open(os.path.join(slurm, "slurm", "jobs.txt")) if l.strip()]
    # sbatch --wait returns when slurmctld has the jobs done; slurmdbd, which
    # sacct reads, may record the last ends a moment later: poll up to 30 s.
    deadline = time.time() + 30
    while True:
        states = e.run(["sacct", "-n", "-P", "-X", "-j", ",".join(ids),
                        "--format=JobID,State"]).stdout
        rows = [l.split("|") for l in states.splitlines() if l.strip()]
        done = len(rows) == 10 and all(r[1] == "COMPLETED" for r in rows)
        if done or time.time() > deadline:
            break
        time.sleep(0.5)
    check(done, "sacct: the 10 array tasks COMPLETED")
    pids = set()
    for line in open(os.path.join(slurm, "log.jsonl")):
        if '"event":"done"' in line:
            pids.add(line.split('"pid":')[1].split(",")[0].split("}")[0])
    check(len(pids) >= 2, f"the runs ran in {len(pids)} processes (array tasks)")
    st = e.utilsim("sweep", "status", slurm).stdout
    print(st)
    check("12 runs: 12 finished" in st and "COMPLETED 10" in st,
          "sweep status: 12 runs finished, the 10 tasks COMPLETED")
    a = open(os.path.join(local, "merged.db"), "rb").read()
    b = open(os.path.join(slurm, "merged.db"), "rb").read()
    check(a == b, f"the merged databases are byte-identical ({len(a)} bytes)")
    ca = open(os.path.join(local, "sweep.csv")).read()
    check(ca.count("\n") == 13 and ca == open(os.path.join(slurm, "sweep.csv")).read(),
          "the merged CSVs are identical: 12 rows and the header")
