// `utilsim decide`: the JSON decision protocol (utilsim/analysis/decide.h)
// over standard input and output, one request per line in, one response per
// line out, flushed after each, so a scheduler in another process can hold a
// pipe to it.
#include <CLI/CLI.hpp>
#include <iostream>
#include <string>

#include "cli_checks.h"
#include "cli_options.h"
#include "commands.h"
#include "utilsim/analysis/decide.h"

namespace utilsim::cli {

CLI::App* AddDecideCommand(CLI::App* app, CliOptions& o, DecideCliOptions& d) {
  CLI::App* cmd = app->add_subcommand(
      "decide",
      "Answer placement queries for a scheduler in another process: reads one JSON request per "
      "line on standard input (place, rank, started, finished, drain, state, version) and writes "
      "one JSON response per line on standard output, keeping the cluster's state between them "
      "(docs/embedding.md, \"Decisions from another process\"); exits 0 at the end of input");
  cmd->add_option("--cluster", d.cluster, "YAML cluster spec the decisions are made on")
      ->required()
      ->group(kClusterGroup);
  cmd->add_option("--policy", d.policy,
                  "Placement policy or profile (`utilsim policies`; NAME:key=value parameters "
                  "allowed)")
      ->capture_default_str()
      ->group(kPolicyGroup);
  AddProfilesOption(cmd, o);
  cmd->add_option("--seed", d.seed, "Seed of the policies that draw (random): 0..2^64-1")
      ->transform(checks::Seed())
      ->capture_default_str()
      ->group(kPolicyGroup);
  return cmd;
}

Status DecideCommand(const DecideCliOptions& d, const PolicyRegistry& reg, std::istream& in,
                     std::ostream& out) {
  auto session = DecisionSession::Open(d.cluster, d.policy, reg, d.seed);
  // The policy was checked (RunMain), so what is left is the cluster.
  if (!session.ok()) return session.status().Prefixed("--cluster: ");
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;  // blank: no response
    out << session.value()->Handle(line) << '\n';
    out.flush();
    if (!out) return Status::Error(StatusCode::kIo, "standard output: write error");
  }
  if (in.bad()) return Status::Error(StatusCode::kIo, "standard input: read error");
  return Status::Ok();
}

}  // namespace utilsim::cli
