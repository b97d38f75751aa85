// The sweep file (docs/sweeps.md): a YAML description of many `utilsim run`s.
// Every run is a set of `utilsim run` options (long names without "--");
// the file gives the options all runs share (base), the swept ones (axes,
// zip, morris) and the runs left out (exclude):
//
//   name: sizes                      # optional; default the file's stem
//   base:                            # options of every run
//     trace: builtin:demo
//     sample-interval: 600
//   axes:                            # grid: every combination, first axis slowest
//     policy: [best-fit, "tiresias:thresholds=3600"]
//     cluster-scale: [0.5, 1, 2]
//     seed: [1, 2, 3]
//   zip:                             # each entry is one more grid axis whose
//     - trace: [a.csv, b.csv]        # lists (equal lengths) advance together
//       cluster: [a.yaml, b.yaml]
//   exclude:                         # a run matching every key of one entry
//     - {policy: best-fit, cluster-scale: 0.5}   # is left out
//   metrics: [mean_wait_s, alloc_frac]   # summary columns kept (default all)
//   limits: {time: 10m, memory: 2GiB}    # per run; default none
//   morris:                          # elementary effects over numeric options,
//     trajectories: 10               # crossed with the grid axes (innermost)
//     levels: 4
//     seed: 1
//     factors:
//       arrival-scale: [0.5, 2]      # [lo, hi]
//       cluster-scale: [0.5, 1.5]
//       seed: {range: [1, 100], integer: true}
//
// Values are YAML scalars, kept as the text written (so "1.50" stays
// "1.50"); a list in `base` is joined with commas (--telemetry a,b); `true` /
// `false` are kept as text. Keys are not checked here against the options of
// `utilsim run` (the runner does that, quoting the key's line).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "utilsim/engine/status.h"
#include "utilsim/sweep/morris.h"

namespace utilsim::sweep {

// One option of a run: key (without "--"), its text, and the sweep file's
// line that set it (1-based; a Morris value: its factor's line; 0 = not from
// the file).
struct Param {
  std::string key;
  std::string value;
  int line = 0;
};

// One grid axis: `keys` (one key; several for a zip entry) and its settings,
// settings[i][k] the value of keys[k] in the i-th setting (>= 1 setting).
struct Axis {
  std::vector<std::string> keys;
  std::vector<std::vector<std::string>> settings;
  int line = 0;            // the `axes` key's line, or the zip entry's
  std::vector<int> lines;  // each key's line, as keys (empty: `line` for all)
};

struct MorrisSpec {
  int trajectories = 10;  // >= 2
  int levels = 4;         // even, >= 2
  uint64_t seed = 1;
  std::vector<MorrisFactor> factors;  // in file order, >= 1
  int line = 0;                       // the `morris:` key's line
  std::vector<int> factor_lines;      // each factor's line, as factors (empty: `line`)
};

struct RunLimits {
  double time_s = 0;         // wall-clock seconds per run; 0 = none
  int64_t memory_bytes = 0;  // address space per run; 0 = none
};

struct SweepSpec {
  std::string path;  // the file read
  std::string name;
  std::vector<Param> base;                  // file order
  std::vector<Axis> axes;                   // `axes` entries in file order, then `zip` entries
  std::vector<std::vector<Param>> exclude;  // each entry: keys that must all match
  std::vector<std::string> metrics;         // empty = all summary metrics
  RunLimits limits;
  std::optional<MorrisSpec> morris;
};

// Reads and checks a sweep file. Errors (kInvalidArgument; kIo when it
// cannot be read) read "<file>:<line>: field '<field>': expected <what>, got
// '<text>'": unknown top-level keys, a key both in base and swept, a key in
// two axes, an empty axis, zip lists of different lengths, non-scalar
// values, exclude keys that are not swept, a Morris factor that is also a
// grid axis or base key, bad limits (time: seconds or 30s/10m/2h; memory:
// bytes or KiB/MiB/GiB/KB/MB/GB suffixes), no run at all.
Result<SweepSpec> ReadSweepSpec(const std::string& path);
// The same from text (`path` only names it in messages).
Result<SweepSpec> ParseSweepSpec(const std::string& text, const std::string& path);

// One run of a sweep.
struct SweepRun {
  int index = 0;               // position in the expansion (after exclusion), 0-based
  std::vector<Param> swept;    // the axes' keys then the Morris factors, with this run's values
  std::vector<Param> options;  // base then swept (all keys distinct)
  int morris_point = -1;       // index into the Morris design's points; -1 without Morris
  int morris_group = -1;       // which grid combination this Morris point belongs to; -1 without
};

// Every run in order: the grid (first axis slowest) without the excluded
// runs, each crossed with the Morris design's points (innermost) when there
// is one. Morris values are written with up to 12 significant digits
// ("%.12g"; integers without a decimal point). Exclusion compares the
// texts, or the numbers when both parse as numbers ("1" matches "1.0").
// `design` (may be null) receives the Morris design.
Result<std::vector<SweepRun>> ExpandSweep(const SweepSpec& spec, MorrisDesign* design = nullptr);

// Canonical "key=value" lines of a run's options, sorted by key, one per
// line: the text a run's identity digest is taken over (with its inputs).
std::string CanonicalOptions(const std::vector<Param>& options);

}  // namespace utilsim::sweep
