#include "multirank/rank_summary_file.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <span>
#include <stdexcept>
#include <unordered_map>
#include <utility>

#include <boost/json.hpp>

#include "io/input_error.hpp"
#include "io/json_text.hpp"
#include "io/output_file.hpp"
#include "io/small_file.hpp"
#include "io/utf8_text.hpp"

namespace traceprism::multirank {

namespace json = boost::json;
using model::CollectiveInstance;
using model::MatchTier;

// ---------------------------------------------------------------------------------------------
// Errors: one sentence naming the summary and, for damage, the byte where it shows.

namespace {

[[noreturn]] void throw_corrupt(const std::string& name, std::uint64_t offset,
                                const std::string& why) {
  throw io::InputError("rank summary " + name + " is corrupt at byte " + std::to_string(offset) +
                       ": " + why + ".");
}

[[noreturn]] void throw_truncated(const std::string& name, std::uint64_t offset,
                                  const std::string& why) {
  throw io::InputError("rank summary " + name + " is truncated at byte " + std::to_string(offset) +
                       ": " + why + ".");
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// CRC-32C

namespace {

constexpr std::array<std::uint32_t, 256> make_crc32c_table() {
  std::array<std::uint32_t, 256> table{};
  for (std::uint32_t i = 0; i < 256; ++i) {
    std::uint32_t c = i;
    for (int bit = 0; bit < 8; ++bit) c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
    table[i] = c;
  }
  return table;
}

constexpr std::array<std::uint32_t, 256> kCrc32cTable = make_crc32c_table();

}  // namespace

std::uint32_t crc32c(std::string_view bytes, std::uint32_t crc) {
  crc = ~crc;
  for (char ch : bytes)
    crc = kCrc32cTable[(crc ^ static_cast<unsigned char>(ch)) & 0xFFu] ^ (crc >> 8);
  return ~crc;
}

// ---------------------------------------------------------------------------------------------
// Little-endian fields, one at a time: the layout never depends on the host's struct padding
// or byte order.

namespace {

constexpr std::size_t kCrcOffset = 20;
constexpr std::size_t kTableHeaderBytes = 8;

class ByteWriter {
 public:
  void u8(std::uint8_t v) { out_.push_back(static_cast<char>(v)); }
  void u16(std::uint16_t v) { put(v, 2); }
  void u32(std::uint32_t v) { put(v, 4); }
  void u64(std::uint64_t v) { put(v, 8); }
  void i32(std::int32_t v) { u32(static_cast<std::uint32_t>(v)); }
  void i64(std::int64_t v) { u64(static_cast<std::uint64_t>(v)); }
  void f64(double v) { u64(std::bit_cast<std::uint64_t>(v)); }
  void bytes(std::string_view b) { out_.append(b); }
  std::size_t size() const { return out_.size(); }
  std::string take() { return std::move(out_); }

 private:
  void put(std::uint64_t v, int n) {
    for (int i = 0; i < n; ++i) out_.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
  }
  std::string out_;
};

// Reads fields from `bytes`, which start at `file_offset` in the file; running past the end is
// an error naming `region` (static text: a reader is made per row, so it must be cheap).
class ByteReader {
 public:
  ByteReader(std::string_view bytes, std::uint64_t file_offset, const std::string& name,
             std::string_view region)
      : bytes_(bytes), file_offset_(file_offset), name_(name), region_(region) {}

  std::uint8_t u8() { return static_cast<std::uint8_t>(take(1)[0]); }
  std::uint16_t u16() { return static_cast<std::uint16_t>(little_endian(2)); }
  std::uint32_t u32() { return static_cast<std::uint32_t>(little_endian(4)); }
  std::uint64_t u64() { return little_endian(8); }
  std::int32_t i32() { return static_cast<std::int32_t>(u32()); }
  std::int64_t i64() { return static_cast<std::int64_t>(u64()); }
  double f64() { return std::bit_cast<double>(u64()); }

  std::string_view take(std::size_t n) {
    if (n > remaining())
      throw_corrupt(name_, offset(),
                    std::string(region_) + " ends " + std::to_string(remaining()) +
                        " bytes into a " + std::to_string(n) + "-byte field");
    std::string_view out = bytes_.substr(pos_, n);
    pos_ += n;
    return out;
  }
  std::uint64_t offset() const { return file_offset_ + pos_; }
  std::size_t remaining() const { return bytes_.size() - pos_; }
  const std::string& name() const { return name_; }

 private:
  std::uint64_t little_endian(int n) {
    std::string_view b = take(static_cast<std::size_t>(n));
    std::uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= std::uint64_t{static_cast<unsigned char>(b[i])} << (8 * i);
    return v;
  }

  std::string_view bytes_;
  std::uint64_t file_offset_;
  std::size_t pos_ = 0;
  const std::string& name_;
  std::string_view region_;
};

std::uint64_t read_le(std::string_view bytes, std::size_t at, int n) {
  std::uint64_t v = 0;
  for (int i = 0; i < n; ++i)
    v |= std::uint64_t{static_cast<unsigned char>(bytes[at + i])} << (8 * i);
  return v;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Section tags and row sizes of format 1.0

namespace {

constexpr std::uint32_t fourcc(const char (&tag)[5]) {
  return std::uint32_t{static_cast<unsigned char>(tag[0])} |
         std::uint32_t{static_cast<unsigned char>(tag[1])} << 8 |
         std::uint32_t{static_cast<unsigned char>(tag[2])} << 16 |
         std::uint32_t{static_cast<unsigned char>(tag[3])} << 24;
}

constexpr std::uint32_t kMetaTag = fourcc("META");
constexpr std::uint32_t kStringsTag = fourcc("STRS");
constexpr std::uint32_t kStepTag = fourcc("STEP");
constexpr std::uint32_t kProfileTag = fourcc("PROF");
constexpr std::uint32_t kBinsTag = fourcc("BINS");
constexpr std::uint32_t kKernelTag = fourcc("KERN");
constexpr std::uint32_t kFindingTag = fourcc("FIND");
constexpr std::uint32_t kGroupTag = fourcc("PGRP");
constexpr std::uint32_t kCollectiveTag = fourcc("COLL");
constexpr std::uint32_t kIndexTag = fourcc("CIDX");

constexpr std::uint32_t kKnownTags[] = {kMetaTag,       kStringsTag, kStepTag,    kProfileTag,
                                        kBinsTag,       kKernelTag,  kFindingTag, kGroupTag,
                                        kCollectiveTag, kIndexTag};

constexpr std::size_t kTotalsBytes = 96;
constexpr std::size_t kStepRowBytes = 8 + kTotalsBytes;
constexpr std::size_t kProfileRowBytes = kTotalsBytes + 5 * 8 + 8;
constexpr std::size_t kBinsRowBytes = 8 + 2 * kBinsPerStep * 4;
constexpr std::size_t kKernelRowBytes = 4 + 8 + 8;
constexpr std::size_t kFindingRowBytes = 5 * 4 + 3 * 8 + 3 * 4;
constexpr std::size_t kGroupRowBytes = 3 * 4 + 4 + 3 * 8 + 2 * 4;
constexpr std::size_t kIndexRowBytes = 3 * 4;

// COLL flag bits.
constexpr std::uint8_t kFlagP2p = 1u << 0;
constexpr std::uint8_t kFlagAsync = 1u << 1;
constexpr int kMetadataShift = 2;  // bits 2-3
constexpr std::uint8_t kFlagNvls = 1u << 4;
constexpr std::uint8_t kFlagOrderIsSeq = 1u << 5;
// PGRP flag bits.
constexpr std::uint8_t kFlagMembersTruncated = 1u << 0;

std::string hex32(std::uint32_t v) {
  static constexpr char kDigits[] = "0123456789ABCDEF";
  std::string text = "0x";
  for (int shift = 28; shift >= 0; shift -= 4) text += kDigits[(v >> shift) & 0xF];
  return text;
}

// The tag as text ("COLL"), or in hex when it is not printable ASCII.
std::string tag_text(std::uint32_t tag) {
  std::string text;
  for (int i = 0; i < 4; ++i) {
    const char c = static_cast<char>((tag >> (8 * i)) & 0xFF);
    if (c < 0x20 || c > 0x7E) return hex32(tag);
    text += c;
  }
  return text;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Layout: the summary as the file holds it (caps applied, rows sorted, groups and strings
// numbered). The writer and the dump share it so that the dump shows exactly what is written.

namespace {

class StringTable {
 public:
  StringTable() { add(""); }
  void add(const std::string& text) {
    if (ids_.emplace(text, static_cast<std::uint32_t>(strings_.size())).second)
      strings_.push_back(text);
  }
  std::uint32_t id(const std::string& text) const { return ids_.at(text); }
  const std::vector<std::string>& strings() const { return strings_; }

 private:
  std::unordered_map<std::string, std::uint32_t> ids_;
  std::vector<std::string> strings_;
};

std::array<std::string, 8> finding_strings(const FindingDigest& f) {
  return {
      f.analyzer, f.key,        f.tier,    f.category,
      f.title,    f.bound_type, f.library, truncate_utf8(f.first_evidence, kMaxEvidenceNameBytes)};
}

// Length-prefixed parts, so that no two identities share a key.
std::string group_key(const std::string& name, const std::string& description,
                      const std::string& ranks_text, std::int64_t size, std::int64_t start,
                      std::int64_t stride) {
  std::string key;
  for (const std::string* part : {&name, &description, &ranks_text})
    key += std::to_string(part->size()) + ":" + *part;
  key += std::to_string(size) + "," + std::to_string(start) + "," + std::to_string(stride);
  return key;
}

std::string group_key(const ProcessGroup& g) {
  return group_key(g.name, g.description, g.ranks_text, g.size, g.rank_start, g.rank_stride);
}

std::string group_key(const CollectiveInstance& c) {
  return group_key(c.pg_name, c.pg_description, c.pg_ranks, c.group_size, c.global_rank_start,
                   c.global_rank_stride);
}

template <typename T>
std::span<const T> capped(const std::vector<T>& items, std::size_t cap) {
  return std::span<const T>(items.data(), std::min(items.size(), cap));
}

struct SummaryLayout {
  std::span<const StepSummary> steps;
  std::span<const StepBins> bins;
  std::span<const KernelTotal> kernels;
  std::vector<ProcessGroup> groups;
  std::vector<const CollectiveRow*> rows;  // collective_row_less order
  std::vector<std::uint32_t> pg_ids;       // per row
  std::vector<PartitionExtent> extents;
  StringTable strings;
};

std::vector<const CollectiveRow*> sorted_rows(const std::vector<CollectiveRow>& rows) {
  std::vector<const CollectiveRow*> sorted;
  sorted.reserve(rows.size());
  for (const CollectiveRow& row : rows) sorted.push_back(&row);
  std::stable_sort(
      sorted.begin(), sorted.end(),
      [](const CollectiveRow* a, const CollectiveRow* b) { return collective_row_less(*a, *b); });
  return sorted;
}

// Numbers each row's group, appending the groups the summary's list lacks.
void number_groups(SummaryLayout& layout) {
  std::unordered_map<std::string, std::uint32_t> ids;
  for (std::size_t i = 0; i < layout.groups.size(); ++i)
    ids.emplace(group_key(layout.groups[i]), static_cast<std::uint32_t>(i));
  layout.pg_ids.reserve(layout.rows.size());
  for (const CollectiveRow* row : layout.rows) {
    if (!has_process_group(row->instance)) {
      layout.pg_ids.push_back(kNoProcessGroup);
      continue;
    }
    auto [it, added] =
        ids.emplace(group_key(row->instance), static_cast<std::uint32_t>(layout.groups.size()));
    if (added) layout.groups.push_back(process_group_from(row->instance, row->tier));
    layout.pg_ids.push_back(it->second);
  }
}

std::vector<PartitionExtent> extents_of(const std::vector<const CollectiveRow*>& rows) {
  std::vector<PartitionExtent> extents;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (extents.empty() || extents.back().partition != rows[i]->partition)
      extents.push_back({rows[i]->partition, static_cast<std::uint32_t>(i), 0});
    ++extents.back().row_count;
  }
  return extents;
}

void collect_strings(SummaryLayout& layout, const RankSummary& summary) {
  for (const KernelTotal& k : layout.kernels) layout.strings.add(k.name);
  for (const FindingDigest& f : summary.findings)
    for (const std::string& s : finding_strings(f)) layout.strings.add(s);
  for (const ProcessGroup& g : layout.groups) {
    layout.strings.add(g.name);
    layout.strings.add(g.description);
    layout.strings.add(g.ranks_text);
  }
}

SummaryLayout make_layout(const RankSummary& summary) {
  if (summary.collectives.size() > std::numeric_limits<std::uint32_t>::max())
    throw std::length_error("a rank summary holds at most 2^32 - 1 collective rows");
  SummaryLayout layout;
  layout.steps = capped(summary.steps, kMaxSummarySteps);
  layout.bins = capped(summary.step_bins, kMaxBinnedSteps);
  layout.kernels = capped(summary.kernels, kMaxSummaryKernels);
  layout.groups = summary.process_groups;
  layout.rows = sorted_rows(summary.collectives);
  number_groups(layout);
  layout.extents = extents_of(layout.rows);
  collect_strings(layout, summary);
  return layout;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Encoding

namespace {

json::object meta_object(const SummaryMeta& m) {
  // META is UTF-8 JSON: a path or name with invalid bytes is repaired rather than making the
  // whole summary unreadable.
  auto text = [](const std::string& s) { return json::string(io::valid_utf8(s)); };
  json::object o;
  o["tool_version"] = text(m.tool_version);
  o["file_path"] = text(m.file_path);
  o["file_size"] = m.file_size;
  o["rank"] = m.trace_rank;
  o["world_size"] = m.world_size;
  o["backend"] = text(m.backend);
  o["nccl_version"] = text(m.nccl_version);
  o["pg_config"] = text(m.pg_config_json);
  o["device_name"] = text(m.device_name);
  o["device_count"] = m.device_count;
  o["platform"] = text(m.platform);
  o["host_name"] = text(m.host_name);
  o["gpu_pids"] = json::array(m.gpu_pids.begin(), m.gpu_pids.end());
  o["events_read"] = m.events_read;
  o["malformed_skipped"] = m.malformed_skipped;
  o["collective_partitions"] = m.collective_partitions;
  o["status"] = m.status == RankStatus::kOk ? "ok" : "failed";
  o["status_sentence"] = text(m.status_sentence);
  return o;
}

std::string encode_strings(const StringTable& table) {
  ByteWriter w;
  w.u32(static_cast<std::uint32_t>(table.strings().size()));
  for (const std::string& s : table.strings()) {
    w.u32(static_cast<std::uint32_t>(s.size()));
    w.bytes(s);
  }
  return w.take();
}

// A table section: row size, row count, rows; `encode_row` must write exactly `row_size` bytes.
template <typename Rows, typename EncodeRow>
std::string encode_table(std::size_t row_size, const Rows& rows, EncodeRow encode_row) {
  ByteWriter w;
  w.u32(static_cast<std::uint32_t>(row_size));
  w.u32(static_cast<std::uint32_t>(std::size(rows)));
  std::size_t index = 0;
  for (const auto& row : rows) {
    const std::size_t before = w.size();
    encode_row(w, row, index++);
    if (w.size() - before != row_size) throw std::logic_error("rank summary row size mismatch");
  }
  return w.take();
}

void encode_totals(ByteWriter& w, const ActivityTotals& t) {
  for (std::int64_t v :
       {t.cpu_start_ns, t.cpu_end_ns, t.gpu_start_ns, t.gpu_end_ns, t.gpu_busy_ns, t.compute_ns,
        t.comm_ns, t.exposed_comm_ns, t.memcpy_ns, t.idle_ns, t.host_wait_idle_ns})
    w.i64(v);
  w.u64(t.kernel_count);
}

std::string encode_steps(const SummaryLayout& layout) {
  return encode_table(kStepRowBytes, layout.steps,
                      [](ByteWriter& w, const StepSummary& s, std::size_t) {
                        w.i64(s.step);
                        encode_totals(w, s.totals);
                      });
}

std::string encode_profile(const TraceProfile& profile) {
  const TraceProfile rows[] = {profile};
  return encode_table(
      kProfileRowBytes, rows, [](ByteWriter& w, const TraceProfile& p, std::size_t) {
        encode_totals(w, p.totals);
        const GpuUtilization& u = p.utilization;
        for (double v : {u.total_time_ms, u.computation_time_percent, u.exposed_comm_time_percent,
                         u.exposed_memcpy_time_percent, u.idle_time_percent})
          w.f64(v);
        w.u64(u.gpu_events);
      });
}

std::string encode_bins(const SummaryLayout& layout) {
  return encode_table(kBinsRowBytes, layout.bins,
                      [](ByteWriter& w, const StepBins& b, std::size_t) {
                        w.i64(b.step);
                        for (std::uint32_t us : b.compute_us) w.u32(us);
                        for (std::uint32_t us : b.comm_us) w.u32(us);
                      });
}

std::string encode_kernels(const SummaryLayout& layout) {
  return encode_table(kKernelRowBytes, layout.kernels,
                      [&](ByteWriter& w, const KernelTotal& k, std::size_t) {
                        w.u32(layout.strings.id(k.name));
                        w.u64(k.count);
                        w.i64(k.total_ns);
                      });
}

std::string encode_findings(const SummaryLayout& layout, const std::vector<FindingDigest>& all) {
  return encode_table(kFindingRowBytes, all,
                      [&](ByteWriter& w, const FindingDigest& f, std::size_t) {
                        const std::array<std::string, 8> s = finding_strings(f);
                        for (int i = 0; i < 5; ++i) w.u32(layout.strings.id(s[i]));
                        w.f64(f.impact_low);
                        w.f64(f.impact_mid);
                        w.f64(f.impact_high);
                        for (int i = 5; i < 8; ++i) w.u32(layout.strings.id(s[i]));
                      });
}

std::string encode_groups(const SummaryLayout& layout) {
  std::uint32_t next_member = 0;
  std::string rows = encode_table(kGroupRowBytes, layout.groups,
                                  [&](ByteWriter& w, const ProcessGroup& g, std::size_t) {
                                    w.u32(layout.strings.id(g.name));
                                    w.u32(layout.strings.id(g.description));
                                    w.u32(layout.strings.id(g.ranks_text));
                                    w.u8(static_cast<std::uint8_t>(g.tier));
                                    w.u8(g.members_truncated ? kFlagMembersTruncated : 0);
                                    w.u16(0);
                                    w.i64(g.size);
                                    w.i64(g.rank_start);
                                    w.i64(g.rank_stride);
                                    w.u32(next_member);
                                    w.u32(static_cast<std::uint32_t>(g.members.size()));
                                    next_member += static_cast<std::uint32_t>(g.members.size());
                                  });
  ByteWriter members;
  members.u32(next_member);
  for (const ProcessGroup& g : layout.groups)
    for (std::int32_t rank : g.members) members.i32(rank);
  return rows + members.take();
}

std::uint8_t collective_flags(const CollectiveInstance& c) {
  std::uint8_t flags = 0;
  if (c.p2p) flags |= kFlagP2p;
  if (c.async) flags |= kFlagAsync;
  flags |= static_cast<std::uint8_t>((static_cast<unsigned>(c.metadata) & 3u) << kMetadataShift);
  if (c.nvls) flags |= kFlagNvls;
  if (c.seq >= 0 && c.seq == std::int64_t{c.order}) flags |= kFlagOrderIsSeq;
  return flags;
}

void encode_collective(ByteWriter& w, const CollectiveRow& row, std::uint32_t pg_id) {
  const CollectiveInstance& c = row.instance;
  w.u32(row.partition);
  w.u8(static_cast<std::uint8_t>(row.tier));
  w.u8(static_cast<std::uint8_t>(c.kind));
  w.u8(static_cast<std::uint8_t>(c.dtype));
  w.u8(collective_flags(c));
  w.u32(pg_id);
  w.u16(c.channel);
  w.u16(c.kernels);
  w.i32(c.group_rank);
  w.i32(c.peer_rank);
  w.i32(c.step);
  w.u32(c.order);
  w.u64(c.comms_id);
  for (std::int64_t v :
       {c.in_nelems, c.out_nelems, c.in_bytes, c.out_bytes, c.launch_ns, c.start_ns, c.duration_ns,
        c.exposed_ns, c.anchor_ns, c.pre_compute_ns, c.pre_comm_ns, c.pre_idle_ns})
    w.i64(v);
}

std::string encode_collectives(const SummaryLayout& layout) {
  return encode_table(kCollectiveRowBytes, layout.rows,
                      [&](ByteWriter& w, const CollectiveRow* row, std::size_t i) {
                        encode_collective(w, *row, layout.pg_ids[i]);
                      });
}

std::string encode_index(const SummaryLayout& layout) {
  return encode_table(kIndexRowBytes, layout.extents,
                      [](ByteWriter& w, const PartitionExtent& e, std::size_t) {
                        w.u32(e.partition);
                        w.u32(e.first_row);
                        w.u32(e.row_count);
                      });
}

std::string assemble(const std::vector<std::pair<std::uint32_t, std::string>>& sections) {
  ByteWriter w;
  w.bytes("TPRS");
  w.u16(kRankSummaryMajor);
  w.u16(kRankSummaryMinor);
  w.u32(static_cast<std::uint32_t>(sections.size()));
  std::uint64_t total = kRankSummaryHeaderBytes;
  for (const auto& [tag, payload] : sections) total += kSectionHeaderBytes + payload.size();
  w.u64(total);
  w.u32(0);  // the CRC, patched below once every byte is known
  for (const auto& [tag, payload] : sections) {
    w.u32(tag);
    w.u32(0);
    w.u64(payload.size());
    w.bytes(payload);
  }
  std::string bytes = w.take();
  const std::string_view all(bytes);
  const std::uint32_t crc =
      crc32c(all.substr(kRankSummaryHeaderBytes), crc32c(all.substr(0, kCrcOffset)));
  for (int i = 0; i < 4; ++i) bytes[kCrcOffset + i] = static_cast<char>((crc >> (8 * i)) & 0xFF);
  return bytes;
}

}  // namespace

std::string encode_rank_summary(const RankSummary& summary) {
  const SummaryLayout layout = make_layout(summary);
  return assemble({
      {kMetaTag, json::serialize(meta_object(summary.meta))},
      {kStringsTag, encode_strings(layout.strings)},
      {kStepTag, encode_steps(layout)},
      {kProfileTag, encode_profile(summary.profile)},
      {kBinsTag, encode_bins(layout)},
      {kKernelTag, encode_kernels(layout)},
      {kFindingTag, encode_findings(layout, summary.findings)},
      {kGroupTag, encode_groups(layout)},
      {kCollectiveTag, encode_collectives(layout)},
      {kIndexTag, encode_index(layout)},
  });
}

void write_rank_summary_file(const RankSummary& summary, const std::string& path) {
  const std::string bytes = encode_rank_summary(summary);
  io::OutputFile out(path);
  out.write(bytes);
  out.commit();
}

// ---------------------------------------------------------------------------------------------
// Decoding: the frame (header, CRC, section list)

namespace {

struct Section {
  std::uint32_t tag = 0;
  std::uint64_t header_offset = 0;
  std::uint64_t payload_offset = 0;
  std::string_view payload;
};

// The known sections of a file, each at most once; unknown tags are skipped.
struct Frame {
  std::map<std::uint32_t, Section> sections;
  std::uint64_t total = 0;

  const Section* find(std::uint32_t tag) const {
    auto it = sections.find(tag);
    return it == sections.end() ? nullptr : &it->second;
  }
};

void check_magic_and_major(std::string_view bytes, const std::string& name) {
  const std::string_view magic = "TPRS";
  if (bytes.substr(0, magic.size()) != magic.substr(0, std::min(bytes.size(), magic.size())))
    throw_corrupt(name, 0, "it does not start with \"TPRS\", so it is no rank summary");
  if (bytes.size() < 8)
    throw_truncated(name, bytes.size(),
                    "the header needs " + std::to_string(kRankSummaryHeaderBytes) + " bytes");
  const auto major = static_cast<std::uint16_t>(read_le(bytes, 4, 2));
  const auto minor = static_cast<std::uint16_t>(read_le(bytes, 6, 2));
  if (major != kRankSummaryMajor)
    throw io::InputError("rank summary " + name + " has format version " + std::to_string(major) +
                         "." + std::to_string(minor) + "; this traceprism reads version " +
                         std::to_string(kRankSummaryMajor) + ".x.");
}

// Checks the header's length and CRC; returns (section count, total bytes).
std::pair<std::uint32_t, std::uint64_t> check_header(std::string_view bytes,
                                                     const std::string& name) {
  check_magic_and_major(bytes, name);
  if (bytes.size() < kRankSummaryHeaderBytes)
    throw_truncated(name, bytes.size(),
                    "the header needs " + std::to_string(kRankSummaryHeaderBytes) + " bytes");
  const auto section_count = static_cast<std::uint32_t>(read_le(bytes, 8, 4));
  const std::uint64_t total = read_le(bytes, 12, 8);
  if (total < kRankSummaryHeaderBytes)
    throw_corrupt(name, 12,
                  "the header gives a total of " + std::to_string(total) +
                      " bytes, less than the header itself");
  if (bytes.size() < total)
    throw_truncated(name, bytes.size(),
                    "the header gives a total of " + std::to_string(total) + " bytes");
  if (bytes.size() > total)
    throw_corrupt(name, total,
                  std::to_string(bytes.size() - total) + " bytes follow the end the header gives");
  const auto stored = static_cast<std::uint32_t>(read_le(bytes, kCrcOffset, 4));
  const std::uint32_t computed =
      crc32c(bytes.substr(kRankSummaryHeaderBytes), crc32c(bytes.substr(0, kCrcOffset)));
  if (stored != computed)
    throw_corrupt(
        name, kCrcOffset,
        "the stored CRC-32C is " + hex32(stored) + " but the bytes give " + hex32(computed));
  return {section_count, total};
}

bool is_known_tag(std::uint32_t tag) {
  return std::find(std::begin(kKnownTags), std::end(kKnownTags), tag) != std::end(kKnownTags);
}

Frame read_frame(std::string_view bytes, const std::string& name) {
  const auto [section_count, total] = check_header(bytes, name);
  Frame frame;
  frame.total = total;
  std::uint64_t at = kRankSummaryHeaderBytes;
  for (std::uint32_t i = 0; i < section_count; ++i) {
    if (total - at < kSectionHeaderBytes)
      throw_corrupt(name, at,
                    "section " + std::to_string(i + 1) + " of " + std::to_string(section_count) +
                        " has no room for its " + std::to_string(kSectionHeaderBytes) +
                        "-byte header");
    Section s;
    s.tag = static_cast<std::uint32_t>(read_le(bytes, at, 4));
    s.header_offset = at;
    const std::uint64_t length = read_le(bytes, at + 8, 8);
    s.payload_offset = at + kSectionHeaderBytes;
    if (length > total - s.payload_offset)
      throw_corrupt(name, at + 8,
                    "section " + tag_text(s.tag) + " claims " + std::to_string(length) +
                        " bytes but only " + std::to_string(total - s.payload_offset) + " remain");
    s.payload = bytes.substr(s.payload_offset, length);
    at = s.payload_offset + length;
    if (!is_known_tag(s.tag)) continue;
    if (!frame.sections.emplace(s.tag, s).second)
      throw_corrupt(name, s.header_offset, "a second " + tag_text(s.tag) + " section");
  }
  if (at != total)
    throw_corrupt(name, at,
                  std::to_string(total - at) + " bytes follow the " +
                      std::to_string(section_count) + " sections the header counts");
  return frame;
}

// A table section's rows (and, for PGRP, what follows them).
struct Table {
  std::uint32_t tag = 0;
  std::uint32_t row_size = 0;
  std::uint32_t row_count = 0;
  std::uint64_t rows_offset = 0;
  std::string_view rows;
  std::string_view tail;
  std::uint64_t tail_offset = 0;

  std::string_view row(std::size_t i, std::size_t known_bytes) const {
    return rows.substr(i * row_size, known_bytes);
  }
  std::uint64_t row_offset(std::size_t i) const { return rows_offset + i * row_size; }
};

Table read_table(const Section* s, std::size_t known_row_size, bool has_tail,
                 const std::string& name) {
  Table t;
  if (s == nullptr) return t;  // an absent section reads as empty
  t.tag = s->tag;
  const std::string tag = tag_text(s->tag);
  if (s->payload.size() < kTableHeaderBytes)
    throw_corrupt(name, s->payload_offset,
                  "section " + tag + " holds " + std::to_string(s->payload.size()) +
                      " bytes, less than its 8-byte table header");
  t.row_size = static_cast<std::uint32_t>(read_le(s->payload, 0, 4));
  t.row_count = static_cast<std::uint32_t>(read_le(s->payload, 4, 4));
  if (t.row_size < known_row_size)
    throw_corrupt(name, s->payload_offset,
                  "section " + tag + " has " + std::to_string(t.row_size) +
                      "-byte rows; format 1 rows are at least " + std::to_string(known_row_size) +
                      " bytes");
  const std::uint64_t row_bytes = std::uint64_t{t.row_count} * t.row_size;
  const std::uint64_t available = s->payload.size() - kTableHeaderBytes;
  if (!has_tail && available % t.row_size != 0)
    throw_corrupt(name, s->payload_offset + kTableHeaderBytes,
                  "section " + tag + " holds " + std::to_string(available) +
                      " bytes of rows, not a multiple of its " + std::to_string(t.row_size) +
                      "-byte row size");
  if (row_bytes > available || (!has_tail && row_bytes != available))
    throw_corrupt(name, s->payload_offset + 4,
                  "section " + tag + " counts " + std::to_string(t.row_count) + " rows but holds " +
                      std::to_string(available / t.row_size));
  t.rows_offset = s->payload_offset + kTableHeaderBytes;
  t.rows = s->payload.substr(kTableHeaderBytes, row_bytes);
  t.tail_offset = t.rows_offset + row_bytes;
  t.tail = s->payload.substr(kTableHeaderBytes + row_bytes);
  return t;
}

// Rows are never shorter than `known_bytes` (read_table checked), so reads inside stay inside.
ByteReader row_reader(const Table& t, std::size_t i, std::size_t known_bytes,
                      const std::string& name) {
  return ByteReader(t.row(i, known_bytes), t.row_offset(i), name, "a table row");
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Decoding: sections

namespace {

std::vector<std::string> decode_strings(const Section* s, const std::string& name) {
  std::vector<std::string> strings;
  if (s == nullptr) return strings;
  ByteReader r(s->payload, s->payload_offset, name, "section STRS");
  const std::uint32_t count = r.u32();
  for (std::uint32_t i = 0; i < count; ++i) {
    const std::uint32_t length = r.u32();
    strings.emplace_back(r.take(length));
  }
  if (r.remaining() != 0)
    throw_corrupt(name, r.offset(),
                  std::to_string(r.remaining()) + " bytes follow the " + std::to_string(count) +
                      " strings section STRS counts");
  return strings;
}

std::string read_string(ByteReader& r, const std::vector<std::string>& strings) {
  const std::uint64_t at = r.offset();
  const std::uint32_t id = r.u32();
  if (id >= strings.size())
    throw_corrupt(r.name(), at,
                  "string " + std::to_string(id) + " is past the end of the " +
                      std::to_string(strings.size()) + "-entry STRS table");
  return strings[id];
}

MatchTier read_tier(ByteReader& r) {
  const std::uint64_t at = r.offset();
  const std::uint8_t tier = r.u8();
  if (tier > static_cast<std::uint8_t>(MatchTier::kTimeline))
    throw_corrupt(r.name(), at, "matching tier " + std::to_string(tier) + " is not 0, 1 or 2");
  return static_cast<MatchTier>(tier);
}

ActivityTotals decode_totals(ByteReader& r) {
  ActivityTotals t;
  for (std::int64_t* v : {&t.cpu_start_ns, &t.cpu_end_ns, &t.gpu_start_ns, &t.gpu_end_ns,
                          &t.gpu_busy_ns, &t.compute_ns, &t.comm_ns, &t.exposed_comm_ns,
                          &t.memcpy_ns, &t.idle_ns, &t.host_wait_idle_ns})
    *v = r.i64();
  t.kernel_count = r.u64();
  return t;
}

std::vector<StepSummary> decode_steps(const Table& t, const std::string& name) {
  std::vector<StepSummary> steps(t.row_count);
  for (std::size_t i = 0; i < steps.size(); ++i) {
    ByteReader r = row_reader(t, i, kStepRowBytes, name);
    steps[i].step = r.i64();
    steps[i].totals = decode_totals(r);
  }
  return steps;
}

TraceProfile decode_profile(const Section* s, const std::string& name) {
  TraceProfile p;
  if (s == nullptr) return p;
  const Table t = read_table(s, kProfileRowBytes, false, name);
  if (t.row_count != 1)
    throw_corrupt(name, s->payload_offset + 4,
                  "section PROF holds " + std::to_string(t.row_count) + " rows instead of one");
  ByteReader r = row_reader(t, 0, kProfileRowBytes, name);
  p.totals = decode_totals(r);
  GpuUtilization& u = p.utilization;
  for (double* v : {&u.total_time_ms, &u.computation_time_percent, &u.exposed_comm_time_percent,
                    &u.exposed_memcpy_time_percent, &u.idle_time_percent})
    *v = r.f64();
  u.gpu_events = r.u64();
  return p;
}

std::vector<StepBins> decode_bins(const Table& t, const std::string& name) {
  std::vector<StepBins> bins(t.row_count);
  for (std::size_t i = 0; i < bins.size(); ++i) {
    ByteReader r = row_reader(t, i, kBinsRowBytes, name);
    bins[i].step = r.i64();
    for (std::uint32_t& us : bins[i].compute_us) us = r.u32();
    for (std::uint32_t& us : bins[i].comm_us) us = r.u32();
  }
  return bins;
}

std::vector<KernelTotal> decode_kernels(const Table& t, const std::vector<std::string>& strings,
                                        const std::string& name) {
  std::vector<KernelTotal> kernels(t.row_count);
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    ByteReader r = row_reader(t, i, kKernelRowBytes, name);
    kernels[i].name = read_string(r, strings);
    kernels[i].count = r.u64();
    kernels[i].total_ns = r.i64();
  }
  return kernels;
}

std::vector<FindingDigest> decode_findings(const Table& t, const std::vector<std::string>& strings,
                                           const std::string& name) {
  std::vector<FindingDigest> findings(t.row_count);
  for (std::size_t i = 0; i < findings.size(); ++i) {
    ByteReader r = row_reader(t, i, kFindingRowBytes, name);
    FindingDigest& f = findings[i];
    for (std::string* s : {&f.analyzer, &f.key, &f.tier, &f.category, &f.title})
      *s = read_string(r, strings);
    f.impact_low = r.f64();
    f.impact_mid = r.f64();
    f.impact_high = r.f64();
    for (std::string* s : {&f.bound_type, &f.library, &f.first_evidence})
      *s = read_string(r, strings);
  }
  return findings;
}

std::vector<std::int32_t> decode_members(const Table& t, const std::string& name) {
  if (t.tag == 0) return {};  // no PGRP section
  ByteReader r(t.tail, t.tail_offset, name, "the member list of section PGRP");
  const std::uint32_t count = r.u32();
  if (r.remaining() != std::uint64_t{count} * 4)
    throw_corrupt(name, t.tail_offset,
                  "section PGRP counts " + std::to_string(count) + " members but holds " +
                      std::to_string(r.remaining()) + " bytes for them");
  std::vector<std::int32_t> members(count);
  for (std::int32_t& rank : members) rank = r.i32();
  return members;
}

std::vector<ProcessGroup> decode_group_table(const Table& t,
                                             const std::vector<std::string>& strings,
                                             const std::string& name) {
  const std::vector<std::int32_t> members = decode_members(t, name);
  std::vector<ProcessGroup> groups(t.row_count);
  for (std::size_t i = 0; i < groups.size(); ++i) {
    ByteReader r = row_reader(t, i, kGroupRowBytes, name);
    ProcessGroup& g = groups[i];
    for (std::string* s : {&g.name, &g.description, &g.ranks_text}) *s = read_string(r, strings);
    g.tier = read_tier(r);
    g.members_truncated = (r.u8() & kFlagMembersTruncated) != 0;
    r.u16();
    g.size = r.i64();
    g.rank_start = r.i64();
    g.rank_stride = r.i64();
    const std::uint64_t at = r.offset();
    const std::uint32_t first = r.u32();
    const std::uint32_t count = r.u32();
    if (std::uint64_t{first} + count > members.size())
      throw_corrupt(name, at,
                    "process group " + std::to_string(i) + " names members " +
                        std::to_string(first) + " to " +
                        std::to_string(std::uint64_t{first} + count) + " of " +
                        std::to_string(members.size()));
    g.members.assign(members.begin() + first, members.begin() + first + count);
  }
  return groups;
}

void apply_group(CollectiveInstance& c, std::uint32_t pg_id, std::uint64_t at,
                 const std::vector<ProcessGroup>& groups, const std::string& name) {
  if (pg_id == kNoProcessGroup) return;
  if (pg_id >= groups.size())
    throw_corrupt(name, at,
                  "process group " + std::to_string(pg_id) + " is past the end of the " +
                      std::to_string(groups.size()) + " PGRP rows");
  const ProcessGroup& g = groups[pg_id];
  c.pg_name = g.name;
  c.pg_description = g.description;
  c.pg_ranks = g.ranks_text;
  c.group_size = g.size;
  c.global_rank_start = g.rank_start;
  c.global_rank_stride = g.rank_stride;
}

CollectiveRow decode_collective(ByteReader& r, const std::vector<ProcessGroup>& groups) {
  CollectiveRow row;
  CollectiveInstance& c = row.instance;
  row.partition = r.u32();
  row.tier = read_tier(r);
  // Kinds and dtypes are append-only enums: a newer writer's value passes through unchanged.
  c.kind = static_cast<model::CollectiveKind>(r.u8());
  c.dtype = static_cast<model::CollectiveDtype>(r.u8());
  const std::uint8_t flags = r.u8();
  c.p2p = (flags & kFlagP2p) != 0;
  c.async = (flags & kFlagAsync) != 0;
  c.metadata = static_cast<model::MetadataSource>((flags >> kMetadataShift) & 3u);
  c.nvls = (flags & kFlagNvls) != 0;
  const std::uint64_t pg_at = r.offset();
  const std::uint32_t pg_id = r.u32();
  apply_group(c, pg_id, pg_at, groups, r.name());
  c.channel = r.u16();
  c.kernels = r.u16();
  c.group_rank = r.i32();
  c.peer_rank = r.i32();
  c.step = r.i32();
  c.order = r.u32();
  c.seq = (flags & kFlagOrderIsSeq) != 0 ? std::int64_t{c.order} : -1;
  c.comms_id = r.u64();
  for (std::int64_t* v : {&c.in_nelems, &c.out_nelems, &c.in_bytes, &c.out_bytes, &c.launch_ns,
                          &c.start_ns, &c.duration_ns, &c.exposed_ns, &c.anchor_ns,
                          &c.pre_compute_ns, &c.pre_comm_ns, &c.pre_idle_ns})
    *v = r.i64();
  return row;
}

std::vector<CollectiveRow> decode_collectives(const Table& t, std::size_t first, std::size_t count,
                                              const std::vector<ProcessGroup>& groups,
                                              const std::string& name) {
  std::vector<CollectiveRow> rows;
  rows.reserve(count);
  for (std::size_t i = first; i < first + count; ++i) {
    ByteReader r = row_reader(t, i, kCollectiveRowBytes, name);
    rows.push_back(decode_collective(r, groups));
  }
  return rows;
}

// The CIDX rows, checked to cover the COLL rows in order: increasing partitions, each run
// starting where the previous one ended.
std::vector<PartitionExtent> decode_index(const Frame& frame, const Table& collectives,
                                          const std::string& name) {
  const Section* s = frame.find(kIndexTag);
  if (s == nullptr) {
    if (collectives.row_count == 0) return {};
    throw_corrupt(name, frame.total, "its COLL rows have no CIDX section");
  }
  const Table t = read_table(s, kIndexRowBytes, false, name);
  std::vector<PartitionExtent> extents(t.row_count);
  std::uint64_t next_row = 0;
  for (std::size_t i = 0; i < extents.size(); ++i) {
    ByteReader r = row_reader(t, i, kIndexRowBytes, name);
    extents[i] = {r.u32(), r.u32(), r.u32()};
    const bool ordered = i == 0 || extents[i].partition > extents[i - 1].partition;
    if (!ordered || extents[i].first_row != next_row || extents[i].row_count == 0)
      throw_corrupt(name, t.row_offset(i),
                    "CIDX row " + std::to_string(i) + " does not continue the partition index");
    next_row += extents[i].row_count;
  }
  if (next_row != collectives.row_count)
    throw_corrupt(name, s->payload_offset,
                  "section CIDX covers " + std::to_string(next_row) + " COLL rows of " +
                      std::to_string(collectives.row_count));
  return extents;
}

// ---- META

class MetaReader {
 public:
  MetaReader(const json::object& object, std::uint64_t offset, const std::string& name)
      : object_(object), offset_(offset), name_(name) {}

  std::string text(std::string_view key) const {
    const json::value* v = object_.if_contains(key);
    if (v == nullptr) return {};
    if (!v->is_string()) wrong_type(key, "a string");
    const json::string& s = v->get_string();
    return std::string(s.data(), s.size());
  }
  template <typename T>
  T number(std::string_view key, T fallback) const {
    const json::value* v = object_.if_contains(key);
    return v == nullptr ? fallback : to_number<T>(*v, key);
  }
  std::vector<std::int64_t> int64_list(std::string_view key) const {
    const json::value* v = object_.if_contains(key);
    std::vector<std::int64_t> list;
    if (v == nullptr) return list;
    if (!v->is_array()) wrong_type(key, "an array of integers");
    for (const json::value& item : v->get_array())
      list.push_back(to_number<std::int64_t>(item, key));
    return list;
  }
  [[noreturn]] void wrong_type(std::string_view key, const char* expected) const {
    throw_corrupt(name_, offset_, "META field \"" + std::string(key) + "\" is not " + expected);
  }

 private:
  template <typename T>
  T to_number(const json::value& v, std::string_view key) const {
    json::error_code ec;
    const T n = v.to_number<T>(ec);
    if (ec || v.is_double()) wrong_type(key, "an integer in range");
    return n;
  }

  const json::object& object_;
  std::uint64_t offset_;
  const std::string& name_;
};

json::value parse_meta_json(const Section& s, const std::string& name) {
  json::parser parser;
  json::error_code ec;
  const std::size_t used = parser.write(s.payload.data(), s.payload.size(), ec);
  if (ec)
    throw_corrupt(name, s.payload_offset + used,
                  "section META is not valid JSON (" + ec.message() + ")");
  return parser.release();
}

SummaryMeta decode_meta(const Frame& frame, const std::string& name) {
  const Section* s = frame.find(kMetaTag);
  if (s == nullptr) throw_corrupt(name, frame.total, "its sections end without a META section");
  const json::value value = parse_meta_json(*s, name);
  if (!value.is_object()) throw_corrupt(name, s->payload_offset, "section META is no JSON object");
  const MetaReader r(value.get_object(), s->payload_offset, name);
  SummaryMeta m;
  m.tool_version = r.text("tool_version");
  m.file_path = r.text("file_path");
  m.file_size = r.number<std::uint64_t>("file_size", 0);
  m.trace_rank = r.number<std::int64_t>("rank", -1);
  m.world_size = r.number<std::int64_t>("world_size", -1);
  m.backend = r.text("backend");
  m.nccl_version = r.text("nccl_version");
  m.pg_config_json = r.text("pg_config");
  m.device_name = r.text("device_name");
  m.device_count = r.number<std::int64_t>("device_count", 0);
  m.platform = r.text("platform");
  m.host_name = r.text("host_name");
  m.gpu_pids = r.int64_list("gpu_pids");
  m.events_read = r.number<std::uint64_t>("events_read", 0);
  m.malformed_skipped = r.number<std::uint64_t>("malformed_skipped", 0);
  m.collective_partitions = r.number<std::uint32_t>("collective_partitions", 0);
  const std::string status = r.text("status");
  if (status != "ok" && status != "failed" && !status.empty())
    r.wrong_type("status", "\"ok\" or \"failed\"");
  m.status = status == "failed" ? RankStatus::kFailed : RankStatus::kOk;
  m.status_sentence = r.text("status_sentence");
  return m;
}

std::vector<ProcessGroup> decode_groups(const Frame& frame, const std::vector<std::string>& strings,
                                        const std::string& name) {
  return decode_group_table(read_table(frame.find(kGroupTag), kGroupRowBytes, true, name), strings,
                            name);
}

}  // namespace

RankSummary decode_rank_summary(std::string_view bytes, const std::string& name) {
  const Frame frame = read_frame(bytes, name);
  const std::vector<std::string> strings = decode_strings(frame.find(kStringsTag), name);
  auto table = [&](std::uint32_t tag, std::size_t row_size) {
    return read_table(frame.find(tag), row_size, false, name);
  };
  RankSummary summary;
  summary.meta = decode_meta(frame, name);
  summary.steps = decode_steps(table(kStepTag, kStepRowBytes), name);
  summary.profile = decode_profile(frame.find(kProfileTag), name);
  summary.step_bins = decode_bins(table(kBinsTag, kBinsRowBytes), name);
  summary.kernels = decode_kernels(table(kKernelTag, kKernelRowBytes), strings, name);
  summary.findings = decode_findings(table(kFindingTag, kFindingRowBytes), strings, name);
  summary.process_groups = decode_groups(frame, strings, name);
  const Table collectives = table(kCollectiveTag, kCollectiveRowBytes);
  summary.collectives =
      decode_collectives(collectives, 0, collectives.row_count, summary.process_groups, name);
  if (decode_index(frame, collectives, name) != partition_extents(summary.collectives))
    throw_corrupt(name, frame.find(kIndexTag)->payload_offset,
                  "section CIDX does not match the partitions of the COLL rows");
  return summary;
}

RankSummary read_rank_summary_file(const std::string& path) {
  const io::SmallFile file = io::read_small_file(path, io::kMaxSheetBytes);
  if (file.status == io::SmallFile::Status::kCannotOpen)
    throw io::InputError("rank summary " + path + " cannot be opened.");
  if (file.status == io::SmallFile::Status::kTooLarge)
    throw io::InputError(io::too_large_sentence(path, "a rank summary", io::kMaxSheetBytes));
  return decode_rank_summary(file.text, path);
}

std::vector<PartitionExtent> decode_partition_index(std::string_view bytes,
                                                    const std::string& name) {
  const Frame frame = read_frame(bytes, name);
  const Table collectives =
      read_table(frame.find(kCollectiveTag), kCollectiveRowBytes, false, name);
  return decode_index(frame, collectives, name);
}

std::vector<CollectiveRow> decode_partition_rows(std::string_view bytes, std::uint32_t partition,
                                                 const std::string& name) {
  const Frame frame = read_frame(bytes, name);
  const Table collectives =
      read_table(frame.find(kCollectiveTag), kCollectiveRowBytes, false, name);
  const std::vector<PartitionExtent> extents = decode_index(frame, collectives, name);
  auto it =
      std::lower_bound(extents.begin(), extents.end(), partition,
                       [](const PartitionExtent& e, std::uint32_t p) { return e.partition < p; });
  if (it == extents.end() || it->partition != partition) return {};
  const std::vector<std::string> strings = decode_strings(frame.find(kStringsTag), name);
  const std::vector<ProcessGroup> groups = decode_groups(frame, strings, name);
  std::vector<CollectiveRow> rows =
      decode_collectives(collectives, it->first_row, it->row_count, groups, name);
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (rows[i].partition != partition)
      throw_corrupt(name, collectives.row_offset(it->first_row + i),
                    "COLL row " + std::to_string(it->first_row + i) +
                        " is not in the partition CIDX puts it in");
  return rows;
}

// ---------------------------------------------------------------------------------------------
// The dump

namespace {

void append_number(std::string& out, double v) {
  if (!std::isfinite(v)) {
    out += "null";
    return;
  }
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, v);
  out.append(buffer, result.ptr);
}

bool is_scalar(const json::value& v) {
  return !v.is_object() && !v.is_array();
}

void append_pretty(std::string& out, const json::value& v, int indent);

void append_newline(std::string& out, int indent) {
  out += '\n';
  out.append(static_cast<std::size_t>(indent), ' ');
}

void append_object(std::string& out, const json::object& o, int indent) {
  if (o.empty()) {
    out += "{}";
    return;
  }
  out += '{';
  bool first = true;
  for (const auto& member : o) {
    if (!first) out += ',';
    first = false;
    append_newline(out, indent + 2);
    io::append_json_string(out, io::valid_utf8(member.key()));
    out += ": ";
    append_pretty(out, member.value(), indent + 2);
  }
  append_newline(out, indent);
  out += '}';
}

// Arrays of numbers or strings stay on one line (bins, pids, members); others get a line each.
void append_array(std::string& out, const json::array& a, int indent) {
  const bool inline_items = std::all_of(a.begin(), a.end(), is_scalar);
  out += '[';
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (i > 0) out += inline_items ? ", " : ",";
    if (!inline_items) append_newline(out, indent + 2);
    append_pretty(out, a[i], indent + 2);
  }
  if (!inline_items && !a.empty()) append_newline(out, indent);
  out += ']';
}

void append_pretty(std::string& out, const json::value& v, int indent) {
  switch (v.kind()) {
    case json::kind::object:
      return append_object(out, v.get_object(), indent);
    case json::kind::array:
      return append_array(out, v.get_array(), indent);
    case json::kind::string:
      return io::append_json_string(out, io::valid_utf8(v.get_string()));
    case json::kind::int64:
      out += std::to_string(v.get_int64());
      return;
    case json::kind::uint64:
      out += std::to_string(v.get_uint64());
      return;
    case json::kind::double_:
      return append_number(out, v.get_double());
    case json::kind::bool_:
      out += v.get_bool() ? "true" : "false";
      return;
    case json::kind::null:
      break;
  }
  out += "null";
}

// "allreduce", or "unknown(13)" for a value newer than this build's enum.
template <typename Enum>
std::string enum_text(Enum value, const char* name) {
  const auto raw = static_cast<unsigned>(value);
  if (raw == 0 || std::string_view(name) != "unknown") return name;
  return std::string(name) + "(" + std::to_string(raw) + ")";
}

std::string metadata_text(model::MetadataSource source) {
  switch (source) {
    case model::MetadataSource::kNone:
      return "none";
    case model::MetadataSource::kKernel:
      return "kernel";
    case model::MetadataSource::kOp:
      return "op";
  }
  return "unknown(" + std::to_string(static_cast<unsigned>(source)) + ")";
}

void add_totals(json::object& o, const ActivityTotals& t) {
  o["cpu_start_ns"] = t.cpu_start_ns;
  o["cpu_end_ns"] = t.cpu_end_ns;
  o["gpu_start_ns"] = t.gpu_start_ns;
  o["gpu_end_ns"] = t.gpu_end_ns;
  o["gpu_busy_ns"] = t.gpu_busy_ns;
  o["compute_ns"] = t.compute_ns;
  o["comm_ns"] = t.comm_ns;
  o["exposed_comm_ns"] = t.exposed_comm_ns;
  o["memcpy_ns"] = t.memcpy_ns;
  o["idle_ns"] = t.idle_ns;
  o["host_wait_idle_ns"] = t.host_wait_idle_ns;
  o["kernel_count"] = t.kernel_count;
}

json::array steps_json(const SummaryLayout& layout) {
  json::array a;
  for (const StepSummary& s : layout.steps) {
    json::object o;
    o["step"] = s.step;
    add_totals(o, s.totals);
    a.push_back(std::move(o));
  }
  return a;
}

json::object profile_json(const TraceProfile& p) {
  json::object o;
  add_totals(o, p.totals);
  json::object u;
  u["total_time_ms"] = p.utilization.total_time_ms;
  u["computation_time_percent"] = p.utilization.computation_time_percent;
  u["exposed_comm_time_percent"] = p.utilization.exposed_comm_time_percent;
  u["exposed_memcpy_time_percent"] = p.utilization.exposed_memcpy_time_percent;
  u["idle_time_percent"] = p.utilization.idle_time_percent;
  u["gpu_events"] = p.utilization.gpu_events;
  o["gpu_utilization"] = std::move(u);
  return o;
}

json::array bins_json(const SummaryLayout& layout) {
  json::array a;
  for (const StepBins& b : layout.bins) {
    json::object o;
    o["step"] = b.step;
    o["compute_us"] = json::array(b.compute_us.begin(), b.compute_us.end());
    o["comm_us"] = json::array(b.comm_us.begin(), b.comm_us.end());
    a.push_back(std::move(o));
  }
  return a;
}

json::array kernels_json(const SummaryLayout& layout) {
  json::array a;
  for (const KernelTotal& k : layout.kernels)
    a.push_back(json::object{{"name", k.name}, {"count", k.count}, {"total_ns", k.total_ns}});
  return a;
}

json::array findings_json(const std::vector<FindingDigest>& findings) {
  json::array a;
  for (const FindingDigest& f : findings) {
    const std::array<std::string, 8> s = finding_strings(f);
    json::object o;
    o["analyzer"] = s[0];
    o["key"] = s[1];
    o["tier"] = s[2];
    o["category"] = s[3];
    o["title"] = s[4];
    o["impact_low"] = f.impact_low;
    o["impact_mid"] = f.impact_mid;
    o["impact_high"] = f.impact_high;
    o["bound_type"] = s[5];
    o["library"] = s[6];
    o["first_evidence"] = s[7];
    a.push_back(std::move(o));
  }
  return a;
}

json::array groups_json(const SummaryLayout& layout) {
  json::array a;
  for (const ProcessGroup& g : layout.groups) {
    json::object o;
    o["name"] = g.name;
    o["description"] = g.description;
    o["ranks_text"] = g.ranks_text;
    o["tier"] = tier_name(g.tier);
    o["members_truncated"] = g.members_truncated;
    o["size"] = g.size;
    o["rank_start"] = g.rank_start;
    o["rank_stride"] = g.rank_stride;
    o["members"] = json::array(g.members.begin(), g.members.end());
    a.push_back(std::move(o));
  }
  return a;
}

json::object collective_json(const CollectiveRow& row, std::uint32_t pg_id) {
  const CollectiveInstance& c = row.instance;
  json::object o;
  o["partition"] = row.partition;
  o["tier"] = tier_name(row.tier);
  o["kind"] = enum_text(c.kind, model::kind_name(c.kind));
  o["dtype"] = enum_text(c.dtype, model::dtype_name(c.dtype));
  o["p2p"] = c.p2p;
  o["async"] = c.async;
  o["metadata"] = metadata_text(c.metadata);
  o["nvls"] = c.nvls;
  o["order_is_seq"] = (collective_flags(c) & kFlagOrderIsSeq) != 0;
  o["pg"] = pg_id == kNoProcessGroup ? json::value(nullptr) : json::value(pg_id);
  o["channel"] = c.channel;
  o["kernels"] = c.kernels;
  o["group_rank"] = c.group_rank;
  o["peer_rank"] = c.peer_rank;
  o["step"] = c.step;
  o["order"] = c.order;
  o["comms_id"] = c.comms_id;
  o["in_nelems"] = c.in_nelems;
  o["out_nelems"] = c.out_nelems;
  o["in_bytes"] = c.in_bytes;
  o["out_bytes"] = c.out_bytes;
  o["launch_ns"] = c.launch_ns;
  o["start_ns"] = c.start_ns;
  o["duration_ns"] = c.duration_ns;
  o["exposed_ns"] = c.exposed_ns;
  o["anchor_ns"] = c.anchor_ns;
  o["pre_compute_ns"] = c.pre_compute_ns;
  o["pre_comm_ns"] = c.pre_comm_ns;
  o["pre_idle_ns"] = c.pre_idle_ns;
  return o;
}

json::array collectives_json(const SummaryLayout& layout) {
  json::array a;
  for (std::size_t i = 0; i < layout.rows.size(); ++i)
    a.push_back(collective_json(*layout.rows[i], layout.pg_ids[i]));
  return a;
}

json::array index_json(const SummaryLayout& layout) {
  json::array a;
  for (const PartitionExtent& e : layout.extents)
    a.push_back(json::object{
        {"partition", e.partition}, {"first_row", e.first_row}, {"row_count", e.row_count}});
  return a;
}

}  // namespace

std::string rank_summary_json(const RankSummary& summary) {
  const SummaryLayout layout = make_layout(summary);
  json::object o;
  o["META"] = meta_object(summary.meta);
  o["STRS"] = json::array(layout.strings.strings().begin(), layout.strings.strings().end());
  o["STEP"] = steps_json(layout);
  o["PROF"] = profile_json(summary.profile);
  o["BINS"] = bins_json(layout);
  o["KERN"] = kernels_json(layout);
  o["FIND"] = findings_json(summary.findings);
  o["PGRP"] = groups_json(layout);
  o["COLL"] = collectives_json(layout);
  o["CIDX"] = index_json(layout);
  std::string out;
  append_pretty(out, o, 0);
  out += '\n';
  return out;
}

}  // namespace traceprism::multirank
