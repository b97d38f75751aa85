// The canonical trace formats of utilsim (docs/trace-format.md):
//  - a jobs CSV (one row per job, optional per-job utilization profiles in
//    side files), and
//  - a YAML cluster spec (GPU models and node groups).
// Every reader error is a Status naming the file and line, and for a bad
// value reads exactly
//   <file>:<line>: field '<col>': expected <what>, got '<text>'
// (YAML errors say "key" instead of "field"). Writers are atomic: they write a
// temporary file and rename it, so a failed write never leaves a
// complete-looking file. Reading what a writer wrote gives the same data.
// (The temporary file is `.<name>.utilsim-tmp-<pid>` beside the target,
// removed on SIGINT/SIGTERM; the target must be a regular file or missing:
// utilsim/traces/temp_file.h.)
//
// All functions are thread-safe for distinct paths.
#pragma once

#include <cstdio>
#include <string>

#include "utilsim/engine/cluster_spec.h"
#include "utilsim/engine/job.h"
#include "utilsim/engine/status.h"

namespace utilsim::traces {

// Reads a jobs CSV (plain or gzip). Columns are named by the header; `id`,
// `submit_s` and `runtime_s` are required, the others optional with defaults.
// A "# signal: <name>" comment before the header sets Workload::signal.
// Profiles named in the `profile` column are read relative to the folder of
// `path`, once per distinct path, into Workload::series; the job's util is
// then the profile's time-weighted mean over its runtime. Sets
// Workload::source to `path` and calls Workload::Finalize().
Result<Workload> ReadJobsCsv(const std::string& path);

// Writes every column for every job, with exact, round-trippable numbers.
// Jobs' series are written to "<dir>/<stem>.profiles/<k>.csv" (k = index in
// Workload::series; only series some job uses), where <stem> is the file
// name of `path` without its last extension; an existing profiles folder of
// that name is replaced. Errors: unwritable path, a job whose tenant or
// series index is out of range, or whose id is empty, or a GPU model name
// that holds '|'. Values are not otherwise checked: a job the reader would
// reject (e.g. runtime 0) is written as is.
Status WriteJobsCsv(const Workload& workload, const std::string& path);
// The same text to an open stream (standard output), for jobs without a
// utilization series (a series needs its profile file beside the CSV);
// `name` stands for the stream in messages. Errors: a job with a series
// ("<name>: job '<id>' has a utilization series, ...; give a file path"),
// the checks above, "<name>: write error".
Status WriteJobsCsv(const Workload& workload, std::FILE* out, const std::string& name);

// Reads a utilization series CSV: header `offset_s,busy`, offsets in seconds
// from 0 strictly increasing (after rounding to microseconds), busy 0..1,
// at least one row.
Result<UtilSeries> ReadUtilSeriesCsv(const std::string& path);
// Writes a series ReadUtilSeriesCsv reads back identically. Does not check
// the series.
Status WriteUtilSeriesCsv(const UtilSeries& series, const std::string& path);

// Reads a cluster spec from YAML text; `source_name` stands for the file
// name in messages. Errors: YAML syntax, unknown / missing / duplicate keys,
// values out of range, undeclared GPU models, duplicate names.
Result<ClusterSpec> ParseClusterYaml(const std::string& text, const std::string& source_name);
Result<ClusterSpec> ReadClusterYaml(const std::string& path);
// Writes a spec that ParseClusterYaml reads back identically (when it is
// valid; values are not checked). Atomic via a temporary file and rename.
Status WriteClusterYaml(const ClusterSpec& spec, const std::string& path);
// The YAML text WriteClusterYaml writes.
std::string FormatClusterYaml(const ClusterSpec& spec);

// Stable 64-bit FNV-1a digests, as 16 lowercase hex digits, over every field
// in a fixed order, to identify inputs in result metadata. Jobs are hashed in
// order with their tenant name (not index) and their series' contents (not
// index); Workload::source is not hashed, so the same data read from two
// paths digests the same.
std::string DigestWorkload(const Workload& workload);
std::string DigestCluster(const ClusterSpec& spec);

}  // namespace utilsim::traces
