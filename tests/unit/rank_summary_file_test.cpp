// The rank summary file (multi-rank.md §4, §12 "summary round trip, unknown-section skip, major
// mismatch refused"). Files are taken apart and put together again here with this test's own
// little-endian helpers, so the expected bytes do not come from the code under test.
#include "multirank/rank_summary_file.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "io/input_error.hpp"
#include "support/temp_dir.hpp"

namespace traceprism::multirank {
namespace {

using model::CollectiveDtype;
using model::CollectiveInstance;
using model::CollectiveKind;
using model::MatchTier;
using model::MetadataSource;

// ---- Bytes by hand

std::string le(std::uint64_t value, int bytes) {
  std::string out;
  for (int i = 0; i < bytes; ++i) out += static_cast<char>((value >> (8 * i)) & 0xFF);
  return out;
}

std::uint64_t read_le(std::string_view bytes, std::size_t at, int n) {
  std::uint64_t v = 0;
  for (int i = 0; i < n; ++i)
    v |= std::uint64_t{static_cast<unsigned char>(bytes[at + i])} << (8 * i);
  return v;
}

struct RawSection {
  std::string tag;
  std::string payload;
};

// The CRC covers bytes [0, 20) and [24, end): everything but the CRC field.
void fix_crc(std::string& file) {
  const std::string_view all(file);
  const std::uint32_t crc = crc32c(all.substr(24), crc32c(all.substr(0, 20)));
  file.replace(20, 4, le(crc, 4));
}

std::string assemble(const std::vector<RawSection>& sections, std::uint16_t major = 1,
                     std::uint16_t minor = 0) {
  std::string body;
  for (const RawSection& s : sections)
    body += s.tag + le(0, 4) + le(s.payload.size(), 8) + s.payload;
  std::string file = "TPRS" + le(major, 2) + le(minor, 2) + le(sections.size(), 4) +
                     le(24 + body.size(), 8) + le(0, 4) + body;
  fix_crc(file);
  return file;
}

std::vector<RawSection> split(const std::string& file) {
  std::vector<RawSection> sections;
  std::size_t at = 24;
  while (at < file.size()) {
    const std::size_t length = read_le(file, at + 8, 8);
    sections.push_back({file.substr(at, 4), file.substr(at + 16, length)});
    at += 16 + length;
  }
  return sections;
}

const RawSection& section(const std::vector<RawSection>& sections, const std::string& tag) {
  for (const RawSection& s : sections)
    if (s.tag == tag) return s;
  throw std::runtime_error("no section " + tag);
}

// The message of the InputError `read` throws ("" when it throws none).
std::string error_of(const std::function<void()>& read) {
  try {
    read();
  } catch (const io::InputError& e) {
    return e.what();
  }
  return "";
}

std::string decode_error(const std::string& bytes) {
  return error_of([&] { decode_rank_summary(bytes, "x.tpsum"); });
}

// ---- Summaries

CollectiveInstance instance_in_group0() {
  CollectiveInstance c;
  c.pg_name = "0";
  c.pg_description = "default_pg";
  c.pg_ranks = "[0, 1, 2, 3, 4, 5, 6, 7]";
  c.global_rank_start = 0;
  c.global_rank_stride = 1;
  c.group_size = 8;
  return c;
}

CollectiveRow seq_row(std::uint32_t partition, std::uint32_t seq) {
  CollectiveRow row{partition, MatchTier::kSeq, instance_in_group0()};
  CollectiveInstance& c = row.instance;
  c.kind = CollectiveKind::kAllReduce;
  c.dtype = CollectiveDtype::kFloat;
  c.metadata = MetadataSource::kKernel;
  c.seq = seq;
  c.order = seq;
  c.comms_id = 0xFFFFFFFFFFFFFFFFull;
  c.step = 4;
  c.channel = 1;
  c.kernels = 1;
  c.group_rank = 3;
  c.in_nelems = c.out_nelems = 2049000;
  c.launch_ns = 1711964646000000000;
  c.start_ns = 1711964646000050000;
  c.duration_ns = 8196;
  c.exposed_ns = 100;
  c.anchor_ns = 1711964645999000000;
  c.pre_compute_ns = 700000;
  c.pre_comm_ns = 200000;
  c.pre_idle_ns = 150000;
  return row;
}

CollectiveRow ordinal_row(std::uint32_t partition, std::int32_t step, std::uint32_t order) {
  CollectiveRow row{partition, MatchTier::kOrdinal, instance_in_group0()};
  row.instance.kind = CollectiveKind::kBroadcast;
  row.instance.dtype = CollectiveDtype::kLong;
  row.instance.metadata = MetadataSource::kOp;
  row.instance.step = step;
  row.instance.order = order;
  row.instance.start_ns = 1000 + order;
  return row;
}

CollectiveRow timeline_row(std::uint32_t partition, std::uint16_t channel, std::int32_t step) {
  CollectiveRow row;
  row.partition = partition;
  row.tier = MatchTier::kTimeline;
  row.instance.kind = CollectiveKind::kAllToAll;
  row.instance.channel = channel;
  row.instance.step = step;
  row.instance.kernels = 2;
  row.instance.start_ns = 5;
  return row;
}

CollectiveRow send_row() {
  CollectiveRow row{9, MatchTier::kOrdinal, {}};
  CollectiveInstance& c = row.instance;
  c.kind = CollectiveKind::kSend;
  c.p2p = true;
  c.async = true;
  c.nvls = true;
  c.metadata = MetadataSource::kOp;
  c.pg_name = "pp";
  c.pg_description = "pipeline";
  c.pg_ranks =
      "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, "
      "22, 23, 24, 25, 26, 27, 28, ..., 127]";
  c.group_size = 128;
  c.global_rank_start = 0;
  c.global_rank_stride = 1;
  c.peer_rank = 4;
  c.group_rank = -7;
  c.in_bytes = 4096;
  c.out_bytes = 8192;
  return row;
}

ProcessGroup group0() {
  ProcessGroup g;
  g.name = "0";
  g.description = "default_pg";
  g.ranks_text = "[0, 1, 2, 3, 4, 5, 6, 7]";
  g.size = 8;
  g.rank_start = 0;
  g.rank_stride = 1;
  g.members = {0, 1, 2, 3, 4, 5, 6, 7};
  g.tier = MatchTier::kSeq;
  return g;
}

ProcessGroup pipeline_group() {
  ProcessGroup g = process_group_from(send_row().instance, MatchTier::kOrdinal);
  g.members_truncated = true;
  return g;
}

ActivityTotals totals(std::int64_t base) {
  ActivityTotals t;
  t.cpu_start_ns = base + 1;
  t.cpu_end_ns = base + 2;
  t.gpu_start_ns = base + 3;
  t.gpu_end_ns = base + 4;
  t.gpu_busy_ns = base + 5;
  t.compute_ns = base + 6;
  t.comm_ns = base + 7;
  t.exposed_comm_ns = base + 8;
  t.memcpy_ns = base + 9;
  t.idle_ns = base + 10;
  t.host_wait_idle_ns = base + 11;
  t.kernel_count = static_cast<std::uint64_t>(base + 12);
  return t;
}

// Every field of every section set to something other than its default.
RankSummary full_summary() {
  RankSummary s;
  SummaryMeta& m = s.meta;
  m.tool_version = "0.9.0";
  m.file_path = "/traces/rank-3.json.gz";
  m.file_size = 18446744073709551615ull;  // above int64: META must keep u64 numbers
  m.trace_rank = 3;
  m.world_size = 8;
  m.backend = "nccl";
  m.nccl_version = "2.17.1";
  m.pg_config_json = R"([{"pg_name":"0","pg_desc":"default_pg","pg_size":8}])";
  m.device_name = "NVIDIA H100 80GB HBM3";
  m.device_count = 8;
  m.platform = "h100";
  m.host_name = "node-a";
  m.gpu_pids = {0, 3, -1};
  m.events_read = 1234567;
  m.malformed_skipped = 2;
  m.collective_partitions = 64;
  m.status = RankStatus::kFailed;
  m.status_sentence = "rank 3: truncated gzip stream at byte 81223311; excluded";
  s.steps = {{551, totals(100)}, {552, totals(200)}};
  s.profile.totals = totals(1000);
  s.profile.utilization = {1.89, 52.38, 0.1, 1e-300, 47.62, 4};
  StepBins bins;
  bins.step = 551;
  for (std::uint32_t i = 0; i < kBinsPerStep; ++i) {
    bins.compute_us[i] = i * 1000;
    bins.comm_us[i] = 4000000000u - i;
  }
  s.step_bins = {bins};
  s.kernels = {{"ncclDevKernel_AllReduce_Sum_f32_RING_LL", 21, 987654321},
               {"sm90_xmma_gemm_bf16bf16", 1000, 5}};
  s.findings = {{"straggler", "rank-3", "system", "communication", "Rank 3 arrives late", 0.5, 1.25,
                 -2.0, "latency", "nccl", "ncclDevKernel_AllReduce_Sum_f32_RING_LL"}};
  s.process_groups = {group0(), pipeline_group()};
  CollectiveRow unknown_kind = timeline_row(1, 203, 552);
  unknown_kind.instance.kind = static_cast<CollectiveKind>(200);  // a newer writer's kind
  unknown_kind.instance.dtype = static_cast<CollectiveDtype>(99);
  s.collectives = {seq_row(7, 3000), ordinal_row(7, 5, 0),     send_row(),
                   unknown_kind,     timeline_row(1, 84, 551), seq_row(7, 12)};
  sort_collective_rows(s.collectives);
  return s;
}

// ---- Comparisons, field by field (the model type has no operator==)

void expect_same_instance(const CollectiveInstance& a, const CollectiveInstance& b) {
  EXPECT_EQ(a.kind, b.kind);
  EXPECT_EQ(a.dtype, b.dtype);
  EXPECT_EQ(a.metadata, b.metadata);
  EXPECT_EQ(a.p2p, b.p2p);
  EXPECT_EQ(a.async, b.async);
  EXPECT_EQ(a.nvls, b.nvls);
  EXPECT_EQ(a.pg_name, b.pg_name);
  EXPECT_EQ(a.pg_description, b.pg_description);
  EXPECT_EQ(a.pg_ranks, b.pg_ranks);
  EXPECT_EQ(a.global_rank_start, b.global_rank_start);
  EXPECT_EQ(a.global_rank_stride, b.global_rank_stride);
  EXPECT_EQ(a.group_size, b.group_size);
  EXPECT_EQ(a.group_rank, b.group_rank);
  EXPECT_EQ(a.peer_rank, b.peer_rank);
  EXPECT_EQ(a.seq, b.seq);
  EXPECT_EQ(a.comms_id, b.comms_id);
  EXPECT_EQ(a.step, b.step);
  EXPECT_EQ(a.channel, b.channel);
  EXPECT_EQ(a.stream, b.stream);
  EXPECT_EQ(a.kernels, b.kernels);
  EXPECT_EQ(a.order, b.order);
  EXPECT_EQ(a.in_nelems, b.in_nelems);
  EXPECT_EQ(a.out_nelems, b.out_nelems);
  EXPECT_EQ(a.in_bytes, b.in_bytes);
  EXPECT_EQ(a.out_bytes, b.out_bytes);
  EXPECT_EQ(a.launch_ns, b.launch_ns);
  EXPECT_EQ(a.start_ns, b.start_ns);
  EXPECT_EQ(a.duration_ns, b.duration_ns);
  EXPECT_EQ(a.exposed_ns, b.exposed_ns);
  EXPECT_EQ(a.anchor_ns, b.anchor_ns);
  EXPECT_EQ(a.pre_compute_ns, b.pre_compute_ns);
  EXPECT_EQ(a.pre_comm_ns, b.pre_comm_ns);
  EXPECT_EQ(a.pre_idle_ns, b.pre_idle_ns);
}

void expect_same_rows(const std::vector<CollectiveRow>& a, const std::vector<CollectiveRow>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    SCOPED_TRACE("row " + std::to_string(i));
    EXPECT_EQ(a[i].partition, b[i].partition);
    EXPECT_EQ(a[i].tier, b[i].tier);
    expect_same_instance(a[i].instance, b[i].instance);
  }
}

void expect_same_summary(const RankSummary& a, const RankSummary& b) {
  EXPECT_EQ(a.meta, b.meta);
  EXPECT_EQ(a.steps, b.steps);
  EXPECT_EQ(a.profile, b.profile);
  EXPECT_EQ(a.step_bins, b.step_bins);
  EXPECT_EQ(a.kernels, b.kernels);
  EXPECT_EQ(a.findings, b.findings);
  EXPECT_EQ(a.process_groups, b.process_groups);
  expect_same_rows(a.collectives, b.collectives);
}

// ---- CRC-32C

TEST(RankSummaryFile, Crc32cMatchesTheStandardCheckValues) {
  EXPECT_EQ(crc32c("123456789"), 0xE3069283u);  // the catalogue's check value
  EXPECT_EQ(crc32c(""), 0u);
  EXPECT_EQ(crc32c(std::string(32, '\0')), 0x8A9136AAu);    // RFC 3720 B.4
  EXPECT_EQ(crc32c(std::string(32, '\xFF')), 0x62A8AB43u);  // RFC 3720 B.4
  EXPECT_EQ(crc32c("6789", crc32c("12345")), 0xE3069283u);  // continues across pieces
}

// ---- Round trip

TEST(RankSummaryFile, EverySectionRoundTrips) {
  const RankSummary summary = full_summary();
  const RankSummary back = decode_rank_summary(encode_rank_summary(summary), "x.tpsum");
  expect_same_summary(back, summary);
  // Partition 1 (timeline: channel 84 before 203), 7 (seq 12, seq 3000, then ordinal), 9.
  std::vector<std::uint32_t> partitions;
  for (const CollectiveRow& row : back.collectives) partitions.push_back(row.partition);
  EXPECT_EQ(partitions, (std::vector<std::uint32_t>{1, 1, 7, 7, 7, 9}));
  EXPECT_EQ(back.collectives[0].instance.channel, 84);
  EXPECT_EQ(back.collectives[2].instance.seq, 12);
  EXPECT_EQ(back.collectives[3].instance.seq, 3000);
  EXPECT_EQ(back.collectives[4].tier, MatchTier::kOrdinal);
}

TEST(RankSummaryFile, FileRoundTripsAndLeavesNoTemporary) {
  testing::TempDir dir;
  const std::string path = dir.file("rank-00003.tpsum");
  write_rank_summary_file(full_summary(), path);
  write_rank_summary_file(full_summary(), path);  // replaces the first one
  expect_same_summary(read_rank_summary_file(path), full_summary());
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()), {}), 1);
  EXPECT_EQ(testing::read_file(path), encode_rank_summary(full_summary()));
}

TEST(RankSummaryFile, MissingFileIsOneSentence) {
  EXPECT_EQ(error_of([] { read_rank_summary_file("/nonexistent/r.tpsum"); }),
            "rank summary /nonexistent/r.tpsum cannot be opened.");
}

TEST(RankSummaryFile, WritingIsDeterministic) {
  RankSummary shuffled = full_summary();
  std::reverse(shuffled.collectives.begin(), shuffled.collectives.end());
  EXPECT_EQ(encode_rank_summary(shuffled), encode_rank_summary(full_summary()));
}

TEST(RankSummaryFile, EmptySummaryRoundTrips) {
  const RankSummary back = decode_rank_summary(encode_rank_summary(RankSummary{}), "x.tpsum");
  expect_same_summary(back, RankSummary{});
}

TEST(RankSummaryFile, WhatCollRowsDoNotHoldReadsBackAsDocumented) {
  RankSummary summary;
  CollectiveRow row = seq_row(0, 5);
  row.instance.stream = 84;  // not stored: `channel` is the matching identity
  row.instance.seq = 9;      // disagrees with `order` (5): `order` wins
  summary.collectives = {row};
  const RankSummary back = decode_rank_summary(encode_rank_summary(summary), "x.tpsum");
  ASSERT_EQ(back.collectives.size(), 1u);
  EXPECT_EQ(back.collectives[0].instance.stream, -1);
  EXPECT_EQ(back.collectives[0].instance.seq, -1);
  EXPECT_EQ(back.collectives[0].instance.order, 5u);
}

TEST(RankSummaryFile, GroupsTheRowsNameButTheListLacksAreAppended) {
  RankSummary summary;
  summary.collectives = {seq_row(0, 1), send_row()};
  const RankSummary back = decode_rank_summary(encode_rank_summary(summary), "x.tpsum");
  // Rows in order: partition 0 (seq) before partition 9 (send); groups in first-use order.
  ASSERT_EQ(back.process_groups.size(), 2u);
  ProcessGroup first = group0();
  first.members.clear();
  EXPECT_EQ(back.process_groups[0], first);
  EXPECT_EQ(back.process_groups[1], process_group_from(send_row().instance, MatchTier::kOrdinal));
  expect_same_rows(back.collectives, {seq_row(0, 1), send_row()});
}

TEST(RankSummaryFile, ListsAreCutToTheirCaps) {
  RankSummary summary;
  summary.kernels.resize(kMaxSummaryKernels + 3, {"k", 1, 1});
  summary.step_bins.resize(kMaxBinnedSteps + 1);
  summary.findings.push_back({});
  // 63 ASCII bytes then "é" (C3 A9): a cut at 64 bytes would split the character.
  summary.findings[0].first_evidence = std::string(63, 'a') + "\xC3\xA9";
  const RankSummary back = decode_rank_summary(encode_rank_summary(summary), "x.tpsum");
  EXPECT_EQ(back.kernels.size(), 64u);
  EXPECT_EQ(back.step_bins.size(), 64u);
  EXPECT_EQ(back.findings[0].first_evidence, std::string(63, 'a'));
  EXPECT_EQ(truncate_utf8(std::string(62, 'a') + "\xC3\xA9" + "b", 64),
            std::string(62, 'a') + "\xC3\xA9");
}

// ---- The COLL row

TEST(RankSummaryFile, CollRowIs136BytesInTheSpecFieldOrder) {
  static_assert(kCollectiveRowBytes == 136);
  RankSummary summary;
  summary.process_groups = {group0()};
  CollectiveRow row{0x01020304, MatchTier::kOrdinal, instance_in_group0()};
  CollectiveInstance& c = row.instance;
  c.kind = CollectiveKind::kAllGather;   // 2
  c.dtype = CollectiveDtype::kBFloat16;  // 4
  c.async = true;                        // flag 0x02
  c.metadata = MetadataSource::kOp;      // 2 << 2 = 0x08
  c.nvls = true;                         // 0x10
  c.order = 77;
  c.seq = 77;  // order is Seq: 0x20
  c.channel = 84;
  c.kernels = 3;
  c.group_rank = 5;
  c.peer_rank = -1;
  c.step = 551;
  c.comms_id = 0x1122334455667788ull;
  c.in_nelems = 0x0A;
  c.out_nelems = 0x0B;
  c.in_bytes = 0x0C;
  c.out_bytes = 0x0D;
  c.launch_ns = 0x0E;
  c.start_ns = 0x0102030405060708;
  c.duration_ns = 0x10;
  c.exposed_ns = 0x11;
  c.anchor_ns = 0x12;
  c.pre_compute_ns = 0x13;
  c.pre_comm_ns = 0x14;
  c.pre_idle_ns = -2;
  summary.collectives = {row};

  const std::string coll = section(split(encode_rank_summary(summary)), "COLL").payload;
  ASSERT_EQ(coll.size(), 8u + 136u);
  EXPECT_EQ(coll.substr(0, 8), le(136, 4) + le(1, 4));  // row size, row count
  const std::string r = coll.substr(8);
  EXPECT_EQ(r.substr(0, 4), std::string("\x04\x03\x02\x01", 4));  // partition
  EXPECT_EQ(r.substr(4, 4), std::string("\x01\x02\x04\x3A", 4));  // tier, kind, dtype, flags
  EXPECT_EQ(r.substr(8, 4), le(0, 4));                            // pg id: PGRP row 0
  EXPECT_EQ(r.substr(12, 2), le(84, 2));
  EXPECT_EQ(r.substr(14, 2), le(3, 2));
  EXPECT_EQ(r.substr(16, 4), le(5, 4));
  EXPECT_EQ(r.substr(20, 4), std::string(4, '\xFF'));  // peer rank -1
  EXPECT_EQ(r.substr(24, 4), le(551, 4));
  EXPECT_EQ(r.substr(28, 4), le(77, 4));
  EXPECT_EQ(r.substr(32, 8), std::string("\x88\x77\x66\x55\x44\x33\x22\x11", 8));
  // In/out nelems, in/out bytes, launch, start, duration, exposed, anchor, pre-compute,
  // pre-comm: one i64 each from byte 40.
  const std::uint64_t i64_fields[] = {0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x0102030405060708,
                                      0x10, 0x11, 0x12, 0x13, 0x14};
  for (std::size_t i = 0; i < std::size(i64_fields); ++i)
    EXPECT_EQ(read_le(r, 40 + 8 * i, 8), i64_fields[i]) << "i64 field " << i;
  EXPECT_EQ(r.substr(128, 8), "\xFE" + std::string(7, '\xFF'));  // pre-idle -2
}

TEST(RankSummaryFile, RowWithoutAGroupHasTheNoneId) {
  RankSummary summary;
  summary.collectives = {timeline_row(0, 84, 551)};
  const std::string coll = section(split(encode_rank_summary(summary)), "COLL").payload;
  EXPECT_EQ(coll.substr(8 + 8, 4), std::string(4, '\xFF'));
  EXPECT_EQ(coll.substr(8 + 7, 1), std::string(1, '\0'));  // no flags, metadata none
}

// ---- Order and partitions

TEST(RankSummaryFile, RowsAreSortedByPartitionKeyAndOrder) {
  RankSummary summary;
  summary.collectives = {seq_row(5, 2000),          // A: partition 5, Seq div 1024 = 1
                         ordinal_row(2, 4, 1),      // B: partition 2, ordinal, step 4
                         seq_row(5, 10),            // C: partition 5, Seq div 1024 = 0
                         timeline_row(2, 84, 551),  // D: partition 2, timeline
                         ordinal_row(2, 3, 0)};     // E: partition 2, ordinal, step 3
  const std::string bytes = encode_rank_summary(summary);
  const RankSummary back = decode_rank_summary(bytes, "x.tpsum");
  // Partition 2 first; there tiers seq < ordinal < timeline, ordinal rows by step: E, B, D.
  // Then partition 5 by Seq: C, A.
  expect_same_rows(back.collectives, {ordinal_row(2, 3, 0), ordinal_row(2, 4, 1),
                                      timeline_row(2, 84, 551), seq_row(5, 10), seq_row(5, 2000)});
  EXPECT_EQ(decode_partition_index(bytes, "x.tpsum"),
            (std::vector<PartitionExtent>{{2, 0, 3}, {5, 3, 2}}));
  const std::string cidx = section(split(bytes), "CIDX").payload;
  EXPECT_EQ(cidx,
            le(12, 4) + le(2, 4) + le(2, 4) + le(0, 4) + le(3, 4) + le(5, 4) + le(3, 4) + le(2, 4));
}

TEST(RankSummaryFile, OnePartitionIsReadThroughCidx) {
  RankSummary summary;
  summary.collectives = {seq_row(5, 2000),         ordinal_row(2, 4, 1), seq_row(5, 10),
                         timeline_row(2, 84, 551), ordinal_row(2, 3, 0), send_row()};
  const std::string bytes = encode_rank_summary(summary);
  expect_same_rows(decode_partition_rows(bytes, 5, "x.tpsum"), {seq_row(5, 10), seq_row(5, 2000)});
  expect_same_rows(decode_partition_rows(bytes, 9, "x.tpsum"), {send_row()});
  EXPECT_TRUE(decode_partition_rows(bytes, 3, "x.tpsum").empty());
  EXPECT_TRUE(decode_partition_rows(encode_rank_summary(RankSummary{}), 0, "x.tpsum").empty());
}

TEST(RankSummaryFile, PartitionReadTrustsOnlyAConsistentCidx) {
  RankSummary summary;
  summary.collectives = {seq_row(5, 10), ordinal_row(2, 3, 0)};
  std::vector<RawSection> sections = split(encode_rank_summary(summary));
  for (RawSection& s : sections)  // CIDX row 0 claims two rows for partition 2
    if (s.tag == "CIDX") s.payload = le(12, 4) + le(1, 4) + le(2, 4) + le(0, 4) + le(2, 4);
  const std::string bytes = assemble(sections);
  EXPECT_NE(
      error_of([&] { decode_partition_rows(bytes, 2, "x.tpsum"); }).find("is corrupt at byte"),
      std::string::npos);
  EXPECT_NE(decode_error(bytes).find("is corrupt at byte"), std::string::npos);
}

// ---- Versions and unknown sections

TEST(RankSummaryFile, UnknownSectionIsSkipped) {
  std::vector<RawSection> sections = split(encode_rank_summary(full_summary()));
  sections.insert(sections.begin() + 3, {"ZZZZ", "whatever a newer writer adds"});
  sections.push_back({std::string("\x01\x02\x03\x04", 4), ""});
  expect_same_summary(decode_rank_summary(assemble(sections), "x.tpsum"), full_summary());
}

TEST(RankSummaryFile, OtherMajorIsRefusedInOneSentence) {
  std::string bytes = encode_rank_summary(full_summary());
  bytes.replace(4, 4, le(2, 2) + le(0, 2));  // version 2.0; no CRC fix: refused before
  EXPECT_EQ(decode_error(bytes),
            "rank summary x.tpsum has format version 2.0; this traceprism reads version 1.x.");
  bytes.replace(4, 4, le(0, 2) + le(7, 2));
  EXPECT_EQ(decode_error(bytes),
            "rank summary x.tpsum has format version 0.7; this traceprism reads version 1.x.");
}

TEST(RankSummaryFile, NewerMinorWithLongerRowsIsRead) {
  std::vector<RawSection> sections = split(encode_rank_summary(full_summary()));
  for (RawSection& s : sections) {
    if (s.tag != "COLL" && s.tag != "STEP") continue;
    // A 1.3 writer appended an 8-byte field to each row.
    const std::size_t row_size = read_le(s.payload, 0, 4);
    const std::size_t rows = read_le(s.payload, 4, 4);
    std::string longer = le(row_size + 8, 4) + le(rows, 4);
    for (std::size_t i = 0; i < rows; ++i)
      longer += s.payload.substr(8 + i * row_size, row_size) + le(0xABCDEF, 8);
    s.payload = longer;
  }
  sections.push_back({"NEW1", "x"});
  expect_same_summary(decode_rank_summary(assemble(sections, 1, 3), "x.tpsum"), full_summary());
}

TEST(RankSummaryFile, AbsentSectionsReadAsEmptyButMetaIsRequired) {
  const std::string meta = R"({"rank":5,"status":"ok","some_later_key":[1,2]})";
  const RankSummary only_meta = decode_rank_summary(assemble({{"META", meta}}), "x.tpsum");
  EXPECT_EQ(only_meta.meta.trace_rank, 5);
  EXPECT_EQ(only_meta.meta.world_size, -1);
  EXPECT_TRUE(only_meta.collectives.empty());
  // 24 header bytes, no sections: the missing META is noticed at the end, byte 24.
  EXPECT_EQ(decode_error(assemble({})),
            "rank summary x.tpsum is corrupt at byte 24: its sections end without a META section.");
}

// ---- Damage

TEST(RankSummaryFile, EveryTruncationIsAnErrorWithItsOffset) {
  RankSummary summary;
  summary.meta.trace_rank = 1;
  summary.kernels = {{"k", 1, 2}};
  summary.collectives = {seq_row(0, 1), timeline_row(1, 0, 0)};
  const std::string bytes = encode_rank_summary(summary);
  ASSERT_GT(bytes.size(), 24u + 10 * 16u);
  for (std::size_t size = 0; size < bytes.size(); ++size) {
    const std::string message = decode_error(bytes.substr(0, size));
    ASSERT_NE(message.find("x.tpsum is truncated at byte " + std::to_string(size)),
              std::string::npos)
        << "size " << size << ": " << message;
  }
}

TEST(RankSummaryFile, CrcMismatchIsDetected) {
  std::string bytes = encode_rank_summary(full_summary());
  bytes[bytes.size() - 5] ^= 0x01;
  const std::string message = decode_error(bytes);
  EXPECT_EQ(
      message.rfind("rank summary x.tpsum is corrupt at byte 20: the stored CRC-32C is 0x", 0), 0u)
      << message;
}

TEST(RankSummaryFile, BadMagicAndTrailingBytesAreErrors) {
  std::string bytes = encode_rank_summary(RankSummary{});
  EXPECT_EQ(decode_error("TPRZ" + bytes.substr(4)),
            "rank summary x.tpsum is corrupt at byte 0: it does not start with \"TPRS\", so it is "
            "no rank summary.");
  EXPECT_EQ(decode_error("{\"traceEvents\": []}"),
            "rank summary x.tpsum is corrupt at byte 0: it does not start with \"TPRS\", so it is "
            "no rank summary.");
  const std::string total = std::to_string(bytes.size());
  EXPECT_EQ(decode_error(bytes + "xy"), "rank summary x.tpsum is corrupt at byte " + total +
                                            ": 2 bytes follow the end the header gives.");
}

TEST(RankSummaryFile, SectionLengthPastTheEndIsAnError) {
  const std::vector<RawSection> sections = {{"META", "{}"}, {"KERN", le(20, 4) + le(0, 4)}};
  std::string bytes = assemble(sections);
  // META's header at 24, payload 2 bytes; KERN's header at 24 + 16 + 2 = 42, length at 50.
  bytes.replace(50, 8, le(9, 8));
  fix_crc(bytes);
  EXPECT_EQ(decode_error(bytes),
            "rank summary x.tpsum is corrupt at byte 50: section KERN claims 9 bytes but only 8 "
            "remain.");
}

TEST(RankSummaryFile, RowBytesNotAMultipleOfTheRowSizeIsAnError) {
  // COLL payload at 24 + 16 + 2 + 16 = 58; its rows start 8 bytes later, at 66.
  const std::string rows(2 * 136 + 1, '\0');
  const std::string bytes = assemble({{"META", "{}"}, {"COLL", le(136, 4) + le(2, 4) + rows}});
  EXPECT_EQ(decode_error(bytes),
            "rank summary x.tpsum is corrupt at byte 66: section COLL holds 273 bytes of rows, "
            "not a multiple of its 136-byte row size.");
  const std::string short_rows =
      assemble({{"META", "{}"}, {"COLL", le(100, 4) + le(1, 4) + std::string(100, '\0')}});
  EXPECT_EQ(decode_error(short_rows),
            "rank summary x.tpsum is corrupt at byte 58: section COLL has 100-byte rows; format 1 "
            "rows are at least 136 bytes.");
}

TEST(RankSummaryFile, BadIdsAndValuesAreErrors) {
  // KERN payload at 58, its row at 66: the name id 3 is past a 1-entry STRS ("" only).
  const std::string strs = le(1, 4) + le(0, 4);
  const std::string kern = le(20, 4) + le(1, 4) + le(3, 4) + le(1, 8) + le(1, 8);
  EXPECT_EQ(decode_error(assemble({{"META", "{}"}, {"KERN", kern}, {"STRS", strs}})),
            "rank summary x.tpsum is corrupt at byte 66: string 3 is past the end of the "
            "1-entry STRS table.");
  EXPECT_EQ(decode_error(assemble({{"META", R"({"rank":"three"})"}})),
            "rank summary x.tpsum is corrupt at byte 40: META field \"rank\" is not an integer "
            "in range.");
  EXPECT_NE(decode_error(assemble({{"META", R"({"rank":)"}})).find("is not valid JSON"),
            std::string::npos);
}

// Flipping any byte (CRC repaired, so the damage reaches the section readers) must give a
// summary or an InputError: never a crash, an out-of-bounds read (the sanitizer build) or
// another exception.
TEST(RankSummaryFile, AnySingleByteDamageIsHandled) {
  RankSummary summary = full_summary();
  summary.kernels.resize(1);
  const std::string bytes = encode_rank_summary(summary);
  for (std::size_t at = 0; at < bytes.size(); ++at) {
    if (at >= 20 && at < 24) continue;
    for (unsigned char mask : {0x01, 0x80, 0xFF}) {
      std::string damaged = bytes;
      damaged[at] = static_cast<char>(damaged[at] ^ mask);
      fix_crc(damaged);
      try {
        decode_rank_summary(damaged, "x.tpsum");
        decode_partition_rows(damaged, 7, "x.tpsum");
      } catch (const io::InputError&) {
      }
    }
  }
}

// ---- The dump

RankSummary small_summary() {
  RankSummary s;
  s.meta.tool_version = "1.2.0";
  s.meta.file_path = "r0.json";
  s.meta.file_size = 10;
  s.meta.trace_rank = 0;
  s.meta.world_size = 2;
  s.meta.backend = "nccl";
  s.meta.nccl_version = "2.17.1";
  s.meta.device_name = "H100";
  s.meta.device_count = 1;
  s.meta.platform = "h100";
  s.meta.host_name = "n0";
  s.meta.gpu_pids = {0};
  s.meta.events_read = 100;
  s.meta.malformed_skipped = 1;
  s.meta.collective_partitions = 4;
  s.steps = {{4, {100, 200, 150, 260, 90, 60, 40, 20, 5, 20, 7, 12}}};
  s.profile.totals = {100, 200, 150, 260, 90, 60, 40, 20, 5, 20, 7, 12};
  s.profile.utilization = {0.11, 54.5, 18.25, 4.5, 22.75, 12};
  StepBins bins;
  bins.step = 4;
  for (std::uint32_t i = 0; i < kBinsPerStep; ++i) bins.compute_us[i] = i + 1;
  bins.comm_us[0] = 5;
  s.step_bins = {bins};
  s.kernels = {{"gemm", 3, 60}};
  s.findings = {{"cpu-idle", "idle", "system", "idle", "GPU idle", 0.5, 1.25, 2.0, "latency", "",
                 "ProfilerStep#4"}};
  ProcessGroup g;
  g.name = "0";
  g.description = "default_pg";
  g.ranks_text = "[0, 1]";
  g.size = 2;
  g.rank_start = 0;
  g.rank_stride = 1;
  g.members = {0, 1};
  g.tier = MatchTier::kOrdinal;
  s.process_groups = {g};
  CollectiveRow allreduce{1, MatchTier::kOrdinal, {}};
  CollectiveInstance& c = allreduce.instance;
  c.kind = CollectiveKind::kAllReduce;
  c.dtype = CollectiveDtype::kFloat;
  c.metadata = MetadataSource::kKernel;
  c.pg_name = "0";
  c.pg_description = "default_pg";
  c.pg_ranks = "[0, 1]";
  c.group_size = 2;
  c.global_rank_start = 0;
  c.global_rank_stride = 1;
  c.channel = 7;
  c.kernels = 1;
  c.group_rank = 0;
  c.step = 4;
  c.in_nelems = c.out_nelems = 2049000;
  c.launch_ns = 120;
  c.start_ns = 160;
  c.duration_ns = 30;
  c.exposed_ns = 10;
  c.anchor_ns = 100;
  c.pre_compute_ns = 40;
  c.pre_idle_ns = 20;
  CollectiveRow bare{0, MatchTier::kTimeline, {}};
  bare.instance.kernels = 2;
  bare.instance.step = 4;
  bare.instance.start_ns = 200;
  bare.instance.duration_ns = 10;
  s.collectives = {allreduce, bare};
  return s;
}

TEST(RankSummaryFile, DumpIsTheHandWrittenJson) {
  const std::string expected = R"({
  "META": {
    "tool_version": "1.2.0",
    "file_path": "r0.json",
    "file_size": 10,
    "rank": 0,
    "world_size": 2,
    "backend": "nccl",
    "nccl_version": "2.17.1",
    "pg_config": "",
    "device_name": "H100",
    "device_count": 1,
    "platform": "h100",
    "host_name": "n0",
    "gpu_pids": [0],
    "events_read": 100,
    "malformed_skipped": 1,
    "collective_partitions": 4,
    "status": "ok",
    "status_sentence": ""
  },
  "STRS": ["", "gemm", "cpu-idle", "idle", "system", "GPU idle", "latency", "ProfilerStep#4", "0", "default_pg", "[0, 1]"],
  "STEP": [
    {
      "step": 4,
      "cpu_start_ns": 100,
      "cpu_end_ns": 200,
      "gpu_start_ns": 150,
      "gpu_end_ns": 260,
      "gpu_busy_ns": 90,
      "compute_ns": 60,
      "comm_ns": 40,
      "exposed_comm_ns": 20,
      "memcpy_ns": 5,
      "idle_ns": 20,
      "host_wait_idle_ns": 7,
      "kernel_count": 12
    }
  ],
  "PROF": {
    "cpu_start_ns": 100,
    "cpu_end_ns": 200,
    "gpu_start_ns": 150,
    "gpu_end_ns": 260,
    "gpu_busy_ns": 90,
    "compute_ns": 60,
    "comm_ns": 40,
    "exposed_comm_ns": 20,
    "memcpy_ns": 5,
    "idle_ns": 20,
    "host_wait_idle_ns": 7,
    "kernel_count": 12,
    "gpu_utilization": {
      "total_time_ms": 0.11,
      "computation_time_percent": 54.5,
      "exposed_comm_time_percent": 18.25,
      "exposed_memcpy_time_percent": 4.5,
      "idle_time_percent": 22.75,
      "gpu_events": 12
    }
  },
  "BINS": [
    {
      "step": 4,
      "compute_us": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20],
      "comm_us": [5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
    }
  ],
  "KERN": [
    {
      "name": "gemm",
      "count": 3,
      "total_ns": 60
    }
  ],
  "FIND": [
    {
      "analyzer": "cpu-idle",
      "key": "idle",
      "tier": "system",
      "category": "idle",
      "title": "GPU idle",
      "impact_low": 0.5,
      "impact_mid": 1.25,
      "impact_high": 2,
      "bound_type": "latency",
      "library": "",
      "first_evidence": "ProfilerStep#4"
    }
  ],
  "PGRP": [
    {
      "name": "0",
      "description": "default_pg",
      "ranks_text": "[0, 1]",
      "tier": "ordinal",
      "members_truncated": false,
      "size": 2,
      "rank_start": 0,
      "rank_stride": 1,
      "members": [0, 1]
    }
  ],
  "COLL": [
    {
      "partition": 0,
      "tier": "timeline",
      "kind": "unknown",
      "dtype": "unknown",
      "p2p": false,
      "async": false,
      "metadata": "none",
      "nvls": false,
      "order_is_seq": false,
      "pg": null,
      "channel": 0,
      "kernels": 2,
      "group_rank": -1,
      "peer_rank": -1,
      "step": 4,
      "order": 0,
      "comms_id": 0,
      "in_nelems": -1,
      "out_nelems": -1,
      "in_bytes": -1,
      "out_bytes": -1,
      "launch_ns": -1,
      "start_ns": 200,
      "duration_ns": 10,
      "exposed_ns": 0,
      "anchor_ns": -1,
      "pre_compute_ns": 0,
      "pre_comm_ns": 0,
      "pre_idle_ns": 0
    },
    {
      "partition": 1,
      "tier": "ordinal",
      "kind": "allreduce",
      "dtype": "Float",
      "p2p": false,
      "async": false,
      "metadata": "kernel",
      "nvls": false,
      "order_is_seq": false,
      "pg": 0,
      "channel": 7,
      "kernels": 1,
      "group_rank": 0,
      "peer_rank": -1,
      "step": 4,
      "order": 0,
      "comms_id": 0,
      "in_nelems": 2049000,
      "out_nelems": 2049000,
      "in_bytes": -1,
      "out_bytes": -1,
      "launch_ns": 120,
      "start_ns": 160,
      "duration_ns": 30,
      "exposed_ns": 10,
      "anchor_ns": 100,
      "pre_compute_ns": 40,
      "pre_comm_ns": 0,
      "pre_idle_ns": 20
    }
  ],
  "CIDX": [
    {
      "partition": 0,
      "first_row": 0,
      "row_count": 1
    },
    {
      "partition": 1,
      "first_row": 1,
      "row_count": 1
    }
  ]
}
)";
  EXPECT_EQ(rank_summary_json(small_summary()), expected);
  // The dump of a read summary is the dump of the written one.
  EXPECT_EQ(rank_summary_json(decode_rank_summary(encode_rank_summary(small_summary()), "x")),
            expected);
}

TEST(RankSummaryFile, DumpNamesKindsThisBuildDoesNotKnow) {
  RankSummary s;
  s.collectives = {timeline_row(0, 1, 1)};
  s.collectives[0].instance.kind = static_cast<CollectiveKind>(200);
  const std::string dump = rank_summary_json(s);
  EXPECT_NE(dump.find("\"kind\": \"unknown(200)\""), std::string::npos);
  EXPECT_NE(dump.find("\"dtype\": \"unknown\""), std::string::npos);
}

}  // namespace
}  // namespace traceprism::multirank
