#!/usr/bin/env python3
"""`make live-demo`: the Kubernetes live mode end to end on one machine.

Starts, all on 127.0.0.1:
  * `utilsim exporter`, replaying recorded GPU busy time as dcgm-exporter
    metrics (the Alibaba GenAI pod duty cycles from $UTILSIM_TRACES placed on
    4 nodes x 8 GPUs, sped up 120x; without the traces, the two-node test
    fixture);
  * a real Prometheus scraping it every second;
  * a stand-in API server (there is no Kubernetes here) serving the 4 nodes
    and the pods as core/v1 lists and watch streams;
  * `utilsim serve k8s-extender`, reading both.
Then it fires a recorded pod stream at the extender, as kube-scheduler would:
the first GPU pods of the Alibaba cluster-trace-gpu-v2023 "openb" list (or a
built-in list without the traces), each with filter + prioritize. The stand-in
scheduler binds each pod where kube-scheduler's default scoring
(NodeResourcesFit LeastAllocated on cpu and memory) plus the extender's score
(weight 1) is highest, announces the binding on the pod watch, and deletes the
pod when its (compressed) lifetime is over. At the end it prints
`utilsim shadow-report` of the extender's shadow log and replays the same pods
offline under two policies with `utilsim compare --format k8s-shadow`.

Usage: tools/live-demo/live_demo.py [BUILD_DIR]   (default build)
Every process is stopped on exit, also on failure or Ctrl-C.
"""
import csv
import json
import os
import queue
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build")
UTILSIM = os.path.join(BUILD, "tools", "utilsim")
TRACES = os.environ.get("UTILSIM_TRACES", os.path.join(ROOT, "..", "shared", "traces"))
NODES = [f"node-{k}" for k in range(4)]
PODS = 60  # pods fired
ARRIVAL_S = 0.4  # between pods
LIFE_SCALE = 1 / 20000.0  # recorded lifetime (s) -> demo seconds
procs = []


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(argv, log):
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=open(log, "w"), text=True,
                         start_new_session=True)
    procs.append(p)
    return p


def stop_all():
    for p in procs:
        if p.poll() is None:
            try:
                os.killpg(p.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
    for p in procs:
        try:
            p.wait(timeout=5)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)


def node_obj(name):
    alloc = {"cpu": "96", "memory": "768Gi", "nvidia.com/gpu": "8", "pods": "110"}
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "uid": "uid-" + name, "resourceVersion": "1",
                         "labels": {"kubernetes.io/hostname": name,
                                    "nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB",
                                    "nvidia.com/gpu.memory": "81920"}},
            "spec": {}, "status": {"allocatable": alloc, "capacity": alloc,
                                   "conditions": [{"type": "Ready", "status": "True"}]}}


def pod_obj(p, node=""):
    req = {"cpu": f"{p['cpu_milli']}m", "memory": f"{p['memory_mib']}Mi",
           "nvidia.com/gpu": str(max(1, p["num_gpu"]))}
    if p["num_gpu"] == 1 and p["gpu_milli"] < 1000:
        req["nvidia.com/gpucores"] = str(max(1, p["gpu_milli"] // 10))  # a HAMi-style share
    spec = {"schedulerName": "default-scheduler",
            "containers": [{"name": "main", "image": "train", "resources": {"requests": req}}]}
    if node:
        spec["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": p["name"], "namespace": "demo", "uid": "uid-" + p["name"],
                         "resourceVersion": str(p.get("rv", 1))},
            "spec": spec, "status": {"phase": "Running" if node else "Pending"}}


def load_pods():
    path = os.path.join(TRACES, "alibaba-gpu-v2023", "openb_pod_list_default.csv")
    out = []
    if os.path.exists(path):
        with open(path) as f:
            for row in csv.DictReader(f):
                if int(row["num_gpu"]) == 0 or row["pod_phase"] != "Running":
                    continue
                life = int(row["deletion_time"]) - int(row["scheduled_time"])
                out.append({"name": row["name"], "cpu_milli": int(row["cpu_milli"]),
                            "memory_mib": int(row["memory_mib"]), "num_gpu": int(row["num_gpu"]),
                            "gpu_milli": int(row["gpu_milli"]),
                            "life_s": min(30.0, max(3.0, life * LIFE_SCALE))})
                if len(out) == PODS:
                    break
        return out, "the first %d GPU pods of %s" % (len(out), path)
    for i in range(PODS):  # built-in: a mix of whole and shared GPUs
        g = [1, 1, 2, 4, 1, 8][i % 6]
        out.append({"name": f"pod-{i:03d}", "cpu_milli": 4000 * g, "memory_mib": 16384 * g,
                    "num_gpu": g, "gpu_milli": 500 if i % 5 == 0 and g == 1 else 1000,
                    "life_s": 3.0 + (i * 7) % 20})
    return out, "a built-in list of %d pods ($UTILSIM_TRACES not found)" % PODS


class Api:
    """The stand-in API server's state: lists and one watch queue per open watch."""

    def __init__(self):
        self.lock = threading.Lock()
        self.rv = 100
        self.pods = {}
        self.watchers = {"nodes": [], "pods": []}

    def event(self, kind, typ, obj):
        with self.lock:
            self.rv += 1
            obj["metadata"]["resourceVersion"] = str(self.rv)
            if kind == "pods":
                if typ == "DELETED":
                    self.pods.pop(obj["metadata"]["name"], None)
                else:
                    self.pods[obj["metadata"]["name"]] = obj
            line = json.dumps({"type": typ, "object": obj}) + "\n"
            for q in self.watchers[kind]:
                q.put(line)


API = Api()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        path, _, query = self.path.partition("?")
        kind = "nodes" if path.endswith("/nodes") else "pods" if path.endswith("/pods") else ""
        if not kind:
            self.send_error(404)
            return
        if "watch=1" in query or "watch=true" in query:
            q = queue.Queue()
            with API.lock:
                API.watchers[kind].append(q)
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            try:
                while True:
                    try:
                        line = q.get(timeout=1.0)
                    except queue.Empty:
                        continue
                    data = line.encode()
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                    self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                pass
            finally:
                with API.lock:
                    API.watchers[kind].remove(q)
            return
        with API.lock:
            items = [node_obj(n) for n in NODES] if kind == "nodes" else list(API.pods.values())
            body = json.dumps({"kind": "NodeList" if kind == "nodes" else "PodList",
                               "apiVersion": "v1",
                               "metadata": {"resourceVersion": str(API.rv)},
                               "items": items}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def post(url, body):
    req = urllib.request.Request(url, data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=5) as r:
        return json.loads(r.read())


def wait_for(url, seconds):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=1) as r:
                if r.status == 200:
                    return True
        except Exception:
            time.sleep(0.2)
    return False


def main():
    if not os.path.exists(UTILSIM):
        sys.exit(f"live-demo: {UTILSIM} not built (run make build)")
    prom_bin = shutil.which("prometheus") or "/usr/bin/prometheus"
    if not os.path.exists(prom_bin):
        sys.exit("live-demo: prometheus not installed (tools/install-deps.sh test installs it)")
    work = tempfile.mkdtemp(prefix="utilsim-live-demo-")
    print(f"live-demo: working in {work}")
    # 1. The exporter, on recorded busy time.
    exp_port = free_port()
    genai = os.path.join(TRACES, "alibaba-genai-v2026", "pod_gpu_duty_cycle_anon.csv")
    if os.path.exists(genai):
        exp_args = ["--telemetry", genai, "--nodes", "4", "--gpus-per-node", "8", "--speed", "120",
                    "--loop"]
        source = f"{genai} on 4 nodes x 8 GPUs at 120x"
    else:
        exp_args = ["--telemetry", os.path.join(ROOT, "tests/fixtures/live/two_nodes.prom"),
                    "--speed", "1", "--loop"]
        source = "tests/fixtures/live/two_nodes.prom"
    exporter = start([UTILSIM, "exporter", "--listen", f"127.0.0.1:{exp_port}"] + exp_args,
                     os.path.join(work, "exporter.log"))
    print(f"live-demo: exporter on 127.0.0.1:{exporter.stdout.readline().strip().split(':')[-1]}"
          f", replaying {source}")
    # 2. Prometheus.
    prom_port = free_port()
    with open(os.path.join(work, "prometheus.yml"), "w") as f:
        f.write("global: {scrape_interval: 1s, evaluation_interval: 1s}\n"
                "scrape_configs:\n  - job_name: dcgm\n"
                f"    static_configs: [{{targets: ['127.0.0.1:{exp_port}']}}]\n")
    start([prom_bin, f"--config.file={work}/prometheus.yml", f"--storage.tsdb.path={work}/tsdb",
           f"--web.listen-address=127.0.0.1:{prom_port}"], os.path.join(work, "prometheus.log"))
    if not wait_for(f"http://127.0.0.1:{prom_port}/-/ready", 20):
        sys.exit("live-demo: prometheus did not become ready (see prometheus.log)")
    print(f"live-demo: prometheus on 127.0.0.1:{prom_port}, scraping every 1 s")
    # 3. The stand-in API server and the extender.
    api = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    api.daemon_threads = True
    threading.Thread(target=api.serve_forever, daemon=True).start()
    api_url = f"http://127.0.0.1:{api.server_address[1]}"
    with open(os.path.join(work, "kubeconfig"), "w") as f:
        f.write("apiVersion: v1\nkind: Config\ncurrent-context: demo\n"
                f"clusters: [{{name: demo, cluster: {{server: '{api_url}'}}}}]\n"
                "users: [{name: demo, user: {token: demo}}]\n"
                "contexts: [{name: demo, context: {cluster: demo, user: demo}}]\n")
    shadow = os.path.join(work, "shadow.jsonl")
    with open(os.path.join(work, "extender.yaml"), "w") as f:
        f.write("listen: 127.0.0.1:0\npolicy: least-loaded\n"
                f"kubernetes: {{kubeconfig: {work}/kubeconfig}}\n"
                f"prometheus: {{url: 'http://127.0.0.1:{prom_port}', scrape_interval_s: 1, "
                "poll_s: 1}\n"
                f"shadow_log: {shadow}\n")
    ext = start([UTILSIM, "serve", "k8s-extender", "--config", f"{work}/extender.yaml"],
                os.path.join(work, "extender.log"))
    line = ext.stdout.readline().strip()
    print(f"live-demo: {line}")
    ext_url = line.split(" on ")[-1]
    if not wait_for(ext_url + "/readyz", 15):
        sys.exit("live-demo: the extender did not become ready (see extender.log)")
    time.sleep(3)  # a few scrapes and polls, so the first pods see measurements
    # 4. The pod stream.
    pods, what = load_pods()
    print(f"live-demo: firing {what}, one every {ARRIVAL_S} s\n")
    used = {n: [0, 0] for n in NODES}  # cpu milli, memory MiB of the pods bound there
    ends = []  # (time, pod, node)
    agree = bound = 0
    for i, p in enumerate(pods):
        now = time.time()
        for e in [e for e in ends if e[0] <= now]:
            ends.remove(e)
            API.event("pods", "DELETED", pod_obj(e[1], e[2]))
            used[e[2]][0] -= e[1]["cpu_milli"]
            used[e[2]][1] -= e[1]["memory_mib"]
        args = {"Pod": pod_obj(p), "NodeNames": NODES}
        passed = post(ext_url + "/filter", args)["NodeNames"]
        scores = {h["Host"]: h["Score"] for h in post(ext_url + "/prioritize",
                                                     {"Pod": pod_obj(p), "NodeNames": passed})}
        if not passed:
            print(f"  {p['name']}: no node fits now; left pending")
            continue
        # kube-scheduler's LeastAllocated (0..100) + extender score x weight 1 x 10.
        def default_score(n):
            return ((96000 - used[n][0] - p["cpu_milli"]) / 96000 +
                    (786432 - used[n][1] - p["memory_mib"]) / 786432) / 2 * 100
        node = max(passed, key=lambda n: (default_score(n) + scores.get(n, 0) * 10, n))
        best = max(scores, key=lambda n: (scores[n], n)) if scores else ""
        agree += node == best
        bound += 1
        used[node][0] += p["cpu_milli"]
        used[node][1] += p["memory_mib"]
        API.event("pods", "ADDED", pod_obj(p, node))
        ends.append((now + p["life_s"], p, node))
        if i < 8 or i % 10 == 0:
            print(f"  {p['name']}: {p['num_gpu']} GPU x {p['gpu_milli']} milli; utilsim scores "
                  f"{json.dumps(scores)}; bound to {node}")
        time.sleep(ARRIVAL_S)
    deadline = time.time() + 35
    while ends and time.time() < deadline:
        now = time.time()
        for e in [e for e in ends if e[0] <= now]:
            ends.remove(e)
            API.event("pods", "DELETED", pod_obj(e[1], e[2]))
        time.sleep(0.2)
    time.sleep(1.5)
    with urllib.request.urlopen(ext_url + "/metrics") as r:
        metrics = [l for l in r.read().decode().splitlines()
                   if l.startswith("utilsim_extender_requests_total") and not l.endswith(" 0")]
    os.killpg(ext.pid, signal.SIGTERM)
    ext.wait(timeout=10)
    print(f"\nlive-demo: the stand-in scheduler bound {bound} of {len(pods)} pods, {agree} of them "
          "on utilsim's first choice\nlive-demo: the extender's own counters:")
    for m in metrics:
        print("  " + m)
    print("\n$ utilsim shadow-report shadow.jsonl")
    sys.stdout.flush()
    subprocess.run([UTILSIM, "shadow-report", shadow], check=True)
    print("\n$ utilsim compare --trace shadow.jsonl --format k8s-shadow "
          "--policies fifo+best-fit,fifo+least-loaded")
    sys.stdout.flush()
    subprocess.run([UTILSIM, "compare", "--trace", shadow, "--format", "k8s-shadow",
                    "--policies", "fifo+best-fit,fifo+least-loaded",
                    "--out", os.path.join(work, "replay.db")], check=True)
    print(f"\nlive-demo: logs and the shadow log are in {work}")


if __name__ == "__main__":
    try:
        main()
    finally:
        stop_all()
