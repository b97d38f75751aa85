#include "testutil/testutil.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace utilsim::testutil {

std::string TracesDir() {
  const char* env = std::getenv("UTILSIM_TRACES");
  return env && *env ? env : UTILSIM_DEFAULT_TRACES;
}

std::string TracePath(const std::string& relative) {
  std::string p = TracesDir() + "/" + relative;
  return std::filesystem::exists(p) ? p : "";
}

std::string Fixture(const std::string& name) {
  return std::string(UTILSIM_SOURCE_DIR) + "/tests/fixtures/" + name;
}

std::string TempDir() {
  static std::atomic<int> counter{0};
  auto base = std::filesystem::temp_directory_path() /
              ("utilsim-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
  std::filesystem::remove_all(base);
  std::filesystem::create_directories(base);
  return base.string();
}

std::string WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  return path;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> ListDir(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string BinaryPath() { return UTILSIM_BINARY; }

int RunCli(const std::string& args, std::string* output) {
  std::string cmd = std::string(UTILSIM_BINARY) + " " + args + " 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return -1;
  std::array<char, 4096> buf;
  output->clear();
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) output->append(buf.data(), n);
  int rc = ::pclose(p);
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

}  // namespace utilsim::testutil
