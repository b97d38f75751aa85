// Benchmark of the Kubernetes extender over HTTP on loopback (issue 15,
// docs/live-k8s.md "Performance"): a LiveState of N nodes x 8 GPUs filled to
// about 70 % of its GPUs by bound pods with measured utilization, served by
// ExtenderServer; a load generator sends filter + prioritize pairs open-loop
// at --rate pairs per second for --seconds, each pair on its own schedule
// (latency counted from the scheduled send time, so a slow answer delays
// nothing unmeasured). Candidate lists are what kube-scheduler would send:
// --candidates K nodes (default: its adaptive percentageOfNodesToScore,
// max(100, N x (50 - N/125) %), at least 5 %), drawn per request.
//
// Prints one key=value line: pairs sent, errors (transport or non-200),
// answers shed and answers without an opinion (past the deadline; both
// from the server's own counters, over filter and prioritize), p50/p99/max microseconds
// of filter, prioritize and the pair as the client saw them, the server's
// own longest answer (server_max_us: from reading a request to its reply,
// what the deadline bounds), and peak RSS before and after.
//
// --pin 1 (with two CPUs or more) runs the server on CPU 0 and the generator
// on CPU 1 (pinned=1 in the output). On two cores that helps at 200/s and
// hurts under overload, where one core cannot generate 2x the load nor
// serve it (docs/performance.md); the default shares both cores.
//
// Usage: bench_extender [--nodes N] [--rate R] [--seconds S] [--clients C]
//                       [--candidates K] [--deadline-ms D] [--max-in-flight M] [--pin 0|1]
#include <httplib.h>
#include <sched.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "utilsim/engine/rng.h"
#include "utilsim/live/extender_server.h"

using namespace utilsim;
using namespace utilsim::live;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

int64_t PeakRssKib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

json Node(const std::string& name) {
  return {
      {"metadata",
       {{"name", name},
        {"uid", "u-" + name},
        {"labels",
         {{"nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB"},
          {"nvidia.com/gpu.memory", "81920"}}}}},
      {"status", {{"allocatable", {{"cpu", "128"}, {"memory", "1Ti"}, {"nvidia.com/gpu", "8"}}}}}};
}

json Pod(const std::string& name, int gpus, const std::string& node) {
  json spec = {
      {"containers",
       {{{"name", "c"},
         {"resources",
          {{"requests",
            {{"cpu", "8"}, {"memory", "64Gi"}, {"nvidia.com/gpu", std::to_string(gpus)}}}}}}}}};
  if (!node.empty()) spec["nodeName"] = node;
  return {{"metadata", {{"name", name}, {"namespace", "bench"}, {"uid", "u-" + name}}},
          {"spec", spec},
          {"status", {{"phase", node.empty() ? "Pending" : "Running"}}}};
}

// Pins the calling thread (and the threads it creates from now on) to one
// CPU; false when there is no such CPU.
bool PinTo(int cpu) {
  if (cpu >= static_cast<int>(std::thread::hardware_concurrency())) return false;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return sched_setaffinity(0, sizeof set, &set) == 0;
}

struct Sample {
  int64_t filter_us = 0, prioritize_us = 0, pair_us = 0;
};

int64_t Pct(std::vector<int64_t> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())))];
}

}  // namespace

int main(int argc, char** argv) {
  int nodes = 1000, clients = 4, deadline_ms = 20, max_in_flight = 8, candidates = 0, pin = 0;
  double rate = 200, seconds = 60;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    const char* v = argv[i + 1];
    if (k == "--nodes") nodes = std::atoi(v);
    if (k == "--rate") rate = std::atof(v);
    if (k == "--seconds") seconds = std::atof(v);
    if (k == "--clients") clients = std::atoi(v);
    if (k == "--candidates") candidates = std::atoi(v);
    if (k == "--deadline-ms") deadline_ms = std::atoi(v);
    if (k == "--max-in-flight") max_in_flight = std::atoi(v);
    if (k == "--pin") pin = std::atoi(v);
  }
  if (candidates <= 0) {
    const double pct = std::max(5.0, 50.0 - nodes / 125.0);
    candidates = std::min(nodes, std::max(100, static_cast<int>(nodes * pct / 100.0)));
  }
  LiveStateOptions so;
  so.policy = "least-loaded";
  auto made = LiveState::Create(so);
  if (!made.ok()) return 1;
  LiveState& state = *made.value();
  std::vector<std::string> names;
  for (int n = 0; n < nodes; ++n) {
    names.push_back("node-" + std::to_string(n));
    state.OnNode(WatchEvent::Type::kAdded, ParseNode(Node(names.back())).value());
  }
  // Fill to ~70 % of the GPUs: pods of 1, 2, 4 or 8 GPUs, each node's pods
  // summing to at most 8.
  Rng rng(1, 0, "bench-extender");
  auto measured = std::make_shared<MeasuredSnapshot>();
  int64_t pods = 0, gpus_used = 0;
  const int shapes[] = {1, 2, 4, 8};
  for (int n = 0; n < nodes; ++n) {
    int left = 8;
    while (left > 0 && gpus_used < static_cast<int64_t>(nodes) * 8 * 7 / 10) {
      const int g = shapes[rng.UniformInt(0, 3)];
      if (g > left) break;
      const std::string name = "run-" + std::to_string(pods++);
      state.OnPod(WatchEvent::Type::kAdded, ParsePod(Pod(name, g, names[n])).value());
      measured->pods["bench/" + name] = rng.UniformInt(0, 100) / 100.0;
      left -= g;
      gpus_used += g;
    }
  }
  state.OnSynced();
  state.SetMeasured(measured);
  const int64_t rss_before = PeakRssKib();
  Extender ext(&state, ExtenderOptions{{"nvidia.com/gpu"}, true});
  ServerOptions o;
  o.port = 0;
  o.threads = clients + 4;
  o.deadline_ms = deadline_ms;
  o.max_in_flight = max_in_flight;
  // --pin 1 with two CPUs or more: the server (its threads are made in
  // Start) on CPU 0, the load generator on CPU 1.
  const bool pinned = pin && PinTo(0);
  ExtenderServer server(o, &ext, &state, nullptr);
  if (!server.Start().ok()) return 1;

  // Request bodies, prepared ahead: random candidate lists.
  std::vector<std::string> bodies;
  for (int b = 0; b < 64; ++b) {
    std::vector<std::string> c = names;
    for (int i = 0; i < candidates; ++i)
      std::swap(c[i], c[i + rng.UniformInt(0, static_cast<int64_t>(c.size()) - 1 - i)]);
    c.resize(candidates);
    const int g = shapes[b % 4];
    bodies.push_back(
        json{{"Pod", Pod("new-" + std::to_string(b), g, "")}, {"NodeNames", c}}.dump());
  }
  const int64_t total = static_cast<int64_t>(rate * seconds);
  std::vector<std::vector<Sample>> samples(clients);
  std::atomic<int64_t> errors{0};
  const auto t0 = Clock::now() + std::chrono::milliseconds(200);
  std::vector<std::thread> threads;
  for (int t = 0; t < clients; ++t) {
    threads.emplace_back([&, t] {
      if (pinned) PinTo(1);
      httplib::Client cli("127.0.0.1", server.port());
      cli.set_keep_alive(true);
      cli.set_tcp_nodelay(true);  // as Go's net/http (kube-scheduler) does
      cli.set_read_timeout(10, 0);
      for (int64_t i = t; i < total; i += clients) {
        const auto at = t0 + std::chrono::nanoseconds(static_cast<int64_t>(i * 1e9 / rate));
        std::this_thread::sleep_until(at);
        const std::string& body = bodies[static_cast<size_t>(i) % bodies.size()];
        auto f = cli.Post("/filter", body, "application/json");
        const auto f1 = Clock::now();
        auto p = cli.Post("/prioritize", body, "application/json");
        const auto p1 = Clock::now();
        if (!f || !p || f->status != 200 || p->status != 200) {
          ++errors;
          continue;
        }
        using us = std::chrono::microseconds;
        samples[t].push_back({std::chrono::duration_cast<us>(f1 - at).count(),
                              std::chrono::duration_cast<us>(p1 - f1).count(),
                              std::chrono::duration_cast<us>(p1 - at).count()});
      }
    });
  }
  for (auto& th : threads) th.join();
  const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
  // The server's own count of answers without an opinion (shed, past the
  // deadline) and with one.
  const std::string metrics = server.MetricsText();
  auto count = [&](const std::string& verb, const std::string& outcome) {
    const std::string key =
        "utilsim_extender_requests_total{verb=\"" + verb + "\",outcome=\"" + outcome + "\"} ";
    const size_t at = metrics.find(key);
    return at == std::string::npos ? 0LL : std::atoll(metrics.c_str() + at + key.size());
  };
  const long long shed = count("filter", "shed") + count("prioritize", "shed");
  const long long no_opinion = count("filter", "no_opinion") + count("prioritize", "no_opinion");
  // The server's own longest answer (from reading the request to writing
  // the reply), the figure the deadline bounds.
  auto max_us = [&](const std::string& verb) {
    const std::string key = "utilsim_extender_request_max_seconds{verb=\"" + verb + "\"} ";
    const size_t at = metrics.find(key);
    return at == std::string::npos
               ? 0LL
               : static_cast<long long>(std::atof(metrics.c_str() + at + key.size()) * 1e6);
  };
  const long long server_max_us = std::max(max_us("filter"), max_us("prioritize"));
  server.Stop();
  std::vector<int64_t> f, p, pair;
  for (const auto& v : samples)
    for (const Sample& s : v) {
      f.push_back(s.filter_us);
      p.push_back(s.prioritize_us);
      pair.push_back(s.pair_us);
    }
  std::printf(
      "nodes=%d gpus=%d bound_pods=%lld candidates=%d rate=%.0f/s seconds=%.0f clients=%d "
      "pinned=%d "
      "deadline_ms=%d pairs=%lld errors=%lld shed=%lld no_opinion=%lld achieved=%.0f/s "
      "filter_p50_us=%lld filter_p99_us=%lld prioritize_p50_us=%lld prioritize_p99_us=%lld "
      "pair_p50_us=%lld pair_p99_us=%lld pair_max_us=%lld server_max_us=%lld rss_mib_before=%lld "
      "rss_mib_after=%lld\n",
      nodes, nodes * 8, static_cast<long long>(pods), candidates, rate, seconds, clients,
      pinned ? 1 : 0, deadline_ms, static_cast<long long>(total),
      static_cast<long long>(errors.load()), shed, no_opinion,
      static_cast<double>(pair.size()) / wall, static_cast<long long>(Pct(f, 0.5)),
      static_cast<long long>(Pct(f, 0.99)), static_cast<long long>(Pct(p, 0.5)),
      static_cast<long long>(Pct(p, 0.99)), static_cast<long long>(Pct(pair, 0.5)),
      static_cast<long long>(Pct(pair, 0.99)), static_cast<long long>(Pct(pair, 1.0)),
      server_max_us, static_cast<long long>(rss_before / 1024),
      static_cast<long long>(PeakRssKib() / 1024));
  return errors.load() == 0 ? 0 : 1;
}
