// LoadKubeconfig and InClusterConfig (utilsim/live/kube_client.h).
//
// A kubeconfig is read as client-go reads one (k8s.io/client-go/tools/
// clientcmd/api/v1): lists `clusters`, `contexts`, `users` of {name, cluster
// | context | user}; `current-context`. Paths in it are relative to the
// kubeconfig's folder, `~` is $HOME. Where both a file and its *-data are
// given the data wins (as in client-go); token wins over tokenFile (read
// once, here). Credential plugins (exec, auth-provider) are not run: a user
// with only those is an error. Errors are "<file>: <key path>: <what>".
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <vector>

#include "live_status.h"
#include "utilsim/live/kube_client.h"

namespace utilsim::live {

namespace fs = std::filesystem;

namespace {

std::string ExpandTilde(const std::string& p) {
  if (p == "~" || p.rfind("~/", 0) == 0) {
    const char* home = std::getenv("HOME");
    if (home != nullptr) return std::string(home) + p.substr(1);
  }
  return p;
}

std::string Trim(const std::string& s) {
  const char* ws = " \t\r\n";
  size_t b = s.find_first_not_of(ws);
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(ws) - b + 1);
}

bool ReadAll(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  *out = ss.str();
  return true;
}

// The decoded *-data files: private (mkstemp: mode 0600), removed when the
// process exits normally (this object's destructor).
class TempFiles {
 public:
  ~TempFiles() {
    std::lock_guard<std::mutex> lock(mu_);
    for (const std::string& p : paths_) std::remove(p.c_str());
  }
  // The path of a new file holding `bytes`; "" when it cannot be written.
  std::string Write(const std::vector<unsigned char>& bytes) {
    std::string templ = (fs::temp_directory_path() / "utilsim-kube-XXXXXX").string();
    int fd = mkstemp(templ.data());
    if (fd < 0) return "";
    size_t done = 0;
    while (done < bytes.size()) {
      ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    bool ok = done == bytes.size() && close(fd) == 0;
    std::lock_guard<std::mutex> lock(mu_);
    paths_.push_back(templ);
    return ok ? templ : "";
  }

 private:
  std::mutex mu_;
  std::vector<std::string> paths_;
};

TempFiles& Temps() {
  static TempFiles files;
  return files;
}

class Reader {
 public:
  explicit Reader(std::string file)
      : file_(std::move(file)), dir_(fs::path(file_).parent_path().string()) {}

  Status Error(const std::string& key, const std::string& what) const {
    return Status::Error(StatusCode::kInvalidArgument,
                         file_ + ": " + (key.empty() ? "" : key + ": ") + what);
  }

  // map[key] as a string ("" when absent or null).
  Status Str(const YAML::Node& map, const std::string& path, const char* key,
             std::string* out) const {
    const YAML::Node v = map[key];
    if (!v.IsDefined() || v.IsNull()) return Status::Ok();
    if (!v.IsScalar()) return Error(path + "." + key, "expected a string");
    *out = v.Scalar();
    return Status::Ok();
  }

  Status Bool(const YAML::Node& map, const std::string& path, const char* key, bool* out) const {
    const YAML::Node v = map[key];
    if (!v.IsDefined() || v.IsNull()) return Status::Ok();
    try {
      *out = v.as<bool>();
    } catch (const YAML::Exception&) {
      return Error(path + "." + key, "expected true or false, got '" +
                                         (v.IsScalar() ? v.Scalar() : std::string("...")) + "'");
    }
    return Status::Ok();
  }

  // The entry named `name` of the list root[list]: *out is its `inner`
  // mapping and *path its key path ("clusters[1].cluster").
  Status Find(const YAML::Node& root, const std::string& list, const std::string& inner,
              const std::string& name, YAML::Node* out, std::string* path) const {
    const YAML::Node entries = root[list];
    std::string names;
    if (entries.IsDefined() && !entries.IsNull()) {
      if (!entries.IsSequence()) return Error(list, "expected a list");
      for (size_t i = 0; i < entries.size(); ++i) {
        const YAML::Node e = entries[i];
        std::string here = list + "[" + std::to_string(i) + "]", entry_name;
        if (!e.IsMap()) return Error(here, "expected a mapping with name and " + inner);
        UTILSIM_LIVE_RETURN_IF_ERROR(Str(e, here, "name", &entry_name));
        names += (names.empty() ? "" : ", ") + entry_name;
        if (entry_name != name) continue;
        *out = e[inner];
        *path = here + "." + inner;
        if (!out->IsDefined() || out->IsNull()) *out = YAML::Node(YAML::NodeType::Map);
        if (!out->IsMap()) return Error(*path, "expected a mapping");
        return Status::Ok();
      }
    }
    return Error("", inner + " '" + name + "' not found in " + list + " (" +
                         (names.empty() ? "none" : names) + ")");
  }

  // A path in the file: ~ expanded, relative to the file's folder.
  std::string Resolve(const std::string& p) const {
    std::string e = ExpandTilde(p);
    if (e.empty() || fs::path(e).is_absolute()) return e;
    return (fs::path(dir_) / e).lexically_normal().string();
  }

  // map[file_key] (a path, checked to exist) or map[data_key] (base64,
  // written to a private file); the data wins. "" when neither is given.
  Status FileOrData(const YAML::Node& map, const std::string& path, const char* file_key,
                    const char* data_key, std::string* out) const {
    std::string file, data;
    UTILSIM_LIVE_RETURN_IF_ERROR(Str(map, path, file_key, &file));
    UTILSIM_LIVE_RETURN_IF_ERROR(Str(map, path, data_key, &data));
    if (!data.empty()) {
      std::vector<unsigned char> bytes = YAML::DecodeBase64(data);
      if (bytes.empty()) return Error(path + "." + data_key, "not valid base64");
      *out = Temps().Write(bytes);
      if (out->empty()) return Error(path + "." + data_key, "cannot write a temporary file");
      return Status::Ok();
    }
    if (file.empty()) return Status::Ok();
    *out = Resolve(file);
    std::error_code ec;
    if (!fs::exists(*out, ec)) return Error(path + "." + file_key, "'" + *out + "' does not exist");
    return Status::Ok();
  }

 private:
  std::string file_, dir_;
};

}  // namespace

Result<KubeConfig> LoadKubeconfig(const std::string& path_in, const std::string& context_in) {
  const std::string path = ExpandTilde(path_in);
  Reader r(path);
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::BadFile&) {
    return Status::Error(StatusCode::kNotFound, path + ": cannot read the kubeconfig");
  } catch (const YAML::Exception& e) {
    return Status::Error(StatusCode::kInvalidArgument,
                         path + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  try {
    if (!root.IsMap()) return r.Error("", "expected a mapping (a kubeconfig)");
    std::string context = context_in;
    if (context.empty()) UTILSIM_LIVE_RETURN_IF_ERROR(r.Str(root, "", "current-context", &context));
    if (context.empty()) return r.Error("current-context", "not set, and no context was given");

    YAML::Node ctx, cluster, user;
    std::string ctx_path, cluster_path, user_path, cluster_name, user_name;
    UTILSIM_LIVE_RETURN_IF_ERROR(r.Find(root, "contexts", "context", context, &ctx, &ctx_path));
    UTILSIM_LIVE_RETURN_IF_ERROR(r.Str(ctx, ctx_path, "cluster", &cluster_name));
    UTILSIM_LIVE_RETURN_IF_ERROR(r.Str(ctx, ctx_path, "user", &user_name));
    if (cluster_name.empty()) return r.Error(ctx_path + ".cluster", "missing");
    UTILSIM_LIVE_RETURN_IF_ERROR(
        r.Find(root, "clusters", "cluster", cluster_name, &cluster, &cluster_path));

    KubeConfig cfg;
    UTILSIM_LIVE_RETURN_IF_ERROR(r.Str(cluster, cluster_path, "server", &cfg.server));
    if (cfg.server.empty()) return r.Error(cluster_path + ".server", "missing");
    UTILSIM_LIVE_RETURN_IF_ERROR(r.FileOrData(cluster, cluster_path, "certificate-authority",
                                              "certificate-authority-data", &cfg.ca_file));
    UTILSIM_LIVE_RETURN_IF_ERROR(
        r.Bool(cluster, cluster_path, "insecure-skip-tls-verify", &cfg.insecure_skip_tls_verify));
    if (user_name.empty()) return cfg;  // no credentials

    UTILSIM_LIVE_RETURN_IF_ERROR(r.Find(root, "users", "user", user_name, &user, &user_path));
    std::string token_file;
    UTILSIM_LIVE_RETURN_IF_ERROR(r.Str(user, user_path, "token", &cfg.token));
    UTILSIM_LIVE_RETURN_IF_ERROR(r.Str(user, user_path, "tokenFile", &token_file));
    if (cfg.token.empty() && !token_file.empty()) {
      std::string file = r.Resolve(token_file), text;
      if (!ReadAll(file, &text))
        return r.Error(user_path + ".tokenFile", "cannot read '" + file + "'");
      cfg.token = Trim(text);
    }
    UTILSIM_LIVE_RETURN_IF_ERROR(r.FileOrData(user, user_path, "client-certificate",
                                              "client-certificate-data", &cfg.client_cert_file));
    UTILSIM_LIVE_RETURN_IF_ERROR(
        r.FileOrData(user, user_path, "client-key", "client-key-data", &cfg.client_key_file));
    if (cfg.client_cert_file.empty() != cfg.client_key_file.empty()) {
      return r.Error(user_path, "client-certificate and client-key must be given together");
    }
    if (cfg.token.empty() && cfg.client_cert_file.empty()) {
      for (const char* plugin : {"exec", "auth-provider"}) {
        if (user[plugin].IsDefined() && !user[plugin].IsNull()) {
          return r.Error(user_path + "." + plugin,
                         "credential plugins are not supported (give token, tokenFile or "
                         "client-certificate and client-key)");
        }
      }
    }
    return cfg;
  } catch (const YAML::Exception& e) {
    return r.Error("", e.what());  // a shape the checks above missed
  }
}

Result<KubeConfig> InClusterConfig(const std::string& dir) {
  const char* host = std::getenv("KUBERNETES_SERVICE_HOST");
  const char* port = std::getenv("KUBERNETES_SERVICE_PORT");
  if (host == nullptr || *host == '\0' || port == nullptr || *port == '\0') {
    return Status::Error(StatusCode::kNotFound,
                         "not in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT "
                         "are not set");
  }
  KubeConfig cfg;
  std::string h = host;
  if (h.find(':') != std::string::npos) h = "[" + h + "]";  // IPv6
  cfg.server = "https://" + h + ":" + port;
  const std::string token_file = (fs::path(dir) / "token").string();
  std::string token;
  if (!ReadAll(token_file, &token)) {
    return Status::Error(StatusCode::kNotFound,
                         "not in a cluster: cannot read the service account token " + token_file);
  }
  cfg.token = Trim(token);
  cfg.ca_file = (fs::path(dir) / "ca.crt").string();
  std::error_code ec;
  if (!fs::exists(cfg.ca_file, ec)) {
    return Status::Error(StatusCode::kNotFound,
                         "not in a cluster: the service account CA " + cfg.ca_file + " is missing");
  }
  return cfg;
}

}  // namespace utilsim::live
