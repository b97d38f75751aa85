// The sacct reader's parts (utilsim/traces/sacct.h): the input (text or JSON,
// plain or gzip), the two parsers that turn records into SacctRecord, and
// the builder that turns records into jobs.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "utilsim/engine/csv.h"
#include "utilsim/engine/status.h"
#include "utilsim/traces/sacct.h"
#include "utilsim/traces/slurm_text.h"

namespace utilsim::traces::internal {

// A sacct output file as lines (gzip by magic bytes, CRLF and a UTF-8 BOM
// handled) or, for JSON, as one text.
class SacctInput {
 public:
  static Result<SacctInput> Open(const std::string& path);
  // The first byte that is not blank, or '\0' for an input of blanks only.
  Result<char> FirstByte();
  // The next line (without its end) and its 1-based number; false at the
  // end. The view is valid until the next call. Error: a line over 64 MiB.
  Result<bool> NextLine(std::string_view* line);
  int64_t line() const { return line_; }
  // Up to `n` bytes from the current position, without consuming them.
  Result<std::string> Peek(size_t n);
  // Everything not yet consumed.
  Result<std::string> Rest();
  // Bytes consumed so far (uncompressed).
  int64_t bytes() const { return consumed_; }

 private:
  Result<bool> Fill();
  std::string path_;
  std::unique_ptr<CsvInput> in_;
  std::string buf_;
  size_t pos_ = 0;
  bool eof_ = false;
  bool started_ = false;
  int64_t line_ = 0;
  int64_t consumed_ = 0;
};

// Field names for messages: the text columns, or the JSON paths.
struct SacctNames {
  const char *job_id, *submit, *start, *end, *node_list, *alloc, *req;
};
inline constexpr SacctNames kTextNames = {"JobID",    "Submit",    "Start",  "End",
                                          "NodeList", "AllocTRES", "ReqTRES"};
inline constexpr SacctNames kJsonNames = {"job_id", "time.submission", "time.start",    "time.end",
                                          "nodes",  "tres.allocated",  "tres.requested"};

// One allocation record, as either parser reads it. Times in UNIX seconds.
struct SacctRecord {
  std::string where;  // "<file>:<line>" or "<file>: jobs[<i>]"
  const SacctNames* names = &kTextNames;
  std::string job_id;  // as printed: "123", "5_0", "15+1", "17_[0-2]"
  std::string state;   // base state in upper case ("CANCELLED", not "CANCELLED by 0")
  std::optional<int64_t> submit, eligible, start, end;
  std::string submit_text, end_text;  // as written, for messages
  std::optional<int64_t> elapsed_s;
  std::optional<Micros> limit;  // nullopt: none (UNLIMITED, Partition_Limit, not given)
  std::string partition, qos, user, account;
  std::optional<int64_t> priority;  // 0..2^32-1
  bool has_alloc = false, has_req = false;
  SlurmTres alloc, req;
  std::string node_list;
  std::string exit_code;
};

// Turns records into jobs (the per-record rules of sacct.h), then names,
// shifts and notes them in Finish.
class SacctBuilder {
 public:
  SacctBuilder(const SacctOptions& opt, TraceData* out);
  Status Add(const SacctRecord& r);
  void CountStep() { ++steps_; }
  // Bytes of the current file read so far (for the host budget).
  void SetFileBytes(int64_t bytes) { file_bytes_ = bytes; }
  void CountFile(const std::string& path, const char* kind, int64_t records);
  // Names jobs, applies the time origin, finalizes the workload, adds notes.
  void Finish(const std::vector<std::string>& paths);

 private:
  struct Kept {
    std::string id;
    int32_t ordinal;
  };
  Status Demand(const SacctRecord& r, Job* job);
  void CheckConf(const SacctRecord& r, Job* job);
  const SacctOptions& opt_;
  TraceData* out_;
  std::unordered_map<std::string, int32_t> records_of_id_;
  std::vector<Kept> kept_;
  int64_t origin_ = INT64_MAX;
  // Bytes of host names expanded so far (bounded above by names x the
  // list's length), and input bytes of the files done: at most 64 MiB +
  // 1000 per input byte in all, so a small file cannot fill the memory.
  int64_t host_bytes_ = 0, bytes_done_ = 0, file_bytes_ = 0;
  int64_t steps_ = 0, eligible_later_ = 0, eligible_max_wait_ = 0;
  int64_t typed_ = 0, by_partition_ = 0, nonzero_exit_ = 0;
  std::map<std::string, int64_t> states_, partitions_, qos_;
  std::vector<std::string> files_;
  // From opt.conf: node index by name, and each partition's GPU models
  // (empty when it holds every model of the cluster).
  std::unordered_map<std::string, int> node_index_;
  std::map<std::string, std::vector<std::string>> partition_models_;
};

// Parsers: each reads one file into the builder. rows_read counts records.
Status ReadSacctText(SacctInput& in, const std::string& path, SacctBuilder* b, int64_t* rows);
Status ReadSacctJson(SacctInput& in, const std::string& path, SacctBuilder* b, int64_t* rows);

// "CANCELLED by 0" -> "CANCELLED"; upper case.
std::string BaseState(std::string_view text);

}  // namespace utilsim::traces::internal
