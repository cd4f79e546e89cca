// When traceprism restarts itself with glibc's huge-page malloc tunable (cli/huge_page_malloc).
#include "cli/huge_page_malloc.hpp"

#include <gtest/gtest.h>

using traceprism::cli::huge_page_tunables;

namespace {

constexpr const char* kMadvise = "always [madvise] never\n";

}  // namespace

TEST(HugePageMalloc, RestartsWithTheTunableWhenTheKernelAsksForAdvice) {
  EXPECT_EQ(huge_page_tunables(nullptr, nullptr, kMadvise, "2.36"), "glibc.malloc.hugetlb=1");
  EXPECT_EQ(huge_page_tunables("1", nullptr, kMadvise, "2.35"), "glibc.malloc.hugetlb=1");
  EXPECT_EQ(huge_page_tunables(nullptr, "", kMadvise, "3.0"), "glibc.malloc.hugetlb=1");
}

TEST(HugePageMalloc, KeepsTheUsersOtherTunables) {
  EXPECT_EQ(huge_page_tunables(nullptr, "glibc.malloc.arena_max=2", kMadvise, "2.36"),
            "glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1");
}

TEST(HugePageMalloc, RestartsAtMostOnce) {
  // After the restart (or when the user chose a value, 0 included) the tunable is there.
  EXPECT_EQ(huge_page_tunables(nullptr, "glibc.malloc.hugetlb=1", kMadvise, "2.36"), std::nullopt);
  EXPECT_EQ(huge_page_tunables(nullptr, "glibc.malloc.hugetlb=0", kMadvise, "2.36"), std::nullopt);
  EXPECT_EQ(huge_page_tunables(nullptr, "a=1:glibc.malloc.hugetlb=1", kMadvise, "2.36"),
            std::nullopt);
}

TEST(HugePageMalloc, NothingToGainOrNoWayToAsk) {
  EXPECT_EQ(huge_page_tunables("0", nullptr, kMadvise, "2.36"), std::nullopt);  // opted out
  // "always" already backs malloc with huge pages; "never" gives none.
  EXPECT_EQ(huge_page_tunables(nullptr, nullptr, "[always] madvise never", "2.36"), std::nullopt);
  EXPECT_EQ(huge_page_tunables(nullptr, nullptr, "always madvise [never]", "2.36"), std::nullopt);
  EXPECT_EQ(huge_page_tunables(nullptr, nullptr, "", "2.36"), std::nullopt);  // no THP at all
  // glibc before 2.35 has no such tunable.
  EXPECT_EQ(huge_page_tunables(nullptr, nullptr, kMadvise, "2.34"), std::nullopt);
  EXPECT_EQ(huge_page_tunables(nullptr, nullptr, kMadvise, "1.99"), std::nullopt);
  EXPECT_EQ(huge_page_tunables(nullptr, nullptr, kMadvise, "unknown"), std::nullopt);
}
