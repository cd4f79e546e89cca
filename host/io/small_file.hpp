// Whole reads of the inputs that are not traces (configuration, platform and report files, CSV
// sheets), bounded: pointed at /dev/zero or a FIFO, an unbounded read would never end.
#pragma once

#include <cstdint>
#include <string>

namespace traceprism::io {

inline constexpr std::uint64_t kMaxSmallFileBytes = std::uint64_t{256} << 20;  // 256 MiB
// A perf report sheet of a huge trace (one row per op) can be larger.
inline constexpr std::uint64_t kMaxSheetBytes = std::uint64_t{4} << 30;

struct SmallFile {
  enum class Status { kOk, kCannotOpen, kTooLarge };
  Status status = Status::kOk;
  std::string text;  // the whole file when kOk
};

// What the file is to this run: an input, which no output may then replace (io/run_inputs.hpp),
// or one of the run's own outputs read back (a previous report's manifest).
enum class SmallFileRole { kRunInput, kOwnOutput };

SmallFile read_small_file(const std::string& path, std::uint64_t max_bytes = kMaxSmallFileBytes,
                          SmallFileRole role = SmallFileRole::kRunInput);

// "<path>: is larger than <N> MiB; expected <expected>."
std::string too_large_sentence(const std::string& path, const std::string& expected,
                               std::uint64_t max_bytes = kMaxSmallFileBytes);

}  // namespace traceprism::io
