// The C ABI's versions, status names, errors and the boundary helpers.
#include <set>

#include "capi_internal.h"
#include "utilsim/engine/simulator.h"

namespace utilsim::capi {

namespace {

// Handed out when the error itself cannot be allocated.
utilsim_error kOutOfMemory{UTILSIM_RUNTIME, "out of memory"};

}  // namespace

int Fail(utilsim_error** error, int code, const char* message, const char* detail) noexcept {
  if (error && !*error) {
    try {
      *error = new utilsim_error{code, std::string(message) + detail};
    } catch (...) {
      *error = &kOutOfMemory;
    }
  }
  return code;
}

int Report(const Status& s, utilsim_error** error) noexcept {
  if (s.ok()) return UTILSIM_OK;
  return Fail(error, static_cast<int>(s.code()), s.message().c_str());
}

Status Null(const char* function, const char* argument) {
  return Status::Error(StatusCode::kInvalidArgument,
                       std::string(function) + ": " + argument + " is NULL");
}

Status Recode(const Status& s, StatusCode code) {
  if (s.ok() || s.code() != StatusCode::kRuntime) return s;
  return Status::Error(code, s.message());
}

std::string PlacementText(const utilsim_placement& p) {
  std::string out;
  for (size_t i = 0; i < p.tasks.size(); ++i) {
    if (i) out += ';';
    out += p.tasks[i].first + ':';
    bool first = true;
    for (int g = 0; g < 64; ++g)
      if (p.tasks[i].second >> g & 1) {
        out += (first ? "" : ",") + std::to_string(g);
        first = false;
      }
  }
  return out;
}

std::string NodesOf(const std::string& placement) {
  std::string out;
  std::set<std::string> seen;
  size_t pos = 0;
  while (pos < placement.size()) {
    size_t end = placement.find(';', pos);
    if (end == std::string::npos) end = placement.size();
    const std::string node = placement.substr(pos, placement.find(':', pos) - pos);
    if (!node.empty() && seen.insert(node).second) out += (out.empty() ? "" : ",") + node;
    pos = end + 1;
  }
  return out;
}

}  // namespace utilsim::capi

extern "C" {

int utilsim_abi_version(void) { return UTILSIM_C_ABI_VERSION; }

const char* utilsim_version(void) { return utilsim::UtilsimVersion(); }

const char* utilsim_status_name(int status) {
  if (status < 0 || status > UTILSIM_CANCELLED) return "unknown";
  return utilsim::StatusCodeName(static_cast<utilsim::StatusCode>(status));
}

const char* utilsim_error_message(const utilsim_error* error) {
  return error ? error->message.c_str() : "";
}

int utilsim_error_code(const utilsim_error* error) { return error ? error->code : UTILSIM_OK; }

void utilsim_error_free(utilsim_error* error) {
  if (error != &utilsim::capi::kOutOfMemory) delete error;
}

void utilsim_string_free(char* s) { delete[] s; }

}  // extern "C"
