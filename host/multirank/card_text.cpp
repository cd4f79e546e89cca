#include "multirank/card_text.hpp"

#include <cstdio>

namespace traceprism::multirank {

std::string fixed(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

std::string joined_words(const std::vector<std::string>& items) {
  std::string text;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) text += i + 1 == items.size() ? " and " : ", ";
    text += items[i];
  }
  return text;
}

std::string rank_list(const std::vector<std::int32_t>& ranks) {
  std::vector<std::string> items;
  items.reserve(ranks.size());
  for (const std::int32_t r : ranks) items.push_back(std::to_string(r));
  return joined_words(items);
}

findings::Severity severity_of(double mid_percent) {
  if (mid_percent >= 10) return findings::Severity::kCritical;
  if (mid_percent >= 2) return findings::Severity::kWarning;
  return findings::Severity::kInfo;
}

}  // namespace traceprism::multirank
