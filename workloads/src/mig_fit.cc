// MIG speed-model fit on MIGProfiler data (mig_fit.h).
#include "utilsim/workloads/mig_fit.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <map>
#include <string_view>
#include <tuple>

#include "utilsim/engine/csv.h"

namespace utilsim {

namespace {

namespace fs = std::filesystem;

const mig::GpuModel& A100() {
  static const mig::GpuModel& model = *mig::FindGpuModel("A100-40GB");
  return model;
}

// "05g" -> profile name on A100-40GB (SOURCE.md: instances named by memory).
const char* SliceProfile(const std::string& file_name) {
  static const std::pair<const char*, const char*> kSlices[] = {
      {"_05g_", "1g.5gb"}, {"_10g_", "2g.10gb"}, {"_20g_", "3g.20gb"}, {"_40g_", "7g.40gb"}};
  for (const auto& [token, profile] : kSlices) {
    if (file_name.find(token) != std::string::npos) return profile;
  }
  return nullptr;
}

bool IsResultFile(const std::string& name) {
  auto ends = [&](const std::string& suffix) {
    return name.size() >= suffix.size() &&
           name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  return SliceProfile(name) != nullptr &&
         (name.find("_infer_") != std::string::npos || ends("_finetune_bsz.csv")) && ends(".csv");
}

template <typename T>
bool ParseNumber(std::string_view s, T* out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size();
}

struct Run {
  double throughput = 0;
  double gract = 0;
};
using ConfigKey = std::tuple<std::string, std::string, int, int>;  // exp, model, seq, batch

// Reads one result file into runs[key][profile].
Status ReadFile(const fs::path& path, const std::string& experiment, const std::string& profile,
                std::map<ConfigKey, std::map<std::string, Run>>* runs) {
  const std::string where = path.string();
  auto opened = CsvReader::OpenPlain(where);
  if (!opened.ok()) return opened.status();
  CsvReader& csv = opened.value();
  auto column = [&](const std::string& name) { return csv.Find(name); };
  const int c_model = column("model_name"), c_batch = column("batch_size"),
            c_thr = column("throughput"), c_gract = column("gract_mean"),
            c_seq = column("seq_length");
  for (const auto& [name, c] : {std::pair{"model_name", c_model}, std::pair{"batch_size", c_batch},
                                std::pair{"throughput", c_thr}, std::pair{"gract_mean", c_gract}}) {
    if (c < 0) return Status::Error(where + ":1: missing column '" + name + "'");
  }
  for (;;) {
    auto more = csv.Next();
    if (!more.ok()) return more.status();
    if (!more.value()) break;
    const std::string at = where + ":" + std::to_string(csv.line()) + ": ";
    auto cell = [&](int c) { return csv.field(static_cast<size_t>(c)); };
    auto bad = [&](int c, const char* what) {
      return csv.FieldError(static_cast<size_t>(c), what);
    };
    int batch = 0, seq = 0;
    Run run;
    if (!ParseNumber(cell(c_batch), &batch) || batch <= 0) return bad(c_batch, "an integer > 0");
    if (c_seq >= 0 && (!ParseNumber(cell(c_seq), &seq) || seq <= 0))
      return bad(c_seq, "an integer > 0");
    if (!ParseNumber(cell(c_thr), &run.throughput) || !(run.throughput >= 0) ||
        !std::isfinite(run.throughput)) {
      return bad(c_thr, "a number >= 0");
    }
    if (!ParseNumber(cell(c_gract), &run.gract) || !(run.gract >= 0 && run.gract <= 1)) {
      return bad(c_gract, "a number 0..1");
    }
    const std::string model(cell(c_model));
    if (model.empty()) return bad(c_model, "a model name");
    if (run.throughput == 0) continue;  // did not run (e.g. out of memory)
    auto& slot = (*runs)[{experiment, model, seq, batch}];
    if (!slot.emplace(profile, run).second) {
      return Status::Error(at + "duplicate run of " + model + " batch " + std::to_string(batch) +
                           (seq ? " seq " + std::to_string(seq) : "") + " on " + profile);
    }
  }
  return Status::Ok();
}

mig::MigSpeedParams Params(double w, double sat) {
  mig::MigSpeedParams p;
  p.memory_weight = w;
  p.util_at_saturation = sat;
  return p;
}

// Lowest-error point of a grid; the first wins ties.
void Grid(const std::vector<MigSample>& fit, double w_lo, double w_hi, double s_lo, double s_hi,
          double step, double* best_err, mig::MigSpeedParams* best) {
  const int nw = static_cast<int>(std::lround((w_hi - w_lo) / step));
  const int ns = static_cast<int>(std::lround((s_hi - s_lo) / step));
  for (int i = 0; i <= nw; ++i) {
    const double w = w_lo + i * step;
    if (w < 0 || w > 1) continue;
    for (int j = 0; j <= ns; ++j) {
      const double s = s_lo + j * step;
      if (s <= 0) continue;
      const double err = MigMape(fit, Params(w, s));
      if (err < *best_err) {
        *best_err = err;
        *best = Params(w, s);
      }
    }
  }
}

}  // namespace

Result<std::vector<MigSample>> ReadMigProfiler(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return Status::Error(dir + ": not a directory");
  std::vector<fs::path> files;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_regular_file() && IsResultFile(it->path().filename().string()))
      files.push_back(it->path());
  }
  if (ec) return Status::Error(dir + ": " + ec.message());
  std::sort(files.begin(), files.end());
  if (files.empty())
    return Status::Error(dir + ": no MIGProfiler result files (*_infer_XXg_*.csv)");
  std::map<ConfigKey, std::map<std::string, Run>> runs;
  for (const fs::path& f : files) {
    const std::string experiment = f.lexically_relative(dir).begin()->string();
    if (Status s = ReadFile(f, experiment, SliceProfile(f.filename().string()), &runs); !s.ok())
      return s;
  }
  std::vector<MigSample> out;
  for (const auto& [key, by_profile] : runs) {
    auto full = by_profile.find("7g.40gb");
    if (full == by_profile.end()) continue;
    for (const auto& [profile, run] : by_profile) {  // map order: 1g, 2g, 3g, 7g
      if (profile == "7g.40gb") continue;
      MigSample s;
      std::tie(s.experiment, s.model, s.seq_length, s.batch_size) = key;
      s.profile = profile;
      s.ratio = run.throughput / full->second.throughput;
      s.util_full = full->second.gract;
      const bool training = s.experiment.rfind("finetune", 0) == 0;
      s.kind = training ? JobKind::kTraining : JobKind::kInference;
      if (!training && s.seq_length > 0)
        s.tokens_per_step = static_cast<double>(s.batch_size) * s.seq_length;
      out.push_back(std::move(s));
    }
  }
  return out;
}

namespace {

// The A100-40GB profile of a sample, or null.
const mig::Profile* ProfileOf(const MigSample& sample) {
  const int p = A100().FindProfile(sample.profile);
  return p < 0 ? nullptr : &A100().profiles[static_cast<size_t>(p)];
}

// 100 x mean |predict(s) - observed| / observed; 0 for no samples.
template <typename F>
double Mape(const std::vector<MigSample>& samples, const F& predict) {
  if (samples.empty()) return 0;
  double sum = 0;
  for (const MigSample& s : samples) sum += std::abs(predict(s) - s.ratio) / s.ratio;
  return 100.0 * sum / static_cast<double>(samples.size());
}

}  // namespace

double PredictMigRatio(const MigSample& sample, const mig::MigSpeedParams& params) {
  const mig::Profile* p = ProfileOf(sample);
  return p ? mig::MigSpeed(*p, mig::MigDemandFromUtil(sample.util_full, params), params) : 0;
}

double MigMape(const std::vector<MigSample>& samples, const mig::MigSpeedParams& params) {
  return Mape(samples, [&](const MigSample& s) { return PredictMigRatio(s, params); });
}

std::vector<std::string> DefaultMigHoldoutModels() {
  return {"distiluse-base-multilingual-cased-v2", "paraphrase-multilingual-mpnet-base-v2",
          "resnet50_moco"};
}

Result<MigFitReport> FitMigSpeed(const std::vector<MigSample>& samples,
                                 const std::vector<std::string>& holdout_models) {
  std::vector<MigSample> fit, hold;
  for (const MigSample& s : samples) {
    const bool held =
        std::find(holdout_models.begin(), holdout_models.end(), s.model) != holdout_models.end();
    (held ? hold : fit).push_back(s);
  }
  if (fit.empty() || hold.empty()) {
    return Status::Error("MIG fit: need samples on both sides (fit " + std::to_string(fit.size()) +
                         ", hold-out " + std::to_string(hold.size()) + ")");
  }
  MigFitReport r;
  double err = INFINITY;
  Grid(fit, 0.0, 1.0, 0.05, 1.50, 0.01, &err, &r.params);
  const mig::MigSpeedParams coarse = r.params;
  Grid(fit, coarse.memory_weight - 0.01, coarse.memory_weight + 0.01,
       coarse.util_at_saturation - 0.01, coarse.util_at_saturation + 0.01, 0.001, &err, &r.params);
  r.fit_samples = fit.size();
  r.holdout_samples = hold.size();
  r.fit_mape = err;
  r.holdout_mape = MigMape(hold, r.params);
  r.baseline_holdout_mape = MigBaselineMape(hold);
  // Cross-slice structure check: samples are sorted with 1g first per configuration.
  const mig::Profile& one = A100().profiles[A100().FindProfile("1g.5gb")];
  const double s1 = mig::MigCapacity(one, r.params.memory_weight);
  double sum = 0;
  for (size_t i = 0; i < samples.size(); ++i) {
    const MigSample& a = samples[i];
    if (a.profile != "1g.5gb") continue;
    const double demand = std::min(1.0, s1 / a.ratio);
    for (size_t k = i + 1; k < samples.size(); ++k) {
      const MigSample& b = samples[k];
      if (std::tie(b.experiment, b.model, b.seq_length, b.batch_size) !=
          std::tie(a.experiment, a.model, a.seq_length, a.batch_size)) {
        break;
      }
      const mig::Profile& p = A100().profiles[A100().FindProfile(b.profile)];
      sum += std::abs(mig::MigSpeed(p, demand, r.params) - b.ratio) / b.ratio;
      ++r.cross_slice_samples;
    }
  }
  r.cross_slice_mape = r.cross_slice_samples ? 100.0 * sum / double(r.cross_slice_samples) : 0;
  return r;
}

double PredictMigRatioByKind(const MigSample& sample, const mig::MigSpeedParams& params) {
  const mig::Profile* p = ProfileOf(sample);
  if (!p) return 0;
  const mig::MigDemandInputs in{sample.util_full, sample.kind, sample.tokens_per_step};
  return mig::MigSpeed(*p, mig::MigDemand(in, params), params);
}

double MigMapeByKind(const std::vector<MigSample>& samples, const mig::MigSpeedParams& params) {
  return Mape(samples, [&](const MigSample& s) { return PredictMigRatioByKind(s, params); });
}

double MigBaselineMape(const std::vector<MigSample>& samples) {
  return Mape(samples, [](const MigSample& s) {
    const mig::Profile* p = ProfileOf(s);
    return p ? p->compute_slices / double(mig::kComputeSlices) : 0.0;
  });
}

namespace {

// The value in [lo, hi] minimizing err(x): a grid of `steps` points, then
// `rounds` of 21 points over +- one step around the best, the step shrinking
// tenfold (first wins ties). log_scale: the grid is geometric.
template <typename F>
double Search1D(double lo, double hi, int steps, bool log_scale, const F& err) {
  auto at = [&](double t) { return log_scale ? lo * std::pow(hi / lo, t) : lo + (hi - lo) * t; };
  double best_t = 0, best = INFINITY, step = 1.0 / steps;
  for (int i = 0; i <= steps; ++i) {
    const double e = err(at(i * step));
    if (e < best) {
      best = e;
      best_t = i * step;
    }
  }
  for (int round = 0; round < 3; ++round) {
    const double center = best_t, sub = step / 10;
    for (int i = -10; i <= 10; ++i) {
      const double t = std::clamp(center + i * sub, 0.0, 1.0);
      const double e = err(at(t));
      if (e < best) {
        best = e;
        best_t = t;
      }
    }
    step = sub;
  }
  return at(best_t);
}

}  // namespace

mig::MigSpeedParams FitMigDemand(const std::vector<MigSample>& fit,
                                 const mig::MigSpeedParams& prior) {
  std::vector<MigSample> tokens, train, infer;
  for (const MigSample& s : fit) {
    if (s.kind == JobKind::kTraining)
      train.push_back(s);
    else if (s.tokens_per_step > 0)
      tokens.push_back(s);
    else
      infer.push_back(s);
  }
  mig::MigSpeedParams p = prior;
  auto mape = [&](const std::vector<MigSample>& v, const mig::MigSpeedParams& q) {
    return MigMapeByKind(v, q);
  };
  p.tokens_at_saturation = 0;
  if (!tokens.empty())
    p.tokens_at_saturation = Search1D(256, 65536, 400, true, [&](double x) {
      mig::MigSpeedParams q = p;
      q.tokens_at_saturation = x;
      return mape(tokens, q);
    });
  const bool has_train = !train.empty(), has_infer = !infer.empty();
  if (has_train)
    p.util_at_saturation_train = Search1D(0.05, 1.5, 145, false, [&](double x) {
      mig::MigSpeedParams q = p;
      q.util_at_saturation_train = x;
      return mape(train, q);
    });
  if (has_infer)
    p.util_at_saturation = Search1D(0.05, 1.5, 145, false, [&](double x) {
      mig::MigSpeedParams q = p;
      q.util_at_saturation = x;
      return mape(infer, q);
    });
  // Not identified by `fit`: a stated, data-free prior (d = the utilization
  // itself, saturation 1), never a value fitted on other data.
  if (!has_train) p.util_at_saturation_train = 1.0;
  if (!has_infer) p.util_at_saturation = has_train ? p.util_at_saturation_train : 1.0;
  return p;
}

std::vector<MigGroupRow> MigLeaveGroupOut(const std::vector<MigSample>& samples,
                                          const mig::MigSpeedParams& prior) {
  using Key = std::string (*)(const MigSample&);
  const std::pair<const char*, Key> schemes[] = {
      {"experiment", [](const MigSample& s) { return s.experiment; }},
      {"kind",
       [](const MigSample& s) {
         return std::string(s.kind == JobKind::kTraining ? "training" : "inference");
       }},
      {"batch", [](const MigSample& s) {
         return std::string(s.batch_size <= 8    ? "small (<= 8)"
                            : s.batch_size < 128 ? "medium (16..64)"
                                                 : "large (>= 128)");
       }}};
  std::vector<MigGroupRow> rows;
  for (const auto& [scheme, key] : schemes) {
    std::vector<std::string> groups;
    for (const MigSample& s : samples)
      if (std::find(groups.begin(), groups.end(), key(s)) == groups.end()) groups.push_back(key(s));
    for (const std::string& g : groups) {
      std::vector<MigSample> in, out;
      for (const MigSample& s : samples) (key(s) == g ? out : in).push_back(s);
      MigGroupRow r;
      r.scheme = scheme;
      r.group = g;
      r.samples = out.size();
      r.params = FitMigDemand(in, prior);
      r.model_mape = MigMapeByKind(out, r.params);
      r.baseline_mape = MigBaselineMape(out);
      rows.push_back(std::move(r));
    }
  }
  return rows;
}

}  // namespace utilsim
