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

// nccl_summary_implicit_sync.csv: TraceLens' table of that name
// (NcclAnalyser.build_df_summary_nccl_implicit_sync_cat, TraceLens/NcclAnalyser/nccl_analyser.py,
// with the agg_metrics mean, median, min, max that generate_multi_rank_collective_report_pytorch
// passes), its columns and definitions, over the instances straggler_summary.csv counts (complete,
// every kind but alltoallv, send and recv; §10), so that Σ count = its num_collectives. One row
// per (collective name, dtype, in nelems); an instance's fields are those of its lowest-rank
// member. Per instance, as TraceLens: comm_latency = T (min member duration); skew in start time
// = latest − earliest start and skew in end time = latest − earliest end on the aligned clock;
// algo bw = Full msg size / T, bus bw = algo bw × f(n), where TraceLens' "MB" is MiB (2^20 B)
// and "GB/s" GiB/s (2^30 B/s; §7.2's QUIRK, kept here as the table's definition). The
// mean/median/min/max are over the row's instances (median of an even count: the mean of the
// two middle values; bandwidths skip instances with T = 0).
//   Collective name        kind_name ("allreduce", ...; TraceLens writes the profiler's name,
//                          "_allgather_base", ..., which the instances do not keep)
//   dtype                  dtype_name ("Float", ...; "unknown" where TraceLens writes "Unknown")
//   In msg nelems          the instance's in nelems; empty when unknown (TraceLens: "Unknown")
//   Process Group Name     of the row's first instance (MatchResult order), as TraceLens'
//                          "first"; empty without metadata (TraceLens: "Unknown_Group")
//   Group size             n of the first instance: "Group size", else the matched members'
//                          count (TraceLens leaves it empty)
//   Full msg size (MB)     S of §7.2 (collective_message_bytes) / 2^20 of the first instance that
//                          knows it, 6 decimals; empty when none does
//   comm_latency_{mean,median,min,max}         µs, 3 decimals
//   skew in start time_{mean,median,min,max}   µs, 3 decimals
//   skew in end time_{mean,median,min,max}     µs, 3 decimals
//   algo bw (GB/s)_{mean,median,min,max}       GiB/s, 3 decimals; empty when no instance of the
//                                              row has a bandwidth
//   bus bw (GB/s)_{mean,median,min,max}        GiB/s, 3 decimals; empty likewise, or when the
//                                              kind has no f(n)
//   count                  instances of the row
//   Total comm latency (ms)  Σ comm_latency, ms, 6 decimals
// Unlike TraceLens the bandwidth columns are always there (TraceLens drops them when no row has
// one), instances are matched by §5.2 rather than by TraceLens' k-th kernel of a process group,
// and partial instances are left out (TraceLens needs every rank). Rows: Total comm latency
// descending, then collective name, dtype, in nelems (unknown first).
std::string nccl_summary_implicit_sync_csv(std::span<const RankInput> ranks,
                                           const MatchResult& matches,
                                           const CrossRankFigures& figures,
                                           const RankClockOffsets& clock_offset_ns);

// alltoallv.csv (§7.2's alltoallv definitions): one row per complete matched alltoallv
// collective (all_to_allv, or all_to_all with unequal splits), in MatchResult order, with the
// numbers of the `xrank-alltoall-imbalance` finding: a member's volume is its in bytes
// (pattern_message_bytes: in_bytes, else in_nelems × dtype bytes), times on the aligned clock.
// The finding's median imbalance is the median of size_imbalance over the rows, its exposed
// time Σ exposed_wall_us and its saving Σ excess_exposed_us, over the rows whose sizes are known.
//   process_group  "Process Group Name" (empty without metadata)
//   step           the ProfilerStep of the partition key, else of the lowest-rank member;
//                  empty when none
//   key            MatchedCollective::key (as collectives.csv: Seq, ordinal, ...)
//   dtype          dtype_name of the lowest-rank member
//   ranks          the members, format_rank_set ("0-7"; quoted when it holds a comma)
//   start_us       the earliest member start, absolute µs, 3 decimals
//   wall_us        last member end − first member start, µs, 3 decimals (TraceLens wall_time)
//   transfer_us    T, the shortest member duration, µs, 3 decimals
//   arrival_skew_us  latest − earliest member start, µs, 3 decimals
//   in_bytes_total Σ of the members' in bytes (TraceLens "total data communicated"); this and
//                  the size columns below are empty unless every member knows its in bytes
//   in_bytes_mean  in_bytes_total / members, bytes, 1 decimal
//   in_bytes_min, in_bytes_max   the smallest and largest member's in bytes
//   max_rank       the member with the largest in bytes (ties: the lowest rank); empty when
//                  in_bytes_total is 0 or unknown, as are size_imbalance, throughput_gbps and
//                  excess_exposed_us
//   size_imbalance in_bytes_max / in_bytes_mean, 3 decimals (TraceLens size_imbalance)
//   throughput_gbps  in_bytes_total / wall, GB/s (10^9 B/s; TraceLens divides by 2^30), 3
//                  decimals; empty when the wall is 0
//   exposure_pct   x_c of §7.1 in percent, 1 decimal
//   exposed_wall_us  wall × x_c, µs, 3 decimals
//   excess_exposed_us  wall × (1 − mean/max) × x_c: the exposed time beyond what an even split
//                  would take, µs, 3 decimals
// TraceLens' per-pair volume matrix (from `In split size`) is not here: the instances keep only
// each rank's total.
std::string alltoallv_csv(std::span<const RankInput> ranks, const MatchResult& matches,
                          const CrossRankFigures& figures, const RankClockOffsets& clock_offset_ns);

// p2p.csv (§7.4): one row per (process group, sender, receiver) over the matched send/recv
// pairs (the k-th send a→b with the k-th recv at b from a), every step together, with the waits
// of the `xrank-pipeline-wait` finding: Σ recv_exposed_wait_us over the rows into a rank is that
// rank's exposed wait there. Every matched pair counts, as in the finding (a pair of a larger
// group is never "complete", so CrossRankFigures is not an input). Times on the aligned clock.
//   process_group  "Process Group Name" of the pairs (empty without metadata)
//   src_rank, dst_rank   the sender's and the receiver's global rank
//   pairs          matched send/recv pairs
//   bytes_total    Σ S (the message: collective_message_bytes of the send, else of the recv);
//                  empty when a pair's size is unknown
//   transfer_total_us  Σ T, T = min(send, recv duration), µs, 3 decimals
//   algbw_gbps     bytes_total / transfer_total, GB/s (10^9 B/s), 3 decimals; empty when
//                  bytes_total is or the transfer total is 0 (busbw = algbw for p2p)
//   late_sends     pairs whose send started after the recv
//   recv_wait_total_us  Σ late-sender wait: max(0, send start − recv start), at most the recv's
//                  duration (the wait happens inside it), µs, 3 decimals
//   recv_exposed_wait_us  Σ recv wait × the recv's exposure (per mille, as the finding), µs, 3
//                  decimals
//   late_receives  pairs whose recv started after the send
//   send_wait_total_us  Σ late-receiver wait: max(0, recv start − send start), at most the send's
//                  duration, µs, 3 decimals
// Rows: recv_wait_total_us descending, then process group name (as text), sender, receiver.
std::string p2p_csv(std::span<const RankInput> ranks, const MatchResult& matches,
                    const RankClockOffsets& clock_offset_ns);

// S of §7.2 (nccl-tests convention, per rank), in bytes: allreduce, broadcast, reduce,
// reducescatter, alltoall = in bytes; allgather = out bytes (the whole gathered array);
// send, recv = the message (in bytes, else out bytes). Bytes are the instance's explicit
// in/out bytes when known, else nelems × dtype bytes. -1 when unknown or for other kinds.
std::int64_t collective_message_bytes(const model::CollectiveInstance& instance);

// f(n) of §7.2: allreduce 2(n−1)/n; allgather, reducescatter, alltoall (n−1)/n; broadcast,
// reduce, send, recv 1. nullopt for other kinds or n ≤ 0.
std::optional<double> bus_bandwidth_factor(model::CollectiveKind kind, std::int64_t group_size);

}  // namespace traceprism::multirank
