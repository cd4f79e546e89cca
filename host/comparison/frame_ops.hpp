// The pandas operations the reference's report comparison applies to sheets (trace-format spec
// §14.1), on SheetFrame: renaming, dropping, an outer merge on key columns, sorting and
// filtering rows, and dropping all-NaN columns. Each mirrors the pandas call it names.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "comparison/sheet_frame.hpp"

namespace traceprism::comparison {

// df.rename: every column not in `keys` becomes "<tag>::<name>".
void prefix_columns(SheetFrame& frame, const std::string& tag,
                    const std::vector<std::string>& keys);

// df.drop(columns=names, errors="ignore").
void drop_columns(SheetFrame& frame, const std::vector<std::string>& names);

// pandas 2's pd.merge(left, right, on=keys, how="outer"): rows in lexicographic key order
// (numbers, then text in code-point order, then NaN; NaN keys match each other), a key held by
// several rows on both sides gives every left-right pair (left-major), unmatched rows get NaN in
// the other side's columns. Columns: keys, then left's other columns, then right's. Every key
// must be a column of both.
SheetFrame outer_merge(const SheetFrame& left, const SheetFrame& right,
                       const std::vector<std::string>& keys);

// df.sort_values(column, ascending=False, na_position="last"), ties in their current order
// (pandas' default quicksort is not stable for large frames; a stable order is deterministic).
// Values that are not numbers sort as NaN.
void sort_rows_descending(SheetFrame& frame, const std::string& column);

// df.loc[mask]: the rows for which keep(row) holds, in order.
SheetFrame select_rows(const SheetFrame& frame, const std::function<bool(std::size_t)>& keep);

// df[names]: the named columns in that order (names absent from the frame are skipped).
SheetFrame select_columns(const SheetFrame& frame, const std::vector<std::string>& names);

// df.dropna(axis=1, how="all"): a frame without rows loses every column.
void drop_all_missing_columns(SheetFrame& frame);

}  // namespace traceprism::comparison
