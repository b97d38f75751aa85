// The label set `utilsim exporter` serves a series with (exporter.h), in
// dcgm-exporter's order: gpu, UUID, device, modelName, GPU_I_ID, the host
// label, container, namespace, pod. Values escaped as the text format wants
// (\\, \", \n).
#pragma once

#include <string>

#include "utilsim/live/exporter.h"

namespace utilsim::live::internal {

// "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" from a hash of node and gpu:
// stable across runs, distinct per GPU (not a real UUID).
std::string MakeUuid(const std::string& node, int32_t gpu);
std::string LabelSet(const Replay::Series& s, const ServeOptions& serve);
std::string EscapeLabel(const std::string& v);
// A field for a CSV row: quoted when it holds a comma, quote or newline.
std::string CsvField(const std::string& v);

}  // namespace utilsim::live::internal
