// The text of a compute finding (analysis spec §16): the reference leaves titles, insight,
// action and the detailed identification / reasoning / resolution to an LLM sub-agent; here they
// are deterministic templates that cite the finding's numbers, keyed by the same fields the
// reference groups on (category, bound type, library, efficiency band). The Data table is the
// reference's 10-column table (§10.6), one row per member op.
#pragma once

#include <traceprism/sdk.hpp>

#include <string>

#include "compute_category.hpp"

namespace traceprism::plugins::compute {

struct FindingText {
  std::string title;  // without the library: the report appends " (<library>)"
  std::string insight, action, identification, reasoning, resolution;
};

FindingText finding_text(const CategoryMetrics& m, const CategoryFinding& f);

// | Operation | Args | Kernel Path | Kernel Name | Time (ms) | %E2E | Count | FLOPS/Byte |
// Efficiency | Bound | (+ Sub-Category for generic ops; the comparative columns in that scope).
Table data_table(const CategoryMetrics& m, const CategoryFinding& f);

// A rounded number as Python prints it ("10.89", "100.0", "708"): integral values keep ".0"
// unless `integral_bare`.
std::string py_number(double x, bool integral_bare = false);

}  // namespace traceprism::plugins::compute
