// The tables of `multi_rank_csvs/` beyond ranks.csv (multi-rank.md §9.4), rendered as CSV text.
// Pure and deterministic: the same inputs give the same bytes, whatever order the ranks came
// in. Each function returns the whole file: a header line, then one line per row, "\n" line
// ends, text fields quoted as pandas writes them (only when they hold a comma, a quote or a
// newline), numbers in fixed precision, an empty field where a value is unknown.
// docs/multi-rank-csvs.md documents every column for users.
//
// The inputs are the cross-rank stages' own: the loaded ranks (RankInput: summary and the
// instances matching indexed), the MatchResult, the CrossRankFigures computed from them and
// the per-rank clock offsets those figures used (corrected time = written time − offset; ranks
// not listed have 0), so that every wait here is the one ranks.csv and the findings count.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>

#include "model/collective_instance.hpp"
#include "multirank/clock_alignment.hpp"
#include "multirank/collective_matching.hpp"
#include "multirank/cross_rank_figures.hpp"

namespace traceprism::multirank {

// Per rank: how far its clock runs ahead (CrossRankOptions::clock_offset_ns).
using RankClockOffsets = std::map<std::int32_t, std::int64_t>;

// process_groups.csv: one row per process group any loaded rank saw, a group being the six
// identity fields of ProcessGroup (name, description, ranks text, size, rank start, stride).
// A rank sees a group when its summary's PGRP lists it or one of its instances names it (the
// in-memory summary of `analyze` has no PGRP; a summary read from a .tpsum file has one), so
// `analyze` and `merge` give the same rows. Instances without any process-group metadata form
// one more row, with every identity field empty.
//   name              "Process Group Name"
//   description       "Process Group Description"
//   size              "Group size"; empty when unknown
//   members           expected members (§5.4) written compactly by format_rank_set ("0-3, 5";
//                     quoted, as it holds commas): from the rank list, else start/stride, else a
//                     truncated list that forms one progression; "truncated" when the list was
//                     cut and nothing recovers it; empty when unknown; for the row without
//                     metadata, the loaded ranks (what the timeline tier expects)
//   ranks_loaded      how many loaded ranks saw the group
//   tier              the group's matching tier (MatchResult::groups, by name): seq, ordinal,
//                     timeline
//   instances_matched collectives of the group matched across ranks (a MatchedCollective counts
//                     once, however many ranks it spans; its group is that of its lowest-rank
//                     member)
//   instances_complete of those, the complete ones (CrossRankFigures::instances)
//   instances_partial  instances_matched − instances_complete
// Rows: groups with metadata first, numeric names by value ("2" before "10"), then other names
// as text, then the remaining identity fields; the row without metadata last.
std::string process_groups_csv(std::span<const RankInput> ranks, const MatchResult& matches,
                               const CrossRankFigures& figures);

// clock_offsets.csv (§6 step 4): one row per node of ClockAlignment::nodes, ascending node.
//   node       the node number (§7.6)
//   offset_us  how far the node's clock runs ahead of the reference node's, µs, 3 decimals
//              (the estimate, whether or not applied; 0 for the reference node and for nodes
//              that share no instance with an estimated node)
//   mad_us     median absolute deviation of the δ samples, µs, 3 decimals
//   samples    δ samples behind the estimate
//   applied    true when the offset passed the significance test and corrects the times
std::string clock_offsets_csv(const ClockAlignment& clocks);

// straggler_summary.csv: TraceLens' table of that name (NcclAnalyser.build_df_straggler_summary,
// TraceLens/NcclAnalyser/nccl_analyser.py), its columns and definitions, over the complete
// instances of CrossRankFigures whose kind is a rendezvous kind TraceLens' implicit-sync set
// stands for (every kind but alltoallv, send and recv; §10), times on the aligned clock.
//   rank                 a rank that joined at least one such instance
//   total_wait_time_us   Σ wait, wait = latest member start − own start, µs, 1 decimal
//   mean_wait_time_us    total wait / instances the rank joined, µs, 1 decimal
//   times_arrived_last   instances where it started last (ties: the lowest rank; every
//                        instance counts, skewed or not, as in TraceLens)
//   times_arrived_first  instances where it started first (ties: the lowest rank; TraceLens
//                        breaks this tie to the highest)
//   pct_arrived_last     100 × times_arrived_last / num_collectives, 1 decimal
//   num_collectives      the instances of the table (the same on every row)
//   total_nccl_dur_us    Σ duration of all the rank's collective instances, matched or not,
//                        µs, 1 decimal (TraceLens sums kernel durations; an instance spans its
//                        kernels)
// Rows: total wait ascending (the straggler first), ties by rank.
std::string straggler_summary_csv(std::span<const RankInput> ranks, const MatchResult& matches,
                                  const CrossRankFigures& figures,
                                  const RankClockOffsets& clock_offset_ns);

// collectives_summary.csv: the families of §7.5 without histograms, over the complete
// instances of CrossRankFigures. A family is (process group, group size, kind, dtype, bytes);
// an instance's fields are those of its lowest-rank member (of its sender for send/recv).
//   process_group  "Process Group Description", or the name when the description is empty or
//                  "undefined" (PyTorch's default)
//   group_size     n: "Group size", else the matched members' count
//   kind           kind_name ("allreduce", ...)
//   dtype          dtype_name ("Float", ...; "unknown")
//   bytes          S of §7.2 (collective_message_bytes); empty when unknown
//   count          complete instances
//   transfer_total_us  Σ T (T = min member duration), µs, 3 decimals
//   transfer_mean_us   transfer_total_us / count, µs, 3 decimals
//   wait_total_us  Σ over instances and members of (latest start − own start), µs, 3 decimals
//   algbw_gbps     S × count / Σ T, GB/s (10^9 B/s), 3 decimals (= S / mean T); empty when S
//                  is unknown or Σ T = 0
//   busbw_gbps     algbw × f(n) (bus_bandwidth_factor), 3 decimals; empty when algbw is, or
//                  when the kind has no factor
// Rows: transfer total descending, then process_group, group_size, kind, dtype, bytes.
std::string collectives_summary_csv(std::span<const RankInput> ranks, const MatchResult& matches,
                                    const CrossRankFigures& figures,
                                    const RankClockOffsets& clock_offset_ns);

// collectives.csv (`--detail`): one row per matched collective, in MatchResult order, at most
// `max_rows` rows (the first ones). Fields come from the lowest-rank member (the sender of a
// send/recv pair); times are on the aligned clock.
//   process_group  "Process Group Name" (empty without metadata)
//   tier           seq, ordinal, timeline; p2p for a send/recv pair
//   step           the ProfilerStep of the partition key, else of the sample member; empty
//                  when none
//   key            MatchedCollective::key (Seq, ordinal, reference position, k-th send)
//   kind, dtype, bytes   as in collectives_summary.csv
//   ranks          the members, format_rank_set ("0-7"; quoted when it holds a comma)
//   complete       true when every expected loaded member is there (CrossRankFigures)
//   start_us       the earliest member start, absolute µs (baseTimeNanoseconds + ts), 3
//                  decimals
//   arrival_skew_us  latest − earliest member start, µs, 3 decimals
//   last_rank      the latest-starting member (ties: the lowest rank)
//   transfer_us    the shortest member duration, µs, 3 decimals
//   exposure_pct   x_c of §7.1 in percent, 1 decimal; empty for partial collectives
//   mismatch       true when the members disagree on their signature (seq tier)
std::string collectives_csv(std::span<const RankInput> ranks, const MatchResult& matches,
                            const CrossRankFigures& figures,
                            const RankClockOffsets& clock_offset_ns, std::size_t max_rows);

// S of §7.2 (nccl-tests convention, per rank), in bytes: allreduce, broadcast, reduce,
// reducescatter, alltoall = in bytes; allgather = out bytes (the whole gathered array);
// send, recv = the message (in bytes, else out bytes). Bytes are the instance's explicit
// in/out bytes when known, else nelems × dtype bytes. -1 when unknown or for other kinds.
std::int64_t collective_message_bytes(const model::CollectiveInstance& instance);

// f(n) of §7.2: allreduce 2(n−1)/n; allgather, reducescatter, alltoall (n−1)/n; broadcast,
// reduce, send, recv 1. nullopt for other kinds or n ≤ 0.
std::optional<double> bus_bandwidth_factor(model::CollectiveKind kind, std::int64_t group_size);

}  // namespace traceprism::multirank
