// The Slurm advisor's polls (slurm_advisor.h) against a scripted source:
// the advice log, agreement when Slurm starts an advised job, errors and
// recovery (running jobs end at 2000000100, 100 s after the first poll), apply mode's pins, rate
// limit and deadline, and --revert.
#include "utilsim/live/slurm_advisor.h"

#include <gtest/gtest.h>

#include <deque>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "testutil/testutil.h"

namespace utilsim::live {
namespace UTILSIM_UNITY_ID {

using nlohmann::json;

// Answers from a script: each poll pops one (jobs, nodes) pair, or an error.
class FakeSource : public SlurmSource {
 public:
  struct Step {
    std::string jobs, nodes, error;
  };
  std::deque<Step> steps;
  Step current;
  std::vector<std::pair<int64_t, std::string>> pins;  // SetRequiredNodes calls

  Result<std::string> Jobs() override {
    if (!steps.empty()) {
      current = steps.front();
      steps.pop_front();
    }
    if (!current.error.empty()) return Status::Error(current.error);
    return current.jobs;
  }
  Result<std::string> Nodes() override { return current.nodes; }
  Status SetRequiredNodes(int64_t job_id, const std::string& hostlist) override {
    pins.push_back({job_id, hostlist});
    return Status::Ok();
  }
  std::string Describe() const override { return "fake"; }
};

constexpr char kNodes[] = R"({"nodes":[
  {"name":"n1","cpus":8,"real_memory":1000,"gres":"gpu:g:4","state":"idle","partitions":["p"]},
  {"name":"n2","cpus":8,"real_memory":1000,"gres":"gpu:g:4","state":"mixed","partitions":["p"]}]})";

std::string Job(int id, const std::string& state, const std::string& node, int gpus,
                const std::string& required = "") {
  std::string j = R"({"job_id":)" + std::to_string(id) + R"(,"job_state":")" + state +
                  R"(","partition":"p","cpus":1,"memory_per_node":100,"priority":)" +
                  std::to_string(100 - id) + R"(,"time_limit":60,"tres_per_node":"gres:gpu:)" +
                  std::to_string(gpus) + R"(","required_nodes":")" + required + "\"";
  if (!node.empty())
    j += R"(,"nodes":")" + node + R"(","start_time":1000,"end_time":2000000100,)" +
         R"("job_resources":{"allocated_nodes":[)" + R"({"nodename":")" + node +
         R"(","memory_allocated":100}]},"gres_detail":["gpu:g:)" + std::to_string(gpus) + R"("])";
  return j + "}";
}

std::string Jobs(const std::vector<std::string>& jobs) {
  std::string s = R"({"meta":{"plugin":{"type":"openapi/v0.0.38"},"Slurm":{"release":"22.05.8"}},)"
                  R"("errors":[],"jobs":[)";
  for (size_t i = 0; i < jobs.size(); ++i) s += (i ? "," : "") + jobs[i];
  return s + "]}";
}

std::vector<json> Lines(const std::string& path) {
  std::vector<json> out;
  std::istringstream in(testutil::ReadFile(path));
  for (std::string line; std::getline(in, line);) {
    json j = json::parse(line, nullptr, false);
    if (!j.is_discarded()) out.push_back(std::move(j));
  }
  return out;
}

std::vector<json> Events(const std::vector<json>& lines, const std::string& event) {
  std::vector<json> out;
  for (const json& l : lines)
    if (l["event"] == event) out.push_back(l);
  return out;
}

struct Fixture {
  std::string dir = testutil::TempDir();
  std::unique_ptr<JsonlFile> log = JsonlFile::Open(dir + "/advice.jsonl", "log").value();
  std::unique_ptr<JsonlFile> apply = JsonlFile::Open(dir + "/apply.jsonl", "apply").value();
  FakeSource src;
};

TEST(SlurmAdvisor, AdviceStartsAgreementErrorsAndRecovery) {
  Fixture f;
  // n2 holds job 1 (3 GPUs). Job 5 (1 GPU) pending: best fit -> n2.
  const std::string running = Job(1, "RUNNING", "n2", 3);
  f.src.steps = {
      {Jobs({running, Job(5, "PENDING", "", 1)}), kNodes, ""},
      {"", "", "squeue --all --json: exit 1: Unable to contact slurm controller"},
      {"", "", "squeue --all --json: exit 1: Unable to contact slurm controller"},
      {Jobs({running, Job(5, "RUNNING", "n2", 1)}), kNodes, ""},
  };
  SlurmAdvisorOptions o;
  SlurmAdvisor adv(o, &f.src, f.log.get(), nullptr, nullptr);
  const int64_t t0 = 2000000000000;
  {
    Status st = adv.Poll(t0);
    ASSERT_TRUE(st.ok()) << st.message();
  }
  ASSERT_EQ(adv.advice().size(), 1u);
  EXPECT_EQ(adv.advice()[0].nodes, (std::vector<std::string>{"n2"}));
  EXPECT_TRUE(adv.advice()[0].now);
  EXPECT_TRUE(adv.ready());
  // slurmctld down twice: errors, the advice kept, one error line.
  EXPECT_FALSE(adv.Poll(t0 + 1000).ok());
  EXPECT_FALSE(adv.Poll(t0 + 2000).ok());
  EXPECT_EQ(adv.polls_failed(), 2u);
  EXPECT_EQ(adv.advice().size(), 1u);
  EXPECT_NE(adv.MetricsText().find("utilsim_slurm_up 0"), std::string::npos);
  // Back: job 5 started on n2, as advised.
  ASSERT_TRUE(adv.Poll(t0 + 3000).ok());
  EXPECT_TRUE(adv.advice().empty());
  const auto lines = Lines(f.dir + "/advice.jsonl");
  ASSERT_EQ(Events(lines, "start").size(), 1u);
  EXPECT_EQ(Events(lines, "start")[0]["slurm"], "22.05.8");
  ASSERT_EQ(Events(lines, "advice").size(), 1u);
  EXPECT_EQ(Events(lines, "advice")[0]["placement"], "n2:3");
  ASSERT_EQ(Events(lines, "poll_error").size(), 1u);
  EXPECT_NE(Events(lines, "poll_error")[0]["error"].get<std::string>().find("Unable to contact"),
            std::string::npos);
  ASSERT_EQ(Events(lines, "recovered").size(), 1u);
  auto started = Events(lines, "started");
  ASSERT_EQ(started.size(), 1u);
  EXPECT_EQ(started[0]["job"], "5");
  EXPECT_EQ(started[0]["agree"], true);
  EXPECT_EQ(started[0]["slurm_nodes"], json({"n2"}));
  const std::string metrics = adv.MetricsText();
  EXPECT_NE(metrics.find("utilsim_slurm_up 1"), std::string::npos);
  EXPECT_NE(metrics.find("utilsim_slurm_advice_agreement_total{result=\"same_nodes\"} 1"),
            std::string::npos);
  EXPECT_NE(metrics.find("utilsim_slurm_polls_total{outcome=\"error\"} 2"), std::string::npos);
  EXPECT_NE(metrics.find("utilsim_slurm_gpus{state=\"allocated\"} 4"), std::string::npos);
  EXPECT_NE(metrics.find("utilsim_slurm_job_gpus{job=\"5\",node=\"n2\",user=\"\","
                         "state=\"allocated\"} 1"),
            std::string::npos);
}

TEST(SlurmAdvisor, ElsewhereCountsAsDisagreementAndGoneJobsAreLogged) {
  Fixture f;
  f.src.steps = {
      {Jobs({Job(1, "RUNNING", "n2", 3), Job(5, "PENDING", "", 1), Job(6, "PENDING", "", 4)}),
       kNodes, ""},
      {Jobs({Job(1, "RUNNING", "n2", 3), Job(5, "RUNNING", "n1", 1)}), kNodes, ""},
  };
  SlurmAdvisor adv({}, &f.src, f.log.get(), nullptr, nullptr);
  ASSERT_TRUE(adv.Poll(2000000000000).ok());
  ASSERT_TRUE(adv.Poll(2000000001000).ok());
  const auto lines = Lines(f.dir + "/advice.jsonl");
  auto started = Events(lines, "started");
  ASSERT_EQ(started.size(), 1u);
  EXPECT_EQ(started[0]["agree"], false);
  EXPECT_EQ(started[0]["advised"], json({"n2"}));
  EXPECT_EQ(started[0]["slurm_nodes"], json({"n1"}));
  EXPECT_EQ(started[0]["in_ranked"], true);  // n1 was the policy's second choice
  auto gone = Events(lines, "gone");
  ASSERT_EQ(gone.size(), 1u);
  EXPECT_EQ(gone[0]["job"], "6");
  EXPECT_EQ(gone[0]["state"], "not listed");
}

TEST(SlurmAdvisor, ApplyPinsRateLimitsAndReleasesAtTheDeadline) {
  Fixture f;
  // n1 full (job 1), n2 holds job 2 on 3 GPUs: jobs 7 and 8 (4 GPUs each)
  // wait; 9 (1 GPU) fits n2 now. Priority 7 > 8 > 9.
  const std::string pending =
      Jobs({Job(1, "RUNNING", "n1", 4), Job(2, "RUNNING", "n2", 3), Job(7, "PENDING", "", 4),
            Job(8, "PENDING", "", 4), Job(9, "PENDING", "", 1)});
  f.src.steps = {{pending, kNodes, ""}};
  SlurmAdvisorOptions o;
  o.apply.enabled = true;
  o.apply.partitions = {"p"};
  o.apply.max_per_minute = 2;
  o.apply.deadline_s = 300;
  SlurmAdvisor adv(o, &f.src, f.log.get(), f.apply.get(), nullptr);
  const int64_t t0 = 2000000000000;
  {
    Status st = adv.Poll(t0);
    ASSERT_TRUE(st.ok()) << st.message();
  }
  // Two tokens: 7 and 8 pinned (in priority order), 9 rate-limited.
  ASSERT_EQ(f.src.pins.size(), 2u);
  EXPECT_EQ(f.src.pins[0].first, 7);
  EXPECT_EQ(f.src.pins[1].first, 8);
  // Poll 2, 30 s on: one token back (2 a minute) -> 9 pinned.
  f.src.steps = {{Jobs({Job(1, "RUNNING", "n1", 4), Job(2, "RUNNING", "n2", 3),
                        Job(7, "PENDING", "", 4, f.src.pins[0].second),
                        Job(8, "PENDING", "", 4, f.src.pins[1].second), Job(9, "PENDING", "", 1)}),
                  kNodes, ""}};
  ASSERT_TRUE(adv.Poll(t0 + 30000).ok());
  ASSERT_EQ(f.src.pins.size(), 3u);
  EXPECT_EQ(f.src.pins[2], (std::pair<int64_t, std::string>{9, "n2"}));
  // Past the deadline with 7 and 8 still pending: both unpinned ("").
  f.src.steps = {
      {Jobs({Job(1, "RUNNING", "n1", 4), Job(2, "RUNNING", "n2", 3),
             Job(7, "PENDING", "", 4, f.src.pins[0].second),
             Job(8, "PENDING", "", 4, f.src.pins[1].second), Job(9, "RUNNING", "n2", 1)}),
       kNodes, ""}};
  ASSERT_TRUE(adv.Poll(t0 + 301000).ok());
  ASSERT_EQ(f.src.pins.size(), 5u);
  EXPECT_EQ(f.src.pins[3], (std::pair<int64_t, std::string>{7, ""}));
  EXPECT_EQ(f.src.pins[4], (std::pair<int64_t, std::string>{8, ""}));
  const auto lines = Lines(f.dir + "/apply.jsonl");
  EXPECT_EQ(Events(lines, "pin").size(), 3u);
  auto unpin = Events(lines, "unpin");
  ASSERT_EQ(unpin.size(), 2u);
  EXPECT_EQ(unpin[0]["why"], "deadline");
  auto ended = Events(lines, "pin_ended");
  ASSERT_EQ(ended.size(), 1u);
  EXPECT_EQ(ended[0]["job"], "9");
  EXPECT_EQ(ended[0]["why"], "started");
  EXPECT_NE(adv.MetricsText().find("utilsim_slurm_apply_total{outcome=\"rate_limited\"} 1"),
            std::string::npos);
  // The advised 9 started where it was pinned: applied in its started line.
  auto started = Events(Lines(f.dir + "/advice.jsonl"), "started");
  ASSERT_EQ(started.size(), 1u);
  EXPECT_EQ(started[0]["applied"], true);
}

TEST(SlurmAdvisor, RevertUndoesOpenPinsOfPendingJobsOnly) {
  Fixture f;
  const std::string log = f.dir + "/apply.jsonl";
  f.apply->Write(R"({"v":1,"t":1,"event":"pin","job":"7","job_id":7,"before":"","after":"n1"})");
  f.apply->Write(R"({"v":1,"t":1,"event":"pin","job":"8","job_id":8,"before":"","after":"n2"})");
  f.apply->Write(R"({"v":1,"t":1,"event":"pin","job":"9","job_id":9,"before":"","after":"n2"})");
  f.apply->Write(R"({"v":1,"t":1,"event":"pin","job":"4","job_id":4,"before":"","after":"n2"})");
  f.apply->Write(R"({"v":1,"t":2,"event":"pin_ended","job":"4","why":"started"})");
  f.apply->Write(R"({"v":1,"t":2,"event":"pin","job":"3","job_id":3,"before":"","after":"n1"})");
  f.apply->Write(R"({"v":1,"t":2,"event":"pi)");  // a killed writer's last partial line
  f.src.current = {Jobs({Job(7, "PENDING", "", 4, "n1"), Job(8, "RUNNING", "n2", 4),
                         Job(9, "PENDING", "", 1, "n1")}),
                   kNodes, ""};
  auto out = RevertPins(log, &f.src, f.apply.get());
  ASSERT_TRUE(out.ok()) << out.status().message();
  ASSERT_EQ(f.src.pins.size(), 1u);
  EXPECT_EQ(f.src.pins[0], (std::pair<int64_t, std::string>{7, ""}));
  const std::vector<std::string> expect = {
      "3: not in Slurm any more (nothing to undo)", "7: pin to n1 removed (required nodes '')",
      "8: RUNNING on n2 (nothing to undo)",
      "9: required nodes are now 'n1', not utilsim's pin 'n2' (left alone)"};
  EXPECT_EQ(out.value(), expect);
  auto unpins = Events(Lines(log), "unpin");
  ASSERT_EQ(unpins.size(), 1u);
  EXPECT_EQ(unpins[0]["why"], "revert");
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim::live
