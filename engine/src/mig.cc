// MIG tables, layouts, slot choice, reconfiguration and speed (mig.h).
#include "utilsim/engine/mig.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <tuple>

namespace utilsim::mig {

namespace {

// Valid starts as bit masks (domain.md §1.3, `nvidia-smi mig -lgipp`).
constexpr uint8_t kStarts0To6 = 0x7F;  // {0,1,2,3,4,5,6}
constexpr uint8_t kStartsEven = 0x55;  // {0,2,4,6}
constexpr uint8_t kStarts024 = 0x15;   // {0,2,4}
constexpr uint8_t kStarts04 = 0x11;    // {0,4}
constexpr uint8_t kStart0 = 0x01;      // {0}

// Profile rows: name, ID, compute slices, memory slices, nominal GB, starts,
// max instances (domain.md §1.2). The four models share the geometry.
constexpr std::array<Profile, 7> kA100_40{{
    {"1g.5gb", 19, 1, 1, 5, kStarts0To6, 7},
    {"1g.5gb+me", 20, 1, 1, 5, kStarts0To6, 1},
    {"1g.10gb", 15, 1, 2, 10, kStartsEven, 4},
    {"2g.10gb", 14, 2, 2, 10, kStarts024, 3},
    {"3g.20gb", 9, 3, 4, 20, kStarts04, 2},
    {"4g.20gb", 5, 4, 4, 20, kStart0, 1},
    {"7g.40gb", 0, 7, 8, 40, kStart0, 1},
}};
// A100-80GB and H100-80GB use the same names.
constexpr std::array<Profile, 7> k80GB{{
    {"1g.10gb", 19, 1, 1, 10, kStarts0To6, 7},
    {"1g.10gb+me", 20, 1, 1, 10, kStarts0To6, 1},
    {"1g.20gb", 15, 1, 2, 20, kStartsEven, 4},
    {"2g.20gb", 14, 2, 2, 20, kStarts024, 3},
    {"3g.40gb", 9, 3, 4, 40, kStarts04, 2},
    {"4g.40gb", 5, 4, 4, 40, kStart0, 1},
    {"7g.80gb", 0, 7, 8, 80, kStart0, 1},
}};
constexpr std::array<Profile, 7> kH200{{
    {"1g.18gb", 19, 1, 1, 18, kStarts0To6, 7},
    {"1g.18gb+me", 20, 1, 1, 18, kStarts0To6, 1},
    {"1g.35gb", 15, 1, 2, 35, kStartsEven, 4},
    {"2g.35gb", 14, 2, 2, 35, kStarts024, 3},
    {"3g.71gb", 9, 3, 4, 71, kStarts04, 2},
    {"4g.71gb", 5, 4, 4, 71, kStart0, 1},
    {"7g.141gb", 0, 7, 8, 141, kStart0, 1},
}};

constexpr std::array<GpuModel, 4> kModels{{
    {"A100-40GB", 40, kA100_40},
    {"A100-80GB", 80, k80GB},
    {"H100-80GB", 80, k80GB},
    {"H200-141GB", 141, kH200},
}};

// Normalized spellings (see mig.h) and the model each names.
constexpr std::array<std::pair<std::string_view, int>, 5> kSpellings{{
    {"A10040GB", 0},
    {"A10080GB", 1},
    {"H10080GB", 2},
    {"H200141GB", 3},
    {"H200", 3},
}};

bool IEquals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

// Upper-cased alphanumeric tokens minus the ignored ones, joined; "40G" -> "40GB".
std::string NormalizeModelName(std::string_view name) {
  static constexpr std::string_view kIgnored[] = {"NVIDIA", "SXM",  "SXM4",  "SXM5", "PCIE",
                                                  "NVL",    "HBM2", "HBM2E", "HBM3", "HBM3E"};
  std::string out;
  size_t i = 0;
  while (i < name.size()) {
    std::string token;
    while (i < name.size() && std::isalnum(static_cast<unsigned char>(name[i]))) {
      token.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(name[i++]))));
    }
    if (token.empty()) {
      ++i;
      continue;
    }
    if (std::find(std::begin(kIgnored), std::end(kIgnored), token) != std::end(kIgnored)) continue;
    if (token.size() >= 2 && token.back() == 'G' &&
        std::isdigit(static_cast<unsigned char>(token[token.size() - 2]))) {
      token += 'B';
    }
    out += token;
  }
  return out;
}

std::string Trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

std::string StartList(uint8_t mask) {
  std::string s;
  for (int i = 0; i < kMemorySlices; ++i) {
    if ((mask >> i) & 1) s += (s.empty() ? "" : ", ") + std::to_string(i);
  }
  return s;
}

std::string SliceRange(uint8_t mask) {
  const int lo = std::countr_zero(static_cast<unsigned>(mask));
  const int hi = 31 - std::countl_zero(static_cast<unsigned>(mask));
  return lo == hi ? "memory slice " + std::to_string(lo)
                  : "memory slices " + std::to_string(lo) + "-" + std::to_string(hi);
}

uint8_t UsedMask(const GpuModel& model, const Layout& layout) {
  uint8_t used = 0;
  for (const Instance& i : layout) used |= model.profiles[i.profile].Mask(i.start);
  return used;
}

int CountOf(const Layout& layout, int profile) {
  return static_cast<int>(std::count_if(layout.begin(), layout.end(),
                                        [&](const Instance& i) { return i.profile == profile; }));
}

// Why `x` cannot join `layout` (assumed valid), or "" when it can. The reason
// reads after "<instance>: ".
std::string Conflict(const GpuModel& model, const Layout& layout, const Instance& x) {
  if (x.profile < 0 || x.profile >= static_cast<int>(model.profiles.size())) {
    return "profile index " + std::to_string(x.profile) + " is not a profile of " +
           std::string(model.name);
  }
  const Profile& p = model.profiles[x.profile];
  if (!p.ValidStart(x.start)) {
    return "start " + std::to_string(x.start) +
           " is not a valid placement (valid starts: " + StartList(p.start_mask) + ")";
  }
  if (CountOf(layout, x.profile) >= p.max_instances) {
    return "at most " + std::to_string(p.max_instances) + " " + std::string(p.name) + " per GPU";
  }
  for (const Instance& o : layout) {
    const uint8_t both = p.Mask(x.start) & model.profiles[o.profile].Mask(o.start);
    if (both != 0) {
      return "overlaps " + FormatInstance(model, o) + " on " + SliceRange(both);
    }
  }
  int compute = p.compute_slices;
  for (const Instance& o : layout) compute += model.profiles[o.profile].compute_slices;
  if (compute > kComputeSlices) {
    return "compute slices would total " + std::to_string(compute) + " > " +
           std::to_string(kComputeSlices);
  }
  return "";
}

void Canonicalize(Layout* layout) {
  std::sort(layout->begin(), layout->end(), [](const Instance& a, const Instance& b) {
    return std::tie(a.start, a.profile) < std::tie(b.start, b.profile);
  });
}

}  // namespace

int GpuModel::FindProfile(std::string_view name_or_id) const {
  const bool numeric =
      !name_or_id.empty() && std::all_of(name_or_id.begin(), name_or_id.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c));
      });
  for (size_t i = 0; i < profiles.size(); ++i) {
    if (numeric ? std::to_string(profiles[i].id) == name_or_id
                : IEquals(profiles[i].name, name_or_id)) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

std::string GpuModel::ProfileNames() const {
  std::string s;
  for (const Profile& p : profiles) s += (s.empty() ? "" : ", ") + std::string(p.name);
  return s;
}

bool IsMediaExtended(const Profile& p) { return p.name.ends_with("+me"); }

int PlainProfile(const GpuModel& model, int p) {
  const Profile& x = model.profiles[static_cast<size_t>(p)];
  if (!IsMediaExtended(x)) return p;
  for (size_t i = 0; i < model.profiles.size(); ++i) {
    const Profile& y = model.profiles[i];
    if (!IsMediaExtended(y) && y.compute_slices == x.compute_slices &&
        y.memory_slices == x.memory_slices)
      return static_cast<int>(i);
  }
  return p;
}

std::span<const GpuModel> GpuModels() { return kModels; }

const GpuModel* FindGpuModel(std::string_view name) {
  const std::string key = NormalizeModelName(name);
  for (const auto& [spelling, index] : kSpellings) {
    if (key == spelling) return &kModels[index];
  }
  return nullptr;
}

std::string GpuModelNames() {
  std::string s;
  for (const GpuModel& m : kModels) s += (s.empty() ? "" : ", ") + std::string(m.name);
  return s;
}

std::string FormatInstance(const GpuModel& model, const Instance& instance) {
  const bool known =
      instance.profile >= 0 && instance.profile < static_cast<int>(model.profiles.size());
  return (known ? std::string(model.profiles[instance.profile].name) : "?") + "@" +
         std::to_string(instance.start);
}

std::string FormatLayout(const GpuModel& model, const Layout& layout) {
  Layout sorted = layout;
  Canonicalize(&sorted);
  std::string s;
  for (const Instance& i : sorted) s += (s.empty() ? "" : ",") + FormatInstance(model, i);
  return s;
}

Status CheckLayout(const GpuModel& model, const Layout& layout) {
  Layout sorted = layout;
  Canonicalize(&sorted);
  Layout accepted;
  for (const Instance& x : sorted) {
    if (std::string why = Conflict(model, accepted, x); !why.empty()) {
      return Status::Error(FormatInstance(model, x) + ": " + why);
    }
    accepted.push_back(x);
  }
  return Status::Ok();
}

Result<Layout> ParseLayout(const GpuModel& model, std::string_view text) {
  struct Entry {
    std::string text;
    int profile = -1;
    std::optional<int> start;
  };
  std::vector<Entry> entries;
  if (!Trim(text).empty()) {
    size_t pos = 0;
    while (true) {
      const size_t comma = text.find(',', pos);
      const std::string_view raw =
          text.substr(pos, comma == std::string_view::npos ? text.npos : comma - pos);
      const std::string label = "entry " + std::to_string(entries.size() + 1);
      Entry e;
      e.text = Trim(raw);
      if (e.text.empty()) return Status::Error(label + " is empty");
      const std::string named = label + " '" + e.text + "'";
      const size_t at = e.text.find('@');
      const std::string profile = Trim(std::string_view(e.text).substr(0, at));
      e.profile = model.FindProfile(profile);
      if (e.profile < 0) {
        return Status::Error(named + ": no profile '" + profile + "' on " +
                             std::string(model.name) + " (profiles: " + model.ProfileNames() + ")");
      }
      if (at != std::string::npos) {
        const std::string s = Trim(std::string_view(e.text).substr(at + 1));
        int v = -1;
        auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (ec != std::errc() || p != s.data() + s.size() || v < 0 || v >= kMemorySlices) {
          return Status::Error(named + ": start '" + s + "' is not an integer 0.." +
                               std::to_string(kMemorySlices - 1));
        }
        e.start = v;
      }
      entries.push_back(std::move(e));
      if (comma == std::string_view::npos) break;
      pos = comma + 1;
    }
  }
  Layout layout;
  for (size_t k = 0; k < entries.size(); ++k) {
    if (!entries[k].start) continue;
    const Instance x{entries[k].profile, *entries[k].start};
    if (std::string why = Conflict(model, layout, x); !why.empty()) {
      return Status::Error("entry " + std::to_string(k + 1) + " '" + entries[k].text + "': " + why);
    }
    layout.push_back(x);
  }
  for (size_t k = 0; k < entries.size(); ++k) {
    if (entries[k].start) continue;
    const Profile& p = model.profiles[entries[k].profile];
    const std::optional<int> s = DriverStart(model, layout, entries[k].profile);
    if (!s) {
      const std::string named = "entry " + std::to_string(k + 1) + " '" + entries[k].text + "'";
      if (CountOf(layout, entries[k].profile) >= p.max_instances) {
        return Status::Error(named + ": at most " + std::to_string(p.max_instances) + " " +
                             std::string(p.name) + " per GPU");
      }
      return Status::Error(named + ": no free placement (valid starts: " + StartList(p.start_mask) +
                           "; in use: " + FormatLayout(model, layout) +
                           "); list larger profiles first or give a start as '" +
                           std::string(p.name) + "@<start>'");
    }
    layout.push_back({entries[k].profile, *s});
  }
  Canonicalize(&layout);
  return layout;
}

namespace {
// The free valid starts of p as a bit mask, given the memory slices in use
// and how many instances of p the layout holds.
uint8_t FreeStartMask(const Profile& p, int count, uint8_t used) {
  if (count >= p.max_instances) return 0;
  uint8_t out = 0;
  for (int s = 0; s < kMemorySlices; ++s)
    if (p.ValidStart(s) && (p.Mask(s) & used) == 0) out |= static_cast<uint8_t>(1u << s);
  return out;
}

// Longest run of consecutive memory slices not in `used`.
int LongestFreeRun(uint8_t used) {
  int best = 0, run = 0;
  for (int s = 0; s < kMemorySlices; ++s) {
    run = ((used >> s) & 1) ? 0 : run + 1;
    best = std::max(best, run);
  }
  return best;
}
}  // namespace

std::vector<int> FreeStarts(const GpuModel& model, const Layout& current, int profile) {
  std::vector<int> out;
  if (profile < 0 || profile >= static_cast<int>(model.profiles.size())) return out;
  const uint8_t free = FreeStartMask(model.profiles[static_cast<size_t>(profile)],
                                     CountOf(current, profile), UsedMask(model, current));
  for (int s = 0; s < kMemorySlices; ++s)
    if ((free >> s) & 1) out.push_back(s);
  return out;
}

std::optional<int> DriverStart(const GpuModel& model, const Layout& current, int profile) {
  const std::vector<int> free = FreeStarts(model, current, profile);
  if (free.empty()) return std::nullopt;
  return model.profiles[profile].compute_slices == 1 ? free.front() : free.back();
}

Result<Layout> PlaceLikeDriver(const GpuModel& model, std::span<const int> profiles) {
  Layout layout;
  for (size_t k = 0; k < profiles.size(); ++k) {
    const std::optional<int> s = DriverStart(model, layout, profiles[k]);
    if (!s) {
      const bool known = profiles[k] >= 0 && profiles[k] < static_cast<int>(model.profiles.size());
      return Status::Error("GI " + std::to_string(k + 1) + " (" +
                           (known ? std::string(model.profiles[profiles[k]].name) : "?") +
                           "): insufficient resources after " + FormatLayout(model, layout));
    }
    layout.push_back({profiles[k], *s});
  }
  Canonicalize(&layout);
  return layout;
}

int LargestFreeRun(const GpuModel& model, const Layout& current) {
  return LongestFreeRun(UsedMask(model, current));
}

std::optional<int> ChooseStart(const GpuModel& model, const Layout& current, int profile) {
  if (profile < 0 || profile >= static_cast<int>(model.profiles.size())) return std::nullopt;
  // Each candidate layout is the current one plus one instance: its used
  // slices and counts follow from the current ones (no layout is built).
  const size_t np = model.profiles.size();
  std::vector<int> count(np);
  for (size_t q = 0; q < np; ++q) count[q] = CountOf(current, static_cast<int>(q));
  const uint8_t used = UsedMask(model, current);
  const Profile& mine = model.profiles[static_cast<size_t>(profile)];
  const uint8_t starts = FreeStartMask(mine, count[static_cast<size_t>(profile)], used);
  std::optional<int> best;
  std::tuple<int, int, int, int> best_score{-1, -1, -1, -1};
  ++count[static_cast<size_t>(profile)];
  for (int s = 0; s < kMemorySlices; ++s) {
    if (!((starts >> s) & 1)) continue;
    const uint8_t next = used | mine.Mask(s);
    int mem = 0, compute = 0, placements = 0;
    for (size_t q = 0; q < np; ++q) {
      const uint8_t free = FreeStartMask(model.profiles[q], count[q], next);
      if (free == 0) continue;
      placements += std::popcount(free);
      const Profile& p = model.profiles[q];
      if (std::tie(p.memory_slices, p.compute_slices) > std::tie(mem, compute)) {
        mem = p.memory_slices;
        compute = p.compute_slices;
      }
    }
    const std::tuple<int, int, int, int> score{mem, compute, LongestFreeRun(next), placements};
    if (score > best_score) {
      best_score = score;
      best = s;
    }
  }
  return best;
}

std::vector<Layout> EnumerateLayouts(const GpuModel& model) {
  // Candidates in (start, profile) order, so each subset comes out canonical.
  std::vector<Instance> candidates;
  for (int s = 0; s < kMemorySlices; ++s) {
    for (size_t q = 0; q < model.profiles.size(); ++q) {
      if (model.profiles[q].ValidStart(s)) candidates.push_back({static_cast<int>(q), s});
    }
  }
  std::vector<Layout> out;
  Layout current;
  auto walk = [&](auto&& self, size_t i) -> void {
    if (i == candidates.size()) {
      out.push_back(current);
      return;
    }
    self(self, i + 1);
    if (Conflict(model, current, candidates[i]).empty()) {
      current.push_back(candidates[i]);
      self(self, i + 1);
      current.pop_back();
    }
  };
  walk(walk, 0);
  return out;
}

// ---- MigGpu ----

MigGpu::MigGpu(const GpuModel* model, Layout layout, ReconfigTimes times)
    : model_(model),
      layout_(std::move(layout)),
      busy_(layout_.size(), false),
      ready_at_(layout_.size(), Micros(0)),
      times_(times) {}

Result<MigGpu> MigGpu::Create(const GpuModel& model, const Layout& layout, ReconfigTimes times) {
  if (Status s = CheckLayout(model, layout); !s.ok()) return s;
  Layout sorted = layout;
  Canonicalize(&sorted);
  return MigGpu(&model, std::move(sorted), times);
}

int MigGpu::Find(int start) const {
  for (size_t i = 0; i < layout_.size(); ++i) {
    if (layout_[i].start == start) return static_cast<int>(i);
  }
  return -1;
}

bool MigGpu::busy(int start) const {
  const int i = Find(start);
  return i >= 0 && busy_[i];
}

Micros MigGpu::ready_at(int start) const {
  const int i = Find(start);
  return i >= 0 ? ready_at_[i] : kNever;
}

Status MigGpu::StartJob(int start, Micros now) {
  const int i = Find(start);
  if (i < 0)
    return Status::Error("no MIG instance starts at memory slice " + std::to_string(start));
  if (busy_[i]) return Status::Error(FormatInstance(*model_, layout_[i]) + " is busy");
  if (now < ready_at_[i]) {
    return Status::Error(FormatInstance(*model_, layout_[i]) + " is being created until " +
                         std::to_string(ready_at_[i].us) + " us");
  }
  busy_[i] = true;
  return Status::Ok();
}

Status MigGpu::FinishJob(int start) {
  const int i = Find(start);
  if (i < 0 || !busy_[i]) {
    return Status::Error("no busy MIG instance starts at memory slice " + std::to_string(start));
  }
  busy_[i] = false;
  return Status::Ok();
}

std::vector<int> MigGpu::MustDrain(const Layout& target) const {
  std::vector<int> out;
  for (size_t i = 0; i < layout_.size(); ++i) {
    if (busy_[i] && std::find(target.begin(), target.end(), layout_[i]) == target.end()) {
      out.push_back(layout_[i].start);
    }
  }
  return out;
}

Micros MigGpu::Cost(const Layout& target) const {
  int64_t destroyed = 0, created = 0;
  for (const Instance& x : layout_)
    destroyed += std::find(target.begin(), target.end(), x) == target.end();
  for (const Instance& x : target)
    created += std::find(layout_.begin(), layout_.end(), x) == layout_.end();
  if (destroyed + created == 0) return Micros(0);
  return Micros(times_.fixed.us + destroyed * times_.destroy.us + created * times_.create.us);
}

Result<Micros> MigGpu::Reconfigure(const Layout& target, Micros now) {
  if (Status s = CheckLayout(*model_, target); !s.ok()) {
    return Status::Error("invalid target layout: " + s.message());
  }
  const std::vector<int> drain = MustDrain(target);
  if (!drain.empty()) {
    std::string names;
    for (int start : drain)
      names += (names.empty() ? "" : ", ") + FormatInstance(*model_, layout_[Find(start)]);
    return Status::Error("cannot change " + std::string(model_->name) + " layout '" +
                         FormatLayout(*model_, layout_) + "' to '" + FormatLayout(*model_, target) +
                         "': busy instances would be destroyed (drain first): " + names);
  }
  const Micros begin = std::max(now, change_done_at_);
  const Micros cost = Cost(target);
  if (cost == Micros(0)) return begin;
  const Micros done = begin + cost;
  Layout next = target;
  Canonicalize(&next);
  std::vector<bool> busy(next.size(), false);
  std::vector<Micros> ready(next.size(), done);
  for (size_t k = 0; k < next.size(); ++k) {
    const int i = Find(next[k].start);
    if (i >= 0 && layout_[i] == next[k]) {
      busy[k] = busy_[i];
      ready[k] = ready_at_[i];
    }
  }
  layout_ = std::move(next);
  busy_ = std::move(busy);
  ready_at_ = std::move(ready);
  change_done_at_ = done;
  return done;
}

// ---- speed model ----

double MigCapacity(const Profile& profile, double memory_weight) {
  const double w = std::isnan(memory_weight) ? 0.0 : std::clamp(memory_weight, 0.0, 1.0);
  return 1.0 / ((1.0 - w) * kComputeSlices / profile.compute_slices +
                w * kMemorySlices / profile.memory_slices);
}

double MigDemandFromUtil(double util, const MigSpeedParams& params) {
  if (std::isnan(util) || !(params.util_at_saturation > 0)) return 1.0;
  return std::clamp(util / params.util_at_saturation, 0.0, 1.0);
}

std::optional<double> MigMeasuredDemand(const MigDemandInputs& in, const MigSpeedParams& params) {
  if (in.kind != JobKind::kTraining && in.tokens_per_step > 0 && params.tokens_at_saturation > 0)
    return std::min(1.0, in.tokens_per_step / params.tokens_at_saturation);
  if (std::isnan(in.util)) return std::nullopt;
  if (in.kind == JobKind::kTraining) {
    if (!(params.util_at_saturation_train > 0)) return 1.0;
    return std::clamp(in.util / params.util_at_saturation_train, 0.0, 1.0);
  }
  return MigDemandFromUtil(in.util, params);
}

double MigDemand(const MigDemandInputs& in, const MigSpeedParams& params) {
  return MigMeasuredDemand(in, params).value_or(1.0);
}

MigDemandInputs MigInputsOf(const Job& job) {
  return {job.util_known ? static_cast<double>(job.util) : std::numeric_limits<double>::quiet_NaN(),
          job.kind, job.tokens_per_step};
}

double MigSpeed(const Profile& profile, double demand, const MigSpeedParams& params) {
  if (std::isnan(demand) || demand > 1) demand = 1;
  if (demand <= 0) return 1.0;
  return std::min(1.0, MigCapacity(profile, params.memory_weight) / demand);
}

}  // namespace utilsim::mig
