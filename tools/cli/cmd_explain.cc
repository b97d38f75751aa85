// `utilsim explain` (docs/explain.md): one job's wait, by cause, from a
// results database.
#include <CLI/CLI.hpp>
#include <iostream>

#include "commands.h"
#include "utilsim/analysis/explain.h"
#include "utilsim/results/result_store.h"

namespace utilsim::cli {

CLI::App* AddExplainCommand(CLI::App* app, ExplainCliOptions& s) {
  CLI::App* cmd = app->add_subcommand(
      "explain",
      "Why a job waited: its queued time by primary cause (capacity, gpu-model, fragmentation, "
      "co-resource, placement, mig-layout, reservation, queue-order, recorded-start, "
      "preemption, power-on) and the timeline of its wait, with the job whose reservation held it "
      "or the "
      "jobs ahead of it in the queue (docs/explain.md). Reads a results database of `run`, "
      "`compare` or `demo`");
  cmd->add_option("--db", s.db, "Results database (docs/results.md)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--job", s.job, "The job: its name, or #INDEX for its index in the run")
      ->required();
  cmd->add_option("--run", s.run,
                  "The run's label (the policy, e.g. best-fit) when the database holds several");
  cmd->add_flag("--json", s.json, "Print one JSON object");
  return cmd;
}

Status ExplainCommand(const ExplainCliOptions& s) {
  auto runs = ReadResults(s.db);
  if (!runs.ok()) return runs.status();
  auto e = ExplainJob(runs.value(), s.run, s.job);
  if (!e.ok()) return e.status();
  std::cout << (s.json ? ExplanationJson(e.value()) : FormatExplanation(e.value()));
  return Status::Ok();
}

}  // namespace utilsim::cli
