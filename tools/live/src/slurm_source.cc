// The Slurm sources of slurm_source.h: commands and slurmrestd.
#include "utilsim/live/slurm_source.h"

#include <httplib.h>

#include <chrono>
#include <utility>

#include "utilsim/live/run_command.h"
#include "utilsim/live/slurm_objects.h"

namespace utilsim::live {
namespace {

std::string FirstLine(const std::string& s) {
  size_t b = s.find_first_not_of(" \n\r\t");
  if (b == std::string::npos) return "";
  size_t e = s.find('\n', b);
  std::string line = s.substr(b, e == std::string::npos ? std::string::npos : e - b);
  if (line.size() > 300) line = line.substr(0, 297) + "...";
  return line;
}

std::string Join(const std::vector<std::string>& argv) {
  std::string s;
  for (const std::string& a : argv) s += (s.empty() ? "" : " ") + a;
  return s;
}

class CommandSource : public SlurmSource {
 public:
  explicit CommandSource(SlurmCommandOptions o) : o_(std::move(o)) {}

  Result<std::string> Jobs() override { return Run({Bin("squeue"), "--all", "--json"}); }

  Result<std::string> Nodes() override {
    if (!use_sinfo_) {
      auto r = Call({Bin("scontrol"), "show", "nodes", "--json"});
      if (!r.ok()) return r.status();
      if (r.value().exit_code == 0) return std::move(r.value().out);
      const std::string err = r.value().err;
      if (err.find("unrecognized option") == std::string::npos &&
          err.find("invalid option") == std::string::npos)
        return Failed({Bin("scontrol"), "show", "nodes", "--json"}, r.value());
      use_sinfo_ = true;  // Slurm 22.05: sinfo --json lists the nodes
    }
    return Run({Bin("sinfo"), "--json"});
  }

  Status SetRequiredNodes(int64_t job_id, const std::string& hostlist) override {
    std::vector<std::string> argv = {Bin("scontrol"), "update", "JobId=" + std::to_string(job_id),
                                     "ReqNodeList=" + hostlist};
    auto r = Run(argv);
    return r.ok() ? Status::Ok() : r.status();
  }

  std::string Describe() const override { return "commands"; }

 private:
  std::string Bin(const char* name) const {
    return o_.bin_dir.empty() ? name : o_.bin_dir + "/" + name;
  }
  Result<internal::CommandResult> Call(const std::vector<std::string>& argv) {
    return internal::RunCommand(argv, o_.timeout_ms);
  }
  static Status Failed(const std::vector<std::string>& argv, const internal::CommandResult& r) {
    if (r.timed_out)
      return Status::Error(Join(argv) + ": no answer within the time limit (killed)");
    std::string why = FirstLine(r.err);
    if (why.empty()) why = FirstLine(r.out);
    return Status::Error(Join(argv) + ": exit " + std::to_string(r.exit_code) +
                         (why.empty() ? "" : ": " + why));
  }
  Result<std::string> Run(const std::vector<std::string>& argv) {
    auto r = Call(argv);
    if (!r.ok()) return r.status();
    if (r.value().exit_code != 0) return Failed(argv, r.value());
    return std::move(r.value().out);
  }

  SlurmCommandOptions o_;
  bool use_sinfo_ = false;
};

class RestSource : public SlurmSource {
 public:
  explicit RestSource(SlurmRestOptions o) : o_(std::move(o)), pins_(o_.commands) {}

  Result<std::string> Jobs() override { return Get("/jobs"); }
  Result<std::string> Nodes() override { return Get("/nodes"); }
  Status SetRequiredNodes(int64_t job_id, const std::string& hostlist) override {
    return pins_.SetRequiredNodes(job_id, hostlist);
  }
  std::string Describe() const override {
    return "slurmrestd " + o_.url + " (" + o_.data_parser + ")";
  }

  Result<std::string> Get(const std::string& what) {
    const std::string path = "/slurm/" + o_.data_parser + what;
    const std::string where = "slurmrestd " + o_.url + path;
    try {
      httplib::Client cli(o_.url);
      if (!cli.is_valid()) return Status::Error(where + ": cannot make an HTTP client");
      const auto t = std::chrono::milliseconds(o_.timeout_ms);
      cli.set_connection_timeout(t);
      cli.set_read_timeout(t);
      cli.set_write_timeout(t);
      auto res = cli.Get(path, httplib::Headers{{"Accept", "application/json"},
                                                {"X-SLURM-USER-NAME", o_.user},
                                                {"X-SLURM-USER-TOKEN", o_.token}});
      if (!res)
        return Status::Error(StatusCode::kIo,
                             where + ": request failed (" + httplib::to_string(res.error()) + ")");
      if (res->status != 200)
        return Status::Error(where + ": HTTP " + std::to_string(res->status) +
                             (res->body.empty() ? "" : ": " + FirstLine(res->body)));
      return std::move(res->body);
    } catch (const std::exception& e) {
      return Status::Error(where + ": " + e.what());
    }
  }

 private:
  SlurmRestOptions o_;
  CommandSource pins_;
};

}  // namespace

std::unique_ptr<SlurmSource> MakeCommandSource(SlurmCommandOptions options) {
  return std::make_unique<CommandSource>(std::move(options));
}

Result<std::unique_ptr<SlurmSource>> MakeRestSource(SlurmRestOptions options) {
  if (options.url.rfind("http://", 0) != 0 && options.url.rfind("https://", 0) != 0)
    return Status::Error(StatusCode::kInvalidArgument,
                         "slurmrestd URL '" + options.url + "' is not http:// or https://");
  while (!options.url.empty() && options.url.back() == '/') options.url.pop_back();
  if (options.user.empty() || options.token.empty())
    return Status::Error(StatusCode::kInvalidArgument,
                         "slurmrestd needs a user name and a JWT (scontrol token)");
  auto src = std::make_unique<RestSource>(options);
  auto ping = src->Get("/ping");
  if (!ping.ok()) {
    if (ping.status().message().find("HTTP 404") != std::string::npos)
      return Status::Error(StatusCode::kInvalidArgument,
                           "slurmrestd " + options.url + " does not serve data parser " +
                               options.data_parser + " (the pinned version; " +
                               ping.status().message() + ")");
    return ping.status();
  }
  // The version check: a server without the pinned parser answers 404
  // above; one that answers must say it is that version.
  const SlurmMeta meta = ParseSlurmMeta(ping.value());
  if (meta.data_parser != options.data_parser)
    return Status::Error(StatusCode::kInvalidArgument,
                         "slurmrestd " + options.url + " answers with data parser '" +
                             meta.data_parser + "', not the pinned " + options.data_parser);
  return std::unique_ptr<SlurmSource>(std::move(src));
}

}  // namespace utilsim::live
