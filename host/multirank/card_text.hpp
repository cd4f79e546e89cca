// Text shared by the cross-rank cards: numbers with fixed decimals, rank lists in prose, and
// the severity every cross-rank item takes from its mid impact.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "findings/finding.hpp"

namespace traceprism::multirank {

std::string fixed(double value, int decimals);  // "%.*f"

// "a", "a and b", "a, b and c".
std::string joined_words(const std::vector<std::string>& items);
// "5", "2 and 3", "1, 4 and 6".
std::string rank_list(const std::vector<std::int32_t>& ranks);

// Critical from 10% of E2E (mid impact), warning from 2%, else info.
findings::Severity severity_of(double mid_percent);

}  // namespace traceprism::multirank
