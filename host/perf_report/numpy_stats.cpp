#include "perf_report/numpy_stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

namespace traceprism::perf_report {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr std::size_t kUnroll = 8;
constexpr std::size_t kPairwiseBlock = 128;  // numpy's PW_BLOCKSIZE

// numpy's pairwise_sum (loops_utils.h): the order of additions decides the last bits.
double pairwise_sum(const double* a, std::size_t n) {
  if (n < kUnroll) {
    double sum = 0.0;
    for (std::size_t i = 0; i < n; ++i) sum += a[i];
    return sum;
  }
  if (n <= kPairwiseBlock) {
    double r[kUnroll];
    for (std::size_t j = 0; j < kUnroll; ++j) r[j] = a[j];
    std::size_t i = kUnroll;
    for (; i < n - (n % kUnroll); i += kUnroll) {
      for (std::size_t j = 0; j < kUnroll; ++j) r[j] += a[i + j];
    }
    double sum = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) sum += a[i];
    return sum;
  }
  // Halve, rounded down to a multiple of the unroll factor.
  std::size_t half = n / 2;
  half -= half % kUnroll;
  return pairwise_sum(a, half) + pairwise_sum(a + half, n - half);
}

// numpy's aheapsort: the introsort's fallback when partitioning degenerates.
void numpy_heap_argsort(const double* v, std::size_t* tosort, std::size_t n) {
  std::size_t* a = tosort - 1;  // 1-based heap indexing, as numpy writes it
  auto sift_down = [&](std::size_t i, std::size_t size, std::size_t item) {
    for (std::size_t j = i << 1; j <= size;) {
      if (j < size && v[a[j]] < v[a[j + 1]]) ++j;
      if (!(v[item] < v[a[j]])) break;
      a[i] = a[j];
      i = j;
      j += j;
    }
    a[i] = item;
  };
  for (std::size_t l = n >> 1; l > 0; --l) sift_down(l, n, a[l]);
  for (; n > 1;) {
    const std::size_t item = a[n];
    a[n] = a[1];
    --n;
    sift_down(1, n, item);
  }
}

// One median-of-3 partition step of numpy's quicksort over [pl, pr]; returns the pivot's slot.
std::size_t* numpy_partition(const double* v, std::size_t* pl, std::size_t* pr) {
  std::size_t* pm = pl + ((pr - pl) >> 1);
  if (v[*pm] < v[*pl]) std::swap(*pm, *pl);
  if (v[*pr] < v[*pm]) std::swap(*pr, *pm);
  if (v[*pm] < v[*pl]) std::swap(*pm, *pl);
  const double pivot = v[*pm];
  std::size_t* pi = pl;
  std::size_t* pj = pr - 1;
  std::swap(*pm, *pj);
  for (;;) {
    while (v[*++pi] < pivot) {
    }
    while (pivot < v[*--pj]) {
    }
    if (pi >= pj) break;
    std::swap(*pi, *pj);
  }
  std::swap(*pi, *(pr - 1));
  return pi;
}

void numpy_insertion_argsort(const double* v, std::size_t* pl, std::size_t* pr) {
  for (std::size_t* pi = pl + 1; pi <= pr; ++pi) {
    const std::size_t item = *pi;
    std::size_t* pj = pi;
    for (; pj > pl && v[item] < v[*(pj - 1)]; --pj) *pj = *(pj - 1);
    *pj = item;
  }
}

// numpy's generic aquicksort (npysort/quicksort.cpp): partitions down to 16 elements,
// insertion sort below, heapsort for a range popped with its depth budget spent.
void numpy_quick_argsort(const double* v, std::size_t* tosort, std::size_t num) {
  constexpr std::ptrdiff_t kSmallQuicksort = 15;
  struct Range {
    std::size_t* left;
    std::size_t* right;
    int depth;
  };
  std::vector<Range> stack;
  std::size_t* pl = tosort;
  std::size_t* pr = tosort + num - 1;
  int depth = 0;
  for (std::size_t n = num; n >>= 1;) ++depth;
  depth *= 2;  // twice the highest set bit of num, as numpy's npy_get_msb
  for (;;) {
    if (depth < 0) {
      numpy_heap_argsort(v, pl, static_cast<std::size_t>(pr - pl + 1));
    } else {
      while (pr - pl > kSmallQuicksort) {
        std::size_t* pi = numpy_partition(v, pl, pr);
        // Continue with the smaller side, keep the larger one for later.
        if (pi - pl < pr - pi) {
          stack.push_back({pi + 1, pr, --depth});
          pr = pi - 1;
        } else {
          stack.push_back({pl, pi - 1, --depth});
          pl = pi + 1;
        }
      }
      numpy_insertion_argsort(v, pl, pr);
    }
    if (stack.empty()) break;
    pl = stack.back().left;
    pr = stack.back().right;
    depth = stack.back().depth;
    stack.pop_back();
  }
}

}  // namespace

double numpy_sum(std::span<const double> values) {
  // The reduction starts from add's identity 0.0, which only matters for -0.0.
  return 0.0 + pairwise_sum(values.data(), values.size());
}

double numpy_mean(std::span<const double> values) {
  if (values.empty()) return kNaN;
  return numpy_sum(values) / static_cast<double>(values.size());
}

double numpy_std(std::span<const double> values) {
  if (values.empty()) return kNaN;
  const double mean = numpy_mean(values);
  std::vector<double> squares;
  squares.reserve(values.size());
  for (double v : values) squares.push_back((v - mean) * (v - mean));
  return std::sqrt(numpy_sum(squares) / static_cast<double>(values.size()));
}

double numpy_median(std::span<const double> values) {
  if (values.empty()) return kNaN;
  // The middle values of the sorted order without sorting: nth_element places the upper middle
  // and leaves everything below it in front (a full sort was a tenth of the report's time).
  std::vector<double> v(values.begin(), values.end());
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  if (v.size() % 2 == 1) return *mid;
  // np.mean of the two middle values: (0 + a + b) / 2.
  return (*std::max_element(v.begin(), mid) + *mid) / 2.0;
}

double numpy_min(std::span<const double> values) {
  if (values.empty()) return kNaN;
  return *std::min_element(values.begin(), values.end());
}

double numpy_max(std::span<const double> values) {
  if (values.empty()) return kNaN;
  return *std::max_element(values.begin(), values.end());
}

double pandas_sum(std::span<const double> values) {
  // pandas' group_sum: Kahan summation in group order, NaN skipped (0.0 when all are).
  double sum = 0.0, compensation = 0.0;
  for (double v : values) {
    if (std::isnan(v)) continue;
    const double y = v - compensation;
    const double t = sum + y;
    compensation = (t - sum) - y;
    sum = t;
  }
  return sum;
}

double pandas_mean(std::span<const double> values) {
  if (values.empty()) return kNaN;
  return pandas_sum(values) / static_cast<double>(values.size());
}

double pandas_std(std::span<const double> values) {
  if (values.size() < 2) return kNaN;
  // pandas' group_var: Welford's online mean and sum of squared deviations.
  double mean = 0.0, squared_deviations = 0.0, count = 0.0;
  for (double v : values) {
    count += 1.0;
    const double previous_mean = mean;
    mean += (v - previous_mean) / count;
    squared_deviations += (v - mean) * (v - previous_mean);
  }
  return std::sqrt(squared_deviations / (count - 1.0));
}

double pandas_median(std::span<const double> values) {
  return numpy_median(values);
}

std::vector<std::size_t> pandas_descending_order(std::span<const double> values) {
  std::vector<std::size_t> finite_rows, nan_rows;
  for (std::size_t i = values.size(); i-- > 0;) {  // reversed, as nargsort does
    (std::isnan(values[i]) ? nan_rows : finite_rows).push_back(i);
  }
  std::reverse(nan_rows.begin(), nan_rows.end());
  std::vector<double> reversed;
  reversed.reserve(finite_rows.size());
  for (std::size_t row : finite_rows) reversed.push_back(values[row]);
  std::vector<std::size_t> positions(reversed.size());
  for (std::size_t i = 0; i < positions.size(); ++i) positions[i] = i;
  if (!positions.empty()) numpy_quick_argsort(reversed.data(), positions.data(), positions.size());
  std::vector<std::size_t> order;
  order.reserve(values.size());
  for (std::size_t k = positions.size(); k-- > 0;) order.push_back(finite_rows[positions[k]]);
  order.insert(order.end(), nan_rows.begin(), nan_rows.end());
  return order;
}

}  // namespace traceprism::perf_report
