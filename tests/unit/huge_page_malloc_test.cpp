// When traceprism restarts itself with glibc's huge-page malloc tunable (cli/huge_page_malloc).
#include "cli/huge_page_malloc.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/temp_dir.hpp"

using traceprism::cli::huge_page_tunables;

namespace {

constexpr const char* kMadvise = "always [madvise] never\n";

}  // namespace

TEST(HugePageMalloc, RestartsWithTheTunableWhenAskedAndTheKernelTakesAdvice) {
  EXPECT_EQ(huge_page_tunables("1", nullptr, kMadvise, "2.36"), "glibc.malloc.hugetlb=1");
  EXPECT_EQ(huge_page_tunables("1", nullptr, kMadvise, "2.35"), "glibc.malloc.hugetlb=1");
  EXPECT_EQ(huge_page_tunables("1", "", kMadvise, "3.0"), "glibc.malloc.hugetlb=1");
}

// Huge pages cost more than they save on the benchmark VM (docs/performance.md): only "1" asks.
TEST(HugePageMalloc, NoRestartUnlessAsked) {
  EXPECT_EQ(huge_page_tunables(nullptr, nullptr, kMadvise, "2.36"), std::nullopt);
  EXPECT_EQ(huge_page_tunables("0", nullptr, kMadvise, "2.36"), std::nullopt);
  EXPECT_EQ(huge_page_tunables("", nullptr, kMadvise, "2.36"), std::nullopt);
  EXPECT_EQ(huge_page_tunables("yes", nullptr, kMadvise, "2.36"), std::nullopt);
}

TEST(HugePageMalloc, KeepsTheUsersOtherTunables) {
  EXPECT_EQ(huge_page_tunables("1", "glibc.malloc.arena_max=2", kMadvise, "2.36"),
            "glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1");
}

TEST(HugePageMalloc, RestartsAtMostOnce) {
  // After the restart (or when the user chose a value, 0 included) the tunable is there.
  EXPECT_EQ(huge_page_tunables("1", "glibc.malloc.hugetlb=1", kMadvise, "2.36"), std::nullopt);
  EXPECT_EQ(huge_page_tunables("1", "glibc.malloc.hugetlb=0", kMadvise, "2.36"), std::nullopt);
  EXPECT_EQ(huge_page_tunables("1", "a=1:glibc.malloc.hugetlb=1", kMadvise, "2.36"), std::nullopt);
}

TEST(HugePageMalloc, NothingToGainOrNoWayToAsk) {
  // "always" already backs malloc with huge pages; "never" gives none.
  EXPECT_EQ(huge_page_tunables("1", nullptr, "[always] madvise never", "2.36"), std::nullopt);
  EXPECT_EQ(huge_page_tunables("1", nullptr, "always madvise [never]", "2.36"), std::nullopt);
  EXPECT_EQ(huge_page_tunables("1", nullptr, "", "2.36"), std::nullopt);  // no THP at all
  // glibc before 2.35 has no such tunable.
  EXPECT_EQ(huge_page_tunables("1", nullptr, kMadvise, "2.34"), std::nullopt);
  EXPECT_EQ(huge_page_tunables("1", nullptr, kMadvise, "1.99"), std::nullopt);
  EXPECT_EQ(huge_page_tunables("1", nullptr, kMadvise, "unknown"), std::nullopt);
}

// Only a run that reads a large input restarts: a file of at least the threshold, or stdin.
TEST(HugePageMalloc, RestartsOnlyForALargeInput) {
  using traceprism::cli::kHugePageMinInputBytes;
  using traceprism::cli::reads_large_input;
  traceprism::testing::TempDir dir;
  const std::string small = dir.write("small.json", "{\"traceEvents\":[]}");
  const std::string large = dir.write("large.json", std::string(kHugePageMinInputBytes, ' '));
  const std::string just_below =
      dir.write("below.json", std::string(kHugePageMinInputBytes - 1, ' '));
  const auto reads = [](std::vector<std::string> args) {
    args.insert(args.begin(), "traceprism");
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    return reads_large_input(static_cast<int>(argv.size()), argv.data());
  };
  EXPECT_FALSE(reads({"analyze", small, "-o", dir.path().string()}));
  EXPECT_FALSE(reads({"analyze", just_below}));
  EXPECT_FALSE(reads({"--help"}));
  EXPECT_FALSE(reads({"analyze", "missing.json"}));
  EXPECT_TRUE(reads({"analyze", large, "-o", dir.path().string()}));
  EXPECT_TRUE(reads({"compare", small, large}));
  EXPECT_TRUE(reads({"inspect", "-"}));
}
