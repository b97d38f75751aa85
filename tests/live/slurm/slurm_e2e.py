#!/usr/bin/env python3
"""The Slurm live mode against a real Slurm (issue 16; docs/live-slurm.md).

Starts the loopback cluster of slurm_cluster.sh (munged, MariaDB, slurmdbd,
slurmctld, 5 slurmd: a1-a2 with 4 x a100, b1-b3 with 4 x v100; partitions
gpu and batch over all nodes) and checks, against Slurm itself:

  1. shadow mode: `utilsim slurm advise` polls every second while a scripted
     stream of 50 GPU jobs runs (sleep jobs with --gres=gpu[:TYPE]:K, two-node
     jobs, an array, a het job); slurmctld is killed and restarted half way;
     every GPU job the test saw pending for 2 s or more got advice, the
     advisor kept running and logged the outage and the recovery, and its
     /metrics answered;
  2. the slurm.conf/gres.conf reader yields the cluster slurmctld reports
     (sinfo --json): names, CPUs, memory, GPU counts and types;
  3. history in: sacct (SLURM_TIME_FORMAT=%s, --parsable2) converted by
     utilsim and replayed `as-recorded` on the slurm.conf cluster reproduces
     every recorded start and end to the second, on the recorded nodes;
  4. apply mode: a pending job pinned by `--apply` starts on the recommended
     node (visible in squeue --json's required_nodes and in sacct's node
     list), although another node freed first; `--revert` removes another
     job's pin (required_nodes empty again);
  5. `utilsim shadow-report` reads the advice log with the sacct history and
     replays it offline;
  6. with slurm-wlm-jwt-plugin installed: slurmrestd (JWT, v0.0.38) gives
     the advice the commands give, and a pinned version it does not serve is
     refused at start;
  7. with prometheus installed: `utilsim exporter` serves dcgm-exporter
     series for a v100 node's GPUs (40/60/0/100 % busy), a real Prometheus
     scrapes them, and the advisor's /metrics shows the job running there with
     its 4 GPUs 2.0 busy and 2 idle allocated (the join by node name and GPU
     index);
  8. `utilsim sweep` runs the same sweep with the local executor and as Slurm
     job arrays chunked to the cluster's MaxArraySize of 4 (sweep_check.py):
     byte-identical merged results.

Usage: slurm_e2e.py --binary build/tools/utilsim [--keep DIR]
Exit 77 (a ctest skip) when the Slurm packages are not installed. The cluster
is stopped on every exit, also on failure or SIGTERM.
"""
import argparse
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from sweep_check import check_sweep  # noqa: E402
CLUSTER = os.path.join(HERE, "slurm_cluster.sh")
SACCT_FIELDS = ("JobID,JobIDRaw,JobName,State,Submit,Eligible,Start,End,Elapsed,Timelimit,"
                "Partition,QOS,User,Account,Priority,AllocTRES,ReqTRES,NodeList,ExitCode")


class Failure(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Failure(what)
    print("  ok: " + what, flush=True)


class Env:
    def __init__(self, d, binary):
        self.d = d
        self.binary = binary
        self.env = dict(os.environ, SLURM_CONF=os.path.join(d, "etc", "slurm.conf"))
        self.rest_url = ""
        self.rest_skip = ""
        import pwd
        self.user = pwd.getpwuid(os.getuid()).pw_name

    def run(self, argv, check_rc=True, **kw):
        p = subprocess.run(argv, env=self.env, capture_output=True, text=True, timeout=120, **kw)
        if check_rc and p.returncode != 0:
            raise Failure(f"{' '.join(argv)}: exit {p.returncode}: {p.stderr.strip()[:500]}")
        return p

    def sbatch(self, *args):
        out = self.run(["sbatch", "--parsable", "-o", "/dev/null", *args]).stdout.strip()
        return out.split(";")[0]

    def squeue(self):
        p = self.run(["squeue", "--all", "--json"], check_rc=False)
        if p.returncode != 0:
            return None
        return json.loads(p.stdout)["jobs"]

    def utilsim(self, *args, check_rc=True):
        return self.run([self.binary, *args], check_rc=check_rc)


def display_id(j):
    if j.get("het_job_id"):
        return f"{j['het_job_id']}+{j['het_job_offset']}"
    if j.get("array_job_id") and j.get("array_task_id") is not None:
        return f"{j['array_job_id']}_{j['array_task_id']}"
    if j.get("array_job_id") and j.get("array_task_string"):
        return f"{j['array_job_id']}_[{j['array_task_string']}]"
    return str(j["job_id"])


def gpu_job(j):
    return "gpu" in (j.get("tres_per_node") or "") + (j.get("tres_per_job") or "") + \
        (j.get("tres_req_str") or "")


# ---------------------------------------------------------------- 2. cluster
def check_cluster_reader(e, sacct_path):
    print("2. the slurm.conf reader vs the cluster slurmctld runs", flush=True)
    p = e.utilsim("convert", "--trace", sacct_path, "--format", "sacct", "--cluster",
                  os.path.join(e.d, "etc", "slurm.conf"), "--out", os.path.join(e.d, "jobs.csv"),
                  "--cluster-out", "-")
    read = {}
    for line in p.stdout.splitlines():
        line = line.strip()
        if line.startswith("- {name:") and "count:" in line:
            fields = dict(kv.split(": ", 1) for kv in line[3:-1].split(", "))
            read[fields["name"].strip('"')] = (fields.get("gpu_model", "").strip('"'),
                                               int(fields.get("gpus", 0)),
                                               int(fields["cpu_cores"]),
                                               int(fields["memory_mib"]))
    nodes = json.loads(e.run(["sinfo", "--json"]).stdout)["nodes"]
    running = {}
    for n in nodes:
        _, gtype, count = n["gres"].split(":")[:3]
        running[n["name"]] = (gtype, int(count.split("(")[0]), n["cpus"], n["real_memory"])
    check(len(running) == 5, "sinfo lists 5 nodes")
    check(read == running, f"the slurm.conf reader's cluster equals slurmctld's: {read}")


# ------------------------------------------------------------- 1. the stream
def job_stream():
    """50 GPU jobs: (sbatch args, sleep seconds), a fixed script."""
    jobs = []
    shapes = [("gpu:a100:1", 2), ("gpu:v100:2", 3), ("gpu:1", 2), ("gpu:a100:4", 4),
              ("gpu:v100:4", 3), ("gpu:2", 2), ("gpu:a100:2", 3), ("gpu:v100:1", 1)]
    for k in range(40):
        gres, secs = shapes[k % len(shapes)]
        args = [f"--gres={gres}", "-c", str(1 + k % 3), "--mem", str(500 + 100 * (k % 5)),
                "-t", str(1 + k % 4)]
        jobs.append((args, secs + (k % 3)))
    # Two-node jobs (4 x v100 on each of 2 nodes) and untyped two-node jobs.
    for k in range(4):
        jobs.append((["-N", "2", "--gres=gpu:v100:4" if k % 2 == 0 else "--gres=gpu:2",
                      "--mem", "1000", "-t", "2"], 3))
    # An array of 4 tasks of 1 GPU, counted as 4 jobs.
    jobs.append((["--array=0-3", "--gres=gpu:1", "--mem", "300", "-t", "1"], 2))
    # A het job: 1 x a100 with 1 x v100, counted as 2 jobs.
    jobs.append((["--gres=gpu:a100:1", "--mem", "300", "-t", "1", ":", "--gres=gpu:v100:1",
                  "--mem", "300"], 2))
    return jobs


def run_stream(e, advise_url):
    print("1. shadow mode while 50 GPU jobs run; slurmctld restarted half way", flush=True)
    submitted = []
    pending_seen = {}  # display id -> (first seen pending, last seen pending)
    restarted = False
    start = time.time()
    stream = job_stream()
    for i, (args, secs) in enumerate(stream):
        if ":" in args:
            het = args.index(":")
            first, rest = args[:het], args[het + 1:]
            submitted.append(e.sbatch(*first, ":", *rest, "--wrap", f"sleep {secs}"))
        else:
            submitted.append(e.sbatch(*args, "--wrap", f"sleep {secs}"))
        if i % 6 == 5:
            observe(e, pending_seen)
            time.sleep(0.5)
        if i == len(stream) // 2 and not restarted:
            observe(e, pending_seen)
            # One look as an admin would take it (docs/live-slurm.md shows it).
            once = e.utilsim("slurm", "advise", "--once", "--log",
                             os.path.join(e.d, "once.jsonl")).stdout
            open(os.path.join(e.d, "once.txt"), "w").write(once)
            check(once.startswith("job ") and len(once.splitlines()) >= 2,
                  f"advise --once lists {len(once.splitlines()) - 1} pending GPU jobs")
            print("  killing slurmctld", flush=True)
            subprocess.run(["bash", CLUSTER, "stop-ctld", e.d], check=True)
            # Down for longer than a client's connect attempts last (about 5 s,
            # MessageTimeout), so the advisor sees at least one poll fail.
            time.sleep(7)
            subprocess.run(["bash", CLUSTER, "start-ctld", e.d], check=True)
            restarted = True
    while time.time() - start < 240:
        jobs = observe(e, pending_seen)
        if jobs is not None and not [j for j in jobs if j["job_state"] in
                                     ("PENDING", "RUNNING", "CONFIGURING", "COMPLETING")]:
            break
        time.sleep(0.5)
    else:
        raise Failure("the stream did not finish within 240 s")
    print(f"  the stream ran in {time.time() - start:.0f} s", flush=True)
    metrics = urllib.request.urlopen(advise_url + "/metrics", timeout=5).read().decode()
    open(os.path.join(e.d, "metrics.txt"), "w").write(metrics)
    return submitted, pending_seen, metrics


def observe(e, pending_seen):
    jobs = e.squeue()
    if jobs is None:
        return None
    now = time.time()
    for j in jobs:
        if j["job_state"] == "PENDING" and gpu_job(j):
            k = display_id(j)
            first = pending_seen.get(k, (now, now))[0]
            pending_seen[k] = (first, now)
    return jobs


def check_shadow(e, advice_log, pending_seen, metrics):
    lines = [json.loads(l) for l in open(advice_log) if l.strip()]
    advised = {l["job"] for l in lines if l["event"] == "advice"}
    # While slurmctld restarts, the advisor cannot read Slurm: a job pending
    # only then cannot be advised. Count each job's pending time outside the
    # outage the advisor logged (poll_error .. recovered).
    down = [l["t"] / 1000 for l in lines if l["event"] in ("poll_error", "recovered")]
    down_from, down_to = (down[0], down[-1]) if len(down) >= 2 else (0, 0)

    def up_time(a, b):
        return (b - a) - max(0.0, min(b, down_to) - max(a, down_from))

    long_pending = sorted(k for k, (a, b) in pending_seen.items() if up_time(a, b) >= 2.0)
    missing = [k for k in long_pending if k not in advised]
    check(len(long_pending) >= 5, f"{len(long_pending)} GPU jobs were pending for 2 s or more "
          f"while the advisor could read Slurm (it could not for {down_to - down_from:.1f} s)")
    check(not missing, f"every one of them got advice (missing: {missing})")
    events = [l["event"] for l in lines]
    check("poll_error" in events and "recovered" in events,
          "the advisor logged slurmctld's outage and its recovery")
    started = [l for l in lines if l["event"] == "started"]
    agree = sum(1 for l in started if l["agree"])
    check(len(started) >= 5, f"{len(started)} advised jobs seen starting ({agree} on the "
          f"advised nodes)")
    check("utilsim_slurm_polls_total{outcome=\"ok\"}" in metrics and
          "utilsim_slurm_gpus{state=\"total\"} 20" in metrics, "/metrics answered (20 GPUs)")


# ---------------------------------------------------------- 3. history in
def sacct(e, since, path):
    env = dict(e.env, SLURM_TIME_FORMAT="%s")
    p = subprocess.run(["sacct", "--allusers", "--duplicates", "--parsable2", "--starttime",
                        since, "--format=" + SACCT_FIELDS], env=env, capture_output=True,
                       text=True, timeout=60)
    if p.returncode != 0:
        raise Failure("sacct: " + p.stderr)
    with open(path, "w") as f:
        f.write(p.stdout)
    rows = [dict(zip(p.stdout.splitlines()[0].split("|"), l.split("|")))
            for l in p.stdout.splitlines()[1:] if l]
    return [r for r in rows if "." not in r["JobID"]]


def expand(hostlist):
    out = []
    for part in hostlist.replace("],", "]|").split("|") if "[" in hostlist else \
            hostlist.split(","):
        if "[" not in part:
            out.extend(x for x in part.split(",") if x)
            continue
        prefix, ranges = part.split("[")
        for r in ranges.rstrip("]").split(","):
            lo, _, hi = r.partition("-")
            for n in range(int(lo), int(hi or lo) + 1):
                out.append(f"{prefix}{n}")
    return out


def check_replay(e, rows, sacct_path):
    print("3. sacct replayed as-recorded reproduces every start and end", flush=True)
    done = [r for r in rows if r["Start"] not in ("Unknown", "None", "") and
            r["End"] not in ("Unknown", "None", "")]
    check(len(done) >= 50, f"sacct holds {len(done)} finished GPU job records")
    db = os.path.join(e.d, "replay.db")
    e.utilsim("run", "--trace", sacct_path, "--format", "sacct", "--cluster",
              os.path.join(e.d, "etc", "slurm.conf"), "--policy", "as-recorded", "--out", db)
    con = sqlite3.connect(db)
    got = {name: (start, finish, placement) for name, start, finish, placement in
           con.execute("SELECT name, start_s, finish_s, placement FROM jobs")}
    offsets, wrong, elsewhere = set(), [], []
    for r in done:
        if r["JobID"] not in got:
            wrong.append(r["JobID"] + " (missing)")
            continue
        start, finish, placement = got[r["JobID"]]
        offsets.add(int(r["Start"]) - round(start))
        if round(finish - start) != int(r["End"]) - int(r["Start"]):
            wrong.append(f"{r['JobID']}: ran {finish - start} s, recorded "
                         f"{int(r['End']) - int(r['Start'])} s")
        nodes = [t.split(":")[0] for t in placement.split(";")]
        if sorted(nodes) != sorted(expand(r["NodeList"])):
            elsewhere.append(f"{r['JobID']}: {nodes} vs {r['NodeList']}")
    check(not wrong, f"every replayed run time equals End - Start ({wrong[:5]})")
    check(len(offsets) == 1, f"every replayed start is the recorded Start minus one origin "
          f"({len(done)} jobs, offsets {sorted(offsets)[:5]})")
    check(not elsewhere, f"every job replayed on its recorded nodes ({elsewhere[:5]})")


# --------------------------------------------------------------- 4. apply
def wait_state(e, ids, state, secs=30):
    deadline = time.time() + secs
    while time.time() < deadline:
        q = {str(x["job_id"]): x["job_state"] for x in e.squeue() or []}
        if all(q.get(i) == state for i in ids):
            return
        time.sleep(0.2)
    raise Failure(f"jobs {ids} not {state} within {secs} s")


def check_apply(e):
    print("4. --apply pins a pending job to the advised node; --revert unpins", flush=True)
    # a1 busy 10 s (limit 1 min), a2 busy 5 s (limit 5 min): by the limits
    # a1 frees first, so the advice for J (1 x a100) is a1; Slurm alone would
    # start J on a2 at 5 s. K (4 x a100) goes to a2 after J.
    b1 = e.sbatch("-w", "a1", "--gres=gpu:a100:4", "--mem", "100", "-t", "1", "--wrap",
                  "sleep 10")
    b2 = e.sbatch("-w", "a2", "--gres=gpu:a100:4", "--mem", "100", "-t", "5", "--wrap", "sleep 5")
    wait_state(e, [b1, b2], "RUNNING")
    j = e.sbatch("-p", "gpu", "--gres=gpu:a100:1", "--mem", "100", "-t", "1", "--wrap", "sleep 1")
    k = e.sbatch("-p", "batch", "--gres=gpu:a100:4", "--mem", "100", "-t", "1", "--wrap",
                 "sleep 1")
    wait_state(e, [j, k], "PENDING")
    log1, log2 = os.path.join(e.d, "apply-gpu.jsonl"), os.path.join(e.d, "apply-batch.jsonl")
    for parts, log in (("gpu", log1), ("batch", log2)):
        e.utilsim("slurm", "advise", "--apply", "--apply-partitions", parts, "--apply-log", log,
                  "--log", os.path.join(e.d, "apply-advice.jsonl"), "--poll", "1",
                  "--duration", "1s", "--listen", "none")
    q = {str(x["job_id"]): x for x in e.squeue()}
    check(q[j]["job_state"] == "PENDING" and q[j]["required_nodes"] == "a1",
          f"job {j} pending with required_nodes a1 (squeue --json)")
    check(q[k]["required_nodes"] != "", f"job {k} pinned to {q[k]['required_nodes']}")
    out = e.utilsim("slurm", "advise", "--revert", log2).stdout
    q = {str(x["job_id"]): x for x in e.squeue()}
    check(q[k]["required_nodes"] == "" and "removed" in out,
          f"--revert removed job {k}'s pin: {out.strip()}")
    check_rest(e)
    deadline = time.time() + 60
    while time.time() < deadline:
        q = {str(x["job_id"]): x for x in e.squeue() or []}
        if all(x not in q or q[x]["job_state"] not in ("PENDING", "RUNNING", "COMPLETING")
               for x in (b1, b2, j, k)):
            break
        time.sleep(0.5)
    rows = {r["JobID"]: r for r in sacct(e, "now-1hour", os.path.join(e.d, "apply-sacct.txt"))}
    check(rows[j]["NodeList"] == "a1",
          f"job {j} ran on a1, the advised node (sacct NodeList {rows[j]['NodeList']}), "
          f"starting {int(rows[j]['Start']) - int(rows[b2]['End'])} s after a2 was free")


# ------------------------------------------------------------ 6. slurmrestd
def check_rest(e):
    url = e.rest_url
    if not url:
        print("6. slurmrestd part skipped: " + e.rest_skip, flush=True)
        return
    print("6. slurmrestd with a JWT gives the advice the commands give", flush=True)
    token = os.path.join(e.d, "etc", "jwt")
    logs = {}
    for how, extra in (("commands", []), ("rest", ["--rest", url, "--rest-user",
                                                   os.environ.get("USER", "root"),
                                                   "--rest-token-file", token])):
        logs[how] = os.path.join(e.d, f"once-{how}.jsonl")
        e.utilsim("slurm", "advise", "--once", "--log", logs[how], *extra)
    advice = {how: [(l["job"], l["nodes"], l["est_start"]) for l in map(json.loads, open(path))
                    if l["event"] == "advice"] for how, path in logs.items()}
    check(advice["rest"] == advice["commands"] and advice["rest"],
          f"slurmrestd v0.0.38 and the commands give the same advice {advice['rest']}")
    p = e.utilsim("slurm", "advise", "--once", "--log", logs["rest"], "--rest", url,
                  "--rest-user", "root", "--rest-token-file", token, "--rest-version", "v0.0.40",
                  check_rc=False)
    check(p.returncode == 1 and "does not serve data parser v0.0.40" in p.stderr,
          "a pinned data parser the server lacks is refused at start: " + p.stderr.strip())


# --------------------------------------------- 7. measured busy via Prometheus
def free_port():
    import socket
    with socket.socket() as so:
        so.bind(("127.0.0.1", 0))
        return so.getsockname()[1]


def check_measured(e, procs):
    prom = shutil.which("prometheus") or "/usr/bin/prometheus"
    if not os.path.exists(prom):
        print("7. measured-utilization part skipped: prometheus not installed", flush=True)
        return
    print("7. measured busy through dcgm-exporter series in a real Prometheus", flush=True)
    # A v100 node with all four GPUs free, as Slurm reports it. (Not always
    # b1: in one run a job asking for b1 stayed pending for 30 s after the
    # stream, the slurmctld restart and the apply part had ended; the cause
    # was not pinned down, so the test asks Slurm which node is free.)
    node = ""
    deadline = time.time() + 30
    while not node and time.time() < deadline:
        for n in json.loads(e.run(["sinfo", "--json"]).stdout)["nodes"]:
            if n["gres"].startswith("gpu:v100") and ":0(" in n["gres_used"] and \
                    n["state"] == "idle":
                node = n["name"]
                break
        time.sleep(0.5)
    check(node != "", f"node {node} has its 4 v100 free")
    # Four GPUs at 40, 60, 0 and 100 % busy: 2.0 busy, 2 idle.
    fixture = os.path.join(e.d, "dcgm.prom")
    with open(fixture, "w") as f:
        for t in (1700000000000, 1700000001000):
            for gpu, busy in enumerate((40, 60, 0, 100)):
                f.write(f'DCGM_FI_DEV_GPU_UTIL{{gpu="{gpu}",UUID="GPU-{node}-{gpu}",'
                        f'Hostname="{node}"}} {busy} {t}\n')

    def start(argv, log):
        p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=open(log, "w"), text=True,
                             start_new_session=True, env=e.env)
        procs.append(p)
        return p

    exp = start([e.binary, "exporter", "--telemetry", fixture, "--listen", "127.0.0.1:0",
                 "--loop"], os.path.join(e.d, "log", "exporter.log"))
    exp_addr = exp.stdout.readline().strip()
    port = free_port()
    with open(os.path.join(e.d, "prometheus.yml"), "w") as f:
        f.write("global: {scrape_interval: 1s, evaluation_interval: 1s}\n"
                "scrape_configs:\n  - job_name: dcgm\n"
                f"    static_configs: [{{targets: ['{exp_addr}']}}]\n")
    start([prom, f"--config.file={e.d}/prometheus.yml", f"--storage.tsdb.path={e.d}/tsdb",
           f"--web.listen-address=127.0.0.1:{port}"], os.path.join(e.d, "log", "prometheus.log"))
    job = e.sbatch("-w", node, "--gres=gpu:v100:4", "--mem", "100", "-t", "1", "--wrap", "sleep 30")
    wait_state(e, [job], "RUNNING")
    adv = start([e.binary, "slurm", "advise", "--poll", "1", "--listen", "127.0.0.1:0", "--log",
                 os.path.join(e.d, "measured-advice.jsonl"), "--prometheus",
                 f"http://127.0.0.1:{port}", "--scrape-interval", "1"],
                os.path.join(e.d, "log", "advisor-measured.log"))
    url = "http://" + adv.stdout.readline().split("http://")[1].split("/")[0]
    want = (f'utilsim_slurm_job_gpus{{job="{job}",node="{node}",user="{e.user}",'
            f'state="idle_allocated"}} 2')
    metrics = ""
    deadline = time.time() + 30
    while time.time() < deadline and want not in metrics:
        time.sleep(1)
        metrics = urllib.request.urlopen(url + "/metrics", timeout=5).read().decode()
    open(os.path.join(e.d, "metrics-measured.txt"), "w").write(metrics)
    check(want in metrics, f"job {job}'s 4 GPUs on {node} at 40/60/0/100 % busy: 2 idle "
          "allocated GPUs (utilsim_slurm_job_gpus)")
    check('utilsim_slurm_gpus{state="busy"} 2' in metrics and
          'utilsim_slurm_gpus{state="measured"} 4' in metrics,
          "cluster: 4 allocated GPUs measured, 2.0 busy")
    e.run(["scancel", job])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--keep", help="run in this folder and keep it")
    a = ap.parse_args()
    rc = subprocess.run(["bash", CLUSTER, "check"], capture_output=True, text=True)
    if rc.returncode != 0:
        print(rc.stdout.strip())
        return 77
    d = a.keep or tempfile.mkdtemp(prefix="utilsim-slurm-")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    advisor = None
    procs = []
    ok = False
    try:
        rest = subprocess.run(["bash", CLUSTER, "check"], capture_output=True, text=True,
                              env=dict(os.environ, SLURM_TEST_REST="1"))
        env = dict(os.environ, SLURM_TEST_PARTITIONS="gpu,batch", SLURM_TEST_MAX_ARRAY="4",
                   SLURM_TEST_REST="1" if rest.returncode == 0 else "0")
        p = subprocess.run(["bash", CLUSTER, "start", d], capture_output=True, text=True, env=env)
        if p.returncode != 0:
            raise Failure("the cluster did not start: " + p.stderr[-2000:])
        e = Env(d, os.path.abspath(a.binary))
        e.rest_skip = rest.stdout.strip()
        for line in open(os.path.join(d, "env")):
            if line.startswith("SLURMRESTD_URL="):
                e.rest_url = line.strip().split("=", 1)[1]
        since = time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(time.time() - 5))
        advice_log = os.path.join(d, "advice.jsonl")
        advisor = subprocess.Popen(
            [e.binary, "slurm", "advise", "--poll", "1", "--max-backoff", "2", "--log",
             advice_log, "--listen", "127.0.0.1:0"], env=e.env, stdout=subprocess.PIPE,
            stderr=open(os.path.join(d, "log", "advisor.log"), "w"), text=True,
            start_new_session=True)
        line = advisor.stdout.readline()
        if "serving http://" not in line:
            raise Failure("advisor did not start: " + line)
        url = "http://" + line.split("http://")[1].split("/")[0]
        submitted, pending_seen, metrics = run_stream(e, url)
        check(advisor.poll() is None, "the advisor is still running after the slurmctld restart")
        check_shadow(e, advice_log, pending_seen, metrics)
        advisor.send_signal(signal.SIGTERM)
        check(advisor.wait(timeout=10) == 0, "the advisor stopped cleanly on SIGTERM")
        advisor = None
        sacct_path = os.path.join(d, "sacct.txt")
        rows = sacct(e, since, sacct_path)
        check_cluster_reader(e, sacct_path)
        check_replay(e, rows, sacct_path)
        check_apply(e)
        print("5. shadow-report of the advice log with the sacct history", flush=True)
        rep = e.utilsim("shadow-report", advice_log, "--sacct", sacct_path, "--cluster",
                        os.path.join(d, "etc", "slurm.conf")).stdout
        open(os.path.join(d, "shadow-report.txt"), "w").write(rep)
        print(rep)
        check("agreement" in rep, "shadow-report prints the agreement")
        check_measured(e, procs)
        check_sweep(e, check, Failure)
        ok = True
    except Failure as f:
        print("FAILED: " + str(f), flush=True)
        for log in ("slurmctld.log", "advisor.log"):
            path = os.path.join(d, "log", log)
            if os.path.exists(path):
                print(f"--- {log} (last lines)\n" + "".join(open(path).readlines()[-30:]))
    finally:
        if advisor is not None:
            advisor.kill()
        for p in procs:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except OSError:
                pass
        subprocess.run(["bash", CLUSTER, "stop", d])
        if ok and not a.keep:
            subprocess.run(["rm", "-rf", d])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
