// The `.tpsum` file (multi-rank.md §4): a RankSummary as bytes, so that ranks analysed in other
// threads, processes or runs can be merged.
//
// Layout, all integers little-endian:
//
//   header (24 bytes)
//     0  magic "TPRS"
//     4  u16 major (1)       6  u16 minor (0)
//     8  u32 section count  12  u64 total bytes (the whole file, header included)
//    20  u32 CRC-32C of bytes [0, 20) followed by bytes [24, total): every byte but itself
//   sections, back to back: u32 FourCC tag, u32 flags (0; readers ignore them), u64 payload
//   length, payload. A reader skips tags it does not know.
//
// Payloads of format 1.0, written in this order:
//   META  UTF-8 JSON object: tool_version, file_path, file_size, rank, world_size, backend,
//         nccl_version, pg_config (the JSON text as a string, kept byte for byte), device_name,
//         device_count, platform, host_name, gpu_pids, events_read, malformed_skipped,
//         collective_partitions, status ("ok" or "failed"), status_sentence. Readers ignore
//         unknown keys and take defaults for absent ones; invalid UTF-8 is written as U+FFFD.
//   STRS  u32 count, then count × (u32 length, bytes): the strings other sections name by
//         index; index 0 is ""
//   The other sections are tables: u32 row size, u32 row count, rows. A newer minor may make
//   rows longer (fields appended); a reader reads the prefix it knows and skips the rest.
//   STEP  104-byte rows: step i64; ActivityTotals (below)
//   PROF  one 144-byte row: ActivityTotals; gpu_utilization total_time_ms, computation %,
//         exposed comm %, exposed memcpy %, idle % (f64 ×5); gpu events u64
//   BINS  168-byte rows: step i64; compute µs u32 ×20; comm µs u32 ×20
//   KERN  20-byte rows: name string u32; count u64; total ns i64
//   FIND  56-byte rows: analyzer, key, tier, category, title strings u32 ×5; impact low, mid,
//         high f64 ×3; bound type, library, first evidence (≤ 64 bytes) strings u32 ×3
//   PGRP  48-byte rows, then u32 member count and that many i32 ranks (every row's exact
//         member list, concatenated). Row: name, description, ranks text strings u32 ×3;
//         tier u8; flags u8 (bit 0: ranks text truncated); u16 0; size, rank start, rank
//         stride i64 ×3; first member u32; member count u32
//   COLL  136-byte rows in collective_row_less order (row layout below)
//   CIDX  12-byte rows: partition u32; first COLL row u32; row count u32, by partition
//   ActivityTotals (96 bytes): CPU start, CPU end, GPU start, GPU end, GPU busy, compute,
//   comm, exposed comm, memcpy, idle, host-wait idle ns i64 ×11; kernel count u64.
//   f64 is the IEEE-754 bit pattern as a u64.
//
// COLL row v1 (136 bytes), §4's field order:
//     0 partition u32           4 tier u8 (0 seq, 1 ordinal, 2 timeline)
//     5 kind u8 (CollectiveKind) 6 dtype u8 (CollectiveDtype)
//     7 flags u8: bit 0 p2p, bit 1 async, bits 2-3 metadata source (0 none, 1 kernel, 2 op),
//       bit 4 NVLS, bit 5 `order` is the instance's Seq, bits 6-7 0
//     8 pg id u32: index of the PGRP row, 0xFFFFFFFF when the instance names no group
//    12 channel u16   14 kernels u16   16 group rank i32   20 peer rank i32   24 step i32
//    28 order u32     32 comms id u64  40 in nelems i64    48 out nelems i64
//    56 in bytes i64  64 out bytes i64 72 launch ns i64    80 start ns i64
//    88 duration ns i64   96 exposed ns i64   104 anchor ns i64
//   112 pre-compute ns i64   120 pre-comm ns i64   128 pre-idle ns i64
// The instance's group name, description, ranks text, group size, rank start and stride live
// in the PGRP row the pg id names; Seq is `order` when flag bit 5 is set, else -1 (the model's
// `order` holds Seq whenever the instance has one). The raw stream id is not stored (`channel`
// is the matching identity): it reads back as -1. Kind and dtype values this build does not know
// (a newer writer's) pass through unchanged; a tier above 2 is refused as corruption.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "multirank/rank_summary.hpp"

namespace traceprism::multirank {

inline constexpr std::uint16_t kRankSummaryMajor = 1;
inline constexpr std::uint16_t kRankSummaryMinor = 0;
inline constexpr std::size_t kRankSummaryHeaderBytes = 24;
inline constexpr std::size_t kSectionHeaderBytes = 16;
inline constexpr std::size_t kCollectiveRowBytes = 136;
inline constexpr std::uint32_t kNoProcessGroup = 0xFFFFFFFF;

// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), continuing from `crc`:
// crc32c(b, crc32c(a)) == crc32c(a + b); crc32c("123456789") == 0xE3069283.
std::uint32_t crc32c(std::string_view bytes, std::uint32_t crc = 0);

// The file's bytes. Collective rows are written in collective_row_less order whatever their
// order in `summary`; a group a row names but `summary.process_groups` lacks is appended to
// PGRP (process_group_from). Lists longer than the caps of rank_summary.hpp are cut to them.
std::string encode_rank_summary(const RankSummary& summary);

// Writes atomically: a temporary file in the same folder, renamed over `path` once complete.
// Throws std::runtime_error naming the path when it cannot.
void write_rank_summary_file(const RankSummary& summary, const std::string& path);

// Reading checks everything before trusting it. A file of another major version, a truncated or
// corrupt one throws io::InputError with one sentence naming `name` (the file, in messages)
// and, for damage, the byte offset ("rank summary r.tpsum is corrupt at byte 512: ...").
RankSummary decode_rank_summary(std::string_view bytes, const std::string& name);
RankSummary read_rank_summary_file(const std::string& path);

// The CIDX of a summary, and the rows of one partition (empty when the rank has none), decoded
// without the other partitions' rows or the META, STEP, ... sections.
std::vector<PartitionExtent> decode_partition_index(std::string_view bytes,
                                                    const std::string& name);
std::vector<CollectiveRow> decode_partition_rows(std::string_view bytes, std::uint32_t partition,
                                                 const std::string& name);

// `traceprism summary dump`: the summary as a file holds it, as indented JSON with a fixed key
// order: one member per section in file order (META, STRS, STEP, PROF, BINS, KERN, FIND, PGRP,
// COLL, CIDX). String ids are shown as their text; COLL rows are objects with the row's
// fields by name, kind and dtype by name, `pg` the PGRP index (null for none) and the Seq flag
// as `order_is_seq`.
std::string rank_summary_json(const RankSummary& summary);

}  // namespace traceprism::multirank
