// The sweep output folder: run identities, the plan, results and failure
// records, and the event log (sweep_store.h).
#include "utilsim/sweep/sweep_store.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "utilsim/engine/simulator.h"
#include "utilsim/traces/text_writer.h"

namespace utilsim::sweep {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string Sha256Hex(const std::string& data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  EVP_Digest(data.data(), data.size(), md, &n, EVP_sha256(), nullptr);
  static const char* kHex = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < n; ++i) {
    out += kHex[md[i] >> 4];
    out += kHex[md[i] & 15];
  }
  return out;
}

Status WriteAtomic(const std::string& path, const std::string& text) {
  traces::AtomicFile f(path);
  if (Status s = f.Open(); !s.ok()) return s;
  if (Status s = f.Write(text); !s.ok()) return s;
  return f.Commit();
}

json ParamsJson(const std::vector<Param>& ps) {
  json a = json::array();
  for (const Param& p : ps) a.push_back(json::array({p.key, p.value, p.line}));
  return a;
}

bool ParamsFrom(const json& a, std::vector<Param>* out) {
  if (!a.is_array()) return false;
  for (const json& p : a) {
    if (!p.is_array() || p.size() != 3 || !p[0].is_string() || !p[1].is_string() ||
        !p[2].is_number_integer())
      return false;
    out->push_back({p[0].get<std::string>(), p[1].get<std::string>(), p[2].get<int>()});
  }
  return true;
}

bool IsDigest(const std::string& d) {
  if (d.size() != 64) return false;
  for (char c : d)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

}  // namespace

std::string RunDigest(const std::string& input_digest, const std::vector<Param>& options) {
  return Sha256Hex(std::string("utilsim sweep run\n") + UtilsimVersion() + "\n" + input_digest +
                   "\n" + CanonicalOptions(options));
}

std::string RunDbPath(const std::string& out, const std::string& digest) {
  return out + "/runs/" + digest + ".db";
}
std::string RunFailPath(const std::string& out, const std::string& digest) {
  return out + "/runs/" + digest + ".fail.json";
}

RunState StateOf(const std::string& out, const std::string& digest) {
  struct stat st;
  if (stat(RunDbPath(out, digest).c_str(), &st) == 0 && S_ISREG(st.st_mode)) return RunState::kDone;
  if (stat(RunFailPath(out, digest).c_str(), &st) == 0 && S_ISREG(st.st_mode))
    return RunState::kFailed;
  return RunState::kPending;
}

Status PrepareOutFolder(const std::string& out) {
  if (out.empty() || out == "-")
    return Status::Error(StatusCode::kInvalidArgument,
                         "--out: expected a folder, got '" + out + "'");
  struct stat st;
  if (lstat(out.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode))
      return Status::Error(StatusCode::kInvalidArgument,
                           out + ": is not a folder (a sweep writes a folder of runs)");
    // Only a sweep's own files may be there already.
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(out, ec)) {
      const std::string n = e.path().filename().string();
      if (n == "sweep.yaml" || n == "plan.jsonl" || n == "runs" || n == "log.jsonl" ||
          n == "slurm" || n.rfind(".", 0) == 0 || n.find(".db") != std::string::npos ||
          n.find(".csv") != std::string::npos)
        continue;
      return Status::Error(
          StatusCode::kInvalidArgument,
          out + ": holds '" + n + "', which no sweep writes; give an empty or a sweep's folder");
    }
  } else {
    const fs::path parent = fs::path(out).parent_path();
    if (!parent.empty() && !fs::is_directory(parent))
      return Status::Error(StatusCode::kIo,
                           out + ": folder " + parent.string() + " does not exist");
    if (mkdir(out.c_str(), 0777) != 0 && errno != EEXIST)
      return Status::Error(StatusCode::kIo, out + ": cannot create: " + std::strerror(errno));
  }
  const std::string runs = out + "/runs";
  if (lstat(runs.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode))
      return Status::Error(StatusCode::kInvalidArgument, runs + ": is not a folder");
  } else if (mkdir(runs.c_str(), 0777) != 0 && errno != EEXIST) {
    return Status::Error(StatusCode::kIo, runs + ": cannot create: " + std::strerror(errno));
  }
  return Status::Ok();
}

Status WritePlan(const std::string& out, const std::string& spec_text,
                 const std::vector<PlanEntry>& plan) {
  if (Status s = WriteAtomic(out + "/sweep.yaml", spec_text); !s.ok()) return s;
  std::string text;
  for (const PlanEntry& e : plan) {
    json j = {{"index", e.run.index},
              {"digest", e.digest},
              {"cost", e.cost},
              {"swept", ParamsJson(e.run.swept)},
              {"options", ParamsJson(e.run.options)},
              {"morris_point", e.run.morris_point},
              {"morris_group", e.run.morris_group}};
    text += j.dump() + "\n";
  }
  return WriteAtomic(out + "/plan.jsonl", text);
}

Result<std::vector<PlanEntry>> ReadPlan(const std::string& out) {
  const std::string path = out + "/plan.jsonl";
  std::ifstream f(path);
  if (!f)
    return Status::Error(
        StatusCode::kNotFound,
        path + ": no such file (not a sweep's folder, or `sweep run` not started)");
  std::vector<PlanEntry> plan;
  std::string line;
  for (int n = 1; std::getline(f, line); ++n) {
    if (line.empty()) continue;
    const std::string where = path + ":" + std::to_string(n) + ": ";
    json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
    PlanEntry e;
    if (j.is_discarded() || !j.is_object() || !j.contains("index") ||
        !j["index"].is_number_integer() || !j.contains("digest") || !j["digest"].is_string() ||
        !j.contains("cost") || !j["cost"].is_number() || !j.contains("morris_point") ||
        !j["morris_point"].is_number_integer() || !j.contains("morris_group") ||
        !j["morris_group"].is_number_integer() || !j.contains("swept") ||
        !ParamsFrom(j["swept"], &e.run.swept) || !j.contains("options") ||
        !ParamsFrom(j["options"], &e.run.options))
      return Status::Error(StatusCode::kInvalidArgument,
                           where + "expected a plan line written by `utilsim sweep`");
    e.run.index = j["index"].get<int>();
    e.digest = j["digest"].get<std::string>();
    e.cost = j["cost"].get<double>();
    e.run.morris_point = j["morris_point"].get<int>();
    e.run.morris_group = j["morris_group"].get<int>();
    if (!IsDigest(e.digest) || e.run.index != static_cast<int>(plan.size()))
      return Status::Error(StatusCode::kInvalidArgument,
                           where + "field 'digest'/'index': expected run " +
                               std::to_string(plan.size()) + " with a 64-digit hex digest");
    plan.push_back(std::move(e));
  }
  return plan;
}

Status RecordFailure(const std::string& out, const std::string& digest, const RunFailure& f) {
  json j = {{"status", f.status}, {"reason", f.reason}};
  return WriteAtomic(RunFailPath(out, digest), j.dump() + "\n");
}

Result<RunFailure> ReadFailure(const std::string& out, const std::string& digest) {
  const std::string path = RunFailPath(out, digest);
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  json j = json::parse(ss.str(), nullptr, false);
  if (!f || j.is_discarded() || !j.is_object() || !j.contains("status") ||
      !j["status"].is_string() || !j.contains("reason") || !j["reason"].is_string())
    return Status::Error(StatusCode::kInvalidArgument,
                         path + ": expected a failure record written by `utilsim sweep`");
  return RunFailure{j["status"].get<std::string>(), j["reason"].get<std::string>()};
}

Status AppendLog(const std::string& out, const std::string& event, const PlanEntry& e,
                 double wall_s, const std::string& detail) {
  json j = {{"event", event}, {"run", e.run.index}, {"digest", e.digest}};
  if (wall_s >= 0) j["wall_s"] = wall_s;
  if (!detail.empty()) j["detail"] = detail;
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  j["host"] = host;
  j["pid"] = static_cast<int64_t>(getpid());
  const std::string line = j.dump() + "\n";
  const std::string path = out + "/log.jsonl";
  int fd = open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd < 0)
    return Status::Error(StatusCode::kIo, path + ": cannot open: " + std::strerror(errno));
  const ssize_t w = write(fd, line.data(), line.size());
  close(fd);
  if (w != static_cast<ssize_t>(line.size()))
    return Status::Error(StatusCode::kIo, path + ": cannot append");
  return Status::Ok();
}

std::set<std::string> LoggedDone(const std::string& out) {
  std::set<std::string> done;
  std::ifstream f(out + "/log.jsonl");
  std::string line;
  while (std::getline(f, line)) {
    json j = json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("event") || !j.contains("digest") ||
        !j["event"].is_string() || !j["digest"].is_string() || j["event"] != "done")
      continue;
    done.insert(j["digest"].get<std::string>());
  }
  return done;
}

}  // namespace utilsim::sweep
