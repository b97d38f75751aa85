// Lucid co-location data: reading, join, split and the interference fit
// (interference_fit.h; docs/sharing.md). Eigen is used here only.
#include "utilsim/workloads/interference_fit.h"

#include <Eigen/Dense>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <string_view>

#include "utilsim/engine/csv.h"
#include "utilsim/engine/rng.h"

namespace utilsim {
namespace {

// The Lucid tables through the one CSV tokenizer (utilsim/engine/csv.h),
// with typed accessors for ranges and a missing-column error.
class SmallCsv {
 public:
  static Result<SmallCsv> Open(const std::string& path) {
    auto r = CsvReader::OpenPlain(path);
    if (!r.ok()) return r.status();
    return SmallCsv(std::move(r).value());
  }

  // Advances to the next data row; false at the end.
  Result<bool> Next() { return csv_.Next(); }

  // Index of column `name`; error naming the file when absent.
  Result<size_t> Column(std::string_view name) const {
    const int i = csv_.Find(name);
    if (i >= 0) return static_cast<size_t>(i);
    return Status::Error(csv_.source() + ": missing column '" + std::string(name) + "'");
  }

  std::string_view Field(size_t i) const { return csv_.field(i); }
  int64_t line() const { return csv_.line(); }

  Status FieldError(size_t i, std::string_view expected) const {
    return csv_.FieldError(i, expected);
  }

  // Field i as a finite number in [lo, hi].
  Result<double> Number(size_t i, double lo, double hi, std::string_view expected) const {
    const std::string_view f = Field(i);
    double v = 0;
    auto [p, ec] = std::from_chars(f.data(), f.data() + f.size(), v);
    if (f.empty() || ec != std::errc() || p != f.data() + f.size() || !std::isfinite(v) || v < lo ||
        v > hi) {
      return FieldError(i, expected);
    }
    return v;
  }
  // Field i as an integer in [lo, hi].
  Result<int64_t> Integer(size_t i, int64_t lo, int64_t hi, std::string_view expected) const {
    const std::string_view f = Field(i);
    int64_t v = 0;
    auto [p, ec] = std::from_chars(f.data(), f.data() + f.size(), v);
    if (f.empty() || ec != std::errc() || p != f.data() + f.size() || v < lo || v > hi) {
      return FieldError(i, expected);
    }
    return v;
  }
  Result<std::string> Text(size_t i) const {
    if (Field(i).empty()) return FieldError(i, "a non-empty name");
    return std::string(Field(i));
  }

 private:
  explicit SmallCsv(CsvReader csv) : csv_(std::move(csv)) {}

  CsvReader csv_;
};

constexpr int64_t kMaxBatch = int64_t{1} << 40;

// Reads model/dataset/batchsize/amp with the given column suffix.
Result<LucidConfig> ReadConfig(const SmallCsv& c, const std::vector<size_t>& cols) {
  LucidConfig k;
  auto model = c.Text(cols[0]);
  if (!model.ok()) return model.status();
  auto dataset = c.Text(cols[1]);
  if (!dataset.ok()) return dataset.status();
  auto bs = c.Integer(cols[2], 1, kMaxBatch, "a batch size >= 1");
  if (!bs.ok()) return bs.status();
  auto amp = c.Integer(cols[3], 0, 1, "0 or 1");
  if (!amp.ok()) return amp.status();
  k.model = model.value();
  k.dataset = dataset.value();
  k.batch_size = bs.value();
  k.amp = amp.value();
  return k;
}

Result<std::vector<size_t>> Columns(const SmallCsv& c, const std::vector<std::string>& names) {
  std::vector<size_t> out;
  for (const std::string& n : names) {
    auto i = c.Column(n);
    if (!i.ok()) return i.status();
    out.push_back(i.value());
  }
  return out;
}

bool HeldOut(std::string_view key, double fraction) {
  return static_cast<double>(Fnv1a(key) % 1000) < 1000.0 * fraction;
}

// Least squares without intercept on the columns in `active`.
Eigen::VectorXd SolveActive(const Eigen::MatrixXd& x, const Eigen::VectorXd& y,
                            const std::vector<int>& active) {
  Eigen::MatrixXd xa(x.rows(), static_cast<Eigen::Index>(active.size()));
  for (size_t k = 0; k < active.size(); ++k) {
    xa.col(static_cast<Eigen::Index>(k)) = x.col(active[k]);
  }
  return xa.colPivHouseholderQr().solve(y);
}

// Non-negative least squares by dropping the most negative coefficient and
// refitting until none is negative.
Eigen::Vector3d NonNegativeFit(const Eigen::MatrixXd& x, const Eigen::VectorXd& y) {
  std::vector<int> active = {0, 1, 2};
  Eigen::Vector3d out = Eigen::Vector3d::Zero();
  while (!active.empty()) {
    const Eigen::VectorXd b = SolveActive(x, y, active);
    Eigen::Index worst = -1;
    for (Eigen::Index k = 0; k < b.size(); ++k) {
      if (b[k] < 0 && (worst < 0 || b[k] < b[worst])) worst = k;
    }
    if (worst < 0) {
      for (size_t k = 0; k < active.size(); ++k) out[active[k]] = b[static_cast<Eigen::Index>(k)];
      break;
    }
    active.erase(active.begin() + worst);
  }
  return out;
}

ColocationErrors ConstantErrors(const std::vector<ColocationObs>& obs, double v) {
  ColocationErrors e;
  e.n = static_cast<int64_t>(obs.size());
  for (const ColocationObs& o : obs) {
    e.mae += std::abs(v - o.speed);
    e.mape += std::abs(v - o.speed) / o.speed;
    e.bias += v - o.speed;
  }
  if (e.n > 0) {
    e.mae /= static_cast<double>(e.n);
    e.mape /= static_cast<double>(e.n);
    e.bias /= static_cast<double>(e.n);
  }
  return e;
}

ColocationSetErrors SetErrorsOf(const std::vector<ColocationObs>& obs, const InterferenceParams& p,
                                double fit_mean) {
  ColocationSetErrors s;
  s.speed_mean = ConstantErrors(obs, fit_mean);
  s.model = EvaluateSpeeds(obs, p);
  s.speed_one = ConstantErrors(obs, 1.0);
  s.speed_half = ConstantErrors(obs, 0.5);
  std::set<size_t> pairs;
  for (const ColocationObs& o : obs) pairs.insert(o.pair);
  s.pairs = static_cast<int64_t>(pairs.size());
  return s;
}

std::string Fmt(const char* f, double a, double b = 0, double c = 0, double d = 0) {
  char buf[256];
  std::snprintf(buf, sizeof buf, f, a, b, c, d);
  return buf;
}

}  // namespace

std::string LucidConfig::Key() const {
  return model + "/" + dataset + "/" + std::to_string(batch_size) + "/" + std::to_string(amp);
}

CoRunner CoRunnerOf(const LucidSolo& s) {
  CoRunner r;
  r.gpu_util = s.gpu_util_pct / 100.0;
  r.mem_util = s.mem_util_pct / 100.0;
  r.gpu_mem_mib = s.gmem_mib;
  return r;
}

Result<std::vector<LucidSolo>> ReadLucidSolo(const std::string& path) {
  auto opened = SmallCsv::Open(path);
  if (!opened.ok()) return opened.status();
  SmallCsv& c = opened.value();
  auto cols = Columns(c, {"model", "dataset", "batchsize", "amp", "speed", "gpu_util", "gmem_util",
                          "gmem", "label"});
  if (!cols.ok()) return cols.status();
  const std::vector<size_t>& k = cols.value();
  std::vector<LucidSolo> out;
  while (true) {
    auto more = c.Next();
    if (!more.ok()) return more.status();
    if (!more.value()) break;
    LucidSolo s;
    auto config = ReadConfig(c, {k[0], k[1], k[2], k[3]});
    if (!config.ok()) return config.status();
    s.config = config.value();
    auto speed = c.Number(k[4], 0, HUGE_VAL, "a speed >= 0");
    if (!speed.ok()) return speed.status();
    auto util = c.Number(k[5], 0, 100, "a percentage in [0, 100]");
    if (!util.ok()) return util.status();
    auto mem = c.Number(k[6], 0, 100, "a percentage in [0, 100]");
    if (!mem.ok()) return mem.status();
    auto gmem = c.Number(k[7], 0, HUGE_VAL, "MiB >= 0");
    if (!gmem.ok()) return gmem.status();
    auto label = c.Integer(k[8], 0, 1000, "an integer class >= 0");
    if (!label.ok()) return label.status();
    s.speed = speed.value();
    s.gpu_util_pct = util.value();
    s.mem_util_pct = mem.value();
    s.gmem_mib = gmem.value();
    s.label = label.value();
    s.line = c.line();
    out.push_back(std::move(s));
  }
  return out;
}

Result<std::vector<LucidPair>> ReadLucidPairs(const std::string& path) {
  auto opened = SmallCsv::Open(path);
  if (!opened.ok()) return opened.status();
  SmallCsv& c = opened.value();
  auto cols = Columns(c, {"model1", "dataset1", "batchsize1", "amp1", "gpu_num1", "speed1",
                          "model2", "dataset2", "batchsize2", "amp2", "gpu_num2", "speed2"});
  if (!cols.ok()) return cols.status();
  const std::vector<size_t>& k = cols.value();
  std::vector<LucidPair> out;
  while (true) {
    auto more = c.Next();
    if (!more.ok()) return more.status();
    if (!more.value()) break;
    LucidPair p;
    for (int j = 0; j < 2; ++j) {
      const size_t b = static_cast<size_t>(6 * j);
      auto config = ReadConfig(c, {k[b], k[b + 1], k[b + 2], k[b + 3]});
      if (!config.ok()) return config.status();
      auto gpus = c.Integer(k[b + 4], 1, 1 << 20, "a GPU count >= 1");
      if (!gpus.ok()) return gpus.status();
      auto speed = c.Number(k[b + 5], 0, HUGE_VAL, "a normalised speed > 0");
      if (!speed.ok()) return speed.status();
      if (speed.value() <= 0) return c.FieldError(k[b + 5], "a normalised speed > 0");
      (j == 0 ? p.job1 : p.job2) = config.value();
      (j == 0 ? p.gpu_num1 : p.gpu_num2) = gpus.value();
      (j == 0 ? p.speed1 : p.speed2) = speed.value();
    }
    p.line = c.line();
    out.push_back(std::move(p));
  }
  return out;
}

Result<LucidProfiles> ReadLucidProfiles(const std::string& dir) {
  LucidProfiles d;
  d.solo_path = dir + "/single_data.csv";
  d.pair_path = dir + "/colocate_info.csv";
  auto solo = ReadLucidSolo(d.solo_path);
  if (!solo.ok()) return solo.status();
  auto pairs = ReadLucidPairs(d.pair_path);
  if (!pairs.ok()) return pairs.status();
  d.solo = std::move(solo.value());
  d.pairs = std::move(pairs.value());
  return d;
}

Result<LucidJoined> JoinLucid(const LucidProfiles& data) {
  std::map<std::string, size_t> solo;
  for (size_t i = 0; i < data.solo.size(); ++i) {
    auto [it, inserted] = solo.emplace(data.solo[i].config.Key(), i);
    if (!inserted) {
      return Status::Error(data.solo_path + ":" + std::to_string(data.solo[i].line) +
                           ": duplicate configuration " + data.solo[i].config.Key() +
                           " (first at line " + std::to_string(data.solo[it->second].line) + ")");
    }
  }
  LucidJoined out;
  LucidJoinReport& r = out.report;
  r.pairs = static_cast<int64_t>(data.pairs.size());
  auto note = [&](const LucidPair& p, const std::string& why) {
    if (r.examples.size() < 5) {
      r.examples.push_back(data.pair_path + ":" + std::to_string(p.line) + ": " + why);
    }
  };
  // Appearances and exact-1 speeds per model, over joined pairs.
  std::map<std::string, std::pair<int64_t, int64_t>> seen;
  std::vector<size_t> joined;
  for (size_t i = 0; i < data.pairs.size(); ++i) {
    const LucidPair& p = data.pairs[i];
    if (!solo.count(p.job1.Key())) {
      ++r.no_solo_job1;
      note(p, "job 1 " + p.job1.Key() + " has no solo row");
      continue;
    }
    if (!solo.count(p.job2.Key())) {
      ++r.no_solo_job2;
      note(p, "job 2 " + p.job2.Key() + " has no solo row");
      continue;
    }
    if (p.gpu_num1 != 1 || p.gpu_num2 != 1) {
      ++r.multi_gpu;
      note(p, "measured on more than one GPU; solo rows are one GPU");
      continue;
    }
    joined.push_back(i);
    for (int j = 0; j < 2; ++j) {
      auto& s = seen[j == 0 ? p.job1.model : p.job2.model];
      ++s.first;
      if ((j == 0 ? p.speed1 : p.speed2) == 1.0) ++s.second;
    }
  }
  r.joined = static_cast<int64_t>(joined.size());
  if (joined.empty()) {
    return Status::Error(data.pair_path + ": no pair joined to " + data.solo_path +
                         (r.examples.empty() ? "" : " (e.g. " + r.examples.front() + ")"));
  }
  std::set<std::string> unmeasured;
  for (const auto& [model, s] : seen) {
    if (s.first >= kMinUnmeasuredAppearances && s.second == s.first) unmeasured.insert(model);
  }
  r.unmeasured_models.assign(unmeasured.begin(), unmeasured.end());
  for (size_t i : joined) {
    const LucidPair& p = data.pairs[i];
    const CoRunner a = CoRunnerOf(data.solo[solo.at(p.job1.Key())]);
    const CoRunner b = CoRunnerOf(data.solo[solo.at(p.job2.Key())]);
    for (int j = 0; j < 2; ++j) {
      const std::string& model = j == 0 ? p.job1.model : p.job2.model;
      if (unmeasured.count(model)) {
        ++r.unmeasured_speeds;
        continue;
      }
      ColocationObs o;
      o.self = j == 0 ? a : b;
      o.other = j == 0 ? b : a;
      o.speed = j == 0 ? p.speed1 : p.speed2;
      o.model = model;
      o.pair = i;
      out.obs.push_back(std::move(o));
    }
  }
  r.observations = static_cast<int64_t>(out.obs.size());
  return out;
}

ColocationErrors EvaluateSpeeds(const std::vector<ColocationObs>& obs,
                                const InterferenceParams& params) {
  ColocationErrors e;
  const SharingConfig ts;  // time-slicing
  for (const ColocationObs& o : obs) {
    const CoRunner both[2] = {o.self, o.other};
    double speed[2] = {1, 1};
    if (!PredictCoRunSpeeds(both, ts, params, speed).ok()) continue;  // inputs are validated
    ++e.n;
    e.mae += std::abs(speed[0] - o.speed);
    e.mape += std::abs(speed[0] - o.speed) / o.speed;
    e.bias += speed[0] - o.speed;
  }
  if (e.n > 0) {
    e.mae /= static_cast<double>(e.n);
    e.mape /= static_cast<double>(e.n);
    e.bias /= static_cast<double>(e.n);
  }
  return e;
}

Result<InterferenceFit> FitInterference(const LucidProfiles& data,
                                        const InterferenceFitOptions& options) {
  const double h = options.holdout_fraction;
  if (!(std::isfinite(h) && h >= 0 && h < 1)) {
    return Status::Error("interference fit: holdout_fraction: expected [0, 1), got " +
                         Fmt("%g", h));
  }
  auto joined = JoinLucid(data);
  if (!joined.ok()) return joined.status();
  InterferenceFit fit;
  fit.join = joined.value().report;
  std::set<std::string> held_models;
  std::vector<ColocationObs> fit_obs, hold_obs;
  for (const ColocationObs& o : joined.value().obs) {
    const LucidPair& p = data.pairs[o.pair];
    bool held;
    if (options.split == ColocationSplit::kPairHash) {
      const std::string a = p.job1.Key(), b = p.job2.Key();
      held = HeldOut(a < b ? a + "|" + b : b + "|" + a, h);
    } else {
      for (const std::string* m : {&p.job1.model, &p.job2.model}) {
        if (HeldOut(*m, h)) held_models.insert(*m);
      }
      held = HeldOut(p.job1.model, h) || HeldOut(p.job2.model, h);
    }
    (held ? hold_obs : fit_obs).push_back(o);
  }
  fit.holdout_models.assign(held_models.begin(), held_models.end());
  if (fit_obs.empty()) {
    return Status::Error("interference fit: the split leaves no observation to fit on");
  }
  const Eigen::Index n = static_cast<Eigen::Index>(fit_obs.size());
  Eigen::MatrixXd x(n, 3);
  Eigen::VectorXd y(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const ColocationObs& o = fit_obs[static_cast<size_t>(i)];
    x(i, 0) = o.self.gpu_util * o.other.gpu_util;
    x(i, 1) = o.self.gpu_util * o.other.mem_util;
    x(i, 2) = std::max(0.0, o.self.gpu_util + o.other.gpu_util - 1.0);
    y[i] = 1.0 / o.speed - 1.0;
  }
  const Eigen::Vector3d b = NonNegativeFit(x, y);
  fit.params.alpha = b[0];
  fit.params.beta = b[1];
  fit.params.gamma = b[2];
  double mean = 0;
  for (const ColocationObs& o : fit_obs) mean += o.speed;
  mean /= static_cast<double>(fit_obs.size());
  fit.fit = SetErrorsOf(fit_obs, fit.params, mean);
  fit.holdout = SetErrorsOf(hold_obs, fit.params, mean);
  return fit;
}

std::string FormatInterferenceFit(const InterferenceFit& f) {
  const LucidJoinReport& j = f.join;
  std::string s = "pairs " + std::to_string(j.pairs) + ", joined " + std::to_string(j.joined) +
                  " (no solo row: job 1 " + std::to_string(j.no_solo_job1) + ", job 2 " +
                  std::to_string(j.no_solo_job2) + "; multi-GPU " + std::to_string(j.multi_gpu) +
                  "); speeds kept " + std::to_string(j.observations) + ", left out as unmeasured " +
                  std::to_string(j.unmeasured_speeds) + " (";
  for (size_t i = 0; i < j.unmeasured_models.size(); ++i) {
    s += (i ? ", " : "") + j.unmeasured_models[i];
  }
  s += ")\n";
  s += Fmt("alpha %.4f beta %.4f gamma %.4f\n", f.params.alpha, f.params.beta, f.params.gamma);
  if (!f.holdout_models.empty()) {
    s += "held-out models:";
    for (const std::string& m : f.holdout_models) s += " " + m;
    s += "\n";
  }
  for (int k = 0; k < 2; ++k) {
    const ColocationSetErrors& e = k == 0 ? f.fit : f.holdout;
    s += std::string(k == 0 ? "fit     " : "holdout ") + "pairs " + std::to_string(e.pairs) +
         " speeds " + std::to_string(e.model.n) + "\n";
    s += Fmt("  model      MAE %.4f  MAPE %.4f  bias %+.4f\n", e.model.mae, e.model.mape,
             e.model.bias);
    s += Fmt("  speed=1    MAE %.4f  MAPE %.4f  bias %+.4f\n", e.speed_one.mae, e.speed_one.mape,
             e.speed_one.bias);
    s += Fmt("  speed=0.5  MAE %.4f  MAPE %.4f  bias %+.4f\n", e.speed_half.mae, e.speed_half.mape,
             e.speed_half.bias);
    s += Fmt("  fit mean   MAE %.4f  MAPE %.4f  bias %+.4f\n", e.speed_mean.mae, e.speed_mean.mape,
             e.speed_mean.bias);
  }
  return s;
}

}  // namespace utilsim
