// The sweep's Slurm job-array executor (sweep_slurm.h).
#include "sweep_slurm.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "utilsim/live/run_command.h"
#include "utilsim/traces/text_writer.h"

namespace utilsim::cli {
namespace {

using live::internal::RunCommand;

std::string Bin(const std::string& dir, const std::string& name) {
  return dir.empty() ? name : dir + "/" + name;
}

Status WriteText(const std::string& path, const std::string& text) {
  traces::AtomicFile f(path);
  if (Status s = f.Open(); !s.ok()) return s;
  if (Status s = f.Write(text); !s.ok()) return s;
  return f.Commit();
}

// Single-quoted for the shell.
std::string Sh(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

Result<int> SlurmMaxArraySize(const std::string& slurm_bin) {
  auto r = RunCommand({Bin(slurm_bin, "scontrol"), "show", "config"}, 30000);
  if (!r.ok()) return r.status();
  if (r.value().exit_code != 0) return Status::Error("scontrol show config: " + r.value().err);
  std::istringstream in(r.value().out);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("MaxArraySize", 0) != 0) continue;
    const size_t eq = line.find('=');
    if (eq == std::string::npos) break;
    try {
      return std::stoi(line.substr(eq + 1));
    } catch (...) {
      return Status::Error("scontrol show config: MaxArraySize: expected a number, got '" +
                           line.substr(eq + 1) + "'");
    }
  }
  return 1001;
}

Result<std::vector<std::string>> SubmitSweep(const std::string& utilsim, const std::string& file,
                                             const std::string& out,
                                             const std::vector<const sweep::PlanEntry*>& pending,
                                             const SlurmSweepOptions& opt,
                                             const std::function<void(const std::string&)>& say) {
  std::vector<std::string> ids;
  if (pending.empty()) return ids;
  auto max_array = SlurmMaxArraySize(opt.slurm_bin);
  if (!max_array.ok()) return max_array.status();
  const int tasks = std::clamp<int>(opt.tasks > 0 ? opt.tasks : static_cast<int>(pending.size()), 1,
                                    static_cast<int>(pending.size()));
  // Round-robin over the longest-first order: each task gets a similar mix.
  std::vector<std::string> lines(tasks);
  for (size_t i = 0; i < pending.size(); ++i)
    lines[i % tasks] +=
        (lines[i % tasks].empty() ? "" : " ") + std::to_string(pending[i]->run.index);
  std::string text;
  for (const auto& l : lines) text += l + "\n";
  const std::string dir = out + "/slurm";
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status::Error(StatusCode::kIo, dir + ": cannot create: " + ec.message());
  if (Status s = WriteText(dir + "/tasks.txt", text); !s.ok()) return s;
  std::string script =
      "#!/bin/bash\n"
      "# utilsim sweep: one array task runs the runs on line\n"
      "# UTILSIM_SWEEP_TASK_BASE + SLURM_ARRAY_TASK_ID of tasks.txt (docs/sweeps.md).\n"
      "#SBATCH --job-name=utilsim-sweep\n"
      "#SBATCH --output=" +
      dir +
      "/task-%A_%a.out\n"
      "#SBATCH --cpus-per-task=" +
      std::to_string(opt.cpus_per_task) +
      "\n"
      "exec " +
      Sh(utilsim) + " sweep task " + Sh(file) + " --out " + Sh(out) + " --workers " +
      std::to_string(opt.cpus_per_task) +
      " --task $((UTILSIM_SWEEP_TASK_BASE + SLURM_ARRAY_TASK_ID))\n";
  if (Status s = WriteText(dir + "/sweep.sbatch", script); !s.ok()) return s;
  const int chunk = std::max(1, max_array.value());
  for (int base = 0; base < tasks; base += chunk) {
    const int n = std::min(chunk, tasks - base);
    std::string array = "0-" + std::to_string(n - 1);
    if (opt.max_parallel > 0) array += "%" + std::to_string(opt.max_parallel);
    std::vector<std::string> argv = {
        Bin(opt.slurm_bin, "sbatch"), "--parsable", "--array=" + array,
        "--export=ALL,UTILSIM_SWEEP_TASK_BASE=" + std::to_string(base)};
    argv.insert(argv.end(), opt.sbatch_args.begin(), opt.sbatch_args.end());
    argv.push_back(dir + "/sweep.sbatch");
    auto r = RunCommand(argv, 60000);
    if (!r.ok()) return r.status();
    if (r.value().exit_code != 0)
      return Status::Error("sbatch: " + r.value().err +
                           (ids.empty() ? ""
                                        : " (jobs submitted "
                                          "before: see " +
                                              dir + "/jobs.txt)"));
    std::string id = r.value().out;
    id = id.substr(0, id.find_first_of(";\n"));
    ids.push_back(id);
    std::ofstream(dir + "/jobs.txt", std::ios::app) << id << "\n";
    if (say)
      say("submitted array job " + id + ": tasks " + std::to_string(base) + ".." +
          std::to_string(base + n - 1) + " (--array=" + array + ")");
  }
  if (!opt.wait) return ids;
  std::string list;
  for (const auto& id : ids) list += (list.empty() ? "" : ",") + id;
  for (;;) {
    auto q = RunCommand({Bin(opt.slurm_bin, "squeue"), "-h", "-j", list, "-o", "%i"}, 30000);
    if (q.ok() && q.value().exit_code == 0 &&
        q.value().out.find_first_not_of(" \n") == std::string::npos)
      break;
    std::this_thread::sleep_for(std::chrono::seconds(opt.poll_s));
  }
  return ids;
}

Result<std::vector<int>> SlurmTaskRuns(const std::string& out, int task) {
  const std::string path = out + "/slurm/tasks.txt";
  std::ifstream f(path);
  if (!f) return Status::Error(StatusCode::kNotFound, path + ": no such file");
  std::string line;
  for (int n = 0; std::getline(f, line); ++n) {
    if (n != task) continue;
    std::vector<int> runs;
    std::istringstream in(line);
    std::string tok;
    while (in >> tok) {
      try {
        runs.push_back(std::stoi(tok));
      } catch (...) {
        return Status::Error(
            StatusCode::kInvalidArgument,
            path + ":" + std::to_string(n + 1) + ": expected run numbers, got '" + tok + "'");
      }
    }
    return runs;
  }
  return Status::Error(StatusCode::kInvalidArgument,
                       path + ": no task " + std::to_string(task) + " (the file has fewer lines)");
}

std::vector<std::string> SlurmJobIds(const std::string& out) {
  std::vector<std::string> ids;
  std::ifstream f(out + "/slurm/jobs.txt");
  std::string line;
  while (std::getline(f, line))
    if (!line.empty()) ids.push_back(line);
  return ids;
}

std::string SlurmJobStates(const std::string& slurm_bin, const std::vector<std::string>& ids) {
  if (ids.empty()) return "";
  std::string list;
  for (const auto& id : ids) list += (list.empty() ? "" : ",") + id;
  auto r =
      RunCommand({Bin(slurm_bin, "sacct"), "-n", "-P", "-X", "-j", list, "--format=State"}, 30000);
  if (!r.ok() || r.value().exit_code != 0) {
    r = RunCommand({Bin(slurm_bin, "squeue"), "-h", "-r", "-j", list, "-o", "%T"}, 30000);
    if (!r.ok() || r.value().exit_code != 0) return "(neither sacct nor squeue answered)";
  }
  std::map<std::string, int> count;
  std::istringstream in(r.value().out);
  std::string s;
  while (std::getline(in, s))
    if (!s.empty()) ++count[s.substr(0, s.find(' '))];
  std::string text;
  for (const auto& [state, n] : count)
    text += (text.empty() ? "" : ", ") + state + " " + std::to_string(n);
  return text.empty() ? "(no task listed)" : text;
}

}  // namespace utilsim::cli
