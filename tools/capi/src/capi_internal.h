// What the C ABI's sources share: the handles behind the opaque types and
// the boundary every exported function goes through (Call), which turns a
// Status into the returned code and *error, and any C++ exception into
// UTILSIM_RUNTIME, so none crosses the ABI.
#pragma once

#include <cstdint>
#include <exception>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "utilsim/analysis/decide.h"
#include "utilsim/analysis/run_spec.h"
#include "utilsim/c/utilsim.h"
#include "utilsim/engine/metrics.h"
#include "utilsim/engine/status.h"
#include "utilsim/io/inputs.h"

struct utilsim_error {
  int code = UTILSIM_RUNTIME;
  std::string message;
};

struct utilsim_inputs {
  utilsim::Inputs in;
};

struct utilsim_spec {
  utilsim::RunSpec spec;
  std::string profiles;  // "" = the built-in policies only
};

struct utilsim_result {
  utilsim::RunResult run;
  std::string policy;
  std::vector<int32_t> gpus;       // per job record: tasks x GPUs per task, as requested
  std::vector<std::string> nodes;  // per job record: its placement's distinct nodes
};

struct utilsim_placement {
  std::vector<std::pair<std::string, uint64_t>> tasks;  // node name, GPU mask
  std::string text;                                     // "node:gpu,gpu;node:gpu"
};

struct utilsim_placement_list {
  std::vector<utilsim_placement> items;
};

struct utilsim_placer {
  std::unique_ptr<utilsim::DecisionSession> session;
};

namespace utilsim::capi {

// Sets *error (when error is not NULL and *error is NULL) to code and
// message; returns the code. Never throws: out of memory gives a shared
// static error that utilsim_error_free leaves alone.
int Fail(utilsim_error** error, int code, const char* message, const char* detail = "") noexcept;
// UTILSIM_OK, or Fail with the status's code and message.
int Report(const Status& s, utilsim_error** error) noexcept;

// Runs `body` (returning a Status) behind the ABI boundary.
template <typename F>
int Call(utilsim_error** error, F&& body) noexcept {
  try {
    return Report(body(), error);
  } catch (const std::bad_alloc&) {
    return Fail(error, UTILSIM_RUNTIME, "out of memory");
  } catch (const std::exception& e) {
    return Fail(error, UTILSIM_RUNTIME, "internal error: ", e.what());
  } catch (...) {
    return Fail(error, UTILSIM_RUNTIME, "internal error: unknown exception");
  }
}

// "<function>: <argument> is NULL" (UTILSIM_INVALID_ARGUMENT).
Status Null(const char* function, const char* argument);
// An error whose code is the generic kRuntime re-coded as `code` (readers
// and the registry do not always say what kind of error they give).
Status Recode(const Status& s, StatusCode code);
// "" for NULL.
inline std::string Str(const char* s) { return s ? s : ""; }

// The placement's text and the distinct nodes of a results placement
// string ("a:0,1;b:;a:2" -> "a,b").
std::string PlacementText(const utilsim_placement& p);
std::string NodesOf(const std::string& placement);

}  // namespace utilsim::capi
