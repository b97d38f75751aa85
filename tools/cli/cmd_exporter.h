// `utilsim exporter` (cmd_exporter.cc): a recorded GPU-telemetry trace
// replayed as a dcgm-exporter on GET /metrics (utilsim/live/exporter.h).
// AddExporterCommand registers the subcommand and its options (CLI11 checks
// every value: usage errors exit 2); ExporterCommand reads the telemetry
// (errors: exit 1), prints the bound HOST:PORT on standard output as one
// line, serves until SIGTERM or SIGINT and then returns OK (exit 0).
#pragma once

#include <cstdint>
#include <string>

#include "utilsim/engine/status.h"

namespace CLI {
class App;
}  // namespace CLI

namespace utilsim::cli {

struct ExporterCliOptions {
  std::string telemetry, telemetry_format;
  std::string listen = "127.0.0.1:9400";
  double speed = 1;
  std::string start;  // "" = first sample; "S" absolute or "+S" after the first sample
  bool loop = false;
  std::string map;
  int32_t nodes = 0, gpus_per_node = 8;
  std::string node_prefix = "node";
  std::string hostname_label = "Hostname";
  std::string model_name = "unknown";
  std::string pod_namespace = "default";
  double hold_s = 300;
  bool list_entities = false;
};

CLI::App* AddExporterCommand(CLI::App* app, ExporterCliOptions& o);
Status ExporterCommand(const ExporterCliOptions& o);

}  // namespace utilsim::cli
