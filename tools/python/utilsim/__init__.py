"""utilsim: a utilization-aware GPU-cluster scheduler simulator, from Python.

    import utilsim
    r = utilsim.run("builtin:demo", policies="best-fit", jobs=2000)
    r.summary["effective_util_pct"], r.jobs.head()   # dict, pandas DataFrame

The same library calls as the command line (`utilsim run` / `compare`): the
same inputs give the same results and, with out=, a byte-identical results
database. docs/embedding.md ("Python") describes the API; docs/results.md the
columns of summary, jobs and samples.
"""

import difflib as _difflib
import os as _os

from . import _utilsim
from ._utilsim import (
    ClusterView,
    InvalidArgumentError,
    IoError,
    NotFoundError,
    Placer,
    UtilsimError,
    register_placement,
    register_queue,
)

__version__ = _utilsim.version
__all__ = [
    "ClusterView",
    "InvalidArgumentError",
    "IoError",
    "NotFoundError",
    "Placer",
    "Run",
    "UtilsimError",
    "policies",
    "read_results",
    "register_placement",
    "register_queue",
    "run",
    "write_results",
]

SPEC_KEYS = tuple(_utilsim.SPEC_KEYS)


def _pandas():
    try:
        import pandas
    except ImportError as e:  # pragma: no cover - depends on the machine
        raise ImportError(
            "utilsim: Run.jobs and Run.samples need pandas (Debian: apt-get install "
            "python3-pandas); Run.summary and Run.meta work without it"
        ) from e
    return pandas


class Run:
    """One simulated run: the policy's results.

    summary  dict of every summary figure (the results database's runs
             columns: allocation_pct, effective_util_pct, wait_p95_s, ...)
    meta     dict of the run's identity (label, policies and versions, seed,
             input_digest, workload_source, progress_model, notes, ...)
    jobs     pandas DataFrame, one row per job (the jobs table's columns)
    samples  pandas DataFrame, one row per sample tick (the samples view's
             columns)
    change_points
             pandas DataFrame, one row per instant at which the cluster's
             state changed (the change_points table's columns); empty
             unless meta["series"] is "changes" (docs/results.md)
    """

    def __init__(self, data):
        self._data = data
        self._summary = self._meta = self._jobs = self._samples = None
        self._change_points = None

    @property
    def label(self):
        return self._data.label

    @property
    def summary(self):
        if self._summary is None:
            self._summary = self._data.summary()
        return self._summary

    @property
    def meta(self):
        if self._meta is None:
            self._meta = self._data.meta()
        return self._meta

    @property
    def jobs(self):
        if self._jobs is None:
            self._jobs = _pandas().DataFrame(self._data.job_columns())
        return self._jobs

    @property
    def samples(self):
        if self._samples is None:
            self._samples = _pandas().DataFrame(self._data.sample_columns())
        return self._samples

    @property
    def change_points(self):
        if self._change_points is None:
            self._change_points = _pandas().DataFrame(self._data.change_point_columns())
        return self._change_points

    def __repr__(self):
        s = self.summary
        return (
            f"<utilsim.Run {self.label!r}: {s['jobs']} jobs, allocation "
            f"{s['allocation_pct']:.1f}%, effective utilization {s['effective_util_pct']:.1f}%>"
        )


def _path(p, what):
    if p is None:
        return ""
    try:
        return _os.fspath(p)
    except TypeError:
        raise ValueError(f"{what}: expected a path, got {p!r}") from None


def run(
    trace="builtin:demo",
    cluster=None,
    policies="best-fit",
    jobs=None,
    seed=1,
    threads=0,
    out=None,
    *,
    profiles=None,
    format=None,
    **spec,
):
    """Simulates one policy (a Run) or several (a list of Runs, in order).

    trace     a trace file, several comma-separated, a folder, or
              "builtin:demo" / "builtin:bench" (the synthetic workload)
    cluster   a cluster YAML file (overrides a cluster the trace describes)
    policies  a name (PLACEMENT, QUEUE+PLACEMENT, a profile, a Python
              policy registered with register_placement / register_queue),
              "a,b" or a list of names
    jobs      for builtin traces: the number of jobs
    seed      the input's and the runs' seed, 0..2**64-1
    threads   parallel runs (0 = one per core); the GIL is released
    out       write every run into this SQLite results database
    profiles  a YAML file of placement profiles (docs/policies.md)
    format    the trace's format (default: detected)
    **spec    model, comm_fraction, sharing, mps_thread_pct, cpu_alloc,
              window, warmup_s, restart_cost_s, sample_interval_s, series, horizon_s,
              price_per_gpu_h, events (an events file: nodes down, drained,
              added or removed, failures, stragglers; docs/cluster-events.md),
              checkpoint_interval_s, pass_interval_s (the command line's
              options of the same names)

    Bad arguments raise ValueError naming the key; input, run and output
    failures raise UtilsimError (InvalidArgumentError, also a ValueError,
    for bad input contents or combinations; NotFoundError; IoError, also an
    OSError); an exception raised by a Python policy stops the run and is
    raised here.
    """
    for key in spec:
        if key not in SPEC_KEYS:
            near = _difflib.get_close_matches(key, SPEC_KEYS, n=1)
            hint = f" (did you mean {near[0]!r}?)" if near else ""
            raise ValueError(
                f"unknown keyword argument {key!r}{hint}; accepted: " + ", ".join(SPEC_KEYS)
            )
    if isinstance(policies, str):
        names = [p.strip() for p in policies.split(",")]
        single = len(names) == 1
    else:
        names = list(policies)
        single = False
        if not all(isinstance(p, str) for p in names):
            raise ValueError(f"policies: expected names, got {policies!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
        raise ValueError(f"seed: expected an integer 0..2**64-1, got {seed!r}")
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 0:
        raise ValueError(f"threads: expected an integer >= 0 (0 = one per core), got {threads!r}")
    if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, int)):
        raise ValueError(f"jobs: expected an integer >= 1, got {jobs!r}")
    data = _utilsim.run(
        _path(trace, "trace"),
        _path(cluster, "cluster"),
        names,
        jobs,
        seed,
        threads,
        _path(out, "out"),
        _path(profiles, "profiles"),
        format or "",
        spec,
    )
    runs = [Run(d) for d in data]
    return runs[0] if single else runs


def read_results(db):
    """The runs of a results database written by utilsim (run, compare, demo
    --out, or run(out=...)), as a list of Run objects."""
    return [Run(d) for d in _utilsim.read_results(_path(db, "db"))]


def write_results(runs, db):
    """Writes Run objects into a new results database (atomically)."""
    if isinstance(runs, Run):
        runs = [runs]
    _utilsim.write_results([r._data for r in runs], _path(db, "db"))


def policies(profiles=None):
    """Every policy run() can name: dicts of name, kind ("queue", "placement",
    "profile"), version and description, sorted by kind and name."""
    return _utilsim.policies(_path(profiles, "profiles"))
