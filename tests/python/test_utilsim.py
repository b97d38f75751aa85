"""The Python module against the command line (ctest Python.Module).

Run by ctest with Debian's python3 and PYTHONPATH=<build>/tools/python;
UTILSIM_BINARY names the utilsim executable of the same build. By hand:

    PYTHONPATH=build/tools/python UTILSIM_BINARY=build/tools/utilsim \
        /usr/bin/python3 -m unittest tests/python/test_utilsim.py -v
"""

import math
import os
import sqlite3
import subprocess
import tempfile
import unittest

import utilsim

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "fixtures", "python")
CLUSTER = os.path.join(FIXTURES, "cluster.yaml")
JOBS = os.path.join(FIXTURES, "jobs.csv")
BINARY = os.environ.get("UTILSIM_BINARY") or os.path.join(
    os.path.dirname(utilsim.__file__), "..", "..", "utilsim"
)


def cli(*args):
    """Runs the utilsim executable; returns its stdout."""
    r = subprocess.run([BINARY, *args], capture_output=True, text=True)
    if r.returncode != 0:
        raise AssertionError(f"utilsim {' '.join(args)} failed: {r.stderr}")
    return r.stdout


def db_rows(path, table, order="rowid"):
    """Rows of a results table as dicts, in rowid (or `order`) order."""
    con = sqlite3.connect(path)
    con.row_factory = sqlite3.Row
    try:
        return [dict(r) for r in con.execute(f"SELECT * FROM {table} ORDER BY {order}")]
    finally:
        con.close()


def same(a, b):
    """Equal values, a database NULL matching a NaN."""
    if a is None or b is None:
        return (a is None or (isinstance(a, float) and math.isnan(a))) and (
            b is None or (isinstance(b, float) and math.isnan(b))
        )
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


class MostFreeGpus:
    """Places each task on the node with the most whole-free GPUs now
    (ties: the lowest index), the GPUs as the built-ins pick them."""

    def choose_node(self, job, cluster):
        nodes = cluster.fitting_nodes()
        if not nodes:
            return None
        return max(nodes, key=lambda n: (cluster.free_gpus(n), -n))


class FirstFitExplicit:
    """place(): the lowest-indexed node that fits, the lowest free GPUs."""

    def place(self, job, cluster):
        out = []
        for _ in range(job["tasks"]):
            fits = cluster.fitting_nodes()
            if not fits or job["tasks"] > 1:
                return None  # this test policy places single tasks only
            n = fits[0]
            free = [g for g, m in enumerate(cluster.gpu_free_milli(n)) if m == 1000]
            out.append((cluster.name(n), free[: job["gpus"]]))
        return out


class ShortestRecordedFirst:
    """The order of the built-in sjf-oracle: recorded run time, then submit."""

    def key(self, job, now_s):
        return (job["runtime_s"], job["submit_s"])


class Raises:
    def choose_node(self, job, cluster):
        if job["name"] == "c":
            return 1 / 0
        return cluster.fitting_nodes()[0]


class TextKey:
    def key(self, job, now_s):
        return "soon"


class CannotMake:
    def __init__(self):
        raise RuntimeError("no GPU oracle")

    def choose_node(self, job, cluster):
        return None


class BadNode:
    def place(self, job, cluster):
        return [(17, [0])] * job["tasks"]


class ModuleTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="utilsim-python-test.")
        utilsim.register_placement("most-free", MostFreeGpus, description="most free GPUs")
        utilsim.register_placement("first-fit-explicit", FirstFitExplicit())
        utilsim.register_queue("py-sjf", ShortestRecordedFirst())
        utilsim.register_placement("raises", Raises())
        utilsim.register_placement("bad-node", BadNode())

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def path(self, name):
        return os.path.join(self.tmp.name, name)

    # --- identity -------------------------------------------------------
    def test_version_is_the_binarys(self):
        self.assertEqual(utilsim.__version__, cli("--version").strip())

    def test_policies_are_the_clis(self):
        listed = {p["name"]: p for p in utilsim.policies()}
        self.assertEqual(listed["best-fit"]["kind"], "placement")
        self.assertEqual(listed["fifo"]["kind"], "queue")
        self.assertEqual(listed["most-free"]["description"], "most free GPUs")
        # Every policy `utilsim policies` lists, with its version.
        for line in cli("policies").splitlines():
            parts = line.split()
            if len(parts) >= 2 and line.startswith("  ") and parts[1].startswith("v"):
                self.assertIn(parts[0], listed)
                self.assertEqual("v" + listed[parts[0]]["version"], parts[1])

    # --- results equal the command line's ------------------------------
    def test_summary_and_meta_equal_the_cli_database(self):
        db = self.path("cli-run.db")
        cli("run", "--trace", "builtin:demo", "--jobs", "500", "--policy", "best-fit", "--out", db)
        row = db_rows(db, "runs")[0]
        r = utilsim.run("builtin:demo", policies="best-fit", jobs=500)
        self.assertIsInstance(r, utilsim.Run)
        for key, value in r.summary.items():
            self.assertTrue(same(value, row[key]), f"{key}: {value!r} != {row[key]!r}")
        # The policies' parameters are not in the database.
        params = {"queue_policy_params", "placement_policy_params"}
        self.assertEqual({k: r.meta[k] for k in params}, dict.fromkeys(params, ""))
        for key, value in r.meta.items():
            if key not in params:
                self.assertTrue(same(value, row[key]), f"{key}: {value!r} != {row[key]!r}")
        # Every summary column of the runs table is in the dict.
        identity = set(r.meta) - params | {"run_id"}
        self.assertEqual(set(row) - identity, set(r.summary))
        self.assertEqual(r.summary["jobs"], 500)

    def test_out_is_byte_identical_to_compare(self):
        cli_db, py_db = self.path("cli-compare.db"), self.path("py-compare.db")
        cli("compare", "--trace", "builtin:demo", "--jobs", "500", "--policies",
            "best-fit,first-fit", "--out", cli_db)
        runs = utilsim.run("builtin:demo", policies=["best-fit", "first-fit"], jobs=500, out=py_db)
        self.assertEqual([r.label for r in runs], ["best-fit", "first-fit"])
        self.assertEqual(read_bytes(py_db), read_bytes(cli_db))

    def test_out_with_spec_is_byte_identical_to_run(self):
        cli_db, py_db = self.path("cli-spec.db"), self.path("py-spec.db")
        cli("run", "--trace", "builtin:demo", "--jobs", "300", "--seed", "7", "--policy",
            "fifo-skip+worst-fit", "--model", "stall-serial", "--window", "full",
            "--sample-interval", "600", "--horizon", "200000", "--price", "3.5",
            "--comm-fraction", "0.2", "--sharing", "timeslice", "--out", cli_db)
        utilsim.run("builtin:demo", policies="fifo-skip+worst-fit", jobs=300, seed=7,
                    model="stall-serial", window="full", sample_interval_s=600,
                    horizon_s=200000, price_per_gpu_h=3.5, comm_fraction=0.2,
                    sharing="timeslice", out=py_db)
        self.assertEqual(read_bytes(py_db), read_bytes(cli_db))

    def test_events_run_is_byte_identical_to_the_cli(self):
        # docs/cluster-events.md: a node down under a job, checkpoints, a cycle.
        events = self.path("ev.yaml")
        with open(events, "w") as f:
            f.write("events:\n  - {kind: down, at: 20, nodes: [gpu-1], until: 50}\n")
        jobs = os.path.join(HERE, "..", "fixtures", "cli", "jobs.csv")
        cluster = os.path.join(HERE, "..", "fixtures", "cli", "cluster.yaml")
        cli_db, py_db = self.path("cli-ev.db"), self.path("py-ev.db")
        cli("run", "--trace", jobs, "--cluster", cluster, "--policy", "best-fit", "--events",
            events, "--checkpoint-interval", "5", "--pass-interval", "2", "--out", cli_db)
        r = utilsim.run(jobs, cluster=cluster, policies="best-fit", events=events,
                        checkpoint_interval_s=5, pass_interval_s=2, out=py_db)
        self.assertEqual(r.summary["interruptions"], 1)
        self.assertEqual(read_bytes(py_db), read_bytes(cli_db))
        with self.assertRaisesRegex(ValueError, r"events: expected the path"):
            utilsim.run(jobs, cluster=cluster, events=3)

    def test_four_parallel_runs_equal_four_cli_runs(self):
        # `utilsim run --out` streams its rows in the order the jobs ended;
        # write_results writes kept rows in job order: the same rows, value
        # for value, in another order (docs/results.md).
        policies = ["best-fit", "first-fit", "worst-fit", "tiresias:thresholds=600/6000+best-fit"]
        runs = utilsim.run("builtin:demo", policies=policies, jobs=500, threads=4)
        order = {"meta": "key", "runs": "run_id", "jobs": "job_index",
                 "samples": "time_s", "waits": "job_index, from_s"}
        for i, (p, r) in enumerate(zip(policies, runs)):
            cli_db, py_db = self.path(f"cli-{i}.db"), self.path(f"py-{i}.db")
            cli("run", "--trace", "builtin:demo", "--jobs", "500", "--policy", p, "--out", cli_db)
            utilsim.write_results(r, py_db)
            for table, key in order.items():
                a, b = db_rows(py_db, table, key), db_rows(cli_db, table, key)
                self.assertEqual(len(a), len(b), f"{p}: {table}")
                for x, y in zip(a, b):
                    bad = [k for k in x if not same(x[k], y[k])]
                    self.assertEqual(bad, [], f"{p}: {table}")
        # The one-policy `out=` streams like the command line: same bytes.
        cli_db, py_db = self.path("cli-one.db"), self.path("py-one.db")
        cli("run", "--trace", "builtin:demo", "--jobs", "500", "--policy", policies[3],
            "--out", cli_db)
        utilsim.run("builtin:demo", policies=policies[3], jobs=500, out=py_db)
        self.assertEqual(read_bytes(py_db), read_bytes(cli_db))

    def test_dataframes_are_the_database_tables(self):
        db = self.path("frames.db")
        r = utilsim.run("builtin:demo", policies="best-fit", jobs=500, out=db)
        self.assertEqual(len(r.jobs), 500)
        self.assertEqual(len(r.jobs), r.summary["jobs"])
        for table, frame in (("jobs", r.jobs), ("samples", r.samples)):
            rows = db_rows(db, table, "job_index" if table == "jobs" else "time_s")
            self.assertEqual(len(frame), len(rows), table)
            self.assertEqual(list(frame.columns), [c for c in rows[0] if c != "run_id"], table)
            for col in frame.columns:
                got = frame[col].tolist()
                want = [row[col] for row in rows]
                bad = [i for i, (a, b) in enumerate(zip(got, want)) if not same(a, b)]
                self.assertEqual(bad, [], f"{table}.{col}: first {got[bad[0]] if bad else ''!r}")
        self.assertEqual(str(r.jobs["start_s"].dtype), "float64")
        self.assertEqual(str(r.jobs["tasks"].dtype), "int64")

    def test_change_points_and_the_samples_derived_from_them(self):
        # series="changes": one row per instant that changed the state; the
        # samples derived from them equal the samples a run takes.
        db = self.path("changes.db")
        pts = utilsim.run("builtin:demo", policies="best-fit", jobs=300, series="changes", out=db)
        taken = utilsim.run("builtin:demo", policies="best-fit", jobs=300, series="samples")
        self.assertEqual(pts.meta["series"], "changes")
        self.assertEqual(taken.meta["series"], "samples")
        self.assertEqual(len(taken.change_points), 0)
        self.assertEqual(len(pts.samples), pts.meta["sample_count"])
        self.assertEqual(pts.meta["sample_count"], taken.meta["sample_count"])
        for col in taken.samples.columns:
            a, b = pts.samples[col].tolist(), taken.samples[col].tolist()
            self.assertEqual(len(a), len(b), col)
            self.assertEqual([i for i, (x, y) in enumerate(zip(a, b)) if not same(x, y)], [], col)
        rows = db_rows(db, "change_points", "time_s")
        self.assertGreater(len(rows), 300)
        self.assertEqual(len(pts.change_points), len(rows))
        self.assertEqual(pts.change_points["gpus_allocated"].tolist(),
                         [r["gpus_allocated"] for r in rows])
        bad = [k for k in taken.summary if not same(pts.summary[k], taken.summary[k])]
        self.assertEqual(bad, [])
        with self.assertRaisesRegex(ValueError, r"series"):
            utilsim.run("builtin:demo", policies="best-fit", jobs=10, series="steps")

    def test_read_results_gives_what_was_written(self):
        db = self.path("read.db")
        runs = utilsim.run("builtin:demo", policies="best-fit,worst-fit", jobs=300, out=db)
        back = utilsim.read_results(db)
        self.assertEqual([b.label for b in back], ["best-fit", "worst-fit"])
        for a, b in zip(runs, back):
            for key in a.summary:
                self.assertTrue(same(a.summary[key], b.summary[key]), key)
            self.assertEqual(a.meta, b.meta)
            self.assertTrue(a.jobs.equals(b.jobs))
            self.assertTrue(a.samples.equals(b.samples))

    # --- Python policies ------------------------------------------------
    def test_python_placement_makes_the_hand_computed_placements(self):
        # fifo, "most free whole GPUs" (ties: lowest index) on small (2),
        # big (8), mid (4), every job running 100 s or more:
        #   a 2 GPUs at 0:  free 2/8/4 -> big GPUs 0,1     (big 6 left)
        #   b 2 GPUs at 10: free 2/6/4 -> big GPUs 2,3     (big 4 left)
        #   c 4 GPUs at 20: small cannot; big 4 = mid 4 -> big (lower index)
        #   d 1 GPU at 30:  free 2/0/4 -> mid GPU 0        (mid 3 left)
        #   e 2 x 1 GPU at 40: task 1 free 2/0/3 -> mid GPU 1, task 2 sees
        #     2/0/2 -> small GPU 0 (tie, lower index)
        #   f 8 GPUs at 1000, everything finished -> big
        want = {
            "a": "big:0,1",
            "b": "big:2,3",
            "c": "big:4,5,6,7",
            "d": "mid:0",
            "e": "mid:1;small:0",
            "f": "big:0,1,2,3,4,5,6,7",
        }
        for name in ("most-free", "fifo+most-free"):
            r = utilsim.run(JOBS, cluster=CLUSTER, policies=name)
            self.assertEqual(dict(zip(r.jobs["name"], r.jobs["placement"])), want, name)
            self.assertEqual(r.meta["placement_policy"], "most-free")
            self.assertEqual(r.meta["placement_policy_version"], "1")
        # The built-in worst-fit is the same rule.
        w = utilsim.run(JOBS, cluster=CLUSTER, policies="worst-fit")
        self.assertEqual(dict(zip(w.jobs["name"], w.jobs["placement"])), want)

    def test_python_place_protocol(self):
        # fifo-skip, lowest node that fits: a small 0,1; b big 0,1;
        # c big 2..5; d big 6; e (2 tasks) refused by the policy, never
        # starts; f at 1000 (a..d done) big 0..7.
        r = utilsim.run(JOBS, cluster=CLUSTER, policies="fifo-skip+first-fit-explicit",
                        horizon_s=2000)
        got = dict(zip(r.jobs["name"], r.jobs["placement"]))
        self.assertEqual(got, {"a": "small:0,1", "b": "big:0,1", "c": "big:2,3,4,5",
                               "d": "big:6", "e": "", "f": "big:0,1,2,3,4,5,6,7"})
        self.assertEqual(r.summary["unfinished"], 1)

    def test_python_queue_orders_like_the_builtin(self):
        py, builtin = utilsim.run("builtin:demo", jobs=400,
                                  policies=["py-sjf+best-fit", "sjf-oracle+best-fit"])
        self.assertEqual(py.meta["queue_policy"], "py-sjf")
        self.assertTrue(py.jobs.equals(builtin.jobs))
        for key in py.summary:
            self.assertTrue(same(py.summary[key], builtin.summary[key]), key)

    def test_python_policy_runs_in_parallel_deterministically(self):
        one = utilsim.run("builtin:demo", jobs=300, policies=["most-free", "fifo-skip+most-free"],
                          threads=1)
        two = utilsim.run("builtin:demo", jobs=300, policies=["most-free", "fifo-skip+most-free"],
                          threads=2)
        for a, b in zip(one, two):
            self.assertTrue(a.jobs.equals(b.jobs))

    def test_exception_in_python_policy_ends_the_run(self):
        with self.assertRaises(ZeroDivisionError) as cm:
            utilsim.run(JOBS, cluster=CLUSTER, policies="raises")
        notes = " ".join(getattr(cm.exception, "__notes__", []))
        self.assertIn("Python placement 'raises'", notes)
        self.assertIn("job 'c'", notes)
        with self.assertRaisesRegex(ValueError, "bad-node.*node index 17 out of range"):
            utilsim.run(JOBS, cluster=CLUSTER, policies="bad-node")
        # One failing run of several fails the call.
        with self.assertRaises(ZeroDivisionError):
            utilsim.run(JOBS, cluster=CLUSTER, policies=["best-fit", "raises"], threads=2)
        # A queue key that is not a number.
        utilsim.register_queue("text-key", TextKey())
        with self.assertRaisesRegex(ValueError, "Python queue 'text-key': key\\(\\) must return"):
            utilsim.run(JOBS, cluster=CLUSTER, policies="text-key+best-fit")
        # A class whose construction fails, when the run is asked for.
        utilsim.register_placement("cannot-make", CannotMake)
        with self.assertRaisesRegex(RuntimeError, "no GPU oracle"):
            utilsim.run(JOBS, cluster=CLUSTER, policies="cannot-make")

    def test_registration_errors(self):
        with self.assertRaisesRegex(ValueError, "built-in"):
            utilsim.register_placement("best-fit", MostFreeGpus())
        with self.assertRaisesRegex(TypeError, "choose_node"):
            utilsim.register_placement("nothing", object())
        with self.assertRaisesRegex(TypeError, "key"):
            utilsim.register_queue("nothing", object())

    # --- argument errors ------------------------------------------------
    def test_bad_keyword_arguments_name_the_key(self):
        cases = [
            (dict(windw="full"), r"unknown keyword argument 'windw' \(did you mean 'window'\?\)"),
            (dict(window="fulll"), r"window: expected one of arrivals, full, got 'fulll'"),
            (dict(model="x"), r"model: expected one of whole-gpu, stall-serial, stall-overlapped"),
            (dict(sharing=3), r"sharing: expected one of fractional, exclusive, timeslice, mps"),
            (dict(cpu_alloc="all"), r"cpu_alloc: expected one of request, proportional, measured"),
            (dict(comm_fraction=1.5), r"comm_fraction: expected a fraction 0\.\.1, got 1\.5"),
            (dict(mps_thread_pct=0), r"mps_thread_pct: expected a percentage > 0 and <= 100"),
            (dict(sample_interval_s=0), r"sample_interval_s: expected seconds > 0, got 0"),
            (dict(warmup_s=-1), r"warmup_s: expected seconds >= 0, got -1"),
            (dict(horizon_s="soon"), r"horizon_s: expected seconds >= 0 or None"),
            (dict(price_per_gpu_h=float("nan")), r"price_per_gpu_h: expected a price >= 0"),
            (dict(restart_cost_s=True), r"restart_cost_s: expected seconds >= 0, got True"),
            (dict(policies="nope"), r"policies: .*'nope'"),
            (dict(policies=["best-fit", "best-fit"]), r"policies: 'best-fit' given twice"),
            (dict(seed=-1), r"seed: expected an integer 0\.\.2\*\*64-1"),
            (dict(threads=-2), r"threads: expected an integer >= 0"),
            (dict(jobs=0), r"jobs: expected an integer >= 1, got 0"),
        ]
        for kwargs, message in cases:
            with self.subTest(kwargs=kwargs):
                with self.assertRaisesRegex(ValueError, message):
                    utilsim.run("builtin:demo", jobs=kwargs.pop("jobs", 50), **kwargs)
        with self.assertRaisesRegex(ValueError, "jobs: only for built-in workloads"):
            utilsim.run(JOBS, cluster=CLUSTER, jobs=3)

    def test_run_time_errors_are_utilsim_errors(self):
        with self.assertRaises(utilsim.UtilsimError):
            utilsim.run(os.path.join(FIXTURES, "missing.csv"), cluster=CLUSTER)
        with self.assertRaisesRegex(utilsim.UtilsimError, "same file as"):
            utilsim.run(JOBS, cluster=CLUSTER, out=JOBS)
        with self.assertRaisesRegex(utilsim.UtilsimError, "no such file"):
            utilsim.read_results(self.path("missing.db"))

    # --- the decision API -----------------------------------------------
    def test_placer(self):
        p = utilsim.Placer(CLUSTER, "best-fit")
        self.assertEqual(p.nodes, ["small", "big", "mid"])
        job = {"name": "j1", "gpus": 2, "cpu_milli": 1000, "mem_mib": 1024}
        # Best fit: the node left with the fewest free GPUs, small (2 -> 0).
        first = p.place(job)
        self.assertEqual(first["placement"], "small:0,1")
        self.assertEqual(first["tasks"], [{"node": "small", "node_index": 0, "gpus": [0, 1]}])
        # Its order of preference: small, then mid (4 -> 2), then big.
        self.assertEqual([x["placement"] for x in p.rank(job, 5)],
                         ["small:0,1", "mid:0,1", "big:0,1"])
        p.started("j1", job, first)
        self.assertEqual(p.running, 1)
        self.assertEqual(p.place(job)["placement"], "mid:0,1")
        p.drain("mid")
        self.assertEqual(p.place(job)["placement"], "big:0,1")
        p.drain("mid", False)
        self.assertIsNone(p.place({"gpus": 8, "tasks": 2}))
        p.finished("j1")
        self.assertEqual(p.place(job)["placement"], "small:0,1")
        p.started("j2", {"gpus": 1}, [("big", [5])])
        self.assertEqual(p.place({"gpus": 8}), None)
        with self.assertRaises(KeyError):
            p.drain("nowhere")
        with self.assertRaises(KeyError):
            p.finished("j1")
        with self.assertRaisesRegex(ValueError, "unknown key 'gpu'"):
            p.place({"gpu": 1})

    def test_placer_with_a_python_policy(self):
        p = utilsim.Placer(CLUSTER, "most-free")
        self.assertEqual(p.place({"gpus": 1})["placement"], "big:0")
        with self.assertRaises(ZeroDivisionError):
            utilsim.Placer(CLUSTER, "raises").place({"name": "c", "gpus": 1})


if __name__ == "__main__":
    unittest.main()
