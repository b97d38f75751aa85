// Readers of list responses (v1 NodeList, PodList) and watch stream lines
// (meta/v1 WatchEvent) (utilsim/live/k8s_objects.h). A list's errors name
// the item ("items[3].spec..."), a watch line's the object
// ("object.metadata.name: ...").
#include <nlohmann/json.hpp>

#include "k8s_json.h"
#include "utilsim/live/k8s_objects.h"

namespace utilsim::live {

using internal::json;

namespace {

template <typename List, typename Parse>
Result<List> ParseList(const json& j, const char* kind, Parse parse) {
  if (!j.is_object()) return internal::Expected("", std::string("a ") + kind + " object", j);
  List out;
  const json* meta = nullptr;
  UTILSIM_LIVE_RETURN_IF_ERROR(internal::ReadObject(j, "", "metadata", &meta));
  if (meta != nullptr) {
    UTILSIM_LIVE_RETURN_IF_ERROR(
        internal::ReadString(*meta, "metadata", "resourceVersion", &out.resource_version));
    UTILSIM_LIVE_RETURN_IF_ERROR(
        internal::ReadString(*meta, "metadata", "continue", &out.continue_token));
  }
  const json* items = nullptr;
  UTILSIM_LIVE_RETURN_IF_ERROR(internal::ReadArray(j, "", "items", &items));
  if (items != nullptr) {
    out.items.reserve(items->size());
    for (size_t i = 0; i < items->size(); ++i) {
      auto item = parse((*items)[i], internal::At("items", i));
      if (!item.ok()) return item.status();
      out.items.push_back(std::move(item).value());
    }
  }
  return out;
}

// The parts every watch line has: the type, and for BOOKMARK and ERROR
// what they carry. *object is the object of ADDED, MODIFIED and DELETED
// (nullptr for the others).
Status ParseEnvelope(std::string_view line, json* doc, WatchEvent* ev, const json** object) {
  try {
    *doc = json::parse(line.begin(), line.end());
  } catch (const json::exception& e) {
    return Status::Error(StatusCode::kInvalidArgument,
                         std::string("watch event: not JSON (") + e.what() + ")");
  }
  if (!doc->is_object()) return internal::Expected("", "a watch event object", *doc);
  std::string type;
  UTILSIM_LIVE_RETURN_IF_ERROR(internal::ReadString(*doc, "", "type", &type));
  if (type.empty()) return Status::Error(StatusCode::kInvalidArgument, "type: missing");
  const json* obj = nullptr;
  UTILSIM_LIVE_RETURN_IF_ERROR(internal::ReadObject(*doc, "", "object", &obj));
  if (obj == nullptr) return Status::Error(StatusCode::kInvalidArgument, "object: missing");
  *object = nullptr;
  if (type == "ADDED" || type == "MODIFIED" || type == "DELETED") {
    ev->type = type == "ADDED"      ? WatchEvent::Type::kAdded
               : type == "MODIFIED" ? WatchEvent::Type::kModified
                                    : WatchEvent::Type::kDeleted;
    *object = obj;
  } else if (type == "BOOKMARK") {
    ev->type = WatchEvent::Type::kBookmark;
    const json* meta = nullptr;
    UTILSIM_LIVE_RETURN_IF_ERROR(internal::ReadObject(*obj, "object", "metadata", &meta));
    if (meta != nullptr) {
      UTILSIM_LIVE_RETURN_IF_ERROR(
          internal::ReadString(*meta, "object.metadata", "resourceVersion", &ev->resource_version));
    }
  } else if (type == "ERROR") {
    ev->type = WatchEvent::Type::kError;
    const json* code = internal::Field(*obj, "code");
    if (code != nullptr) {
      if (!code->is_number_integer()) return internal::Expected("object.code", "an integer", *code);
      ev->error_code = code->get<int32_t>();
    }
    UTILSIM_LIVE_RETURN_IF_ERROR(
        internal::ReadString(*obj, "object", "message", &ev->error_message));
  } else {
    return internal::Expected("type", "ADDED, MODIFIED, DELETED, BOOKMARK or ERROR", json(type));
  }
  return Status::Ok();
}

template <typename Event, typename Parse, typename Member>
Result<Event> ParseWatchLine(std::string_view line, Parse parse, Member member) {
  json doc;
  Event out;
  const json* object = nullptr;
  UTILSIM_LIVE_RETURN_IF_ERROR(ParseEnvelope(line, &doc, &out.event, &object));
  if (object != nullptr) {
    auto parsed = parse(*object, "object");
    if (!parsed.ok()) return parsed.status();
    out.event.resource_version = parsed.value().resource_version;
    out.*member = std::move(parsed).value();
  }
  return out;
}

}  // namespace

Result<NodeList> ParseNodeList(const json& j) {
  return ParseList<NodeList>(j, "NodeList",
                             [](const json& e, const std::string& p) { return ParseNode(e, p); });
}

Result<PodList> ParsePodList(const json& j) {
  return ParseList<PodList>(j, "PodList",
                            [](const json& e, const std::string& p) { return ParsePod(e, p); });
}

Result<NodeWatchEvent> ParseNodeWatchEvent(std::string_view line) {
  return ParseWatchLine<NodeWatchEvent>(
      line, [](const json& e, const std::string& p) { return ParseNode(e, p); },
      &NodeWatchEvent::node);
}

Result<PodWatchEvent> ParsePodWatchEvent(std::string_view line) {
  return ParseWatchLine<PodWatchEvent>(
      line, [](const json& e, const std::string& p) { return ParsePod(e, p); },
      &PodWatchEvent::pod);
}

}  // namespace utilsim::live
