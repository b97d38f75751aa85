// PrometheusHarness (prometheus_harness.h).
#include "prometheus_harness.h"

#include <httplib.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "testutil/testutil.h"

namespace utilsim::testutil {

std::string PrometheusHarness::FindBinary(std::string* why) {
  if (const char* env = std::getenv("UTILSIM_PROMETHEUS"); env && *env) {
    if (access(env, X_OK) == 0) return env;
    *why = std::string("$UTILSIM_PROMETHEUS=") + env + " is not executable";
    return "";
  }
  if (access("/usr/bin/prometheus", X_OK) == 0) return "/usr/bin/prometheus";
  if (const char* path = std::getenv("PATH")) {
    std::stringstream ss(path);
    std::string dir;
    while (std::getline(ss, dir, ':')) {
      const std::string p = dir + "/prometheus";
      if (!dir.empty() && access(p.c_str(), X_OK) == 0) return p;
    }
  }
  *why = "prometheus not installed (apt-get install prometheus, or set $UTILSIM_PROMETHEUS)";
  return "";
}

PrometheusHarness::~PrometheusHarness() {
  child_.reset();
  std::error_code ec;
  if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
}

std::unique_ptr<PrometheusHarness> PrometheusHarness::Start(const std::string& target, int scrape_s,
                                                            int timeout_ms, std::string* error) {
  const std::string bin = FindBinary(error);
  if (bin.empty()) return nullptr;
  const std::string dir = TempDir();
  const std::string interval = std::to_string(scrape_s) + "s";
  WriteFile(dir + "/prometheus.yml",
            "global:\n  scrape_interval: " + interval + "\n  scrape_timeout: " + interval +
                "\n  evaluation_interval: " + interval +
                "\nscrape_configs:\n  - job_name: dcgm\n    static_configs:\n      - targets: ['" +
                target + "']\n");
  std::filesystem::create_directories(dir + "/data");
  const int port = FreeLocalPort();
  if (port <= 0) {
    *error = "no free port";
    return nullptr;
  }
  auto h = std::unique_ptr<PrometheusHarness>(new PrometheusHarness());
  h->url_ = "http://127.0.0.1:" + std::to_string(port);
  h->dir_ = dir;
  h->child_ = ChildProcess::Start(
      {bin, "--config.file=" + dir + "/prometheus.yml", "--storage.tsdb.path=" + dir + "/data",
       "--web.listen-address=127.0.0.1:" + std::to_string(port), "--log.level=info"},
      dir + "/prometheus.log", error);
  if (!h->child_) return nullptr;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  httplib::Client cli(h->url_);
  cli.set_connection_timeout(std::chrono::milliseconds(200));
  cli.set_read_timeout(std::chrono::milliseconds(500));
  while (std::chrono::steady_clock::now() < deadline) {
    int st = 0;
    if (h->child_->Exited(&st)) {
      *error = "prometheus exited (status " + std::to_string(st) + "): " + h->Log();
      return nullptr;
    }
    if (auto res = cli.Get("/-/ready"); res && res->status == 200) return h;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  const std::string log = h->Log();
  *error = "prometheus not ready within " + std::to_string(timeout_ms) +
           " ms: " + log.substr(log.size() > 2000 ? log.size() - 2000 : 0);
  return nullptr;
}

bool PrometheusHarness::WaitForFirstScrape(int timeout_ms, std::string* error) const {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  httplib::Client cli(url_);
  std::string last;
  while (std::chrono::steady_clock::now() < deadline) {
    if (auto res = cli.Get("/api/v1/targets"); res && res->status == 200) {
      last = res->body;
      const auto j = nlohmann::json::parse(res->body, nullptr, false);
      if (!j.is_discarded() && j.contains("data") && j["data"].contains("activeTargets")) {
        for (const auto& t : j["data"]["activeTargets"])
          if (t.value("health", "unknown") != "unknown") return true;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  *error = "prometheus did not scrape within " + std::to_string(timeout_ms) +
           " ms: " + last.substr(0, 1000);
  return false;
}

}  // namespace utilsim::testutil
