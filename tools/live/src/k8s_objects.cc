// Readers of core/v1 Pod and Node JSON and the taint rule
// (utilsim/live/k8s_objects.h). Field names are upstream's
// (k8s.io/api/core/v1/types.go json tags). Two upstream rules are applied
// while reading, since the scheduler sees pods after them:
//  - defaulting (pkg/apis/core/v1/defaults.go): a container's request for a
//    resource it only has a limit for is that limit (nvidia.com/gpu is
//    usually given as a limit only);
//  - the effective pod request (k8s.io/component-helpers/resource,
//    PodRequests): the sum over containers, at least the largest init
//    container's request, plus overhead. Sidecar init containers
//    (restartPolicy: Always) run beside the containers: they add to the
//    sum, and to every later init container's request, as upstream does.
#include "utilsim/live/k8s_objects.h"

#include <algorithm>
#include <vector>

#include "k8s_json.h"

namespace utilsim::live {

using internal::At;
using internal::Expected;
using internal::json;
using internal::Sub;

namespace {

struct Metadata {
  std::string name, namespace_name, uid, resource_version;
  std::map<std::string, std::string> labels, annotations;
  bool deleting = false;
};

Status ReadMetadata(const json& j, const std::string& path, Metadata* m) {
  const json* meta = nullptr;
  UTILSIM_LIVE_RETURN_IF_ERROR(internal::ReadObject(j, path, "metadata", &meta));
  const std::string here = Sub(path, "metadata");
  if (meta == nullptr || internal::Field(*meta, "name") == nullptr) {
    return Status::Error(StatusCode::kInvalidArgument, Sub(here, "name") + ": missing");
  }
  UTILSIM_LIVE_RETURN_IF_ERROR(internal::ReadString(*meta, here, "name", &m->name));
  UTILSIM_LIVE_RETURN_IF_ERROR(internal::ReadString(*meta, here, "namespace", &m->namespace_name));
  UTILSIM_LIVE_RETURN_IF_ERROR(internal::ReadString(*meta, here, "uid", &m->uid));
  UTILSIM_LIVE_RETURN_IF_ERROR(
      internal::ReadString(*meta, here, "resourceVersion", &m->resource_version));
  UTILSIM_LIVE_RETURN_IF_ERROR(internal::ReadStringMap(*meta, here, "labels", &m->labels));
  UTILSIM_LIVE_RETURN_IF_ERROR(
      internal::ReadStringMap(*meta, here, "annotations", &m->annotations));
  std::string deletion;
  UTILSIM_LIVE_RETURN_IF_ERROR(internal::ReadString(*meta, here, "deletionTimestamp", &deletion));
  m->deleting = !deletion.empty();
  return Status::Ok();
}

// The objects of the list obj[key], each checked to be an object.
Status ReadObjects(const json& obj, const std::string& path, const std::string& key,
                   std::vector<const json*>* out) {
  const json* list = nullptr;
  UTILSIM_LIVE_RETURN_IF_ERROR(internal::ReadArray(obj, path, key, &list));
  if (list == nullptr) return Status::Ok();
  for (size_t i = 0; i < list->size(); ++i) {
    const json& e = (*list)[i];
    if (!e.is_object()) return Expected(At(Sub(path, key), i), "an object", e);
    out->push_back(&e);
  }
  return Status::Ok();
}

Status Add(std::map<std::string, int64_t>* into, const std::map<std::string, int64_t>& from,
           const std::string& path) {
  for (const auto& [name, v] : from) {
    int64_t& slot = (*into)[name];
    if (__builtin_add_overflow(slot, v, &slot)) {
      return Status::Error(StatusCode::kInvalidArgument, path + ": the pod's total request for " +
                                                             name + " is beyond int64 milli-units");
    }
  }
  return Status::Ok();
}

void Max(std::map<std::string, int64_t>* into, const std::map<std::string, int64_t>& from) {
  for (const auto& [name, v] : from) {
    auto [it, inserted] = into->emplace(name, v);
    if (!inserted) it->second = std::max(it->second, v);
  }
}

struct Container {
  std::map<std::string, int64_t> requests;  // defaulted from limits
  bool sidecar = false;                     // restartPolicy: Always (init containers)
};

Status ReadContainers(const json& spec, const std::string& path, const std::string& key,
                      std::vector<Container>* out) {
  std::vector<const json*> items;
  UTILSIM_LIVE_RETURN_IF_ERROR(ReadObjects(spec, path, key, &items));
  for (size_t i = 0; i < items.size(); ++i) {
    const std::string here = At(Sub(path, key), i);
    Container c;
    std::string restart;
    UTILSIM_LIVE_RETURN_IF_ERROR(internal::ReadString(*items[i], here, "restartPolicy", &restart));
    c.sidecar = restart == "Always";
    const json* res = nullptr;
    UTILSIM_LIVE_RETURN_IF_ERROR(internal::ReadObject(*items[i], here, "resources", &res));
    if (res != nullptr) {
      const std::string rpath = Sub(here, "resources");
      std::map<std::string, int64_t> limits;
      UTILSIM_LIVE_RETURN_IF_ERROR(internal::ReadQuantities(*res, rpath, "requests", &c.requests));
      UTILSIM_LIVE_RETURN_IF_ERROR(internal::ReadQuantities(*res, rpath, "limits", &limits));
      for (const auto& [name, v] : limits) c.requests.emplace(name, v);  // keeps requests
    }
    out->push_back(std::move(c));
  }
  return Status::Ok();
}

Result<std::map<std::string, int64_t>> PodRequests(const json& spec, const std::string& path) {
  std::vector<Container> containers, init;
  UTILSIM_LIVE_RETURN_IF_ERROR(ReadContainers(spec, path, "containers", &containers));
  UTILSIM_LIVE_RETURN_IF_ERROR(ReadContainers(spec, path, "initContainers", &init));
  std::map<std::string, int64_t> total, sidecars, init_max, overhead;
  for (const Container& c : containers) {
    UTILSIM_LIVE_RETURN_IF_ERROR(Add(&total, c.requests, Sub(path, "containers")));
  }
  const std::string ipath = Sub(path, "initContainers");
  for (const Container& c : init) {
    if (c.sidecar) {
      UTILSIM_LIVE_RETURN_IF_ERROR(Add(&total, c.requests, ipath));
      UTILSIM_LIVE_RETURN_IF_ERROR(Add(&sidecars, c.requests, ipath));
      Max(&init_max, sidecars);
    } else {
      std::map<std::string, int64_t> r = c.requests;
      UTILSIM_LIVE_RETURN_IF_ERROR(Add(&r, sidecars, ipath));
      Max(&init_max, r);
    }
  }
  Max(&total, init_max);
  UTILSIM_LIVE_RETURN_IF_ERROR(internal::ReadQuantities(spec, path, "overhead", &overhead));
  UTILSIM_LIVE_RETURN_IF_ERROR(Add(&total, overhead, Sub(path, "overhead")));
  return total;
}

}  // namespace

bool ToleratesAll(const std::vector<Taint>& taints, const std::vector<Toleration>& tolerations) {
  // v1.Toleration.ToleratesTaint, over the taints the TaintToleration
  // filter considers (NoSchedule and NoExecute).
  auto tolerates = [](const Toleration& t, const Taint& taint) {
    if (!t.effect.empty() && t.effect != taint.effect) return false;
    if (!t.key.empty() && t.key != taint.key) return false;
    if (t.op == "Exists") return true;
    if (t.op.empty() || t.op == "Equal") return t.value == taint.value;
    return false;
  };
  for (const Taint& taint : taints) {
    if (taint.effect != "NoSchedule" && taint.effect != "NoExecute") continue;
    if (std::none_of(tolerations.begin(), tolerations.end(),
                     [&](const Toleration& t) { return tolerates(t, taint); })) {
      return false;
    }
  }
  return true;
}

std::string K8sNode::gpu_product() const {
  auto it = labels.find("nvidia.com/gpu.product");
  return it == labels.end() ? "" : it->second;
}

Result<K8sNode> ParseNode(const json& j, const std::string& path) {
  if (!j.is_object()) return Expected(path, "a Node object", j);
  K8sNode n;
  Metadata m;
  UTILSIM_LIVE_RETURN_IF_ERROR(ReadMetadata(j, path, &m));
  n.name = std::move(m.name);
  n.uid = std::move(m.uid);
  n.resource_version = std::move(m.resource_version);
  n.labels = std::move(m.labels);

  const json* spec = nullptr;
  UTILSIM_LIVE_RETURN_IF_ERROR(internal::ReadObject(j, path, "spec", &spec));
  if (spec != nullptr) {
    const std::string here = Sub(path, "spec");
    UTILSIM_LIVE_RETURN_IF_ERROR(
        internal::ReadBool(*spec, here, "unschedulable", &n.unschedulable));
    std::vector<const json*> taints;
    UTILSIM_LIVE_RETURN_IF_ERROR(ReadObjects(*spec, here, "taints", &taints));
    for (size_t i = 0; i < taints.size(); ++i) {
      const std::string tpath = At(Sub(here, "taints"), i);
      Taint t;
      UTILSIM_LIVE_RETURN_IF_ERROR(internal::ReadString(*taints[i], tpath, "key", &t.key));
      UTILSIM_LIVE_RETURN_IF_ERROR(internal::ReadString(*taints[i], tpath, "value", &t.value));
      UTILSIM_LIVE_RETURN_IF_ERROR(internal::ReadString(*taints[i], tpath, "effect", &t.effect));
      n.taints.push_back(std::move(t));
    }
  }

  const json* status = nullptr;
  UTILSIM_LIVE_RETURN_IF_ERROR(internal::ReadObject(j, path, "status", &status));
  if (status != nullptr) {
    const std::string here = Sub(path, "status");
    UTILSIM_LIVE_RETURN_IF_ERROR(
        internal::ReadQuantities(*status, here, "allocatable", &n.allocatable_milli));
    std::vector<const json*> conditions;
    UTILSIM_LIVE_RETURN_IF_ERROR(ReadObjects(*status, here, "conditions", &conditions));
    for (size_t i = 0; i < conditions.size(); ++i) {
      const std::string cpath = At(Sub(here, "conditions"), i);
      std::string type, value;
      UTILSIM_LIVE_RETURN_IF_ERROR(internal::ReadString(*conditions[i], cpath, "type", &type));
      UTILSIM_LIVE_RETURN_IF_ERROR(internal::ReadString(*conditions[i], cpath, "status", &value));
      if (type == "Ready") n.ready = value == "True";
    }
  }
  return n;
}

Result<K8sPod> ParsePod(const json& j, const std::string& path) {
  if (!j.is_object()) return Expected(path, "a Pod object", j);
  K8sPod p;
  Metadata m;
  UTILSIM_LIVE_RETURN_IF_ERROR(ReadMetadata(j, path, &m));
  p.name = std::move(m.name);
  p.namespace_name = std::move(m.namespace_name);
  p.uid = std::move(m.uid);
  p.resource_version = std::move(m.resource_version);
  p.labels = std::move(m.labels);
  p.annotations = std::move(m.annotations);
  p.deleting = m.deleting;

  const json* spec = nullptr;
  UTILSIM_LIVE_RETURN_IF_ERROR(internal::ReadObject(j, path, "spec", &spec));
  if (spec != nullptr) {
    const std::string here = Sub(path, "spec");
    UTILSIM_LIVE_RETURN_IF_ERROR(internal::ReadString(*spec, here, "nodeName", &p.node_name));
    UTILSIM_LIVE_RETURN_IF_ERROR(
        internal::ReadString(*spec, here, "schedulerName", &p.scheduler_name));
    UTILSIM_LIVE_RETURN_IF_ERROR(
        internal::ReadStringMap(*spec, here, "nodeSelector", &p.node_selector));
    std::vector<const json*> tolerations;
    UTILSIM_LIVE_RETURN_IF_ERROR(ReadObjects(*spec, here, "tolerations", &tolerations));
    for (size_t i = 0; i < tolerations.size(); ++i) {
      const std::string tpath = At(Sub(here, "tolerations"), i);
      Toleration t;
      UTILSIM_LIVE_RETURN_IF_ERROR(internal::ReadString(*tolerations[i], tpath, "key", &t.key));
      UTILSIM_LIVE_RETURN_IF_ERROR(internal::ReadString(*tolerations[i], tpath, "operator", &t.op));
      UTILSIM_LIVE_RETURN_IF_ERROR(internal::ReadString(*tolerations[i], tpath, "value", &t.value));
      UTILSIM_LIVE_RETURN_IF_ERROR(
          internal::ReadString(*tolerations[i], tpath, "effect", &t.effect));
      p.tolerations.push_back(std::move(t));
    }
    Result<std::map<std::string, int64_t>> requests = PodRequests(*spec, here);
    if (!requests.ok()) return requests.status();
    p.requests_milli = std::move(requests).value();
  }

  const json* status = nullptr;
  UTILSIM_LIVE_RETURN_IF_ERROR(internal::ReadObject(j, path, "status", &status));
  if (status != nullptr) {
    UTILSIM_LIVE_RETURN_IF_ERROR(
        internal::ReadString(*status, Sub(path, "status"), "phase", &p.phase));
  }
  return p;
}

}  // namespace utilsim::live
