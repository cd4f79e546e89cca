// Which serving step an inference attention op ran in (inference-mode spec §2.3): the
// attention models read the step's token sums from its annotation. Merged ops carry their
// graph launch's time, so they bind to the step that replayed them.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "index/event_index.hpp"

namespace traceprism::model {

using index::Row;

// The ops spec §2.3 binds (names starting with one of its list; QUIRK kept: other modelled
// attention ops get no annotation).
bool binds_step_annotation(std::string_view op_name);

// {c_sq, c_sk, c_sqsq, c_sqsk, g_sq, g_sk, g_sqsq, g_sqsk} of an annotation.
using StepStats = std::array<std::int64_t, 8>;

class StepBinding {
 public:
  static StepBinding build(const index::EventIndex& index);

  // The sums of the annotation `op` is bound to: the earliest-starting user annotation (any
  // category containing "user_annotation") with start <= the op's start and the op's end
  // strictly before its end; nullopt when the op's name is not bound, there is none, or it
  // writes no sums (a native format).
  std::optional<StepStats> stats(const index::EventIndex& index, Row op) const;

 private:
  std::vector<Row> annotations_;       // by (start, row)
  std::vector<std::int64_t> max_end_;  // running maximum of their ends
};

}  // namespace traceprism::model
