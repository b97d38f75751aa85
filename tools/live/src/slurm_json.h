// Private helpers of the Slurm JSON readers (slurm_objects.cc,
// slurm_jobs.cc): fields as every data-parser version writes them. Errors
// name the JSON path; absent and null read as unset.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "k8s_json.h"
#include "utilsim/engine/status.h"
#include "utilsim/live/slurm_objects.h"

namespace utilsim::live::internal {

std::string Upper(std::string s);
// A plain number, null (unset) or {"set", "infinite", "number"} (v0.0.40+;
// unset and infinite read as unset). *set tells which; *out is left alone
// when unset.
Status ReadNumber(const json& obj, const std::string& path, const std::string& key, int64_t* out,
                  bool* set = nullptr);
// A number 0..INT32_MAX, as ReadNumber.
Status ReadInt32(const json& obj, const std::string& path, const std::string& key, int32_t* out);
// A string, or an array of strings joined with ',' (v0.0.40 lists).
Status ReadStringOrList(const json& obj, const std::string& path, const std::string& key,
                        std::string* out);
// Upper-case state words from "mixed+drain" or an array of flags, added to
// *out without repeats.
Status ReadStateWords(const json& obj, const std::string& path, const std::string& key,
                      std::vector<std::string>* out);
// Fills *meta (when not null) from doc's "meta" object.
Status ReadMeta(const json& doc, SlurmMeta* meta);
// The parsed document when it is an object with the array `key` and an
// empty "errors" (else an error quoting Slurm's first error); fills *meta.
Result<json> OpenDocument(std::string_view text, const char* key, SlurmMeta* meta);
// GPU count (and first type, when `type` is given) of a GRES string.
Status GpusOf(const std::string& gres, const std::string& path, int32_t* gpus, std::string* type);

}  // namespace utilsim::live::internal
