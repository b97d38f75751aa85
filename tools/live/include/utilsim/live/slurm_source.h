// Where the Slurm advisor reads Slurm's state and pins jobs
// (docs/live-slurm.md, "Reading Slurm"):
//  - commands (the default): `squeue --all --json`, and for nodes
//    `scontrol show nodes --json` (Slurm 23.02+) or, where that option does
//    not exist (22.05), `sinfo --json`; pins with `scontrol update
//    JobId=<id> ReqNodeList=<hostlist>`. Each command runs with a time
//    limit (run_command.h) and is an ordinary client RPC to slurmctld,
//    never anything inside it (nothing like job_submit/lua, which runs
//    under slurmctld's locks).
//  - slurmrestd with a JWT (X-SLURM-USER-NAME / X-SLURM-USER-TOKEN): GET
//    /slurm/<v>/jobs and /slurm/<v>/nodes with the data-parser version <v>
//    pinned; Create checks at start that the server answers /slurm/<v>/ping
//    with that version. Pins go through scontrol (the v0.0.38 job update
//    has no required-node field).
// Errors name the command or URL and quote Slurm's own message (the first
// line of stderr, or the response's first error). Thread-safety: one call
// at a time per source.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "utilsim/engine/status.h"

namespace utilsim::live {

class SlurmSource {
 public:
  virtual ~SlurmSource() = default;
  // The jobs JSON (squeue --json's shape).
  virtual Result<std::string> Jobs() = 0;
  // The nodes JSON ({"nodes": [...]}).
  virtual Result<std::string> Nodes() = 0;
  // Pins pending job `job_id` to `hostlist` ("" removes the pin).
  virtual Status SetRequiredNodes(int64_t job_id, const std::string& hostlist) = 0;
  // "commands" or "slurmrestd <url> (v0.0.38)".
  virtual std::string Describe() const = 0;
};

struct SlurmCommandOptions {
  std::string bin_dir;     // folder of squeue, sinfo, scontrol ("" = PATH)
  int timeout_ms = 30000;  // per command
};
std::unique_ptr<SlurmSource> MakeCommandSource(SlurmCommandOptions options = {});

struct SlurmRestOptions {
  std::string url;  // "http://host:port"
  std::string user;
  std::string token;                    // the JWT (scontrol token)
  std::string data_parser = "v0.0.38";  // pinned
  int timeout_ms = 30000;
  SlurmCommandOptions commands;  // for pins (scontrol)
};
// Errors: not an http(s) URL, no user or token, the server unreachable, or
// not serving `data_parser` (the ping's meta names another version).
Result<std::unique_ptr<SlurmSource>> MakeRestSource(SlurmRestOptions options);

}  // namespace utilsim::live
