#include "cli/rank_distribution.hpp"

namespace traceprism::cli {

namespace {
RankDistribution* installed = nullptr;
}  // namespace

void install_rank_distribution(RankDistribution* distribution) {
  installed = distribution;
}

RankDistribution* installed_rank_distribution() {
  return installed;
}

}  // namespace traceprism::cli
