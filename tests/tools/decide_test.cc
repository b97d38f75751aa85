// The JSON decision protocol (utilsim/analysis/decide.h): hand-computed
// decisions of best-fit on a three-node cluster, the state the ops keep,
// every kind of bad request, and `utilsim decide` over a pipe.
#include "utilsim/analysis/decide.h"

#include <gtest/gtest.h>

#include <string>

#include "testutil/testutil.h"
#include "utilsim/engine/simulator.h"

namespace utilsim {
namespace UTILSIM_UNITY_ID {

using testutil::Fixture;

// tests/fixtures/decide/cluster.yaml: node 0 big (8 V100, 64 cores, 512
// GiB), node 1 small (4 V100, 32 cores, 256 GiB), node 2 t4 (4 T4, 16
// cores, 64 GiB).
std::unique_ptr<DecisionSession> Session(const std::string& policy = "best-fit") {
  auto s = DecisionSession::Open(Fixture("decide/cluster.yaml"), policy);
  EXPECT_TRUE(s.ok()) << s.status().message();
  return s.ok() ? std::move(s).value() : nullptr;
}

using testutil::Has;

// Best fit takes the node left with the fewest whole-free GPUs: a 4-GPU job
// fits small and t4 exactly (bucket 4; the lower index wins, small), a
// 6-GPU job only big; a T4 job only t4.
TEST(Decide, PlaceIsBestFitsHandComputedChoice) {
  auto s = Session();
  ASSERT_TRUE(s);
  EXPECT_EQ(s->Handle(R"({"op":"place","job":{"gpus":4,"cpu":8,"mem_gib":32}})"),
            R"({"ok":true,"placement":{"nodes":["small"],"gpus":[[0,1,2,3]],)"
            R"("text":"small:0,1,2,3"}})");
  EXPECT_EQ(s->Handle(R"({"op":"place","job":{"gpus":4,"gpu_model":"T4"}})"),
            R"({"ok":true,"placement":{"nodes":["t4"],"gpus":[[0,1,2,3]],"text":"t4:0,1,2,3"}})");
  EXPECT_EQ(s->Handle(R"({"op":"place","job":{"gpus":6}})"),
            R"({"ok":true,"placement":{"nodes":["big"],"gpus":[[0,1,2,3,4,5]],)"
            R"("text":"big:0,1,2,3,4,5"}})");
  // A gang of two 4-GPU tasks: the first takes small, the second (small now
  // full) t4, the next node left with the fewest GPUs.
  EXPECT_EQ(s->Handle(R"({"op":"place","job":{"tasks":2,"gpus":4}})"),
            R"({"ok":true,"placement":{"nodes":["small","t4"],"gpus":[[0,1,2,3],[0,1,2,3]],)"
            R"("text":"small:0,1,2,3;t4:0,1,2,3"}})");
  // Half a GPU: every GPU has 1000 free, so the tightest share ties and the
  // lowest node wins.
  EXPECT_EQ(s->Handle(R"({"op":"place","job":{"gpus":1,"gpu_milli":500}})"),
            R"({"ok":true,"placement":{"nodes":["big"],"gpus":[[0]],"text":"big:0"}})");
  // Placing changes nothing: the same question, the same answer.
  EXPECT_TRUE(Has(s->Handle(R"({"op":"place","job":{"gpus":4}})"), R"("nodes":["small"])"));
}

TEST(Decide, NoPlacementSaysWhy) {
  auto s = Session();
  ASSERT_TRUE(s);
  EXPECT_EQ(s->Handle(R"({"op":"place","job":{"gpus":16}})"),
            R"({"ok":true,"placement":null,"reason":"no node of the cluster could host a task )"
            R"(of this job even when empty"})");
  EXPECT_EQ(s->Handle(R"({"op":"place","job":{"gpus":1,"gpu_model":"A100"}})"),
            R"({"ok":true,"placement":null,"reason":"no GPU model of the cluster is allowed )"
            R"j((job allows A100)"})j");
  // 4 T4 GPUs but 32 cores: t4 has 16.
  EXPECT_TRUE(Has(s->Handle(R"({"op":"place","job":{"gpus":4,"gpu_model":"T4","cpu":32}})"),
                  "even when empty"));
}

// Rank drains the policy's earlier choices: small (4 free, the tightest),
// then t4 (4 free), then big.
TEST(Decide, RankListsThePolicysOrder) {
  auto s = Session();
  ASSERT_TRUE(s);
  EXPECT_EQ(s->Handle(R"({"op":"rank","job":{"gpus":2},"k":5})"),
            R"({"ok":true,"candidates":[)"
            R"({"rank":1,"placement":{"nodes":["small"],"gpus":[[0,1]],"text":"small:0,1"}},)"
            R"({"rank":2,"placement":{"nodes":["t4"],"gpus":[[0,1]],"text":"t4:0,1"}},)"
            R"({"rank":3,"placement":{"nodes":["big"],"gpus":[[0,1]],"text":"big:0,1"}}]})");
  EXPECT_EQ(s->Handle(R"({"op":"rank","job":{"gpus":2}})"),  // k defaults to 1
            R"({"ok":true,"candidates":[)"
            R"({"rank":1,"placement":{"nodes":["small"],"gpus":[[0,1]],"text":"small:0,1"}}]})");
  EXPECT_EQ(s->Handle(R"({"op":"rank","job":{"gpus":9},"k":2})"),
            R"({"ok":true,"candidates":[],"reason":"no node of the cluster could host a task of )"
            R"(this job even when empty"})");
}

TEST(Decide, StartedFinishedAndDrainKeepTheState) {
  auto s = Session();
  ASSERT_TRUE(s);
  // a takes small whole (8 of 32 cores, 32 of 256 GiB).
  EXPECT_EQ(s->Handle(R"({"op":"started","id":"a","job":{"gpus":4,"cpu_milli":8000,)"
                      R"("mem_bytes":34359738368},"placement":{"nodes":["small"],)"
                      R"("gpus":[[0,1,2,3]]}})"),
            R"({"ok":true,"id":"a","running":1})");
  EXPECT_EQ(s->Handle(R"({"op":"state","node":"small"})"),
            R"({"ok":true,"running":1,"nodes":[{"name":"small","gpu_model":"V100","gpus":4,)"
            R"("free_gpus":0,"gpu_free_milli":[0,0,0,0],"free_cpu_milli":24000,)"
            R"("free_mem_bytes":240518168576,"tasks":1,"drained":false}]})");
  // small is full: 2 GPUs go to t4 (4 free) before big (8 free); of V100s
  // only big is left.
  EXPECT_TRUE(Has(s->Handle(R"({"op":"place","job":{"gpus":2}})"), R"("nodes":["t4"])"));
  EXPECT_TRUE(Has(s->Handle(R"({"op":"place","job":{"gpus":2,"gpu_model":"V100"}})"),
                  R"("nodes":["big"])"));
  // An integer id names the same job as its decimal string.
  EXPECT_EQ(s->Handle(R"({"op":"started","id":7,"job":{"gpus":1,"gpu_milli":250},)"
                      R"("placement":{"nodes":["big"],"gpus":[[3]]}})"),
            R"({"ok":true,"id":"7","running":2})");
  EXPECT_EQ(s->Handle(R"({"op":"drain","node":"big"})"),
            R"({"ok":true,"node":"big","drained":true})");
  EXPECT_EQ(s->Handle(R"({"op":"place","job":{"gpus":2,"gpu_model":"V100"}})"),
            R"({"ok":true,"placement":null,"reason":"the free resources do not fit the job now )"
            R"j((1 node drained)"})j");
  // A drained node shows what is really free: 7 whole GPUs and 750 of GPU 3.
  EXPECT_EQ(s->Handle(R"({"op":"state","node":"big"})"),
            R"({"ok":true,"running":2,"nodes":[{"name":"big","gpu_model":"V100","gpus":8,)"
            R"("free_gpus":7,"gpu_free_milli":[1000,1000,1000,750,1000,1000,1000,1000],)"
            R"("free_cpu_milli":64000,"free_mem_bytes":549755813888,"tasks":1,"drained":true}]})");
  EXPECT_EQ(s->Handle(R"({"op":"finished","id":"a"})"), R"({"ok":true,"id":"a","running":1})");
  EXPECT_TRUE(Has(s->Handle(R"({"op":"place","job":{"gpus":2,"gpu_model":"V100"}})"),
                  R"("nodes":["small"])"));
  EXPECT_EQ(s->Handle(R"({"op":"drain","node":"big","drained":false})"),
            R"({"ok":true,"node":"big","drained":false})");
  EXPECT_TRUE(Has(s->Handle(R"({"op":"place","job":{"gpus":8}})"), R"("placement":null)"));
  EXPECT_TRUE(Has(s->Handle(R"({"op":"place","job":{"gpus":7}})"), R"("nodes":["big"])"));
  EXPECT_EQ(s->Handle(R"({"op":"finished","id":"7"})"), R"({"ok":true,"id":"7","running":0})");
  const std::string all = s->Handle(R"({"op":"state"})");
  EXPECT_TRUE(Has(all, R"("running":0,"nodes":[{"name":"big")")) << all;
  EXPECT_TRUE(Has(all, R"({"name":"t4","gpu_model":"T4","gpus":4,"free_gpus":4,)")) << all;
}

TEST(Decide, Version) {
  auto s = Session("worst-fit");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->Handle(R"({"op":"version"})"),
            std::string(R"({"ok":true,"protocol":1,"utilsim":")") + UtilsimVersion() +
                R"(","policy":"worst-fit","cluster":"three-nodes","nodes":3})");
}

// Every bad request is an error response naming the field; none changes
// the state or throws.
TEST(Decide, BadRequestsAreErrorsNamingTheField) {
  auto s = Session();
  ASSERT_TRUE(s);
  struct Case {
    const char* request;
    const char* code;
    const char* message;  // a part of it
  } cases[] = {
      {"", "invalid_argument", "request: not JSON: "},
      {"{\"op\":", "invalid_argument", "request: not JSON: parse error"},
      {"not json", "invalid_argument", "request: not JSON: "},
      {"[1,2]", "invalid_argument", "request: expected a JSON object, got [1,2]"},
      {"{}", "invalid_argument", "op: required, one of place, rank"},
      {R"({"op":3})", "invalid_argument",
       "op: required, one of place, rank, started, finished, "
       "drain, state or version, got 3"},
      {R"({"op":"plcae"})", "invalid_argument", "op: unknown 'plcae', expected place, rank"},
      {R"({"op":"place"})", "invalid_argument", "job: required (an object)"},
      {R"({"op":"place","job":[4]})", "invalid_argument", "job: expected a JSON object, got [4]"},
      {R"({"op":"place","job":{"gpus":"4"}})", "invalid_argument",
       R"(job.gpus: expected an integer 0..64, got "4")"},
      {R"({"op":"place","job":{"gpus":2.5}})", "invalid_argument",
       "job.gpus: expected an integer 0..64, got 2.5"},
      {R"({"op":"place","job":{"gpus":65}})", "invalid_argument",
       "job.gpus: expected an integer 0..64, got 65"},
      {R"({"op":"place","job":{"gpus":-1}})", "invalid_argument", "job.gpus: expected an integer"},
      {R"({"op":"place","job":{"gpus":18446744073709551615}})", "invalid_argument",
       "job.gpus: expected an integer 0..64"},
      {R"({"op":"place","job":{"gpu":4}})", "invalid_argument",
       "job.gpu: unknown field of job (accepted: id, tasks, gpus, gpu_milli, cpu_milli, cpu,"},
      {R"({"op":"place","job":{"gpus":2,"gpu_milli":500}})", "invalid_argument",
       "job.gpu_milli: a share below 1000 needs job.gpus 1, got gpus 2"},
      {R"({"op":"place","job":{"cpu":1,"cpu_milli":1000}})", "invalid_argument",
       "job.cpu_milli, job.cpu: give one of them"},
      {R"({"op":"place","job":{"util":1.5}})", "invalid_argument",
       "job.util: expected a busy fraction 0..1, got 1.5"},
      {R"({"op":"place","job":{"gpu_models":"V100"}})", "invalid_argument",
       "job.gpu_models: expected an array of non-empty strings"},
      {R"({"op":"place","job":{},"k":2})", "invalid_argument",
       "k: unknown field (accepted: op, job)"},
      {R"({"op":"rank","job":{},"k":0})", "invalid_argument", "k: expected an integer 1..1000000"},
      {R"({"op":"finished"})", "invalid_argument", "id: required"},
      {R"({"op":"finished","id":""})", "invalid_argument", "id: expected a non-empty string"},
      {R"({"op":"finished","id":"zzz"})", "not_found", "job 'zzz' is not running"},
      {R"({"op":"drain","node":"nope"})", "not_found", "no node 'nope'"},
      {R"({"op":"drain","node":"big","drained":"yes"})", "invalid_argument",
       R"(drained: expected true or false, got "yes")"},
      {R"({"op":"state","node":"nope"})", "not_found", "node: no node 'nope'"},
      {R"({"op":"version","x":1})", "invalid_argument", "x: unknown field (accepted: op)"},
      {R"({"op":"started","job":{"gpus":4},"placement":{"nodes":["small"],"gpus":[[0,1,2,3]]}})",
       "invalid_argument", "id: required"},
      {R"({"op":"started","id":"a","job":{"id":"b"},"placement":{"nodes":[],"gpus":[]}})",
       "invalid_argument", "job.id: 'b' differs from id 'a'"},
      {R"({"op":"started","id":"a","job":{"gpus":4}})", "invalid_argument", "placement: required"},
      {R"({"op":"started","id":"a","job":{"gpus":4},"placement":{"nodes":["nope"],"gpus":[[0]]}})",
       "not_found", "placement.nodes[0]: no node 'nope' in the cluster"},
      {R"({"op":"started","id":"a","job":{"gpus":1},"placement":{"nodes":["small"],"gpus":[[4]]}})",
       "invalid_argument", "placement.gpus[0]: expected GPU indices 0..3 of small, got 4"},
      {R"({"op":"started","id":"a","job":{"gpus":2},"placement":{"nodes":["small"],"gpus":[[1,1]]}})",
       "invalid_argument", "placement.gpus[0]: GPU 1 listed twice"},
      {R"({"op":"started","id":"a","job":{"gpus":1},"placement":{"nodes":["small"]}})",
       "invalid_argument", "placement.gpus: expected an array of GPU index arrays"},
      {R"({"op":"started","id":"a","job":{"tasks":2,"gpus":1},)"
       R"("placement":{"nodes":["small"],"gpus":[[0]]}})",
       "invalid_argument", "job 'a': 1 task placements for 2 tasks"},
      {R"({"op":"started","id":"a","job":{"gpus":2},"placement":{"nodes":["small"],"gpus":[[0]]}})",
       "invalid_argument", "job 'a': "},
  };
  for (const Case& c : cases) {
    Status outcome;
    const std::string r = s->Handle(c.request, &outcome);  // the message, JSON-escaped
    EXPECT_TRUE(Has(r, std::string(R"({"ok":false,"error":{"code":")") + c.code + R"(")"))
        << c.request << " -> " << r;
    EXPECT_FALSE(outcome.ok());
    EXPECT_TRUE(Has(outcome.message(), c.message)) << c.request << " -> " << r;
    EXPECT_EQ(StatusCodeName(outcome.code()), std::string(c.code)) << c.request;
  }
  EXPECT_EQ(s->running(), 0u);
  // A job started once cannot start again.
  const char* start_a =
      R"({"op":"started","id":"a","job":{"gpus":4},"placement":{"nodes":["small"],)"
      R"("gpus":[[0,1,2,3]]}})";
  EXPECT_EQ(s->Handle(start_a), R"({"ok":true,"id":"a","running":1})");
  EXPECT_EQ(s->Handle(start_a),
            R"({"ok":false,"error":{"code":"invalid_argument","message":"job 'a' is running )"
            R"(already"}})");
  // Over-committing small (taken by a) is refused, and a stays.
  EXPECT_TRUE(Has(s->Handle(R"({"op":"started","id":"b","job":{"gpus":1},)"
                            R"("placement":{"nodes":["small"],"gpus":[[0]]}})"),
                  R"("code":"invalid_argument")"));
  EXPECT_EQ(s->running(), 1u);
}

// Nesting, long strings and bytes that are not UTF-8 are errors, not
// crashes.
TEST(Decide, HostileInputIsAnError) {
  auto s = Session();
  ASSERT_TRUE(s);
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  EXPECT_TRUE(Has(s->Handle(deep), "request: expected a JSON object"));
  EXPECT_TRUE(Has(s->Handle("{\"op\":\"\xff\xfe\"}"), "request: not JSON"));
  const std::string long_id =
      std::string(R"({"op":"finished","id":")") + std::string(100000, 'x') + R"("})";
  EXPECT_TRUE(Has(s->Handle(long_id), R"("code":"not_found")"));
  EXPECT_TRUE(Has(s->Handle(R"({"op":"place","job":{"gpus":1e400}})"), "not JSON"));
}

TEST(Decide, OpenErrors) {
  auto missing = DecisionSession::Open("/nonexistent/cluster.yaml", "best-fit");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(missing.status().message(), "/nonexistent/cluster.yaml: no such file");
  auto policy = DecisionSession::Open(Fixture("decide/cluster.yaml"), "best-fitt");
  ASSERT_FALSE(policy.ok());
  EXPECT_EQ(policy.status().code(), StatusCode::kNotFound);
  EXPECT_TRUE(Has(policy.status().message(), "best-fitt")) << policy.status().message();
}

// `utilsim decide`: one response line per request line, blank lines
// skipped, exit 0 at the end of input.
TEST(Decide, CommandLinePipe) {
  const std::string dir = testutil::TempDir();
  const std::string requests =
      testutil::WriteFile(dir + "/requests.jsonl",
                          "{\"op\":\"place\",\"job\":{\"id\":\"a\",\"gpus\":4}}\n"
                          "\n"
                          "{\"op\":\"started\",\"id\":\"a\",\"job\":{\"gpus\":4},"
                          "\"placement\":{\"nodes\":[\"small\"],\"gpus\":[[0,1,2,3]]}}\r\n"
                          "{\"op\":\"place\",\"job\":{\"gpus\":4}}\n"
                          "{\"op\":\"finished\",\"id\":\"b\"}\n");
  std::string out;
  ASSERT_EQ(testutil::RunCli("decide --cluster " + Fixture("decide/cluster.yaml") +
                                 " --policy best-fit < " + requests,
                             &out),
            0)
      << out;
  EXPECT_EQ(out,
            "{\"ok\":true,\"placement\":{\"nodes\":[\"small\"],\"gpus\":[[0,1,2,3]],"
            "\"text\":\"small:0,1,2,3\"}}\n"
            "{\"ok\":true,\"id\":\"a\",\"running\":1}\n"
            "{\"ok\":true,\"placement\":{\"nodes\":[\"t4\"],\"gpus\":[[0,1,2,3]],"
            "\"text\":\"t4:0,1,2,3\"}}\n"
            "{\"ok\":false,\"error\":{\"code\":\"not_found\",\"message\":\"job 'b' is not "
            "running\"}}\n");
}

TEST(Decide, CommandLineHelpAndErrors) {
  std::string out;
  ASSERT_EQ(testutil::RunCli("--help", &out), 0);
  EXPECT_TRUE(Has(out, "decide")) << out;
  ASSERT_EQ(testutil::RunCli("decide --help", &out), 0);
  for (const char* part : {"--cluster", "--policy", "--profiles", "--seed", "one JSON request per",
                           "Decisions from another process"})
    EXPECT_TRUE(Has(out, part)) << part << "\n" << out;
  EXPECT_EQ(testutil::RunCli("decide --policy best-fit < /dev/null", &out), 2) << out;
  EXPECT_TRUE(Has(out, "--cluster")) << out;
  EXPECT_EQ(testutil::RunCli("decide --cluster " + Fixture("decide/cluster.yaml") +
                                 " --policy best-fitt < /dev/null",
                             &out),
            2)
      << out;
  EXPECT_TRUE(Has(out, "did you mean 'best-fit'?")) << out;
  // A queue is not a placement.
  EXPECT_EQ(testutil::RunCli(
                "decide --cluster " + Fixture("decide/cluster.yaml") + " --policy fifo < /dev/null",
                &out),
            2)
      << out;
  EXPECT_EQ(testutil::RunCli("decide --cluster /nonexistent.yaml < /dev/null", &out), 1) << out;
  EXPECT_TRUE(Has(out, "utilsim: error: --cluster: /nonexistent.yaml: no such file")) << out;
  // Empty input: no output, exit 0.
  EXPECT_EQ(
      testutil::RunCli("decide --cluster " + Fixture("decide/cluster.yaml") + " < /dev/null", &out),
      0)
      << out;
  EXPECT_EQ(out, "");
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim
