// Fuzz harness: feeds arbitrary bytes to one text reader, chosen by
// $UTILSIM_FUZZ_TARGET. A reader may return an error for any input; it must
// never crash, hang, leak or read out of bounds (ASan/UBSan catch those).
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <string>

#include "fuzz_live_targets.h"
#include "fuzz_sweep_targets.h"
#include "fuzz_targets.h"

namespace {

std::string TempPath() {
  static std::string path = [] {
    const char* dir = std::getenv("UTILSIM_FUZZ_TMP");
    return std::string(dir ? dir : "/tmp") + "/utilsim-fuzz-" + std::to_string(::getpid());
  }();
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const auto targets = [] {
    auto t = utilsim::fuzz::Targets();
    utilsim::fuzz::AddLiveTargets(&t);
    utilsim::fuzz::AddSweepTargets(&t);
    return t;
  }();
  static const char* name = std::getenv("UTILSIM_FUZZ_TARGET");
  static const utilsim::fuzz::Target* target = [] {
    auto it = name ? targets.find(name) : targets.end();
    if (it == targets.end()) {
      std::fprintf(stderr, "set UTILSIM_FUZZ_TARGET to one of:");
      for (const auto& [n, t] : targets) std::fprintf(stderr, " %s", n.c_str());
      std::fprintf(stderr, "\n");
      std::abort();
    }
    return &it->second;
  }();
  const std::string path = TempPath() + target->suffix;
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return 0;
  std::fwrite(data, 1, size, f);
  std::fclose(f);
  target->run(path);
  std::remove(path.c_str());
  return 0;
}
