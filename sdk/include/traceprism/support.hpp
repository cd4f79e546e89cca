// traceprism SDK: optional helpers for analyzers that reproduce a reference tool's numbers and
// prose (the default plugins reproduce TraceLens and HTA): Python-style rounding and number
// text, the reference's microsecond doubles, interval algebra on a timeline, and the
// all-GPU-events timeline split by class. Header-only C++17; nothing in sdk.hpp depends on it.
//
//   #include <traceprism/support.hpp>
//   namespace support = traceprism::support;
//   ctx.record("total_time_ms", support::py_round(total_us / 1000, 3));
#pragma once

#include <traceprism/intervals.hpp>
#include <traceprism/reference_time.hpp>
#include <traceprism/sdk.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace traceprism::support {

// ---- Sums of durations --------------------------------------------------------------------------

// Adds `ns` to `total`, stopping at the largest (or smallest) int64 instead of overflowing. Each
// event's time lies within ±2^62 ns (the reader refuses others), but a sum over events that
// overlap (kernels on many streams, nested waits) can pass 2^63 on a crafted trace, and signed
// overflow is undefined behaviour.
inline void add_ns(std::int64_t& total, std::int64_t ns) {
  if (__builtin_add_overflow(total, ns, &total))
    total = ns > 0 ? std::numeric_limits<std::int64_t>::max()
                   : std::numeric_limits<std::int64_t>::min();
}

// ---- Numbers as text --------------------------------------------------------------------------

// `x` with exactly `decimals` decimals. printf rounds the exact binary value (glibc: ties to
// even), which is what Python's format(x, ".nf") and round() do: reference text matches.
inline std::string fixed(double x, int decimals) {
  const int n = std::snprintf(nullptr, 0, "%.*f", decimals, x);
  std::string out(static_cast<std::size_t>(n > 0 ? n : 0), '\0');
  std::snprintf(out.data(), out.size() + 1, "%.*f", decimals, x);
  return out;
}

// Python's round(x, n) on a double: the correctly rounded n-decimal text of the exact binary
// value, read back, so that figures equal the reference's rounded JSON values to the bit.
// Infinities and NaN come back unchanged.
inline double py_round(double x, int decimals) {
  if (!std::isfinite(x)) return x;
  return std::strtod(fixed(x, decimals).c_str(), nullptr);
}

// A value with at most 3 decimals and no trailing zeros ("12", "2.78", never "-0"): durations
// in µs and thresholds in tables and prose, as the reference prints them.
inline std::string compact(double x) {
  std::string s = fixed(x, 3);
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s == "-0" ? "0" : s;
}

// The shortest text that reads back as `x` ("%g"): option values in prose (5, 2.5, 0.1).
inline std::string plain(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

// Milliseconds for prose and tables: 1 decimal from 10 ms, 2 from 0.1 ms, 3 below; "0 ms".
inline std::string ms(double value_ms) {
  if (value_ms == 0) return "0 ms";
  const double a = std::fabs(value_ms);
  return fixed(value_ms, a >= 10 ? 1 : (a >= 0.1 ? 2 : 3)) + " ms";
}

// Bytes for prose and tables: "18.2 GB", "412.0 MB", "64.0 KB", "800 B" (decimal units, as link
// rates are given).
inline std::string bytes_text(double bytes) {
  if (bytes >= 1e9) return fixed(bytes / 1e9, 1) + " GB";
  if (bytes >= 1e6) return fixed(bytes / 1e6, 1) + " MB";
  if (bytes >= 1e3) return fixed(bytes / 1e3, 1) + " KB";
  return fixed(bytes, 0) + " B";
}

// Microseconds for prose and tables: no decimal from 100 µs, 1 below.
inline std::string us(double value_us) {
  return fixed(value_us, std::fabs(value_us) >= 100 ? 0 : 1) + " \xC2\xB5s";
}

// A percentage with 1 decimal ("12.5%"), as the reference's summaries print shares.
inline std::string percent(double value) {
  return fixed(value, 1) + "%";
}

// A percentage with 1 decimal from 1%, 2 from 0.01%, 3 below, so that a small share does not
// read as "0.0%" in prose.
inline std::string percent_adaptive(double value) {
  const double a = std::fabs(value);
  return fixed(value, a >= 1 ? 1 : (a >= 0.01 ? 2 : 3)) + "%";
}

// "1 call", "3 calls"; `plural` for nouns that do not just take an "s" ("2 copies").
inline std::string count_of(std::uint64_t n, const char* noun, const char* plural = nullptr) {
  if (n == 1) return "1 " + std::string(noun);
  return std::to_string(n) + " " + (plural ? std::string(plural) : std::string(noun) + "s");
}

// A name (kernel, op) cut to `max` bytes on a UTF-8 boundary, with "..." appended when cut, so
// that long template names keep tables readable.
inline std::string shorten(std::string_view name, std::size_t max = 80) {
  if (name.size() <= max) return std::string(name);
  std::size_t cut = max - 3;
  while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xC0) == 0x80) --cut;
  return std::string(name.substr(0, cut)) + "...";
}

// ---- Reference time and intervals ------------------------------------------------------------

// The reference's microsecond double for a nanosecond time (traceprism/reference_time.hpp).
using traceprism::reference_us;

// A half-open time interval [start, end) in the reference's µs doubles, and the interval
// algebra the host's GPU timeline uses (traceprism/intervals.hpp), so that plugins' unions and
// exposed times equal the host's to the bit.
using Interval = traceprism::Interval<double>;

// The union of `in`: sorted by start (stable, as the reference sorts its event list),
// touching or overlapping intervals merged. The result is sorted and disjoint.
inline std::vector<Interval> merge(std::vector<Interval> in) {
  return merge_intervals(std::move(in));
}

// `from` minus `remove`, both merged (see merge): the parts of `from` that no interval of
// `remove` covers (exposed time, as the reference computes it); zero-length pieces are dropped.
inline std::vector<Interval> subtract(const std::vector<Interval>& from,
                                      const std::vector<Interval>& remove) {
  return subtract_intervals(from, remove);
}

// The summed length of `intervals`, in order (the reference's sum, to the bit).
using traceprism::total_length;

// ---- The all-GPU-events timeline --------------------------------------------------------------

// Every GPU event (kernel, memcpy, memset) of a known class, linked to a launch or not, as
// merged intervals per class. This is the event set of the reference's multi_kernel_data.json
// overlap_analysis (GPUEventAnalyser on all tree events); it differs from Context::timeline()
// (linked events only) on traces with unlinked GPU work.
struct GpuClassIntervals {
  std::size_t events = 0;  // events counted (computation, communication or memcpy)
  double span_us = 0;      // first start to last end of all of them; 0 without events
  std::vector<Interval> computation, communication, copy;  // each merged
};

inline GpuClassIntervals all_gpu_event_intervals(const Context& ctx) {
  const EventView ev = ctx.events();
  std::vector<Row> rows;
  for (Kind kind : {Kind::kKernel, Kind::kMemcpy, Kind::kMemset}) {
    // File order, as the reference's event list. A kind's rows come in time order, which is
    // mostly file order already: sorted only when not, then merged with the kinds before.
    const auto first = static_cast<std::ptrdiff_t>(rows.size());
    for (Row r : ctx.rows(kind)) rows.push_back(r);
    if (!std::is_sorted(rows.begin() + first, rows.end()))
      std::sort(rows.begin() + first, rows.end());
    std::inplace_merge(rows.begin(), rows.begin() + first, rows.end());
  }
  std::vector<Interval> computation, communication, copy, all;
  all.reserve(rows.size());
  computation.reserve(rows.size());
  for (Row r : rows) {
    const double start = reference_us(ev.ts_ns(r));
    const Interval interval{start, start + reference_us(ev.dur_ns(r))};
    switch (ev.gpu_class(r)) {
      case GpuClass::kCommunication:
        communication.push_back(interval);
        break;
      case GpuClass::kMemcpy:
        copy.push_back(interval);
        break;
      case GpuClass::kComputation:
        computation.push_back(interval);
        break;
      default:
        continue;
    }
    all.push_back(interval);
  }
  GpuClassIntervals t;
  t.events = all.size();
  if (all.empty()) return t;
  const std::vector<Interval> busy = merge(std::move(all));
  t.span_us = busy.back().end - busy.front().start;
  t.computation = merge(std::move(computation));
  t.communication = merge(std::move(communication));
  t.copy = merge(std::move(copy));
  return t;
}

}  // namespace traceprism::support
