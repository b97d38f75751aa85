// BindPod against a local server standing in for the API server's
// pods/binding subresource (the request shape of core/v1 Binding).
#include <gtest/gtest.h>
#include <httplib.h>

#include <nlohmann/json.hpp>
#include <thread>

#include "utilsim/live/kube_client.h"

namespace utilsim::live {
namespace UTILSIM_UNITY_ID {

TEST(KubeBind, PostsABindingAndReportsRefusals) {
  httplib::Server srv;
  nlohmann::json seen;
  std::string path, auth;
  srv.Post(R"(/api/v1/namespaces/([^/]+)/pods/([^/]+)/binding)", [&](const httplib::Request& req,
                                                                     httplib::Response& res) {
    path = req.path;
    auth = req.get_header_value("Authorization");
    seen = nlohmann::json::parse(req.body);
    if (req.matches[2] == "taken") {
      res.status = 409;
      res.set_content(
          R"({"kind":"Status","apiVersion":"v1","status":"Failure","message":"pod taken is already assigned to node \"g-0\"","reason":"Conflict","code":409})",
          "application/json");
      return;
    }
    res.status = 201;
    res.set_content(R"({"kind":"Status","status":"Success","code":201})", "application/json");
  });
  const int port = srv.bind_to_any_port("127.0.0.1");
  std::thread t([&] { srv.listen_after_bind(); });
  KubeConfig cfg;
  cfg.server = "http://127.0.0.1:" + std::to_string(port);
  cfg.token = "t0k";
  Status s = BindPod(cfg, "ml", "train-1", "uid-1", "g-1");
  EXPECT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(path, "/api/v1/namespaces/ml/pods/train-1/binding");
  EXPECT_EQ(auth, "Bearer t0k");
  EXPECT_EQ(seen, nlohmann::json::parse(R"({"apiVersion":"v1","kind":"Binding",
      "metadata":{"name":"train-1","namespace":"ml","uid":"uid-1"},
      "target":{"apiVersion":"v1","kind":"Node","name":"g-1"}})"));
  s = BindPod(cfg, "ml", "taken", "uid-2", "g-1");
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("409"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("already assigned"), std::string::npos) << s.message();
  srv.stop();
  t.join();
  cfg.server = "http://127.0.0.1:" + std::to_string(port);  // nobody listens now
  EXPECT_FALSE(BindPod(cfg, "ml", "train-1", "uid-1", "g-1", 500).ok());
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim::live
