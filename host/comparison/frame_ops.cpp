#include "comparison/frame_ops.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace traceprism::comparison {

namespace {

constexpr std::size_t kNoRow = static_cast<std::size_t>(-1);

bool contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// Python's order of sorted merge keys: numbers (booleans are 0 / 1, as True == 1) before text
// (pandas sorts mixed object keys numbers first), NaN after everything.
int key_rank(const FrameValue& v) {
  if (v.missing()) return 2;
  return v.kind == FrameValue::Kind::kText ? 1 : 0;
}

int compare_key_values(const FrameValue& a, const FrameValue& b) {
  const int ra = key_rank(a), rb = key_rank(b);
  if (ra != rb) return ra < rb ? -1 : 1;
  if (ra == 2) return 0;
  if (ra == 1) return a.text.compare(b.text);
  if (a.kind != FrameValue::Kind::kReal && b.kind != FrameValue::Kind::kReal)
    return a.integer < b.integer ? -1 : (a.integer > b.integer ? 1 : 0);
  const double x = a.number(), y = b.number();
  return x < y ? -1 : (x > y ? 1 : 0);
}

using KeyColumns = std::vector<const FrameColumn*>;

KeyColumns key_columns(const SheetFrame& frame, const std::vector<std::string>& keys) {
  KeyColumns out;
  for (const std::string& key : keys) {
    const FrameColumn* column = frame.find(key);
    if (column == nullptr) throw std::invalid_argument("merge key '" + key + "' is not a column");
    out.push_back(column);
  }
  return out;
}

int compare_rows(const KeyColumns& a, std::size_t ra, const KeyColumns& b, std::size_t rb) {
  for (std::size_t k = 0; k < a.size(); ++k)
    if (int c = compare_key_values(a[k]->values[ra], b[k]->values[rb]); c != 0) return c;
  return 0;
}

std::vector<std::size_t> rows_in_key_order(const SheetFrame& frame, const KeyColumns& keys) {
  std::vector<std::size_t> order(frame.rows);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
    return compare_rows(keys, x, keys, y) < 0;
  });
  return order;
}

// Rows [begin, end) of `order` that share the key of order[begin].
std::size_t group_end(const std::vector<std::size_t>& order, std::size_t begin,
                      const KeyColumns& keys) {
  std::size_t end = begin + 1;
  while (end < order.size() && compare_rows(keys, order[begin], keys, order[end]) == 0) ++end;
  return end;
}

struct RowPair {
  std::size_t left, right;  // kNoRow: no row on that side
};

std::vector<RowPair> full_outer_join(const SheetFrame& left, const KeyColumns& left_keys,
                                     const SheetFrame& right, const KeyColumns& right_keys) {
  const std::vector<std::size_t> lo = rows_in_key_order(left, left_keys);
  const std::vector<std::size_t> ro = rows_in_key_order(right, right_keys);
  std::vector<RowPair> pairs;
  std::size_t li = 0, ri = 0;
  while (li < lo.size() || ri < ro.size()) {
    const int c = li == lo.size()   ? 1
                  : ri == ro.size() ? -1
                                    : compare_rows(left_keys, lo[li], right_keys, ro[ri]);
    if (c < 0) {
      pairs.push_back({lo[li++], kNoRow});
    } else if (c > 0) {
      pairs.push_back({kNoRow, ro[ri++]});
    } else {
      const std::size_t l_end = group_end(lo, li, left_keys), r_end = group_end(ro, ri, right_keys);
      for (std::size_t l = li; l < l_end; ++l)
        for (std::size_t r = ri; r < r_end; ++r) pairs.push_back({lo[l], ro[r]});
      li = l_end;
      ri = r_end;
    }
  }
  return pairs;
}

// The merged key column takes each row's key from whichever side has the row.
FrameColumn merged_key(const FrameColumn& l, const FrameColumn& r,
                       const std::vector<RowPair>& pairs) {
  FrameColumn out{l.name, l.type, {}};
  out.values.reserve(pairs.size());
  for (const RowPair& p : pairs)
    out.values.push_back(p.left != kNoRow ? l.values[p.left] : r.values[p.right]);
  if (l.type != r.type) out.type = infer_column_type(out.values);
  return out;
}

FrameColumn taken(const FrameColumn& column, const std::vector<RowPair>& pairs, bool left_side) {
  FrameColumn out{column.name, column.type, {}};
  out.values.reserve(pairs.size());
  for (const RowPair& p : pairs) {
    const std::size_t row = left_side ? p.left : p.right;
    out.values.push_back(row != kNoRow ? column.values[row] : FrameValue{});
  }
  widen_for_missing(out);
  return out;
}

}  // namespace

void prefix_columns(SheetFrame& frame, const std::string& tag,
                    const std::vector<std::string>& keys) {
  for (FrameColumn& c : frame.columns)
    if (!contains(keys, c.name)) c.name = tag + "::" + c.name;
}

void drop_columns(SheetFrame& frame, const std::vector<std::string>& names) {
  std::erase_if(frame.columns, [&](const FrameColumn& c) { return contains(names, c.name); });
}

SheetFrame outer_merge(const SheetFrame& left, const SheetFrame& right,
                       const std::vector<std::string>& keys) {
  const KeyColumns left_keys = key_columns(left, keys), right_keys = key_columns(right, keys);
  const std::vector<RowPair> pairs = full_outer_join(left, left_keys, right, right_keys);
  SheetFrame out;
  out.rows = pairs.size();
  for (std::size_t k = 0; k < keys.size(); ++k)
    out.columns.push_back(merged_key(*left_keys[k], *right_keys[k], pairs));
  for (const FrameColumn& c : left.columns)
    if (!contains(keys, c.name)) out.columns.push_back(taken(c, pairs, true));
  for (const FrameColumn& c : right.columns)
    if (!contains(keys, c.name)) out.columns.push_back(taken(c, pairs, false));
  return out;
}

void sort_rows_descending(SheetFrame& frame, const std::string& column) {
  const FrameColumn* by = frame.find(column);
  if (by == nullptr) return;
  std::vector<std::size_t> order(frame.rows);
  std::iota(order.begin(), order.end(), 0);
  auto sorts_as_nan = [&](std::size_t r) { return !by->values[r].is_number(); };
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
    if (sorts_as_nan(x) || sorts_as_nan(y)) return !sorts_as_nan(x) && sorts_as_nan(y);
    return by->values[x].number() > by->values[y].number();
  });
  for (FrameColumn& c : frame.columns) {
    std::vector<FrameValue> sorted;
    sorted.reserve(frame.rows);
    for (std::size_t r : order) sorted.push_back(std::move(c.values[r]));
    c.values = std::move(sorted);
  }
}

SheetFrame select_rows(const SheetFrame& frame, const std::function<bool(std::size_t)>& keep) {
  std::vector<std::size_t> rows;
  for (std::size_t r = 0; r < frame.rows; ++r)
    if (keep(r)) rows.push_back(r);
  SheetFrame out;
  out.rows = rows.size();
  for (const FrameColumn& c : frame.columns) {
    FrameColumn& copy = out.columns.emplace_back(FrameColumn{c.name, c.type, {}});
    copy.values.reserve(rows.size());
    for (std::size_t r : rows) copy.values.push_back(c.values[r]);
  }
  return out;
}

SheetFrame select_columns(const SheetFrame& frame, const std::vector<std::string>& names) {
  SheetFrame out;
  out.rows = frame.rows;
  for (const std::string& name : names)
    if (const FrameColumn* c = frame.find(name)) out.columns.push_back(*c);
  return out;
}

void drop_all_missing_columns(SheetFrame& frame) {
  std::erase_if(frame.columns, [](const FrameColumn& c) {
    return std::all_of(c.values.begin(), c.values.end(),
                       [](const FrameValue& v) { return v.missing(); });
  });
}

}  // namespace traceprism::comparison
