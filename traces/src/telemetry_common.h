// Shared parts of the telemetry readers: metric table, label conventions,
// value checks (DCGM blanks, ranges) and the per-entity track builder, which
// joins memory and power to the utilization tracks by one rule (equal time of
// the same entity).
#pragma once

#include <compare>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "utilsim/engine/status.h"
#include "utilsim/engine/time.h"
#include "utilsim/traces/telemetry.h"
#include "utilsim/traces/trace.h"

namespace utilsim::traces::internal {

// How a raw value is converted.
enum class ValueKind {
  kPercent,  // utilization 0..100 -> /100
  kRatio,    // utilization 0..1
  kMiB,      // memory MiB -> bytes
  kBytes,    // memory bytes
  kWatts,    // board power W
};

struct MetricInfo {
  ValueKind kind = ValueKind::kRatio;
  UtilSignal signal = UtilSignal::kUnknown;  // kUnknown for memory
  bool memory() const { return kind == ValueKind::kMiB || kind == ValueKind::kBytes; }
  bool power() const { return kind == ValueKind::kWatts; }
  bool util() const { return signal != UtilSignal::kUnknown; }
};

// The five dcgm-exporter metrics read (telemetry.h); nullopt for others.
std::optional<MetricInfo> LookupDcgmMetric(std::string_view name);

// What identifies one series. Field order gives the output order of tracks.
struct EntityKey {
  std::string job, namespace_name, container, host;
  int32_t gpu = -1;
  std::string gpu_instance, uuid;
  auto operator<=>(const EntityKey&) const = default;
  // "pod 'p' host 'h' gpu 0 instance '3'" (only the parts that are set).
  std::string Describe() const;
};

using Labels = std::vector<std::pair<std::string, std::string>>;

// Applies the label conventions of telemetry.h. On a bad `gpu` label returns
// an error text "field 'gpu': expected a GPU index (integer >= 0), got 'x'"
// without location, for the caller to prefix.
Result<EntityKey> KeyFromLabels(const Labels& labels, const std::string& default_host);
// The GPU model name of a series (dcgm-exporter's "modelName" label), or "".
std::string ModelFromLabels(const Labels& labels);

// Where a sample came from: "<file>:<line>" or "<file>: <path>".
struct Loc {
  const std::string* file = nullptr;
  int64_t line = 0;       // 0: none
  std::string_view path;  // JSON path, or empty
  std::string Str() const;
};

// Converts a raw utilization value (kPercent / kRatio) to 0..1, or counts a
// warning (blank, non-finite, out of range; `text` is the value as written)
// and returns nullopt. Values within 1e-6 (relative) above the maximum are
// clamped.
std::optional<float> BusyFromRaw(double v, ValueKind kind, std::string_view text, const Loc& loc,
                                 Warnings* warnings);
// The warning kind of a raw utilization value (kPercent / kRatio) that is
// not a measurement (blank, non-finite, out of range), else nullptr: the
// check BusyFromRaw makes (dcgm_series.h uses it too).
const char* BusyWarning(double v, ValueKind kind);
// Same for memory (kMiB / kBytes) -> bytes.
std::optional<int64_t> BytesFromRaw(double v, ValueKind kind, std::string_view text, const Loc& loc,
                                    Warnings* warnings);
// Same for board power in watts: blank, non-finite, negative or above
// kMaxBoardWatts is counted and gives nullopt.
inline constexpr double kMaxBoardWatts = 1e5;
std::optional<float> WattsFromRaw(double v, std::string_view text, const Loc& loc,
                                  Warnings* warnings);

// Parses a decimal number or NaN / Inf / +Inf / -Inf (any case). nullopt for
// other text.
std::optional<double> ParseSample(std::string_view text);

// A per-entity series joined to the utilization tracks (memory, power).
template <typename T>
struct SideSeries {
  std::vector<Micros> time;  // strictly increasing
  std::vector<T> value;
};

// Collects samples per (entity, signal), memory and power per entity, and the
// GPU model per entity, then builds the tracks (telemetry.h contract: order
// checks, memory and power joined by equal time through one join).
class TrackSet {
 public:
  explicit TrackSet(Warnings* warnings) : warnings_(warnings) {}
  void AddUtil(const EntityKey& key, UtilSignal signal, Micros t, float busy, const Loc& loc);
  void AddMem(const EntityKey& key, Micros t, int64_t bytes, const Loc& loc);
  void AddPower(const EntityKey& key, Micros t, float watts, const Loc& loc);
  // The GPU model of an entity; "" is ignored, the first non-empty name wins.
  void SetModel(const EntityKey& key, std::string_view model);
  // Appends the tracks to *out (sorted as documented); counts memory and
  // power that joined no utilization sample.
  void Finish(std::vector<UtilTrack>* out);

 private:
  struct Series {
    std::vector<Micros> time;
    std::vector<float> busy;
  };
  Warnings* warnings_;
  std::map<std::pair<EntityKey, UtilSignal>, Series> util_;
  std::map<EntityKey, SideSeries<int64_t>> mem_;
  std::map<EntityKey, SideSeries<float>> power_;
  std::map<EntityKey, std::string> model_;
};

// Reads a whole file, plain or gzip, into memory ("<path>: cannot open: ..."
// on errors).
Result<std::string> ReadWholeFile(const std::string& path);

}  // namespace utilsim::traces::internal
