// Philly machine list -> ClusterSpec, and the Philly date-time parser.
#include <charconv>
#include <map>
#include <unordered_map>

#include "row_helpers.h"
#include "utilsim/engine/units.h"
#include "utilsim/traces/csv.h"
#include "utilsim/traces/philly.h"

namespace utilsim::traces {

namespace {

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's
// days_from_civil).
int64_t DaysFromCivil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2 ? 1 : 0;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

// Parses exactly `n` digits at s[pos].
bool Digits(std::string_view s, size_t pos, size_t n, int64_t* out) {
  if (pos + n > s.size()) return false;
  int64_t v = 0;
  for (size_t i = pos; i < pos + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + (s[i] - '0');
  }
  *out = v;
  return true;
}

// "12GB" -> 12 (a number > 0 followed by GB, case-insensitive).
std::optional<double> ParseGb(std::string_view s) {
  if (s.size() < 3) return std::nullopt;
  std::string_view unit = s.substr(s.size() - 2);
  if (!((unit[0] == 'G' || unit[0] == 'g') && (unit[1] == 'B' || unit[1] == 'b'))) {
    return std::nullopt;
  }
  std::string_view num = internal::TrimBlanks(s.substr(0, s.size() - 2));
  double v = 0;
  auto [ptr, ec] = std::from_chars(num.data(), num.data() + num.size(), v);
  if (ec != std::errc() || ptr != num.data() + num.size() || !(v > 0) || v > 1e6) {
    return std::nullopt;
  }
  return v;
}

}  // namespace

std::optional<int64_t> ParsePhillyTime(std::string_view s) {
  s = internal::TrimBlanks(s);
  int64_t y, mo, d, h, mi, se;
  if (s.size() != 19 || s[4] != '-' || s[7] != '-' || s[10] != ' ' || s[13] != ':' ||
      s[16] != ':') {
    return std::nullopt;
  }
  if (!Digits(s, 0, 4, &y) || !Digits(s, 5, 2, &mo) || !Digits(s, 8, 2, &d) ||
      !Digits(s, 11, 2, &h) || !Digits(s, 14, 2, &mi) || !Digits(s, 17, 2, &se)) {
    return std::nullopt;
  }
  static constexpr int kDaysIn[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (mo < 1 || mo > 12 || d < 1 || d > kDaysIn[mo - 1] || h > 23 || mi > 59 || se > 60) {
    return std::nullopt;
  }
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  if (mo == 2 && d == 29 && !leap) return std::nullopt;
  return DaysFromCivil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se;
}

Result<ClusterSpec> ReadPhillyMachines(const std::string& path, const PhillyOptions& opt) {
  if (opt.cpu_milli_per_gpu <= 0 || opt.mem_bytes_per_gpu <= 0) {
    return Status::Error(path + ": options cpu_milli_per_gpu and mem_bytes_per_gpu must be > 0");
  }
  auto opened = CsvReader::Open(path);
  if (!opened.ok()) return opened.status();
  CsvReader& csv = opened.value();
  auto found = internal::FindColumns(
      csv, {{"machineId", true}, {"number of GPUs", true}, {"single GPU mem", true}});
  if (!found.ok()) return found.status();
  const size_t c_id = static_cast<size_t>(found.value()[0]);
  const size_t c_gpus = static_cast<size_t>(found.value()[1]);
  const size_t c_mem = static_cast<size_t>(found.value()[2]);
  ClusterSpec spec;
  spec.name = internal::FileStem(path);
  std::unordered_map<std::string, int64_t> seen;  // machineId -> line
  std::map<std::string, size_t> shape_group;      // group name -> index
  for (;;) {
    auto next = csv.Next();
    if (!next.ok()) return next.status();
    if (!next.value()) break;
    const std::string id(csv.field(c_id));
    if (id.empty()) return csv.FieldError(c_id, "a non-empty machine id");
    if (auto [it, ok] = seen.emplace(id, csv.line()); !ok) {
      return csv.FieldError(c_id,
                            "a machine id not already used on line " + std::to_string(it->second));
    }
    int64_t gpus = 0;
    UTILSIM_RETURN_IF_ERROR(internal::IntIn(csv, c_gpus, 0, 64, "an integer 0..64", &gpus));
    std::string model;
    if (gpus > 0) {
      auto gb = ParseGb(csv.field(c_mem));
      if (!gb) return csv.FieldError(c_mem, "GPU memory as '<number>GB' > 0");
      model = "GPU-" + std::string(internal::TrimBlanks(csv.field(c_mem)));
      if (spec.FindModel(model) < 0) {
        spec.models.push_back(
            {model, static_cast<int64_t>(*gb * static_cast<double>(kBytesPerGiB)), 1.0});
      }
    }
    NodeGroup g;
    g.count = 1;
    g.gpu_model = model;
    g.gpus = static_cast<int32_t>(gpus);
    const int64_t scale = gpus > 0 ? gpus : 1;
    g.cpu_milli = opt.cpu_milli_per_gpu * scale;
    g.mem_bytes = opt.mem_bytes_per_gpu * scale;
    if (!opt.group_machines) {
      g.name = id;
      spec.groups.push_back(std::move(g));
      continue;
    }
    g.name = gpus > 0 ? model + "x" + std::to_string(gpus) : "cpu";
    auto [it, added] = shape_group.emplace(g.name, spec.groups.size());
    if (added) {
      spec.groups.push_back(std::move(g));
    } else {
      ++spec.groups[it->second].count;
    }
  }
  if (seen.empty()) return Status::Error(path + ": no machines");
  return spec;
}

bool LooksLikePhillyMachines(const std::vector<std::string>& header) {
  return internal::HeaderHas(header, {"machineId", "number of GPUs"});
}

}  // namespace utilsim::traces
