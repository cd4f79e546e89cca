// The findings of the cpu-idle analyzer: one per cause of GPU idle time (diagnosis.md §2.5),
// built from the host's idle attribution (ABI 1.6), each with the action its evidence allows.
#pragma once

#include <traceprism/sdk.hpp>

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace traceprism::plugins::cpu_idle {

struct CauseReportOptions {
  double min_percent = 2.0;  // a cause is reported from this % of the window
  std::int64_t evidence_gaps = 10;
  std::int64_t host_op_rows = 5;
};

// What a cause's finding says: facts of the trace its actions depend on.
struct TraceFacts {
  std::uint64_t graph_launches = 0;        // cudaGraphLaunch / hipGraphLaunch calls
  std::uint64_t pageable_host_copies = 0;  // host<->device copies from or to pageable memory
  std::uint64_t kernels = 0;
  std::vector<Row> steps;          // ProfilerStep#N annotations, by start
  std::vector<Row> launching_ops;  // host ops that own GPU work (op instances), sorted
  // Annotations that mark a warm-up region ("[param|...|warmup|forward]", "warmup"), by start,
  // outermost only: time in them is paid once, before the iterations that repeat.
  std::vector<Row> warmup_regions;
  // First calls of a cpu_op name that take at least 10x the median of its later calls (and
  // 1 ms or more): one-time setup (kernel selection, library initialisation), by start.
  std::vector<Row> first_call_outliers;
};

// The first_call_outliers of a trace's cpu_ops (TraceFacts), from the rows of Kind::kCpuOp.
std::vector<Row> first_call_outliers(const EventView& ev, const std::vector<Row>& cpu_ops);

// Whether an annotation's name marks a warm-up region: a "warmup", "warm_up" or "warm-up"
// token (case-insensitive, delimited by anything but a letter).
bool names_warmup_region(std::string_view name);

class IdleCauseFindings {
 public:
  IdleCauseFindings(Context& ctx, const IdleAttribution& idle, TraceFacts facts,
                    CauseReportOptions options);
  // Emits the findings and records the idle.<cause>_us figures.
  void emit_all();

 private:
  // The idle time held by every event of one name.
  struct Holder {
    std::int64_t ns = 0;
    std::int64_t largest_part_ns = 0;
    Row example = kNoRow;  // the event of the largest part, with its frame and top
    Row frame = kNoRow;
    Row top = kNoRow;
  };
  struct CauseTally {
    std::int64_t ns = 0;
    std::vector<std::size_t> gaps;        // gap indexes with time of this cause
    std::int64_t most_in_one_gap_ns = 0;  // the cause's time in the gap where it has most
    std::int64_t one_time_launch_ns = 0;  // in launch calls of 1 ms or more (first launches)
    std::int64_t warmup_ns = 0;           // inside warm-up regions
    std::int64_t first_call_ns = 0;       // inside first-call outliers (outside warm-up)
    std::map<std::string, std::int64_t> first_calls;  // that time by the outlier op's name
    std::int64_t once_ns = 0;                         // either of the two: not recovered by a fix
    std::int64_t short_gap_ns = 0;                    // in gaps under 10 µs
    std::map<std::string, Holder> holders;            // by the holding event's name
    std::map<std::string, Holder> recurring_holders;  // the same, outside the once_ns parts
  };

  void tally();
  static void add_to_holder(Holder& holder, const IdleAttribution::Part& part);
  void emit(IdleCause cause, const CauseTally& t);
  void emit_smaller_causes(std::vector<IdleCause> causes);
  Table smaller_causes_table(const std::vector<IdleCause>& causes) const;
  std::string while_phrase(IdleCause cause, const CauseTally& t) const;
  std::string title(IdleCause cause, const CauseTally& t) const;
  std::string insight(IdleCause cause, const CauseTally& t) const;
  std::string action(IdleCause cause, const CauseTally& t) const;
  std::string cause_action(IdleCause cause, const CauseTally& t) const;
  std::string reasoning(IdleCause cause, const CauseTally& t) const;
  std::vector<std::pair<std::string, Holder>> ranked_holders(const CauseTally& t) const;
  bool launches_gpu_work(Row op) const;
  double recurring_percent(IdleCause cause, const CauseTally& t) const;
  std::string holder_phrase(const CauseTally& t) const;  // "aten::item (train.py(42): step)"
  std::string step_of(std::int64_t ns) const;
  bool in_warmup_region(std::int64_t ns) const;
  Row first_call_holding(const IdleAttribution::Part& part) const;  // kNoRow: none
  std::string first_call_sentence(const CauseTally& t) const;
  std::string warmup_sentence(const CauseTally& t) const;
  Table gap_table(const CauseTally& t, std::vector<Row>& evidence) const;
  Table holder_table(const CauseTally& t) const;
  double percent_of_window(std::int64_t ns) const;

  Context& ctx_;
  EventView ev_;
  IdleAttribution idle_;
  TraceFacts facts_;
  CauseReportOptions options_;
  std::array<CauseTally, kIdleCauseCount> tallies_;
};

}  // namespace traceprism::plugins::cpu_idle
