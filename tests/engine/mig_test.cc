// MIG tables, layout feasibility, driver placement order, slot choice,
// reconfiguration (drain rule, time cost) and the speed function (mig.h).
// Expected values come from ../shared/docs/domain.md §1 and are hand-checked.
#include "utilsim/engine/mig.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace utilsim::mig {
namespace UTILSIM_UNITY_ID {

const GpuModel& Model(const char* name) {
  const GpuModel* m = FindGpuModel(name);
  EXPECT_NE(m, nullptr) << name;
  return m ? *m : GpuModels()[0];
}

Layout MustParse(const GpuModel& m, const std::string& text) {
  Result<Layout> r = ParseLayout(m, text);
  EXPECT_TRUE(r.ok()) << text << ": " << r.status().message();
  return r.ok() ? r.value() : Layout{};
}

std::string ParseError(const GpuModel& m, const std::string& text) {
  Result<Layout> r = ParseLayout(m, text);
  EXPECT_FALSE(r.ok()) << text << " parsed as " << (r.ok() ? FormatLayout(m, r.value()) : "");
  return r.ok() ? "" : r.status().message();
}

// The `nvidia-smi mig -lgipp` table of domain.md §1.3, written out
// independently of mig.cc: per profile row (nvidia-smi listing order) its ID,
// compute slices, memory size, valid starts and max instances.
struct Row {
  int id, compute, size;
  std::vector<int> starts;
  int max;
};
const Row kTable[] = {
    {19, 1, 1, {0, 1, 2, 3, 4, 5, 6}, 7},
    {20, 1, 1, {0, 1, 2, 3, 4, 5, 6}, 1},
    {15, 1, 2, {0, 2, 4, 6}, 4},
    {14, 2, 2, {0, 2, 4}, 3},
    {9, 3, 4, {0, 4}, 2},
    {5, 4, 4, {0}, 1},
    {0, 7, 8, {0}, 1},
};

TEST(MigTables, ProfilesMatchTheGuide) {
  const std::vector<std::vector<std::string>> names = {
      {"1g.5gb", "1g.5gb+me", "1g.10gb", "2g.10gb", "3g.20gb", "4g.20gb", "7g.40gb"},
      {"1g.10gb", "1g.10gb+me", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"},
      {"1g.10gb", "1g.10gb+me", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"},
      {"1g.18gb", "1g.18gb+me", "1g.35gb", "2g.35gb", "3g.71gb", "4g.71gb", "7g.141gb"}};
  const std::vector<std::vector<double>> gb = {{5, 5, 10, 10, 20, 20, 40},
                                               {10, 10, 20, 20, 40, 40, 80},
                                               {10, 10, 20, 20, 40, 40, 80},
                                               {18, 18, 35, 35, 71, 71, 141}};
  const char* models[] = {"A100-40GB", "A100-80GB", "H100-80GB", "H200-141GB"};
  ASSERT_EQ(GpuModels().size(), 4u);
  for (size_t m = 0; m < 4; ++m) {
    const GpuModel& g = GpuModels()[m];
    EXPECT_EQ(g.name, models[m]);
    ASSERT_EQ(g.profiles.size(), 7u);
    for (size_t p = 0; p < 7; ++p) {
      const Profile& x = g.profiles[p];
      SCOPED_TRACE(std::string(g.name) + " " + names[m][p]);
      EXPECT_EQ(x.name, names[m][p]);
      EXPECT_EQ(x.memory_gb, gb[m][p]);
      EXPECT_EQ(x.id, kTable[p].id);
      EXPECT_EQ(x.compute_slices, kTable[p].compute);
      EXPECT_EQ(x.memory_slices, kTable[p].size);
      EXPECT_EQ(x.max_instances, kTable[p].max);
      std::vector<int> starts;
      for (int s = -1; s <= 8; ++s) {
        if (x.ValidStart(s)) starts.push_back(s);
      }
      EXPECT_EQ(starts, kTable[p].starts);
    }
  }
  EXPECT_EQ(GpuModelNames(), "A100-40GB, A100-80GB, H100-80GB, H200-141GB");
}

TEST(MigTables, GpuModelSpellings) {
  const std::pair<const char*, const char*> ok[] = {
      {"A100-40GB", "A100-40GB"},
      {"A100-SXM4-40GB", "A100-40GB"},
      {"NVIDIA A100-PCIE-40GB", "A100-40GB"},
      {"a100-40g", "A100-40GB"},
      {"A100-SXM4-80GB", "A100-80GB"},
      {"A100 80GB PCIe", "A100-80GB"},
      {"H100-80GB", "H100-80GB"},
      {"NVIDIA H100 80GB HBM3", "H100-80GB"},
      {"H100-SXM5-80GB", "H100-80GB"},
      {"H200-141GB", "H200-141GB"},
      {"NVIDIA H200 NVL", "H200-141GB"},
      {"h200", "H200-141GB"},
  };
  for (const auto& [spelling, canonical] : ok) {
    const GpuModel* m = FindGpuModel(spelling);
    ASSERT_NE(m, nullptr) << spelling;
    EXPECT_EQ(m->name, canonical) << spelling;
  }
  for (const char* bad : {"A100", "H100", "H100 NVL", "H100-94GB", "V100", "", "A100-40GBX"}) {
    EXPECT_EQ(FindGpuModel(bad), nullptr) << bad;
  }
}

TEST(MigTables, FindProfileByNameOrId) {
  const GpuModel& a = Model("A100-40GB");
  EXPECT_EQ(a.FindProfile("3g.20gb"), 4);
  EXPECT_EQ(a.FindProfile("3G.20GB"), 4);
  EXPECT_EQ(a.FindProfile("9"), 4);
  EXPECT_EQ(a.FindProfile("20"), 1);
  EXPECT_EQ(a.FindProfile("0"), 6);
  EXPECT_EQ(a.FindProfile("3g.40gb"), -1);  // an A100-80GB name
  EXPECT_EQ(a.FindProfile("1"), -1);
  EXPECT_EQ(a.FindProfile(""), -1);
}

// ---- feasibility ----

// Independent validity from kTable: table starts, disjoint memory slices,
// max counts, at most 7 compute slices.
bool TableValid(const Layout& layout) {
  unsigned used = 0;
  int compute = 0;
  std::array<int, 7> count{};
  for (const Instance& i : layout) {
    const Row& r = kTable[i.profile];
    if (std::find(r.starts.begin(), r.starts.end(), i.start) == r.starts.end()) return false;
    const unsigned mask = ((1u << r.size) - 1) << i.start;
    if (used & mask) return false;
    used |= mask;
    compute += r.compute;
    if (++count[i.profile] > r.max) return false;
  }
  return compute <= 7;
}

std::vector<Instance> Candidates() {
  std::vector<Instance> c;
  for (int p = 0; p < 7; ++p) {
    for (int s : kTable[p].starts) c.push_back({p, s});
  }
  return c;
}

Layout Sorted(Layout l) {
  std::sort(l.begin(), l.end(),
            [](const Instance& a, const Instance& b) { return a.start < b.start; });
  return l;
}

// 2319 = 723 layouts without +me (1 x 7g + 38 left-half x 19 right-half
// subsets) + 1596 with one 1g replaced by +me (docs/mig.md).
TEST(MigLayouts, EnumerationIsExactlyTheValidLayouts) {
  const std::vector<Instance> candidates = Candidates();
  ASSERT_EQ(candidates.size(), 25u);
  for (const GpuModel& m : GpuModels()) {
    SCOPED_TRACE(std::string(m.name));
    const std::vector<Layout> all = EnumerateLayouts(m);
    ASSERT_EQ(all.size(), 2319u);
    std::set<std::vector<std::pair<int, int>>> seen;
    auto key = [](const Layout& l) {
      std::vector<std::pair<int, int>> k;
      for (const Instance& i : Sorted(l)) k.push_back({i.start, i.profile});
      return k;
    };
    int without_me = 0;
    for (const Layout& l : all) {
      EXPECT_TRUE(TableValid(l)) << FormatLayout(m, l);
      EXPECT_TRUE(CheckLayout(m, l).ok()) << FormatLayout(m, l);
      EXPECT_EQ(l, Sorted(l));
      EXPECT_TRUE(seen.insert(key(l)).second) << "duplicate " << FormatLayout(m, l);
      without_me +=
          std::none_of(l.begin(), l.end(), [](const Instance& i) { return i.profile == 1; });
    }
    EXPECT_EQ(without_me, 723);
    EXPECT_TRUE(seen.count({}));
    // Closure: every valid layout is reached from the empty one by adding one
    // valid instance at a time, so one-step extensions decide completeness.
    for (const Layout& l : all) {
      for (const Instance& c : candidates) {
        if (std::find(l.begin(), l.end(), c) != l.end()) continue;
        Layout bigger = l;
        bigger.push_back(c);
        EXPECT_EQ(seen.count(key(bigger)) == 1, TableValid(bigger)) << FormatLayout(m, bigger);
        EXPECT_EQ(CheckLayout(m, bigger).ok(), TableValid(bigger)) << FormatLayout(m, bigger);
      }
    }
  }
}

// Layouts to which no instance of the given profiles can be added. With the
// classic five profiles: left half {4g, 3g, 2g+2g, 2g+1g+1g, 1g+1g+2g,
// 4x1g} (6) x right half {3g, 2g+1g, 3x1g} (3) + 7g = 19. Adding 1g.10gb
// (2 memory slices): left 3x3 + 2 = 11, right 3x2 + 1 = 7, so 11 x 7 + 1 = 78.
TEST(MigLayouts, FullLayoutCounts) {
  auto count_full = [](const GpuModel& m, const std::vector<int>& profiles) {
    int n = 0;
    for (const Layout& l : EnumerateLayouts(m)) {
      bool inside = std::all_of(l.begin(), l.end(), [&](const Instance& i) {
        return std::count(profiles.begin(), profiles.end(), i.profile) > 0;
      });
      bool full = std::all_of(profiles.begin(), profiles.end(),
                              [&](int p) { return FreeStarts(m, l, p).empty(); });
      n += inside && full && !l.empty();
    }
    return n;
  };
  for (const GpuModel& m : GpuModels()) {
    EXPECT_EQ(count_full(m, {0, 3, 4, 5, 6}), 19) << m.name;
    EXPECT_EQ(count_full(m, {0, 2, 3, 4, 5, 6}), 78) << m.name;
  }
}

TEST(MigLayouts, CheckLayoutMessages) {
  const GpuModel& a = Model("A100-40GB");
  EXPECT_EQ(CheckLayout(a, {{3, 1}}).message(),
            "2g.10gb@1: start 1 is not a valid placement (valid starts: 0, 2, 4)");
  EXPECT_EQ(CheckLayout(a, {{0, 5}, {4, 4}}).message(),
            "1g.5gb@5: overlaps 3g.20gb@4 on memory slice 5");
  EXPECT_EQ(CheckLayout(a, {{4, 0}, {5, 0}}).message(),
            "4g.20gb@0: overlaps 3g.20gb@0 on memory slices 0-3");
  EXPECT_EQ(CheckLayout(a, {{1, 0}, {1, 3}}).message(), "1g.5gb+me@3: at most 1 1g.5gb+me per GPU");
  EXPECT_EQ(CheckLayout(a, {{2, 6}, {6, 0}}).message(),
            "1g.10gb@6: overlaps 7g.40gb@0 on memory slices 6-7");
  EXPECT_EQ(CheckLayout(a, {{9, 0}}).message(),
            "?@0: profile index 9 is not a profile of A100-40GB");
  // Memory slice 7 is reachable only by 7g, 3g@4 and 1g.10gb@6; 7 x 1g
  // leaves it unused.
  EXPECT_TRUE(CheckLayout(a, MustParse(a, "19,19,19,19,19,19,19")).ok());
  EXPECT_EQ(LargestFreeRun(a, MustParse(a, "19,19,19,19,19,19,19")), 1);
  // 4g + 3g: 7 compute slices on 8 memory slices (the 7/8 asymmetry).
  EXPECT_TRUE(CheckLayout(a, {{5, 0}, {4, 4}}).ok());
  EXPECT_TRUE(CheckLayout(a, {}).ok());
}

// ---- parsing and the driver's placement order (MIG guide, domain.md §1.3) ----

TEST(MigParse, GuideOrdersThatSucceedAndFail) {
  const GpuModel& a = Model("A100-40GB");
  // `-cgi 9,3g.20gb -C`: GIs at 4:4 then 0:4.
  EXPECT_EQ(DriverStart(a, {}, a.FindProfile("9")), 4);
  EXPECT_EQ(FormatLayout(a, MustParse(a, "9,3g.20gb")), "3g.20gb@0,3g.20gb@4");
  // "3-2-1-1": `-cgi 9,19,14,19` works ...
  EXPECT_EQ(FormatLayout(a, MustParse(a, "9,19,14,19")), "1g.5gb@0,1g.5gb@1,2g.10gb@2,3g.20gb@4");
  // ... and the same GIs as `19,19,14,9` fail ("Insufficient Resources").
  EXPECT_EQ(ParseError(a, "19,19,14,9"),
            "entry 4 '9': no free placement (valid starts: 0, 4; in use: "
            "1g.5gb@0,1g.5gb@1,2g.10gb@4); list larger profiles first or give a start as "
            "'3g.20gb@<start>'");
  const std::vector<int> bad_order = {0, 0, 3, 4};
  Result<Layout> driver = PlaceLikeDriver(a, bad_order);
  ASSERT_FALSE(driver.ok());
  EXPECT_EQ(driver.status().message(),
            "GI 4 (3g.20gb): insufficient resources after 1g.5gb@0,1g.5gb@1,2g.10gb@4");
  // "2-1-1-1-1-1": `-cgi 14,19,19,19,19,19` gives 2g at 4:2, 1g at 0,1,2,3,6.
  EXPECT_EQ(FormatLayout(a, MustParse(a, "14,19,19,19,19,19")),
            "1g.5gb@0,1g.5gb@1,1g.5gb@2,1g.5gb@3,2g.10gb@4,1g.5gb@6");
  // 4g then 3g works (7 compute slices); 3g at 0 then 4g does not.
  EXPECT_EQ(FormatLayout(a, MustParse(a, "4g.20gb,3g.20gb")), "4g.20gb@0,3g.20gb@4");
  EXPECT_EQ(FormatLayout(a, MustParse(a, "3g.20gb,4g.20gb")), "4g.20gb@0,3g.20gb@4");
  EXPECT_EQ(ParseError(a, "3g.20gb@0,4g.20gb"),
            "entry 2 '4g.20gb': no free placement (valid starts: 0; in use: 3g.20gb@0); list "
            "larger profiles first or give a start as '4g.20gb@<start>'");
  // Seven 1g fill slices 0..6; an eighth does not fit.
  EXPECT_EQ(FormatLayout(a, MustParse(a, "19,19,19,19,19,19,19")),
            "1g.5gb@0,1g.5gb@1,1g.5gb@2,1g.5gb@3,1g.5gb@4,1g.5gb@5,1g.5gb@6");
  EXPECT_EQ(ParseError(a, "19,19,19,19,19,19,19,19"), "entry 8 '19': at most 7 1g.5gb per GPU");
  EXPECT_EQ(FormatLayout(a, MustParse(a, "15,15,15,15")),
            "1g.10gb@0,1g.10gb@2,1g.10gb@4,1g.10gb@6");
  EXPECT_EQ(ParseError(a, "7g.40gb,1g.5gb"),
            "entry 2 '1g.5gb': no free placement (valid starts: 0, 1, 2, 3, 4, 5, 6; in use: "
            "7g.40gb@0); list larger profiles first or give a start as '1g.5gb@<start>'");
}

TEST(MigParse, ExplicitStartsAndErrors) {
  const GpuModel& a = Model("A100-40GB");
  EXPECT_EQ(FormatLayout(a, MustParse(a, "3g.20gb@0,2g.10gb@4,1g.5gb@6")),
            "3g.20gb@0,2g.10gb@4,1g.5gb@6");
  // Explicit entries are placed first, then the others in listed order.
  EXPECT_EQ(FormatLayout(a, MustParse(a, "1g.5gb, 3g.20gb @ 0")), "3g.20gb@0,1g.5gb@4");
  EXPECT_TRUE(MustParse(a, "").empty());
  EXPECT_TRUE(MustParse(a, "  ").empty());
  EXPECT_EQ(ParseError(a, "3g.20gb@1"),
            "entry 1 '3g.20gb@1': start 1 is not a valid placement (valid starts: 0, 4)");
  EXPECT_EQ(ParseError(a, "2g.10gb@0,3g.20gb@0"),
            "entry 2 '3g.20gb@0': overlaps 2g.10gb@0 on memory slices 0-1");
  EXPECT_EQ(ParseError(a, "1g.5gb+me,1g.5gb+me"),
            "entry 2 '1g.5gb+me': at most 1 1g.5gb+me per GPU");
  EXPECT_EQ(ParseError(a, "3g.40gb"),
            "entry 1 '3g.40gb': no profile '3g.40gb' on A100-40GB (profiles: 1g.5gb, 1g.5gb+me, "
            "1g.10gb, 2g.10gb, 3g.20gb, 4g.20gb, 7g.40gb)");
  EXPECT_EQ(ParseError(a, "1g.5gb@x"), "entry 1 '1g.5gb@x': start 'x' is not an integer 0..7");
  EXPECT_EQ(ParseError(a, "1g.5gb@8"), "entry 1 '1g.5gb@8': start '8' is not an integer 0..7");
  EXPECT_EQ(ParseError(a, "1g.5gb,,2g.10gb"), "entry 2 is empty");
  EXPECT_EQ(ParseError(a, "1g.5gb,"), "entry 2 is empty");
  const GpuModel& h = Model("H200-141GB");
  EXPECT_EQ(FormatLayout(h, MustParse(h, "3g.71gb,2g.35gb,1g.18gb+me")),
            "1g.18gb+me@0,2g.35gb@2,3g.71gb@4");
  EXPECT_EQ(ParseError(h, "3g.71gb,2g.35gb,1g.18gb+me,1g.35gb"),
            "entry 4 '1g.35gb': no free placement (valid starts: 0, 2, 4, 6; in use: "
            "1g.18gb+me@0,2g.35gb@2,3g.71gb@4); list larger profiles first or give a start as "
            "'1g.35gb@<start>'");
}

TEST(MigParse, FormatRoundTripsEveryLayout) {
  for (const GpuModel& m : GpuModels()) {
    for (const Layout& l : EnumerateLayouts(m)) {
      Result<Layout> back = ParseLayout(m, FormatLayout(m, l));
      ASSERT_TRUE(back.ok()) << back.status().message();
      EXPECT_EQ(back.value(), l);
    }
  }
}

// ---- slot choice ----

TEST(MigSlots, ChooseStartKeepsTheLargestRegion) {
  const GpuModel& a = Model("A100-40GB");
  // 1g on an empty GPU: starts 4..6 keep 4g@0 possible; 6 leaves the longest
  // free run (0..5). Then 5, 4; then 4g is lost anyway and ties go low.
  Layout l;
  std::vector<int> order;
  while (std::optional<int> s = ChooseStart(a, l, 0)) {
    order.push_back(*s);
    l.push_back({0, *s});
  }
  EXPECT_EQ(order, (std::vector<int>{6, 5, 4, 0, 1, 2, 3}));
  // 2g: only 2g@4 keeps 4g@0 possible.
  EXPECT_EQ(ChooseStart(a, {}, 3), 4);
  // Beside 4g@0, 1g@6 keeps 2g@4 possible (1g@4, 1g@5 leave only 1g.10gb@6).
  EXPECT_EQ(ChooseStart(a, {{5, 0}}, 0), 6);
  // 3g: 3g@4 keeps 4g@0.
  EXPECT_EQ(ChooseStart(a, {}, 4), 4);
  EXPECT_EQ(ChooseStart(a, {{6, 0}}, 0), std::nullopt);
  EXPECT_EQ(ChooseStart(a, {{1, 3}}, 1), std::nullopt);  // +me already used
  EXPECT_EQ(FreeStarts(a, {{4, 4}}, 3), (std::vector<int>{0, 2}));
  EXPECT_EQ(LargestFreeRun(a, {}), 8);
  EXPECT_EQ(LargestFreeRun(a, {{3, 2}}), 4);
  EXPECT_EQ(LargestFreeRun(a, {{6, 0}}), 0);
}

// The rule as mig.h states it, over layouts built one instance at a time:
// ChooseStart works on slice masks and counts instead of building each
// candidate layout, and must choose exactly what the rule chooses, on
// every valid layout of every model and for every profile.
TEST(MigSlots, ChooseStartFollowsTheStatedRuleOnEveryLayout) {
  auto by_rule = [](const GpuModel& m, const Layout& cur, int profile) -> std::optional<int> {
    std::optional<int> best;
    std::tuple<int, int, int, int> best_score{-1, -1, -1, -1};
    for (int s : FreeStarts(m, cur, profile)) {
      Layout next = cur;
      next.push_back({profile, s});
      int mem = 0, compute = 0, placements = 0;
      for (size_t q = 0; q < m.profiles.size(); ++q) {
        const size_t n = FreeStarts(m, next, static_cast<int>(q)).size();
        placements += static_cast<int>(n);
        const Profile& p = m.profiles[q];
        if (n > 0 && std::tie(p.memory_slices, p.compute_slices) > std::tie(mem, compute)) {
          mem = p.memory_slices;
          compute = p.compute_slices;
        }
      }
      const std::tuple<int, int, int, int> score{mem, compute, LargestFreeRun(m, next), placements};
      if (score > best_score) {  // strictly better: ties keep the lower start
        best_score = score;
        best = s;
      }
    }
    return best;
  };
  int64_t checked = 0, chosen = 0;
  for (const GpuModel& m : GpuModels()) {
    for (const Layout& l : EnumerateLayouts(m)) {
      for (int p = -1; p <= static_cast<int>(m.profiles.size()); ++p) {
        const std::optional<int> got = ChooseStart(m, l, p);
        ASSERT_EQ(got, by_rule(m, l, p)) << m.name << " " << FormatLayout(m, l) << " profile " << p;
        ++checked;
        chosen += got.has_value();
      }
    }
  }
  EXPECT_GT(checked, 1000);
  EXPECT_GT(chosen, 100);
}

// ---- reconfiguration ----

TEST(MigReconfig, DrainRuleAndTimeCost) {
  const GpuModel& a = Model("A100-40GB");
  Result<MigGpu> made = MigGpu::Create(a, MustParse(a, "3g.20gb,2g.10gb,1g.5gb,1g.5gb"));
  ASSERT_TRUE(made.ok()) << made.status().message();
  MigGpu gpu = made.value();
  EXPECT_EQ(FormatLayout(a, gpu.layout()), "1g.5gb@0,1g.5gb@1,2g.10gb@2,3g.20gb@4");
  ASSERT_TRUE(gpu.StartJob(4, Seconds(10)).ok());
  EXPECT_TRUE(gpu.busy(4));
  EXPECT_EQ(gpu.StartJob(4, Seconds(10)).message(), "3g.20gb@4 is busy");
  EXPECT_EQ(gpu.StartJob(3, Seconds(10)).message(), "no MIG instance starts at memory slice 3");

  // Splitting the busy 3g is refused, naming it; nothing changes.
  const Layout split = MustParse(a, "1g.5gb@0,1g.5gb@1,2g.10gb@2,2g.10gb@4,1g.5gb@6");
  EXPECT_EQ(gpu.MustDrain(split), (std::vector<int>{4}));
  Result<Micros> refused = gpu.Reconfigure(split, Seconds(20));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(),
            "cannot change A100-40GB layout '1g.5gb@0,1g.5gb@1,2g.10gb@2,3g.20gb@4' to "
            "'1g.5gb@0,1g.5gb@1,2g.10gb@2,2g.10gb@4,1g.5gb@6': busy instances would be "
            "destroyed (drain first): 3g.20gb@4");
  EXPECT_EQ(FormatLayout(a, gpu.layout()), "1g.5gb@0,1g.5gb@1,2g.10gb@2,3g.20gb@4");
  EXPECT_EQ(gpu.change_done_at(), Micros(0));

  // Merging the idle left half into 4g keeps the busy 3g running:
  // 3 destroyed + 1 created at 2 s each = 8 s.
  const Layout merged = MustParse(a, "4g.20gb,3g.20gb");
  EXPECT_TRUE(gpu.MustDrain(merged).empty());
  EXPECT_EQ(gpu.Cost(merged), Seconds(8));
  Result<Micros> done = gpu.Reconfigure(merged, Seconds(20));
  ASSERT_TRUE(done.ok()) << done.status().message();
  EXPECT_EQ(done.value(), Seconds(28));
  EXPECT_EQ(FormatLayout(a, gpu.layout()), "4g.20gb@0,3g.20gb@4");
  EXPECT_TRUE(gpu.busy(4));
  EXPECT_EQ(gpu.ready_at(4), Micros(0));
  EXPECT_EQ(gpu.ready_at(0), Seconds(28));
  EXPECT_EQ(gpu.ready_at(1), kNever);
  EXPECT_EQ(gpu.StartJob(0, Seconds(27)).message(), "4g.20gb@0 is being created until 28000000 us");
  EXPECT_TRUE(gpu.StartJob(0, Seconds(28)).ok());

  // The same layout costs nothing.
  EXPECT_EQ(gpu.Cost(merged), Micros(0));
  EXPECT_EQ(gpu.Reconfigure(merged, Seconds(30)).value(), Seconds(30));

  // Whole GPU: both busy instances must drain first.
  const Layout whole = MustParse(a, "7g.40gb");
  EXPECT_EQ(gpu.MustDrain(whole), (std::vector<int>{0, 4}));
  EXPECT_FALSE(gpu.Reconfigure(whole, Seconds(40)).ok());
  ASSERT_TRUE(gpu.FinishJob(0).ok());
  ASSERT_TRUE(gpu.FinishJob(4).ok());
  EXPECT_EQ(gpu.FinishJob(4).message(), "no busy MIG instance starts at memory slice 4");
  EXPECT_EQ(gpu.Cost(whole), Seconds(6));  // 2 destroyed + 1 created
  EXPECT_EQ(gpu.Reconfigure(whole, Seconds(40)).value(), Seconds(46));
  EXPECT_EQ(FormatLayout(a, gpu.layout()), "7g.40gb@0");

  EXPECT_EQ(gpu.Reconfigure({{3, 1}}, Seconds(50)).status().message(),
            "invalid target layout: 2g.10gb@1: start 1 is not a valid placement (valid starts: "
            "0, 2, 4)");
  EXPECT_EQ(MigGpu::Create(a, {{4, 0}, {5, 0}}).status().message(),
            "4g.20gb@0: overlaps 3g.20gb@0 on memory slices 0-3");
}

TEST(MigReconfig, ConfiguredTimesAndBackToBackChanges) {
  const GpuModel& h = Model("H100-80GB");
  ReconfigTimes times;
  times.create = Seconds(5);
  times.destroy = Seconds(1);
  times.fixed = Seconds(30);
  MigGpu gpu = MigGpu::Create(h, {}, times).value();
  const Layout seven = MustParse(h, "19,19,19,19,19,19,19");
  EXPECT_EQ(gpu.Cost(seven), Seconds(30 + 7 * 5));
  EXPECT_EQ(gpu.Reconfigure(seven, Seconds(100)).value(), Seconds(165));
  // A second change requested during the first starts when it ends:
  // 30 + 7 x 1 + 1 x 5 = 42 s after 165 s.
  EXPECT_EQ(gpu.Reconfigure(MustParse(h, "7g.80gb"), Seconds(120)).value(), Seconds(207));
  EXPECT_EQ(gpu.change_done_at(), Seconds(207));
  EXPECT_EQ(gpu.ready_at(0), Seconds(207));
}

// ---- speed ----

TEST(MigSpeedModel, CapacityAndSpeed) {
  const GpuModel& a = Model("A100-40GB");
  const MigSpeedParams p;                                              // w = 0.41, saturation 0.44
  EXPECT_DOUBLE_EQ(MigCapacity(a.profiles[6], p.memory_weight), 1.0);  // 7g
  EXPECT_NEAR(MigCapacity(a.profiles[0], 0.41), 1 / 7.41, 1e-12);      // 0.59x7 + 0.41x8
  EXPECT_NEAR(MigCapacity(a.profiles[3], 0.41), 1 / 3.705, 1e-12);     // 0.59x3.5 + 0.41x4
  EXPECT_NEAR(MigCapacity(a.profiles[4], 0.41), 1 / (0.59 * 7 / 3 + 0.82), 1e-12);
  EXPECT_NEAR(MigCapacity(a.profiles[5], 0.41), 1 / (0.59 * 1.75 + 0.82), 1e-12);
  EXPECT_NEAR(MigCapacity(a.profiles[2], 0.41), 1 / 5.77, 1e-12);  // 1 compute, 2 memory
  EXPECT_NEAR(MigCapacity(a.profiles[0], 0.0), 1 / 7.0, 1e-12);
  EXPECT_NEAR(MigCapacity(a.profiles[0], 1.0), 1 / 8.0, 1e-12);
  EXPECT_NEAR(MigCapacity(a.profiles[0], 2.0), 1 / 8.0, 1e-12);  // clamped

  EXPECT_NEAR(MigSpeed(a.profiles[0], 1.0, p), 1 / 7.41, 1e-12);
  EXPECT_NEAR(MigSpeed(a.profiles[3], 0.5, p), 2 / 3.705, 1e-12);
  EXPECT_DOUBLE_EQ(MigSpeed(a.profiles[4], 0.2, p), 1.0);  // demand below capacity
  EXPECT_DOUBLE_EQ(MigSpeed(a.profiles[0], 0.0, p), 1.0);
  EXPECT_NEAR(MigSpeed(a.profiles[0], 3.0, p), 1 / 7.41, 1e-12);
  EXPECT_NEAR(MigSpeed(a.profiles[0], std::nan(""), p), 1 / 7.41, 1e-12);
  EXPECT_DOUBLE_EQ(MigSpeed(a.profiles[6], 1.0, p), 1.0);

  EXPECT_DOUBLE_EQ(MigDemandFromUtil(0.22, p), 0.5);
  EXPECT_DOUBLE_EQ(MigDemandFromUtil(0.9, p), 1.0);
  EXPECT_DOUBLE_EQ(MigDemandFromUtil(-0.1, p), 0.0);
  EXPECT_DOUBLE_EQ(MigDemandFromUtil(std::nan(""), p), 1.0);
  // bert-base batch 32 (MIGProfiler): GRACT 0.291 on 7g -> d = 0.661; on
  // 1g.5gb the model predicts 0.2041 against a measured 0.203.
  EXPECT_NEAR(MigSpeed(a.profiles[0], MigDemandFromUtil(0.291, p), p), 0.44 / 0.291 / 7.41, 1e-12);
}

// MigDemand (docs/mig.md, "Demand by job kind"), defaults 3200 tokens and
// 0.90 for training: 1600 tokens -> 0.5; training at 0.45 -> 0.5; the
// token rule is not for training jobs; unknown kind -> the 0.44 fallback.
TEST(MigSpeedModel, DemandByKindAndTokens) {
  const MigSpeedParams p;
  EXPECT_DOUBLE_EQ(MigDemand({0.9, JobKind::kInference, 1600}, p), 0.5);
  EXPECT_DOUBLE_EQ(MigDemand({std::nan(""), JobKind::kUnknown, 6400}, p), 1.0);
  EXPECT_DOUBLE_EQ(MigDemand({0.45, JobKind::kTraining, 1600}, p), 0.5);
  EXPECT_DOUBLE_EQ(MigDemand({0.22, JobKind::kInference, 0}, p), 0.5);
  EXPECT_DOUBLE_EQ(MigDemand({0.22, JobKind::kUnknown, 0}, p), 0.5);
  EXPECT_DOUBLE_EQ(MigDemand({std::nan(""), JobKind::kTraining, 0}, p), 1.0);
  EXPECT_DOUBLE_EQ(MigDemand({}, p), 1.0);
  // Measured only when a rule has something to go by.
  EXPECT_FALSE(MigMeasuredDemand({}, p).has_value());
  EXPECT_FALSE(MigMeasuredDemand({std::nan(""), JobKind::kTraining, 0}, p).has_value());
  EXPECT_DOUBLE_EQ(MigMeasuredDemand({std::nan(""), JobKind::kInference, 1600}, p).value(), 0.5);
  Job unknown;
  unknown.util = 1.0f;  // the placeholder: util_known false
  EXPECT_TRUE(std::isnan(MigInputsOf(unknown).util));
  unknown.util_known = true;
  EXPECT_DOUBLE_EQ(MigInputsOf(unknown).util, 1.0);
  MigSpeedParams off = p;
  off.tokens_at_saturation = 0;
  EXPECT_DOUBLE_EQ(MigDemand({0.22, JobKind::kInference, 1600}, off), 0.5) << "no token rule";
  // bert-base batch 1, sequence 64 (MIGProfiler infer_bsz): 64 tokens -> d =
  // 0.02, full speed on 1g.5gb (measured: 89.53 / 90.11 samples/s = 0.994);
  // utilization alone (GRACT 0.146 on 7g) gives d = 0.33 and a predicted 0.41.
  const GpuModel& a = *FindGpuModel("A100-40GB");
  EXPECT_DOUBLE_EQ(MigSpeed(a.profiles[0], MigDemand({0.146, JobKind::kInference, 64}, p), p), 1.0);
  EXPECT_NEAR(MigSpeed(a.profiles[0], MigDemandFromUtil(0.146, p), p), 0.44 / 0.146 / 7.41, 1e-12);
}

}  // namespace UTILSIM_UNITY_ID
}  // namespace utilsim::mig
