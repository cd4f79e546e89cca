#include "multirank/rank_discovery.hpp"

#include <glob.h>
#include <sys/stat.h>
#include <zstd.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <stdexcept>

#include "index/trace_metadata.hpp"
#include "ingest/top_level_metadata.hpp"
#include "io/byte_source.hpp"
#include "io/input_error.hpp"

namespace traceprism::multirank {

namespace fs = std::filesystem;

const char* rank_source_name(RankSource source) {
  switch (source) {
    case RankSource::kMeta:
      return "meta";
    case RankSource::kFileName:
      return "filename";
    case RankSource::kOrder:
      break;
  }
  return "order";
}

namespace {

// ---------------------------------------------------------------------------------------------
// Small text helpers

std::string in_quotes(std::string_view text) {
  return "\"" + std::string(text) + "\"";
}

// "a", "a and b", "a, b and c".
std::string join_with_and(const std::vector<std::string>& items) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += i + 1 == items.size() ? " and " : ", ";
    out += items[i];
  }
  return out;
}

// The whole of `digits` as a number in [0, limit); nullopt for anything else.
std::optional<std::int64_t> parse_count(std::string_view digits, std::int64_t limit) {
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string_view::npos)
    return std::nullopt;
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc() || end != digits.data() + digits.size() || value >= limit)
    return std::nullopt;
  return value;
}

// ---------------------------------------------------------------------------------------------
// Inputs: files, folders and globs

struct Candidate {
  std::string path;
  bool check_content = false;  // from a folder or glob: keep it only when it looks like a trace
};

struct Expansion {
  std::vector<Candidate> candidates;
  bool skipped_subfolders = false;  // a folder had subfolders and recursive was off
};

bool has_trace_extension(std::string_view name) {
  return name.ends_with(".json") || name.ends_with(".json.gz") || name.ends_with(".json.zst");
}

bool has_glob_characters(std::string_view input) {
  return input.find_first_of("*?[") != std::string_view::npos;
}

// glob(3) sorts its matches.
std::vector<std::string> expand_glob(const std::string& pattern) {
  glob_t matches{};
  const int rc = ::glob(pattern.c_str(), 0, nullptr, &matches);
  std::vector<std::string> out;
  if (rc == 0) out.assign(matches.gl_pathv, matches.gl_pathv + matches.gl_pathc);
  ::globfree(&matches);
  if (rc != 0 && rc != GLOB_NOMATCH)
    throw io::InputError(pattern + ": cannot expand the pattern (glob failed).");
  if (out.empty()) throw io::InputError(pattern + ": matches no file.");
  return out;
}

void add_folder(const std::string& dir, bool recursive, Expansion& out) {
  std::error_code ec;
  const auto add_entry = [&](const fs::directory_entry& entry) {
    std::error_code entry_ec;
    if (entry.is_directory(entry_ec)) {
      if (!recursive) out.skipped_subfolders = true;
      return;
    }
    if (entry.is_regular_file(entry_ec) && has_trace_extension(entry.path().filename().string()))
      out.candidates.push_back({entry.path().string(), true});
  };
  if (recursive) {
    // Symlinked folders are not followed: a link to a parent would never end.
    for (fs::recursive_directory_iterator
             it(dir, fs::directory_options::skip_permission_denied, ec),
         end;
         !ec && it != end; it.increment(ec))
      add_entry(*it);
  } else {
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
      add_entry(*it);
  }
  if (ec) throw io::InputError(dir + ": cannot list the folder: " + ec.message() + ".");
}

// A multi-rank run reads every trace twice (the sniff here, then the analysis), which a pipe or
// a device cannot serve.
void add_file(const std::string& path, fs::file_type type, bool from_glob, Expansion& out) {
  if (type != fs::file_type::regular)
    throw io::InputError(path +
                         ": is not a regular file; a multi-rank run reads each trace twice, so "
                         "traces must be files.");
  out.candidates.push_back({path, from_glob});
}

void add_input(const std::string& input, bool from_glob, bool recursive, Expansion& out) {
  if (input == "-")
    throw io::InputError(
        "-: standard input cannot be one rank of several; pass the trace files, a folder or a "
        "glob.");
  std::error_code ec;
  const fs::file_status status = fs::status(input, ec);
  if (fs::exists(status)) {
    if (fs::is_directory(status))
      add_folder(input, recursive, out);
    else
      add_file(input, status.type(), from_glob, out);
    return;
  }
  // A name that exists is taken literally even with glob characters ("trace-rank[5].json").
  if (!from_glob && has_glob_characters(input)) {
    for (const std::string& match : expand_glob(input)) add_input(match, true, recursive, out);
    return;
  }
  throw io::InputError(input + ": does not exist; expected a trace file, a folder or a glob.");
}

// Sorted by path; a file named twice (a folder and a glob over it, a symlink) is kept once,
// under its first spelling.
void sort_and_drop_repeats(std::vector<Candidate>& candidates, std::vector<std::string>& notes) {
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Candidate& a, const Candidate& b) { return a.path < b.path; });
  std::map<std::pair<dev_t, ino_t>, std::size_t> seen;  // file -> index in `kept`
  std::vector<Candidate> kept;
  std::set<std::string> noted;  // a path listed twice gets one note
  for (Candidate& c : candidates) {
    struct stat st {};
    if (::stat(c.path.c_str(), &st) == 0) {
      const auto [it, inserted] = seen.emplace(std::pair(st.st_dev, st.st_ino), kept.size());
      if (!inserted) {
        Candidate& first = kept[it->second];
        if (first.path != c.path && noted.insert(c.path).second)
          notes.push_back(c.path + " is the same file as " + first.path + "; it is read once.");
        // Named on the command line, it is a trace whatever a folder listing would have said.
        first.check_content = first.check_content && c.check_content;
        continue;
      }
    }
    kept.push_back(std::move(c));
  }
  candidates = std::move(kept);
}

// ---------------------------------------------------------------------------------------------
// The sniff: the decoded prefix up to "traceEvents"

constexpr std::string_view kTraceEventsKey = "\"traceEvents\"";
constexpr std::string_view kSchemaVersionKey = "\"schemaVersion\"";

enum class ScanEnd : std::uint8_t {
  kFound,        // distributedInfo's value is in `value`
  kTraceEvents,  // reached the top-level "traceEvents" key first
  kIncomplete,   // the prefix ends inside the top-level object
  kAbsent,       // not an object, malformed, or the object ended without the key
};

struct TopLevelScan {
  ScanEnd end = ScanEnd::kAbsent;
  std::string_view value;
};

// Walks the top-level object's members without building them: nested values are skipped by
// bracket depth (Boost.JSON validates the one value kept). Never reads past the prefix.
class TopLevelScanner {
 public:
  explicit TopLevelScanner(std::string_view text) : text_(text) {}

  TopLevelScan find_member(std::string_view wanted_key) {
    if (text_.starts_with("\xEF\xBB\xBF")) pos_ = 3;  // a UTF-8 byte order mark
    skip_space();
    if (at_end()) return {ScanEnd::kIncomplete, {}};
    if (text_[pos_] != '{') return {};
    ++pos_;
    for (;;) {
      skip_space();
      if (at_end()) return {ScanEnd::kIncomplete, {}};
      if (text_[pos_] != '"') return {};
      const std::size_t key_start = pos_;
      if (!skip_string()) return {ScanEnd::kIncomplete, {}};
      const std::string_view key = text_.substr(key_start + 1, pos_ - key_start - 2);
      skip_space();
      if (at_end()) return {ScanEnd::kIncomplete, {}};
      if (text_[pos_] != ':') return {};
      ++pos_;
      skip_space();
      if (key == "traceEvents") return {ScanEnd::kTraceEvents, {}};
      const std::size_t value_start = pos_;
      if (!skip_value()) return {ScanEnd::kIncomplete, {}};
      if (key == wanted_key)
        return {ScanEnd::kFound, text_.substr(value_start, pos_ - value_start)};
      skip_space();
      if (at_end()) return {ScanEnd::kIncomplete, {}};
      if (text_[pos_] != ',') return {};
      ++pos_;
    }
  }

 private:
  bool at_end() const { return pos_ >= text_.size(); }

  void skip_space() {
    while (!at_end() && (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\r' ||
                         text_[pos_] == '\t'))
      ++pos_;
  }

  // At an opening quote; moves past the closing one. False when the prefix ends first.
  bool skip_string() {
    for (++pos_; !at_end(); ++pos_) {
      if (text_[pos_] == '\\') {
        ++pos_;
      } else if (text_[pos_] == '"') {
        ++pos_;
        return true;
      }
    }
    return false;
  }

  bool skip_value() {
    if (at_end()) return false;
    if (text_[pos_] == '"') return skip_string();
    if (text_[pos_] == '{' || text_[pos_] == '[') return skip_nested();
    // A scalar runs to the next delimiter; one cut by the prefix's end is incomplete.
    pos_ = text_.find_first_of(",}] \t\r\n", pos_);
    if (pos_ == std::string_view::npos) pos_ = text_.size();
    return !at_end();
  }

  bool skip_nested() {
    std::size_t depth = 0;
    while (!at_end()) {
      const char c = text_[pos_];
      if (c == '"') {
        if (!skip_string()) return false;
        continue;
      }
      ++pos_;
      if (c == '{' || c == '[') {
        ++depth;
      } else if ((c == '}' || c == ']') && --depth == 0) {
        return true;
      }
    }
    return false;
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

struct Prefix {
  std::string bytes;
  io::Compression compression = io::Compression::kNone;
  bool opened = false;
  std::string error;  // the decoder's sentence when reading failed part way
};

// Reads until the scan is conclusive: the top-level "traceEvents" key (or distributedInfo)
// is reached, the document is not an object, the file ends, or kMaxSniffBytes are read. The scan
// runs on the first chunk and whenever a new "traceEvents" text arrives, so a long prefix is
// not rescanned per chunk.
Prefix read_prefix(const std::string& path) {
  constexpr std::size_t kChunk = std::size_t{16} << 10;  // small: a failed read loses one chunk
  Prefix prefix;
  try {
    const std::unique_ptr<io::ByteSource> source = io::open_byte_source(path);
    prefix.opened = true;
    prefix.compression = source->compression();
    std::string chunk(kChunk, '\0');
    while (prefix.bytes.size() < kMaxSniffBytes) {
      const std::size_t got = source->read(chunk.data(), chunk.size());
      if (got == 0) break;
      const std::size_t search_from = prefix.bytes.size() >= kTraceEventsKey.size()
                                          ? prefix.bytes.size() - kTraceEventsKey.size() + 1
                                          : 0;
      prefix.bytes.append(chunk.data(), got);
      const bool first_chunk = search_from == 0;
      if (!first_chunk && prefix.bytes.find(kTraceEventsKey, search_from) == std::string::npos)
        continue;
      if (TopLevelScanner(prefix.bytes).find_member("distributedInfo").end != ScanEnd::kIncomplete)
        break;
    }
  } catch (const io::InputError& e) {
    prefix.error = e.what();
  }
  return prefix;
}

bool looks_like_trace(const Prefix& prefix) {
  const std::string_view window = std::string_view(prefix.bytes).substr(0, kTraceMarkerWindow);
  return window.find(kTraceEventsKey) != std::string_view::npos ||
         window.find(kSchemaVersionKey) != std::string_view::npos;
}

struct SniffedMeta {
  std::int64_t rank = -1;
  std::int64_t world_size = -1;
};

SniffedMeta meta_from(const std::string& path, const Prefix& prefix,
                      std::vector<std::string>& notes) {
  SniffedMeta meta;
  const TopLevelScan scan = TopLevelScanner(prefix.bytes).find_member("distributedInfo");
  if (scan.end != ScanEnd::kFound) return meta;
  index::TraceMetadata metadata;
  ingest::apply_top_level_metadata(metadata, std::string(), std::string(scan.value));
  if (!metadata.distributed) return meta;
  const index::DistributedInfo& info = *metadata.distributed;
  if (info.rank >= kMaxWorldSize || info.rank < -1)
    notes.push_back(path + ": distributedInfo.rank " + std::to_string(info.rank) +
                    " is not a usable rank; it is ignored.");
  else
    meta.rank = info.rank;
  if (info.world_size > kMaxWorldSize || info.world_size == 0 || info.world_size < -1)
    notes.push_back(path + ": distributedInfo.world_size " + std::to_string(info.world_size) +
                    " is not a usable world size; it is ignored.");
  else
    meta.world_size = info.world_size;
  return meta;
}

// ---------------------------------------------------------------------------------------------
// §3.1 step 1: the JSON size without decoding the whole file

std::uint64_t saturating_times(std::uint64_t value, std::uint64_t factor) {
  return value > UINT64_MAX / factor ? UINT64_MAX : value * factor;
}

std::string read_bytes_at(const std::string& path, std::uint64_t offset, std::size_t count) {
  std::ifstream in(path, std::ios::binary);
  std::string out(count, '\0');
  if (!in.seekg(static_cast<std::streamoff>(offset))) return {};
  in.read(out.data(), static_cast<std::streamsize>(count));
  out.resize(static_cast<std::size_t>(std::max<std::streamsize>(in.gcount(), 0)));
  return out;
}

// gzip's ISIZE (the last member's size mod 2^32) understates a file over 4 GiB or of several
// members, hence the floor of 15 times the compressed size.
std::uint64_t gzip_estimate(const std::string& path, std::uint64_t file_bytes) {
  const std::uint64_t floor = saturating_times(file_bytes, 15);
  if (file_bytes < 4) return floor;
  const std::string tail = read_bytes_at(path, file_bytes - 4, 4);
  if (tail.size() != 4) return floor;
  std::uint64_t isize = 0;
  for (int i = 3; i >= 0; --i) isize = (isize << 8) | static_cast<unsigned char>(tail[i]);
  return std::max(isize, floor);
}

// The first frame's content size when its header records it (a file that opens with a
// skippable frame has no such header first).
std::uint64_t zstd_estimate(const std::string& path, std::uint64_t file_bytes) {
  const std::uint64_t fallback = saturating_times(file_bytes, 12);
  constexpr std::size_t kMaxFrameHeader = 18;  // ZSTD_FRAMEHEADERSIZE_MAX (a static-only API)
  const std::string head = read_bytes_at(path, 0, kMaxFrameHeader);
  if (!head.starts_with("\x28\xB5\x2F\xFD")) return fallback;
  const unsigned long long size = ZSTD_getFrameContentSize(head.data(), head.size());
  if (size == ZSTD_CONTENTSIZE_UNKNOWN || size == ZSTD_CONTENTSIZE_ERROR) return fallback;
  return size;
}

std::uint64_t estimate_json_bytes(const std::string& path, const Prefix& prefix,
                                  std::uint64_t file_bytes) {
  if (!prefix.opened) return file_bytes;
  switch (prefix.compression) {
    case io::Compression::kGzip:
      return gzip_estimate(path, file_bytes);
    case io::Compression::kZstd:
      return zstd_estimate(path, file_bytes);
    case io::Compression::kNone:
      break;
  }
  return file_bytes;
}

// ---------------------------------------------------------------------------------------------
// Ranks from file names

// libstdc++'s matcher recurses once per character; a base name is at most NAME_MAX (255) bytes
// and a path is matched only up to PATH_MAX, so the depth stays small.
constexpr std::size_t kMaxRegexSubject = 4096;

std::optional<std::int32_t> rank_in(const std::string& subject, const std::regex& pattern) {
  if (subject.size() > kMaxRegexSubject) return std::nullopt;
  std::smatch match;
  try {
    if (!std::regex_search(subject, match, pattern) || match.size() < 2 || !match[1].matched)
      return std::nullopt;
  } catch (const std::regex_error&) {  // a user pattern too complex for the matcher
    return std::nullopt;
  }
  const std::optional<std::int64_t> rank = parse_count(match[1].str(), kMaxWorldSize);
  if (!rank) return std::nullopt;
  return static_cast<std::int32_t>(*rank);
}

std::string base_name(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

std::optional<std::int32_t> rank_from_file_name(const std::string& path,
                                                const std::regex& pattern) {
  if (const auto rank = rank_in(base_name(path), pattern)) return rank;
  return rank_in(path, pattern);
}

// ---------------------------------------------------------------------------------------------
// Assigning ranks

struct SniffedFile {
  RankFile file;
  std::int64_t meta_rank = -1;
};

std::string no_rank_sentence(const std::string& path, RankFrom from, const std::string& regex) {
  const std::string name_part = "the file name does not match --rank-regex " + regex;
  const std::string meta_part = "it has no distributedInfo.rank before \"traceEvents\"";
  if (from == RankFrom::kMeta)
    return path + ": cannot tell its rank: " + meta_part +
           "; pass --rank-from filename with a --rank-regex whose first group captures the "
           "rank, or --rank-from order.";
  const std::string reason =
      from == RankFrom::kFileName ? name_part : meta_part + " and " + name_part;
  return path + ": cannot tell its rank: " + reason +
         "; pass a --rank-regex whose first group captures the rank, or --rank-from order.";
}

void set_rank(SniffedFile& sniffed, std::size_t order_index, const DiscoveryOptions& options,
              const std::regex& pattern, std::vector<std::string>& notes) {
  RankFile& f = sniffed.file;
  if (options.from == RankFrom::kOrder) {
    f.rank = static_cast<std::int32_t>(order_index);
    f.source = RankSource::kOrder;
    return;
  }
  const bool meta_allowed = options.from != RankFrom::kFileName;
  if (meta_allowed && sniffed.meta_rank >= 0) {
    f.rank = static_cast<std::int32_t>(sniffed.meta_rank);
    f.source = RankSource::kMeta;
    // Only the base name: a folder such as /home/frank2/ matches the default pattern by chance.
    const auto named =
        options.from == RankFrom::kAuto ? rank_in(base_name(f.path), pattern) : std::nullopt;
    if (named && *named != f.rank)
      notes.push_back(f.path + ": distributedInfo.rank " + std::to_string(f.rank) +
                      " differs from the rank in the file name (" + std::to_string(*named) +
                      "); the trace's own rank is used.");
    return;
  }
  const auto named =
      options.from == RankFrom::kMeta ? std::nullopt : rank_from_file_name(f.path, pattern);
  if (!named) throw io::InputError(no_rank_sentence(f.path, options.from, options.rank_regex));
  f.rank = *named;
  f.source = RankSource::kFileName;
}

SniffedFile sniff(const std::string& path, std::vector<std::string>& notes, bool& is_trace,
                  bool check_content) {
  SniffedFile sniffed;
  RankFile& f = sniffed.file;
  f.path = path;
  std::error_code ec;
  f.file_bytes = fs::file_size(path, ec);
  if (ec) f.file_bytes = 0;
  f.host = host_from_trace_file_name(path);
  const Prefix prefix = read_prefix(path);
  // An unreadable prefix is not proof that the file is not a trace: the analysis reports it.
  is_trace = !check_content || !prefix.error.empty() || looks_like_trace(prefix);
  if (!is_trace) {
    notes.push_back(path +
                    ": skipped: its first 64 KiB hold neither \"traceEvents\" nor "
                    "\"schemaVersion\", so it is not a trace.");
    return sniffed;
  }
  if (!prefix.error.empty()) notes.push_back(prefix.error);
  const SniffedMeta meta = meta_from(path, prefix, notes);
  sniffed.meta_rank = meta.rank;
  f.world_size = meta.world_size;
  f.estimated_json_bytes = estimate_json_bytes(path, prefix, f.file_bytes);
  return sniffed;
}

std::regex compile_rank_regex(const std::string& regex) {
  try {
    std::regex pattern(regex, std::regex::ECMAScript);
    if (pattern.mark_count() < 1)
      throw std::invalid_argument("--rank-regex " + in_quotes(regex) +
                                  " has no capture group; its first group must capture the "
                                  "rank, as in rank_(\\d+).");
    return pattern;
  } catch (const std::regex_error& e) {
    throw std::invalid_argument("--rank-regex " + in_quotes(regex) +
                                " is not a valid ECMAScript regular expression (" + e.what() +
                                ").");
  }
}

std::string no_trace_sentence(const std::vector<std::string>& inputs, bool skipped_subfolders) {
  std::string sentence = "no trace found in " + join_with_and(inputs) +
                         ": a folder counts only .json, .json.gz and .json.zst files that hold "
                         "\"traceEvents\" or \"schemaVersion\" in their first 64 KiB";
  if (skipped_subfolders) sentence += " (pass --recursive to search its subfolders)";
  return sentence + ".";
}

// ---------------------------------------------------------------------------------------------
// Selection, duplicates, world and missing ranks

bool in_ranges(std::int64_t rank, const std::vector<std::pair<int, int>>& ranges) {
  if (ranges.empty()) return true;
  return std::any_of(ranges.begin(), ranges.end(),
                     [&](const auto& r) { return rank >= r.first && rank <= r.second; });
}

std::string ranges_text(const std::vector<std::pair<int, int>>& ranges) {
  std::string out;
  for (const auto& [first, last] : ranges) {
    if (!out.empty()) out += ",";
    out += std::to_string(first);
    if (last != first) out += "-" + std::to_string(last);
  }
  return out;
}

void keep_selected_ranks(std::vector<RankFile>& files, const DiscoveryOptions& options,
                         std::vector<std::string>& notes) {
  if (options.rank_ranges.empty()) return;
  const std::size_t before = files.size();
  std::erase_if(files, [&](const RankFile& f) { return !in_ranges(f.rank, options.rank_ranges); });
  const std::string ranks = "--ranks " + ranges_text(options.rank_ranges);
  if (files.empty())
    throw io::InputError(ranks + " selects none of the " + std::to_string(before) +
                         " traces found.");
  if (files.size() < before)
    notes.push_back(ranks + " keeps " + std::to_string(files.size()) + " of " +
                    std::to_string(before) + " traces.");
}

std::string files_phrase(const std::vector<std::string>& paths) {
  return (paths.size() == 2 ? std::string("two") : std::to_string(paths.size())) +
         " files: " + join_with_and(paths);
}

// `files` sorted by (rank, path): the first of each rank is the first path in sort order.
void resolve_duplicates(std::vector<RankFile>& files, bool keep_first,
                        std::vector<std::string>& notes) {
  std::vector<RankFile> kept;
  for (std::size_t i = 0; i < files.size();) {
    std::size_t j = i + 1;
    while (j < files.size() && files[j].rank == files[i].rank) ++j;
    if (j - i > 1) {
      std::vector<std::string> paths;
      for (std::size_t k = i; k < j; ++k) paths.push_back(files[k].path);
      const std::string given =
          "rank " + std::to_string(files[i].rank) + " is given by " + files_phrase(paths);
      if (!keep_first)
        throw io::InputError(given + "; keep one, or pass --on-duplicate-rank first.");
      notes.push_back(given + "; " + files[i].path + " is kept (--on-duplicate-rank first).");
    }
    kept.push_back(std::move(files[i]));
    i = j;
  }
  files = std::move(kept);
}

// distributedInfo.world_size (the largest when traces disagree), else max rank + 1; never less
// than max rank + 1.
std::int64_t world_size_of(const std::vector<RankFile>& files, std::vector<std::string>& notes) {
  std::map<std::int64_t, const RankFile*> first_with_size;  // ascending size
  for (const RankFile& f : files)
    if (f.world_size > 0) first_with_size.emplace(f.world_size, &f);
  const RankFile& highest = *std::max_element(
      files.begin(), files.end(), [](const auto& a, const auto& b) { return a.rank < b.rank; });
  const std::int64_t by_rank = std::int64_t{highest.rank} + 1;
  if (first_with_size.empty()) return by_rank;
  std::int64_t world = first_with_size.rbegin()->first;
  if (first_with_size.size() > 1) {
    std::vector<std::string> sayings;
    for (const auto& [size, file] : first_with_size)
      sayings.push_back(std::to_string(size) + " in " + file->path);
    notes.push_back("distributedInfo.world_size differs between traces: " + join_with_and(sayings) +
                    "; the world is taken as " + std::to_string(world) + " ranks.");
  }
  if (by_rank > world) {
    notes.push_back("rank " + std::to_string(highest.rank) + " (" + highest.path +
                    ") is beyond distributedInfo.world_size " + std::to_string(world) +
                    "; the world is taken as " + std::to_string(by_rank) + " ranks.");
    world = by_rank;
  }
  return world;
}

void find_missing_ranks(Discovery& d, const DiscoveryOptions& options) {
  std::set<std::int32_t> found;
  for (const RankFile& f : d.files) found.insert(f.rank);
  std::int64_t expected = 0;
  for (std::int64_t r = 0; r < d.world_size; ++r) {
    if (!in_ranges(r, options.rank_ranges)) continue;
    ++expected;
    if (!found.contains(static_cast<std::int32_t>(r)))
      d.missing_ranks.push_back(static_cast<std::int32_t>(r));
  }
  if (options.require_all_ranks && !d.missing_ranks.empty())
    throw io::InputError(std::to_string(d.missing_ranks.size()) + " of " +
                         std::to_string(expected) +
                         " ranks have no trace (missing: " + format_rank_set(d.missing_ranks) +
                         "); --require-all-ranks needs a trace for every rank.");
}

std::vector<SniffedFile> sniff_traces(const Expansion& expansion, std::vector<std::string>& notes) {
  std::vector<SniffedFile> traces;
  for (const Candidate& c : expansion.candidates) {
    bool is_trace = false;
    SniffedFile sniffed = sniff(c.path, notes, is_trace, c.check_content);
    if (is_trace) traces.push_back(std::move(sniffed));
  }
  return traces;
}

}  // namespace

Discovery discover_ranks(const std::vector<std::string>& inputs, const DiscoveryOptions& options) {
  const std::regex pattern = compile_rank_regex(options.rank_regex);
  Discovery d;
  Expansion expansion;
  for (const std::string& input : inputs) add_input(input, false, options.recursive, expansion);
  sort_and_drop_repeats(expansion.candidates, d.notes);
  std::vector<SniffedFile> traces = sniff_traces(expansion, d.notes);
  if (traces.empty()) throw io::InputError(no_trace_sentence(inputs, expansion.skipped_subfolders));
  for (std::size_t i = 0; i < traces.size(); ++i) {
    set_rank(traces[i], i, options, pattern, d.notes);
    d.files.push_back(std::move(traces[i].file));
  }
  d.world_size = world_size_of(d.files, d.notes);
  keep_selected_ranks(d.files, options, d.notes);
  std::stable_sort(d.files.begin(), d.files.end(),
                   [](const RankFile& a, const RankFile& b) { return a.rank < b.rank; });
  resolve_duplicates(d.files, options.keep_first_duplicate, d.notes);
  find_missing_ranks(d, options);
  return d;
}

void check_rank_regex(const std::string& regex) {
  compile_rank_regex(regex);
}

std::vector<std::pair<int, int>> parse_rank_ranges(std::string_view text) {
  const auto bad = [&](std::string_view item) {
    return std::invalid_argument("--ranks " + in_quotes(text) + ": " + in_quotes(item) +
                                 " is not a rank or a range; expected ranks and ranges such as "
                                 "0-7,64.");
  };
  constexpr std::int64_t kRankLimit = std::int64_t{INT32_MAX} + 1;
  std::vector<std::pair<int, int>> ranges;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    std::string_view item = text.substr(start, comma - start);
    const std::size_t first = item.find_first_not_of(' ');
    item = first == std::string_view::npos ? std::string_view() : item.substr(first);
    item = item.substr(0, item.find_last_not_of(' ') + 1);
    const std::size_t dash = item.find('-');
    const auto low = parse_count(item.substr(0, dash), kRankLimit);
    const auto high =
        dash == std::string_view::npos ? low : parse_count(item.substr(dash + 1), kRankLimit);
    if (!low || !high) throw bad(item);
    if (*high < *low)
      throw std::invalid_argument("--ranks " + in_quotes(text) + ": the range " + in_quotes(item) +
                                  " ends before it starts; write it as " + std::to_string(*high) +
                                  "-" + std::to_string(*low) + ".");
    ranges.emplace_back(static_cast<int>(*low), static_cast<int>(*high));
    if (comma == text.size()) return ranges;
    start = comma + 1;
  }
}

std::string host_from_trace_file_name(std::string_view path) {
  std::string name = base_name(path);
  for (std::string_view suffix : {".pt.trace.json", ".pt.trace.json.gz", ".pt.trace.json.zst"}) {
    if (!name.ends_with(suffix)) continue;
    // "<host>_<pid>.<ms>": the host itself may hold dots and underscores (node3.cluster_a).
    const std::string_view stem = std::string_view(name).substr(0, name.size() - suffix.size());
    const std::size_t dot = stem.rfind('.');
    if (dot == std::string_view::npos || !parse_count(stem.substr(dot + 1), INT64_MAX)) return {};
    const std::string_view worker = stem.substr(0, dot);
    const std::size_t underscore = worker.rfind('_');
    if (underscore == std::string_view::npos || underscore == 0 ||
        !parse_count(worker.substr(underscore + 1), INT64_MAX))
      return {};
    return std::string(worker.substr(0, underscore));
  }
  return {};
}

std::string format_rank_set(const std::vector<std::int32_t>& ascending_ranks) {
  std::string out;
  for (std::size_t i = 0; i < ascending_ranks.size();) {
    std::size_t j = i;
    while (j + 1 < ascending_ranks.size() &&
           std::int64_t{ascending_ranks[j + 1]} == std::int64_t{ascending_ranks[j]} + 1)
      ++j;
    if (!out.empty()) out += ", ";
    out += std::to_string(ascending_ranks[i]);
    if (j > i) out += "-" + std::to_string(ascending_ranks[j]);
    i = j + 1;
  }
  return out;
}

}  // namespace traceprism::multirank
