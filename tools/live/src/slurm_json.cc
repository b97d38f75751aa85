// Field readers shared by the Slurm JSON readers (slurm_json.h).
#include "slurm_json.h"

#include <algorithm>
#include <cctype>
#include <limits>

#include "utilsim/traces/slurm_text.h"

namespace utilsim::live::internal {

std::string Upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// A number as every data parser writes it: a plain number, null (unset), or
// {"set": bool, "infinite": bool, "number": N} (v0.0.40+; unset and
// infinite read as unset). *set tells which; *out is left alone when unset.
Status ReadNumber(const json& obj, const std::string& path, const std::string& key, int64_t* out,
                  bool* set) {
  if (set) *set = false;
  const json* v = Field(obj, key);
  if (v == nullptr) return Status::Ok();
  const std::string here = Sub(path, key);
  if (v->is_object()) {
    const json* s = Field(*v, "set");
    const json* inf = Field(*v, "infinite");
    if ((s && !s->is_boolean()) || (inf && !inf->is_boolean()))
      return Expected(here, "a number or {set, infinite, number}", *v);
    if ((s && !s->get<bool>()) || (inf && inf->get<bool>())) return Status::Ok();
    return ReadNumber(*v, here, "number", out, set);
  }
  if (v->is_number_integer()) {
    *out = v->get<int64_t>();
  } else if (v->is_number_unsigned()) {
    const uint64_t u = v->get<uint64_t>();
    *out = u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())
               ? std::numeric_limits<int64_t>::max()
               : static_cast<int64_t>(u);
  } else if (v->is_number_float()) {
    *out = static_cast<int64_t>(v->get<double>());
  } else {
    return Expected(here, "a number", *v);
  }
  if (set) *set = true;
  return Status::Ok();
}

Status ReadInt32(const json& obj, const std::string& path, const std::string& key, int32_t* out) {
  int64_t v = *out;
  if (Status s = ReadNumber(obj, path, key, &v); !s.ok()) return s;
  if (v < 0 || v > std::numeric_limits<int32_t>::max())
    return Expected(Sub(path, key), "a count 0..2147483647", json(v));
  *out = static_cast<int32_t>(v);
  return Status::Ok();
}

// A string, or an array of strings (joined with ','): v0.0.40 turned several
// comma lists into arrays.
Status ReadStringOrList(const json& obj, const std::string& path, const std::string& key,
                        std::string* out) {
  const json* v = Field(obj, key);
  if (v == nullptr) return Status::Ok();
  if (v->is_string()) {
    *out = v->get<std::string>();
    return Status::Ok();
  }
  if (!v->is_array()) return Expected(Sub(path, key), "a string or a list of strings", *v);
  out->clear();
  for (size_t i = 0; i < v->size(); ++i) {
    if (!(*v)[i].is_string()) return Expected(At(Sub(path, key), i), "a string", (*v)[i]);
    if (!out->empty()) *out += ',';
    *out += (*v)[i].get<std::string>();
  }
  return Status::Ok();
}

// State words from a string ("mixed+drain", "IDLE") or an array of flags.
Status ReadStateWords(const json& obj, const std::string& path, const std::string& key,
                      std::vector<std::string>* out) {
  const json* v = Field(obj, key);
  if (v == nullptr) return Status::Ok();
  auto add = [&](const std::string& text) {
    size_t b = 0;
    while (b <= text.size()) {
      size_t e = text.find_first_of("+,", b);
      if (e == std::string::npos) e = text.size();
      if (e > b) {
        std::string w = Upper(text.substr(b, e - b));
        if (std::find(out->begin(), out->end(), w) == out->end()) out->push_back(w);
      }
      b = e + 1;
    }
  };
  if (v->is_string()) {
    add(v->get<std::string>());
    return Status::Ok();
  }
  if (!v->is_array()) return Expected(Sub(path, key), "a state string or a list of flags", *v);
  for (size_t i = 0; i < v->size(); ++i) {
    if (!(*v)[i].is_string()) return Expected(At(Sub(path, key), i), "a string", (*v)[i]);
    add((*v)[i].get<std::string>());
  }
  return Status::Ok();
}

Status ReadMeta(const json& doc, SlurmMeta* meta) {
  if (meta == nullptr) return Status::Ok();
  const json* m = Field(doc, "meta");
  if (m == nullptr || !m->is_object()) return Status::Ok();
  if (const json* p = Field(*m, "plugin"); p && p->is_object()) {
    std::string type, parser;
    (void)ReadString(*p, "meta.plugin", "type", &type);
    (void)ReadString(*p, "meta.plugin", "data_parser", &parser);
    if (!parser.empty()) {
      meta->data_parser = parser;
    } else if (auto slash = type.rfind('/'); slash != std::string::npos) {
      meta->data_parser = type.substr(slash + 1);  // "openapi/v0.0.38"
    }
  }
  for (const char* k : {"Slurm", "slurm"}) {
    const json* s = Field(*m, k);
    if (s && s->is_object()) (void)ReadString(*s, "meta.slurm", "release", &meta->release);
  }
  return Status::Ok();
}

// The document, its first error when "errors" is not empty, and the array
// `key`.
Result<json> OpenDocument(std::string_view text, const char* key, SlurmMeta* meta) {
  json doc = json::parse(text.begin(), text.end(), nullptr, false);
  if (doc.is_discarded() || !doc.is_object())
    return Status::Error(StatusCode::kInvalidArgument, "not a JSON object");
  if (Status s = ReadMeta(doc, meta); !s.ok()) return s;
  if (const json* errs = Field(doc, "errors"); errs && errs->is_array() && !errs->empty()) {
    const json& e = (*errs)[0];
    std::string what;
    if (e.is_object()) {
      for (const char* k : {"description", "error", "source"}) {
        std::string part;
        (void)ReadString(e, "errors[0]", k, &part);
        if (!part.empty()) what += (what.empty() ? "" : ": ") + part;
      }
    }
    if (what.empty()) what = internal::Describe(e);
    return Status::Error(StatusCode::kRuntime, "Slurm answered with an error: " + what);
  }
  const json* arr = Field(doc, key);
  if (arr == nullptr || !arr->is_array())
    return Status::Error(StatusCode::kInvalidArgument,
                         std::string("no \"") + key + "\" array in the response");
  return doc;
}

// GPU count and type of a gres string ("gpu:a100:4(S:0)", several allowed).
Status GpusOf(const std::string& gres, const std::string& path, int32_t* gpus, std::string* type) {
  auto parsed = traces::ParseGres(gres);
  if (!parsed.ok()) return parsed.status().Prefixed(path + ": ");
  int64_t n = 0;
  for (const auto& g : parsed.value()) {
    if (g.name != "gpu") continue;
    n += g.count;
    if (type && type->empty()) *type = g.type;
  }
  if (n > std::numeric_limits<int32_t>::max())
    return Status::Error(StatusCode::kInvalidArgument, path + ": too many GPUs");
  *gpus = static_cast<int32_t>(n);
  return Status::Ok();
}

}  // namespace utilsim::live::internal

namespace utilsim::live {

SlurmMeta ParseSlurmMeta(std::string_view text) {
  SlurmMeta meta;
  internal::json doc = internal::json::parse(text.begin(), text.end(), nullptr, false);
  if (!doc.is_discarded() && doc.is_object()) (void)internal::ReadMeta(doc, &meta);
  return meta;
}

}  // namespace utilsim::live
