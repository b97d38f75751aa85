// Slurm text helpers (slurm_text.h): host lists both ways (with a seeded
// round-trip property test), TRES and GRES strings as sacct, sinfo and
// squeue print them (the real strings of the test cluster's squeue.json and
// sinfo.json are quoted), durations and time stamps, and every error.
#include "utilsim/traces/slurm_text.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace utilsim::traces {
namespace UTILSIM_UNITY_ID {

using Names = std::vector<std::string>;

Names Expand(std::string_view s) {
  auto r = ExpandHostlist(s);
  EXPECT_TRUE(r.ok()) << s << ": " << r.status().message();
  return r.ok() ? r.value() : Names{};
}

TEST(Hostlist, Expands) {
  EXPECT_EQ(Expand("a[1-2],b3"), (Names{"a1", "a2", "b3"}));
  EXPECT_EQ(Expand("node[01-04,07]"), (Names{"node01", "node02", "node03", "node04", "node07"}));
  EXPECT_EQ(Expand("node[8-10]"), (Names{"node8", "node9", "node10"}));
  EXPECT_EQ(Expand("n[098-101]"), (Names{"n098", "n099", "n100", "n101"}));
  EXPECT_EQ(Expand("r[1-2]-n[1-2]"), (Names{"r1-n1", "r1-n2", "r2-n1", "r2-n2"}));
  EXPECT_EQ(Expand("r[1-2]-n[01-02]"), (Names{"r1-n01", "r1-n02", "r2-n01", "r2-n02"}));
  EXPECT_EQ(Expand("b[1-2]"), (Names{"b1", "b2"}));  // the real NodeList of job 4
  EXPECT_EQ(Expand("[3-4]x"), (Names{"3x", "4x"}));
  EXPECT_EQ(Expand("a1"), (Names{"a1"}));
  EXPECT_EQ(Expand(""), Names{});
  EXPECT_EQ(Expand(",a1,,b2,"), (Names{"a1", "b2"}));
  EXPECT_EQ(Expand("a1 b2"), (Names{"a1", "b2"}));   // blanks separate, as in Slurm
  EXPECT_EQ(Expand("a[1,1]"), (Names{"a1", "a1"}));  // duplicates kept
  EXPECT_EQ(Expand("/dev/nvidia[0-3]").size(), 4u);  // gres.conf File=
}

TEST(Hostlist, Errors) {
  struct Case {
    const char* in;
    const char* message;
  };
  const Case cases[] = {
      {"a[1-2", "expected ']' to close every '[' in a host list, got 'a[1-2'"},
      {"a1-2]", "expected ']' only after '[' in a host list, got 'a1-2]'"},
      {"a[1[2]]", "expected no '[' inside [...] in a host list, got 'a[1[2]]'"},
      {"a[]", "expected a number or range inside [] in a host list, got 'a[]'"},
      {"a[x]",
       "expected numbers or ranges lo-hi of at most 18 digits inside [] in a host list, got "
       "'a[x]'"},
      {"a[1,,2]",
       "expected numbers or ranges lo-hi of at most 18 digits inside [] in a host list, got "
       "'a[1,,2]'"},
      {"a[-3]",
       "expected numbers or ranges lo-hi of at most 18 digits inside [] in a host list, got "
       "'a[-3]'"},
      {"a[3-1]", "expected ranges lo-hi with lo <= hi in a host list, got 'a[3-1]'"},
      {"a[1-1000001]", "expected a host list of at most 1000000 names, got 'a[1-1000001]'"},
      {"a[0-999999999999999999]", "expected a host list of at most 1000000 names"},
      {"a[1-1000]b[1-1001]", "expected a host list of at most 1000000 names"},
  };
  for (const Case& c : cases) {
    auto r = ExpandHostlist(c.in);
    ASSERT_FALSE(r.ok()) << c.in;
    EXPECT_EQ(r.status().message().rfind(c.message, 0), 0u) << c.in << ": " << r.status().message();
  }
  // Exactly the limit is fine.
  EXPECT_EQ(ExpandHostlist("a[1-1000]b[1-1000]").value().size(), 1000000u);
}

TEST(Hostlist, Compresses) {
  EXPECT_EQ(CompressHostlist({"a1", "a2", "b3"}), "a[1-2],b3");
  EXPECT_EQ(CompressHostlist({"node01", "node02", "node03", "node07"}), "node[01-03,07]");
  EXPECT_EQ(CompressHostlist({"n9", "n10", "n11"}), "n[9-11]");
  EXPECT_EQ(CompressHostlist({"n09", "n10"}), "n[09-10]");
  EXPECT_EQ(CompressHostlist({"n9", "n010"}), "n[9,010]");
  EXPECT_EQ(CompressHostlist({"login", "a1"}), "login,a1");
  EXPECT_EQ(CompressHostlist({}), "");
  EXPECT_EQ(CompressHostlist({"b2", "b1"}), "b[2,1]");  // order kept
}

// Seeded property test: random lists of names (prefixes, numbers, zero
// padding, repeats, names without digits) survive Compress then Expand.
TEST(Hostlist, RoundTripProperty) {
  uint64_t state = 12345;
  auto next = [&](uint64_t n) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (state >> 33) % n;
  };
  const char* prefixes[] = {"a", "node", "r1-n", "gpu-", "x9y", ""};
  for (int trial = 0; trial < 2000; ++trial) {
    Names names;
    const size_t len = next(12);
    for (size_t i = 0; i < len; ++i) {
      if (!names.empty() && next(2) == 0) {  // often continue a run: next number, same width
        const std::string last = names.back();
        size_t k = last.size();
        while (k > 0 && last[k - 1] >= '0' && last[k - 1] <= '9') --k;
        if (k < last.size()) {
          const std::string d = last.substr(k);
          std::string nd = std::to_string(std::stoll(d) + 1);
          if (nd.size() < d.size()) nd.insert(0, d.size() - nd.size(), '0');
          names.push_back(last.substr(0, k) + nd);
          continue;
        }
      }
      const std::string p = prefixes[next(6)];
      if (next(10) == 0) {  // no numeric suffix
        names.push_back(p + "login");
        continue;
      }
      std::string digits = std::to_string(next(15));
      if (next(3) == 0) digits.insert(0, next(3), '0');
      names.push_back(p + digits);
    }
    const std::string text = CompressHostlist(names);
    auto back = ExpandHostlist(text);
    ASSERT_TRUE(back.ok()) << text << ": " << back.status().message();
    ASSERT_EQ(back.value(), names) << text;
  }
}

TEST(Tres, ParsesSacctStrings) {
  auto t = ParseTres("billing=2,cpu=2,gres/gpu:a100=2,gres/gpu=2,mem=1000M,node=1").value();
  EXPECT_EQ(t.cpus, 2);
  EXPECT_EQ(t.mem_bytes, int64_t{1000} << 20);
  EXPECT_EQ(t.nodes, 1);
  EXPECT_EQ(t.gpus, 2);
  EXPECT_EQ(t.gpus_by_type, (std::map<std::string, int64_t>{{"a100", 2}}));
  // Job 4's AllocTRES: 62.50G = 64,000 MiB.
  t = ParseTres("billing=2,cpu=2,gres/gpu:v100=8,gres/gpu=8,mem=62.50G,node=2").value();
  EXPECT_EQ(t.mem_bytes, int64_t{64000} << 20);
  EXPECT_EQ(t.gpus, 8);
  // Untyped (job 5's ReqTRES), squeue's order, no suffix = MiB.
  t = ParseTres("cpu=1,mem=62.50G,node=1,billing=1,gres/gpu=1").value();
  EXPECT_EQ(t.gpus, 1);
  EXPECT_TRUE(t.gpus_by_type.empty());
  EXPECT_EQ(ParseTres("mem=512").value().mem_bytes, int64_t{512} << 20);
  EXPECT_EQ(ParseTres("mem=3K").value().mem_bytes, 3072);
  EXPECT_EQ(ParseTres("mem=2T").value().mem_bytes, int64_t{2} << 40);
  EXPECT_EQ(ParseTres("mem=1P").value().mem_bytes, int64_t{1} << 50);
  EXPECT_EQ(ParseTres("mem=0.5k").value().mem_bytes, 512);
  // No gres/gpu=: the typed entries summed. Others ignored.
  t = ParseTres(
          "gres/gpu:a100=2,gres/gpu:v100=3,gres/gpumem=40G,gres/shard=4,energy=7,"
          "license/matlab=1,fs/disk=0")
          .value();
  EXPECT_EQ(t.gpus, 5);
  EXPECT_EQ(t.cpus, -1);
  EXPECT_EQ(t.mem_bytes, -1);
  EXPECT_EQ(t.nodes, -1);
  t = ParseTres("").value();
  EXPECT_EQ(t.gpus, -1);
  EXPECT_EQ(t.cpus, -1);
}

TEST(Tres, Errors) {
  const std::pair<const char*, const char*> cases[] = {
      {"cpu", "expected TRES entries name=count (as cpu=2,mem=1000M,gres/gpu=2), got 'cpu'"},
      {"=2", "expected TRES entries name=count"},
      {"cpu=x", "expected integer counts for cpu, node and gres/gpu in a TRES list, got 'cpu=x'"},
      {"cpu=-1", "expected integer counts"},
      {"node=1.5", "expected integer counts"},
      {"gres/gpu=", "expected integer counts"},
      {"mem=12Q", "expected mem=<size>[K|M|G|T|P] (as mem=62.50G) in a TRES list, got 'mem=12Q'"},
      {"mem=G", "expected mem=<size>"},
      {"mem=1.G", "expected mem=<size>"},
      {"mem=99999999999P", "expected mem=<size>"},
      {"gres/gpu:=2", "expected gres/gpu:<type>=<count> in a TRES list, got 'gres/gpu:=2'"},
      {"gres/gpu:a=4611686018427387904", "expected integer counts"},
      {"gres/gpu:a=999999999999999999,gres/gpu:b=999999999999999999,gres/gpu:c="
       "999999999999999999,gres/gpu:d=999999999999999999,gres/gpu:e=999999999999999999",
       "expected GPU counts below 2^62"},
  };
  for (const auto& [in, msg] : cases) {
    auto r = ParseTres(in);
    ASSERT_FALSE(r.ok()) << in;
    EXPECT_EQ(r.status().message().rfind(msg, 0), 0u) << in << ": " << r.status().message();
  }
}

TEST(Gres, ParsesNodeAndJobStrings) {
  auto g = ParseGres("gpu:a100:4").value();  // sinfo.json "gres" of a1
  ASSERT_EQ(g.size(), 1u);
  EXPECT_EQ(g[0].name, "gpu");
  EXPECT_EQ(g[0].type, "a100");
  EXPECT_EQ(g[0].count, 4);
  g = ParseGres("gpu:a100:0(IDX:N/A)").value();  // sinfo.json "gres_used"
  EXPECT_EQ(g[0].count, 0);
  EXPECT_TRUE(g[0].indices.empty());
  // squeue --json's gres_detail for a node of a two-node job holding no GPU
  // there, as 22.05 printed it right after a slurmctld restart.
  g = ParseGres("gpu:v100:0(IDX:)").value();
  EXPECT_EQ(g[0].count, 0);
  EXPECT_TRUE(g[0].indices.empty());
  g = ParseGres("gres:gpu:v100:4").value();  // squeue.json "tres_per_node"
  EXPECT_EQ(g[0].name, "gpu");
  EXPECT_EQ(g[0].type, "v100");
  EXPECT_EQ(g[0].count, 4);
  g = ParseGres("gres:gpu:1").value();
  EXPECT_EQ(g[0].type, "");
  EXPECT_EQ(g[0].count, 1);
  g = ParseGres("gres/gpu:h100=2").value();
  EXPECT_EQ(g[0].type, "h100");
  EXPECT_EQ(g[0].count, 2);
  g = ParseGres("gpu:4").value();
  EXPECT_EQ(g[0].type, "");
  EXPECT_EQ(g[0].count, 4);
  g = ParseGres("gpu").value();
  EXPECT_EQ(g[0].count, 1);
  g = ParseGres("gpu:a100").value();
  EXPECT_EQ(g[0].type, "a100");
  EXPECT_EQ(g[0].count, 1);
  g = ParseGres("gpu:a100:4(S:0-1)").value();
  EXPECT_EQ(g[0].count, 4);
  EXPECT_TRUE(g[0].indices.empty());
  g = ParseGres("gpu:a100:no_consume:4").value();
  EXPECT_EQ(g[0].type, "a100");
  EXPECT_EQ(g[0].count, 4);
  g = ParseGres("gpu:a100:2(IDX:0-1)").value();
  EXPECT_EQ(g[0].indices, (std::vector<int32_t>{0, 1}));
  g = ParseGres("gpu:h100:3(IDX:0,2-3),shard:64,nic:mlx5:1(S:0)").value();
  ASSERT_EQ(g.size(), 3u);
  EXPECT_EQ(g[0].indices, (std::vector<int32_t>{0, 2, 3}));
  EXPECT_EQ(g[1].name, "shard");
  EXPECT_EQ(g[1].count, 64);
  EXPECT_EQ(g[2].name, "nic");
  EXPECT_EQ(g[2].type, "mlx5");
  EXPECT_EQ(ParseGres("bandwidth:lustre:4G").value()[0].count, int64_t{4} << 30);
  EXPECT_EQ(ParseGres("mps:2K").value()[0].count, 2048);
  EXPECT_EQ(ParseGres("gpu:1g.10gb:7").value()[0].type, "1g.10gb");  // MIG types
  EXPECT_TRUE(ParseGres("").value().empty());
  EXPECT_TRUE(ParseGres("(null)").value().empty());
  EXPECT_TRUE(ParseGres("N/A").value().empty());
}

TEST(Gres, Errors) {
  const std::pair<const char*, const char*> cases[] = {
      {"gpu,,mps", "expected GRES entries separated by single commas, got 'gpu,,mps'"},
      {",gpu", "expected GRES entries separated by single commas"},
      {":4", "expected GRES entries name[:type][:count] (as gpu:a100:4), got ':4'"},
      {"gpu:a:b:4",
       "expected one type and a count per GRES entry (as gpu:a100:4), got "
       "'gpu:a:b:4'"},
      {"gpu:a100:4(IDX:0-1", "expected ')' to close every '(' in a GRES list"},
      {"gpu:a100:4)", "expected ')' only after '(' in a GRES list"},
      {"gpu:a100:4(IDX:(0))", "expected no '(' inside (...) in a GRES list"},
      {"gpu:a100:4(IDX:x)",
       "expected IDX:N/A or GPU indices as IDX:0-1,3 in a GRES entry, got 'gpu:a100:4(IDX:x)'"},
      {"gpu:a100:4(IDX:0)x", "expected GRES entries name[:type][:count]"},
      {"gpu::4", "expected one type and a count per GRES entry"},
      {"gpu:a:1(IDX:0-70000)",
       "expected at most 65536 GPU indices in a GRES entry, got 'gpu:a:1(IDX:0-70000)'"},
  };
  for (const auto& [in, msg] : cases) {
    auto r = ParseGres(in);
    ASSERT_FALSE(r.ok()) << in;
    EXPECT_EQ(r.status().message().rfind(msg, 0), 0u) << in << ": " << r.status().message();
  }
}

TEST(Duration, AllForms) {
  auto d = [](std::string_view s) {
    auto r = ParseSlurmDuration(s);
    EXPECT_TRUE(r.ok()) << s << ": " << r.status().message();
    return r.ok() && r.value() ? r.value()->us / kMicrosPerSecond : int64_t{-1};
  };
  EXPECT_EQ(d("30"), 1800);                         // minutes
  EXPECT_EQ(d("5:30"), 330);                        // minutes:seconds
  EXPECT_EQ(d("00:00:03"), 3);                      // Elapsed of job 1
  EXPECT_EQ(d("01:00:10"), 3610);                   // hours:minutes:seconds
  EXPECT_EQ(d("1-00"), 86400);                      // days-hours
  EXPECT_EQ(d("2-3"), 2 * 86400 + 3 * 3600);        // days-hours
  EXPECT_EQ(d("1-2:30"), 86400 + 2 * 3600 + 1800);  // days-hours:minutes
  EXPECT_EQ(d("365-00:00:00"), 365 * 86400);        // the real Timelimit
  EXPECT_EQ(d("0"), 0);
  EXPECT_EQ(d("90:00"), 5400);  // parts above 59 are accepted, as Slurm does
  for (const char* none : {"UNLIMITED", "INFINITE", "Partition_Limit", "INVALID", "unlimited"}) {
    auto r = ParseSlurmDuration(none);
    ASSERT_TRUE(r.ok()) << none;
    EXPECT_FALSE(r.value().has_value()) << none;
  }
  for (const char* bad : {"", "x", "1:2:3:4", "-1", "1-", "1-2:3:4:5", "1:-2", "1.5", " 1", "1- 2",
                          "99999999999999999999"}) {
    auto r = ParseSlurmDuration(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().message().rfind("expected a Slurm duration (M, M:S, H:M:S, D-H, D-H:M, "
                                         "D-H:M:S) or UNLIMITED, INFINITE, Partition_Limit, got '",
                                         0),
              0u)
        << bad << ": " << r.status().message();
  }
  auto big = ParseSlurmDuration("999999999-00:00:00");
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.status().message(),
            "expected a duration of at most 1000 years, got '999999999-00:00:00'");
}

TEST(Time, EpochIsoAndAbsent) {
  auto t = [](std::string_view s) { return ParseSlurmTime(s).value(); };
  EXPECT_EQ(t("1796188575"), 1796188575);
  // The ISO form of the same instant (sacct_with_steps.txt, cluster in UTC).
  EXPECT_EQ(t("2026-12-02T05:16:15"), 1796188575);
  EXPECT_EQ(t("1970-01-01T00:00:00"), 0);
  EXPECT_EQ(t("2024-02-29T23:59:59"), 1709251199);
  EXPECT_FALSE(t("Unknown").has_value());
  EXPECT_FALSE(t("None").has_value());
  EXPECT_FALSE(t("").has_value());
  for (const char* bad :
       {"-5", "12x", "2026-12-02 05:16:15", "2026-13-02T05:16:15", "2026-12-02T24:00:00",
        "2026-12-2T05:16:15", "unknown", "99999999999999999"}) {
    auto r = ParseSlurmTime(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().message(),
              std::string("expected UNIX seconds >= 0 or a time YYYY-MM-DDTHH:MM:SS (or Unknown, "
                          "None), got '") +
                  bad + "'");
  }
  for (const char* bad : {"2023-02-29T00:00:00", "1969-12-31T23:59:59"}) {
    auto r = ParseSlurmTime(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().message(),
              std::string("expected a valid date since 1970, got '") + bad + "'");
  }
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim::traces
