// Which trace is which rank (multi-rank.md §2 "Inputs", "Rank of a file", "World"): expands the
// inputs (files, folders, globs), sniffs each trace's prefix for distributedInfo, falls back to
// the file name, checks duplicate and missing ranks, and estimates each trace's JSON size
// (§3.1 step 1) without parsing it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace traceprism::multirank {

// Where a file's rank came from.
enum class RankSource : std::uint8_t {
  kMeta,      // distributedInfo.rank, sniffed from the prefix before "traceEvents"
  kFileName,  // the first capture of --rank-regex on the base name, else on the whole path
  kOrder,     // the file's index in sorted path order (--rank-from order)
};

const char* rank_source_name(RankSource source);  // "meta", "filename", "order"

// --rank-from: kAuto tries distributedInfo, then the file name.
enum class RankFrom : std::uint8_t { kAuto, kMeta, kFileName, kOrder };

// TraceLens' default pattern (`rank[\[\-_/]?(?P<rank>\d+)`) in ECMAScript syntax.
inline constexpr std::string_view kDefaultRankRegex = R"(rank[\[\-_/]?(\d+))";

// The sniff reads the decoded prefix up to "traceEvents", at most this many bytes.
inline constexpr std::uint64_t kMaxSniffBytes = std::uint64_t{4} << 20;
// A folder's or glob's file is a trace when this much of its start holds "traceEvents" or
// "schemaVersion".
inline constexpr std::uint64_t kTraceMarkerWindow = std::uint64_t{64} << 10;
// Ranks and world sizes at or above this are taken for corrupt metadata (and would make the
// missing-rank list absurdly long).
inline constexpr std::int64_t kMaxWorldSize = std::int64_t{1} << 22;

struct RankFile {
  std::string path;
  std::int32_t rank = -1;
  std::int64_t world_size = -1;  // this file's distributedInfo.world_size; -1 when unknown
  std::uint64_t file_bytes = 0;
  std::uint64_t estimated_json_bytes = 0;  // §3.1 step 1's U
  std::string host;  // from a tensorboard_trace_handler file name; empty when not one
  RankSource source = RankSource::kMeta;
};

struct DiscoveryOptions {
  RankFrom from = RankFrom::kAuto;
  // Searched in the base name, then in the whole path; the first capture group is the rank.
  std::string rank_regex = std::string(kDefaultRankRegex);
  bool recursive = false;             // descend into subfolders
  bool keep_first_duplicate = false;  // --on-duplicate-rank first
  bool require_all_ranks = false;
  std::vector<std::pair<int, int>> rank_ranges;  // --ranks, inclusive; empty = every rank
};

struct Discovery {
  std::vector<RankFile> files;  // ascending rank, one per rank
  std::int64_t world_size = 0;
  std::vector<std::int32_t> missing_ranks;  // ascending; within --ranks when given
  // One sentence each: skipped files, unreadable prefixes, world-size disagreements, dropped
  // duplicates, files outside --ranks.
  std::vector<std::string> notes;
};

// Finds the traces named by `inputs` and their ranks. Throws io::InputError (one sentence naming
// the file or input; exit 2) for a missing input, no trace at all, a file whose rank cannot be
// told, two files with one rank (unless keep_first_duplicate), nothing left by --ranks, and
// missing ranks under require_all_ranks. Throws std::invalid_argument for a bad rank_regex.
Discovery discover_ranks(const std::vector<std::string>& inputs, const DiscoveryOptions& options);

// "0-7,64" -> {{0, 7}, {64, 64}}; spaces around items are allowed. Throws std::invalid_argument
// with one sentence (a usage error) for anything else: empty items, signs, reversed ranges,
// numbers beyond int32.
std::vector<std::pair<int, int>> parse_rank_ranges(std::string_view text);

// Throws std::invalid_argument with one sentence when `regex` is not a valid ECMAScript regular
// expression with at least one capture group.
void check_rank_regex(const std::string& regex);

// The host of a torch.profiler.tensorboard_trace_handler file name,
// `<host>_<pid>.<ms>.pt.trace.json[.gz]` ("node003_12345.1711964646000.pt.trace.json.gz" ->
// "node003"); empty for other names. `path` may include folders.
std::string host_from_trace_file_name(std::string_view path);

// "0-3, 5, 7-9": ascending ranks written compactly, for notes and errors.
std::string format_rank_set(const std::vector<std::int32_t>& ascending_ranks);

}  // namespace traceprism::multirank
