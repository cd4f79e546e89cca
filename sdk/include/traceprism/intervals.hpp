// traceprism SDK: interval algebra on time intervals, shared by the host (GPU timeline) and
// plugins (support.hpp), so both compute unions and exposed time the same way, to the bit.
// Header-only C++17.
#pragma once

#include <algorithm>
#include <vector>

namespace traceprism {

// Half-open time interval [start, end). T is double (reference µs) or int64 (ns).
template <class T>
struct Interval {
  T start;
  T end;
};

// Union of intervals: sorted by start (stable), touching or overlapping ones merged.
template <class T>
std::vector<Interval<T>> merge_intervals(std::vector<Interval<T>> in) {
  const auto by_start = [](const auto& a, const auto& b) { return a.start < b.start; };
  // GPU events mostly arrive in start order; checking is a pass, the stable sort a copy and more.
  if (!std::is_sorted(in.begin(), in.end(), by_start))
    std::stable_sort(in.begin(), in.end(), by_start);
  std::vector<Interval<T>> out;
  out.reserve(in.size());
  for (const auto& iv : in) {
    if (!out.empty() && iv.start <= out.back().end) {
      out.back().end = std::max(out.back().end, iv.end);
    } else {
      out.push_back(iv);
    }
  }
  return out;
}

// b − a for two merged (sorted, disjoint) lists; zero-length pieces are not emitted.
template <class T>
std::vector<Interval<T>> subtract_intervals(const std::vector<Interval<T>>& b,
                                            const std::vector<Interval<T>>& a) {
  std::vector<Interval<T>> out;
  std::size_t j = 0;
  for (const auto& piece : b) {
    T cursor = piece.start;
    while (j < a.size() && a[j].end <= cursor) ++j;
    std::size_t k = j;
    while (k < a.size() && a[k].start < piece.end) {
      if (a[k].start > cursor) out.push_back({cursor, a[k].start});
      cursor = std::max(cursor, a[k].end);
      if (cursor >= piece.end) break;
      ++k;
    }
    if (cursor < piece.end) out.push_back({cursor, piece.end});
  }
  return out;
}

// Σ (end − start), summed left to right like the reference.
template <class T>
T total_length(const std::vector<Interval<T>>& list) {
  T sum{};
  for (const auto& iv : list) sum += iv.end - iv.start;
  return sum;
}

}  // namespace traceprism
