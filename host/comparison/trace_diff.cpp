#include "comparison/trace_diff.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <utility>

#include "index/event_kind.hpp"

namespace traceprism::comparison {

namespace {

using index::EventKind;
using index::Row;
using Rows = std::vector<Row>;

enum class EditKind : std::uint8_t { kMatch, kDelete, kInsert };

// One step of an alignment of two child lists: indices into them (-1 where a side has none).
struct Edit {
  EditKind kind;
  std::int64_t i = -1, j = -1;
};
using Edits = std::vector<Edit>;

// Past this many cells the edit-distance table (4 bytes a cell) is not built: the lists are
// aligned by resync_alignment (docs/compatibility.md, "TraceDiff").
constexpr std::size_t kMaxEditCells = std::size_t(1) << 24;
// How many BFS levels the same-name disambiguation compares, and for how many candidate pairs
// of one name at most (it scores every pair: a name repeated across thousands of top-level ops
// would cost gigabytes; docs/compatibility.md, "TraceDiff").
constexpr int kDisambiguationDepth = 4;
constexpr std::size_t kMaxDisambiguationPairs = 4096;
// How far the large-list alignment looks ahead for the next pair of equal names.
constexpr std::size_t kResyncWindow = 64;

bool is_graph_launch(std::string_view name) {
  return name == "hipGraphLaunch" || name == "cudaGraphLaunch";
}

bool any_unmatched(const Edits& edits) {
  return std::any_of(edits.begin(), edits.end(),
                     [](const Edit& e) { return e.kind != EditKind::kMatch; });
}

Edits positional(std::size_t n) {
  Edits out;
  for (std::size_t k = 0; k < n; ++k)
    out.push_back({EditKind::kMatch, static_cast<std::int64_t>(k), static_cast<std::int64_t>(k)});
  return out;
}

// One trace's tree as TraceDiff reads it: children with GPU events, the GPU path, names.
class SideView {
 public:
  explicit SideView(const DiffSide& side) : s_(side), gpu_path_(side.index.size(), false) {
    for (std::size_t g = 0; g < side.index.size(); ++g) {
      const Row row = static_cast<Row>(g);
      if (!index::is_gpu_kind(side.index.kind(row))) continue;
      gpu_path_[row] = true;
      for (std::int32_t up = side.links.launcher(row); up >= 0 && !gpu_path_[up];
           up = side.tree.parent(static_cast<Row>(up)))
        gpu_path_[up] = true;
    }
  }

  const index::EventIndex& index() const { return s_.index; }
  std::string_view name(Row r) const { return s_.index.name(r); }
  EventKind kind(Row r) const { return s_.index.kind(r); }
  // Not non_gpu_path: a GPU event, or a host event with GPU events below it.
  bool gpu_path(Row r) const { return gpu_path_[r]; }
  // A kernel-dispatching runtime or driver call (graph launches are exempt).
  bool dispatch(Row r) const {
    return index::is_runtime_kind(kind(r)) && !is_graph_launch(name(r));
  }
  const std::string& norm(Row r, bool strip_details = false) const {
    auto& cache = strip_details ? stripped_ : plain_;
    auto [it, fresh] = cache.try_emplace(s_.index.name_id(r));
    if (fresh) it->second = normalized_name(name(r), strip_details);
    return it->second;
  }

  // Host children in processing order, then a launch's GPU events.
  Rows children(Row r) const {
    Rows out;
    if (index::is_gpu_kind(kind(r))) return out;
    for (Row c : s_.tree.children(r)) out.push_back(c);
    if (index::is_runtime_kind(kind(r)))
      for (Row g : s_.links.launched(r)) out.push_back(g);
    return out;
  }
  Rows gpu_path_children(Row r) const {
    Rows out;
    for (Row c : children(r))
      if (gpu_path(c)) out.push_back(c);
    return out;
  }
  void sort_by_ts(Rows& rows) const {
    std::stable_sort(rows.begin(), rows.end(),
                     [&](Row a, Row b) { return s_.index.ts_ns(a) < s_.index.ts_ns(b); });
  }

  // The top-level roots above the cpu_op roots, each descended through single-child wrappers
  // until its only child is an op or a launch; distinct, in cpu_op root order.
  Rows roots() const {
    Rows out;
    std::set<Row> seen;
    for (Row r : s_.tree.cpu_op_roots()) {
      Row top = r;
      while (s_.tree.parent(top) >= 0) top = static_cast<Row>(s_.tree.parent(top));
      for (Rows kids = children(top); kids.size() == 1; kids = children(top)) {
        const EventKind k = kind(kids[0]);
        if ((k == EventKind::kCpuOp || index::is_runtime_kind(k)) &&
            !is_graph_launch(name(kids[0])))
          break;
        top = kids[0];
      }
      if (seen.insert(top).second) out.push_back(top);
    }
    return out;
  }

  // Descends through wrappers with one GPU-path child until a node with another number of
  // them, an op that launches, or a launch. Returns that node and its GPU-path children when
  // it stopped at a branch point (none otherwise).
  std::pair<Row, Rows> collapse(Row r) const {
    Row current = r;
    while (true) {
      if (dispatch(current)) return {current, {}};
      const Rows kids = children(current);
      if (kind(current) == EventKind::kCpuOp &&
          std::any_of(kids.begin(), kids.end(), [&](Row c) { return dispatch(c); }))
        return {current, {}};
      Rows gpu;
      for (Row c : kids)
        if (gpu_path(c)) gpu.push_back(c);
      if (gpu.size() != 1) return {current, gpu};
      current = gpu[0];
    }
  }

  // Per BFS level below `r` (at most `depth`), the sorted normalized names of its GPU-path
  // descendants at that level.
  std::vector<std::vector<std::string>> name_levels(Row r, int depth) const {
    std::vector<std::vector<std::string>> levels;
    Rows frontier = {r};
    for (int d = 0; d < depth && !frontier.empty(); ++d) {
      Rows next;
      std::vector<std::string> names;
      for (Row u : frontier)
        for (Row c : children(u))
          if (gpu_path(c)) next.push_back(c), names.push_back(norm(c));
      std::sort(names.begin(), names.end());
      levels.push_back(std::move(names));
      frontier = std::move(next);
    }
    return levels;
  }

 private:
  const DiffSide& s_;
  std::vector<bool> gpu_path_;
  mutable std::unordered_map<index::StringId, std::string> plain_, stripped_;
};

// How far two nodes' BFS name levels agree: (levels equal before the first difference, the
// multiset overlap at that level).
std::pair<int, int> match_depth(const std::vector<std::vector<std::string>>& a,
                                const std::vector<std::vector<std::string>>& b) {
  const std::size_t n = std::max(a.size(), b.size());
  static const std::vector<std::string> kNone;
  for (std::size_t d = 0; d < n; ++d) {
    const auto& x = d < a.size() ? a[d] : kNone;
    const auto& y = d < b.size() ? b[d] : kNone;
    if (x == y) continue;
    std::vector<std::string> common;
    std::set_intersection(x.begin(), x.end(), y.begin(), y.end(), std::back_inserter(common));
    return {static_cast<int>(d), static_cast<int>(common.size())};
  }
  return {static_cast<int>(n), 0};
}

class Merger {
 public:
  Merger(const SideView& one, const SideView& two)
      : one_(one),
        two_(two),
        node_of_row1_(one.index().size(), kNoNode),
        node_of_row2_(two.index().size(), kNoNode) {}

  MergedTree run() {
    const Rows roots1 = one_.roots(), roots2 = two_.roots();
    // The reference pairs roots by position. When one trace has more roots (a code change that
    // adds a cast or a copy at the top level), that pairs every later root with the wrong one:
    // such lists are aligned as children are (docs/compatibility.md, "TraceDiff").
    const Edits edits =
        roots1.size() == roots2.size() ? positional(roots1.size()) : aligned(roots1, roots2, false);
    for (const Edit& e : edits)
      out_.roots.push_back(
          merge(e.i >= 0 ? roots1[e.i] : kNoEvent, e.j >= 0 ? roots2[e.j] : kNoEvent));
    return std::move(out_);
  }

 private:
  std::uint32_t merge(std::int64_t u1, std::int64_t u2) {
    if (const std::optional<std::uint32_t> seen = merged_before(u1, u2)) return *seen;
    const auto id = static_cast<std::uint32_t>(out_.nodes.size());
    out_.nodes.emplace_back();
    remember(u1, u2, id);

    auto [c1, c2] = children_with_missing(u1, u2);
    collapse_lone_child(u1, c1, u2, c2);
    Edits edits = first_alignment(c1, c2);
    if (any_unmatched(edits)) edits = reconcile_wrappers(edits, c1, c2);
    edits = realign_collapsed(edits, c1, c2);

    std::vector<std::uint32_t> kids;
    for (const Edit& e : edits)
      kids.push_back(merge(e.i >= 0 ? c1[e.i] : kNoEvent, e.j >= 0 ? c2[e.j] : kNoEvent));
    MergedNode& node = out_.nodes[id];
    node.row1 = u1;
    node.row2 = u2;
    node.first_child = out_.child_ids.size();
    node.child_count = static_cast<std::uint32_t>(kids.size());
    out_.child_ids.insert(out_.child_ids.end(), kids.begin(), kids.end());
    return id;
  }

  // The reference merges a pair once (its uid_pair_to_merged_id): the node of each event, by
  // its trace-1 row (trace-2 row for a trace-2-only node), 4 bytes a row rather than a map.
  std::optional<std::uint32_t> merged_before(std::int64_t u1, std::int64_t u2) const {
    const std::vector<std::uint32_t>& by_row = u1 >= 0 ? node_of_row1_ : node_of_row2_;
    const std::int64_t row = u1 >= 0 ? u1 : u2;
    if (row < 0 || static_cast<std::size_t>(row) >= by_row.size()) return std::nullopt;
    const std::uint32_t id = by_row[static_cast<std::size_t>(row)];
    if (id == kNoNode || first_rows_[id] != std::pair{u1, u2}) return std::nullopt;
    return id;
  }
  void remember(std::int64_t u1, std::int64_t u2, std::uint32_t id) {
    first_rows_.emplace_back(u1, u2);
    std::vector<std::uint32_t>& by_row = u1 >= 0 ? node_of_row1_ : node_of_row2_;
    const std::int64_t row = u1 >= 0 ? u1 : u2;
    if (row < 0 || static_cast<std::size_t>(row) >= by_row.size()) return;
    if (by_row[static_cast<std::size_t>(row)] == kNoNode)
      by_row[static_cast<std::size_t>(row)] = id;
  }

  // GPU-path children of each side, plus a child off the GPU path whose name is on the other
  // side's GPU path; by start time.
  std::pair<Rows, Rows> children_with_missing(std::int64_t u1, std::int64_t u2) const {
    const Rows all1 = u1 >= 0 ? one_.children(static_cast<Row>(u1)) : Rows{};
    const Rows all2 = u2 >= 0 ? two_.children(static_cast<Row>(u2)) : Rows{};
    Rows gpu1, gpu2;
    std::set<std::string> names1, names2;
    for (Row c : all1)
      if (one_.gpu_path(c)) gpu1.push_back(c), names1.insert(one_.norm(c));
    for (Row c : all2)
      if (two_.gpu_path(c)) gpu2.push_back(c), names2.insert(two_.norm(c));
    add_missing(names1, names2, all2, two_, gpu2);
    add_missing(names2, names1, all1, one_, gpu1);
    one_.sort_by_ts(gpu1);
    two_.sort_by_ts(gpu2);
    return {std::move(gpu1), std::move(gpu2)};
  }

  // For each name on `mine` but not `theirs`, the other side's last child of that name.
  static void add_missing(const std::set<std::string>& mine, const std::set<std::string>& theirs,
                          const Rows& their_children, const SideView& side, Rows& their_gpu) {
    std::map<std::string, Row> by_name;
    for (Row c : their_children) by_name[side.norm(c)] = c;
    for (const std::string& name : mine) {
      if (theirs.count(name)) continue;
      if (auto it = by_name.find(name); it != by_name.end()) their_gpu.push_back(it->second);
    }
  }

  // Phase 1: one side has a single GPU child and the other several: descend that child
  // through wrappers to where it branches.
  void collapse_lone_child(std::int64_t& u1, Rows& c1, std::int64_t& u2, Rows& c2) const {
    if (c1.size() == c2.size()) return;
    if (c1.size() == 1) {
      auto [node, deeper] = one_.collapse(c1[0]);
      if (!deeper.empty()) u1 = node, c1 = std::move(deeper);
    } else if (c2.size() == 1) {
      auto [node, deeper] = two_.collapse(c2[0]);
      if (!deeper.empty()) u2 = node, c2 = std::move(deeper);
    }
  }

  bool any_dispatch(const Rows& c1, const Rows& c2) const {
    return std::any_of(c1.begin(), c1.end(), [&](Row c) { return one_.dispatch(c); }) ||
           std::any_of(c2.begin(), c2.end(), [&](Row c) { return two_.dispatch(c); });
  }

  // Phase 2: by position when the counts agree and no launch is among the children; otherwise
  // by edit distance.
  Edits first_alignment(const Rows& c1, const Rows& c2) const {
    if (c1.size() == c2.size() && !any_dispatch(c1, c2)) return positional(c1.size());
    return aligned(c1, c2, false);
  }

  Edits aligned(const Rows& c1, const Rows& c2, bool strip_details) const {
    return disambiguate_same_names(wagner_fischer(c1, c2, strip_details), c1, c2);
  }

  Edits wagner_fischer(const Rows& c1, const Rows& c2, bool strip_details) const {
    std::vector<const std::string*> a, b;
    for (Row r : c1) a.push_back(&one_.norm(r, strip_details));
    for (Row r : c2) b.push_back(&two_.norm(r, strip_details));
    const std::size_t m = a.size(), n = b.size();
    if ((m + 1) * (n + 1) > kMaxEditCells) return resync_alignment(a, b);
    std::vector<std::uint32_t> dp((m + 1) * (n + 1));
    auto at = [&](std::size_t i, std::size_t j) -> std::uint32_t& { return dp[i * (n + 1) + j]; };
    for (std::size_t i = 0; i <= m; ++i) at(i, 0) = static_cast<std::uint32_t>(i);
    for (std::size_t j = 0; j <= n; ++j) at(0, j) = static_cast<std::uint32_t>(j);
    for (std::size_t i = 1; i <= m; ++i)
      for (std::size_t j = 1; j <= n; ++j)
        at(i, j) = std::min({at(i - 1, j) + 1, at(i, j - 1) + 1,
                             at(i - 1, j - 1) + (*a[i - 1] == *b[j - 1] ? 0u : 1u)});
    Edits out;
    std::size_t i = m, j = n;
    while (i > 0 || j > 0) {
      if (i > 0 && j > 0 && *a[i - 1] == *b[j - 1]) {
        out.push_back(
            {EditKind::kMatch, static_cast<std::int64_t>(--i), static_cast<std::int64_t>(--j)});
      } else if (i > 0 && (j == 0 || at(i, j) == at(i - 1, j) + 1)) {
        out.push_back({EditKind::kDelete, static_cast<std::int64_t>(--i), -1});
      } else {
        out.push_back({EditKind::kInsert, -1, static_cast<std::int64_t>(--j)});
      }
    }
    std::reverse(out.begin(), out.end());
    return out;
  }

  // Lists too long for the edit-distance table (docs/compatibility.md): walk both, matching
  // equal names; at a mismatch, skip to the nearest pair of equal names within kResyncWindow
  // positions on each side (fewest skipped first, then trace 1's), the skipped ones unmatched.
  static Edits resync_alignment(const std::vector<const std::string*>& a,
                                const std::vector<const std::string*>& b) {
    Edits out;
    std::size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
      if (*a[i] == *b[j]) {
        out.push_back(
            {EditKind::kMatch, static_cast<std::int64_t>(i++), static_cast<std::int64_t>(j++)});
        continue;
      }
      std::size_t best_di = 0, best_dj = 0;
      bool found = false;
      for (std::size_t skipped = 1; skipped <= 2 * kResyncWindow && !found; ++skipped)
        for (std::size_t di = 0; di <= skipped && !found; ++di) {
          const std::size_t dj = skipped - di;
          if (di > kResyncWindow || dj > kResyncWindow) continue;
          if (i + di < a.size() && j + dj < b.size() && *a[i + di] == *b[j + dj])
            best_di = di, best_dj = dj, found = true;
        }
      if (!found) best_di = best_dj = 1;  // no anchor nearby: both unmatched, move on
      for (std::size_t k = 0; k < best_di; ++k)
        out.push_back({EditKind::kDelete, static_cast<std::int64_t>(i++), -1});
      for (std::size_t k = 0; k < best_dj; ++k)
        out.push_back({EditKind::kInsert, -1, static_cast<std::int64_t>(j++)});
    }
    for (; i < a.size(); ++i) out.push_back({EditKind::kDelete, static_cast<std::int64_t>(i), -1});
    for (; j < b.size(); ++j) out.push_back({EditKind::kInsert, -1, static_cast<std::int64_t>(j)});
    return out;
  }

  // A name that occurs more than once on a side is re-matched by how many BFS levels of the
  // candidates' GPU-path descendants agree (greedy, best pairs first; ties: keep the edit
  // distance's pair, then position).
  Edits disambiguate_same_names(const Edits& edits, const Rows& c1, const Rows& c2) const {
    std::map<std::string, std::vector<std::int64_t>> all1, all2;
    std::set<std::string> matched;
    std::set<std::pair<std::int64_t, std::int64_t>> original;
    for (const Edit& e : edits) {
      if (e.kind != EditKind::kInsert) all1[one_.norm(c1[e.i])].push_back(e.i);
      if (e.kind != EditKind::kDelete) all2[two_.norm(c2[e.j])].push_back(e.j);
      if (e.kind == EditKind::kMatch) {
        matched.insert(one_.norm(c1[e.i]));
        matched.insert(two_.norm(c2[e.j]));
        original.insert({e.i, e.j});
      }
    }
    std::set<std::int64_t> handled1, handled2;
    std::set<std::pair<std::int64_t, std::int64_t>> matches;
    std::set<std::int64_t> deletes, inserts;
    for (auto& [name, idx1] : all1) {
      auto it = all2.find(name);
      if (it == all2.end() || !matched.count(name)) continue;
      std::vector<std::int64_t>& idx2 = it->second;
      if (idx1.size() < 2 && idx2.size() < 2) continue;
      // Every pair is scored: past this many, keep the edit distance's matches for the name.
      if (idx1.size() * idx2.size() > kMaxDisambiguationPairs) continue;
      std::sort(idx1.begin(), idx1.end());
      std::sort(idx2.begin(), idx2.end());
      handled1.insert(idx1.begin(), idx1.end());
      handled2.insert(idx2.begin(), idx2.end());
      match_by_subtrees(idx1, idx2, c1, c2, original, matches, deletes, inserts);
    }
    if (handled1.empty() && handled2.empty()) return edits;
    if (std::includes(original.begin(), original.end(), matches.begin(), matches.end()))
      return edits;
    Edits out;
    for (const Edit& e : edits) {
      const bool replaced =
          (e.kind == EditKind::kMatch && (handled1.count(e.i) || handled2.count(e.j))) ||
          (e.kind == EditKind::kDelete && handled1.count(e.i)) ||
          (e.kind == EditKind::kInsert && handled2.count(e.j));
      if (!replaced) out.push_back(e);
    }
    for (const auto& [i, j] : matches) out.push_back({EditKind::kMatch, i, j});
    for (std::int64_t i : deletes) out.push_back({EditKind::kDelete, i, -1});
    for (std::int64_t j : inserts) out.push_back({EditKind::kInsert, -1, j});
    return out;
  }

  void match_by_subtrees(const std::vector<std::int64_t>& idx1,
                         const std::vector<std::int64_t>& idx2, const Rows& c1, const Rows& c2,
                         const std::set<std::pair<std::int64_t, std::int64_t>>& original,
                         std::set<std::pair<std::int64_t, std::int64_t>>& matches,
                         std::set<std::int64_t>& deletes, std::set<std::int64_t>& inserts) const {
    struct Scored {
      std::pair<int, int> depth;
      bool original;
      std::int64_t i, j;
    };
    std::map<std::int64_t, std::vector<std::vector<std::string>>> levels1, levels2;
    for (std::int64_t i : idx1) levels1[i] = one_.name_levels(c1[i], kDisambiguationDepth);
    for (std::int64_t j : idx2) levels2[j] = two_.name_levels(c2[j], kDisambiguationDepth);
    std::vector<Scored> pairs;
    for (std::int64_t i : idx1)
      for (std::int64_t j : idx2)
        pairs.push_back({match_depth(levels1[i], levels2[j]), original.count({i, j}) > 0, i, j});
    std::stable_sort(pairs.begin(), pairs.end(), [](const Scored& a, const Scored& b) {
      if (a.depth != b.depth) return a.depth > b.depth;
      if (a.original != b.original) return a.original;
      return std::pair(a.i, a.j) < std::pair(b.i, b.j);
    });
    const std::size_t wanted = std::min(idx1.size(), idx2.size());
    std::set<std::int64_t> used1, used2;
    for (const Scored& p : pairs) {
      if (used1.size() == wanted) break;
      if (used1.count(p.i) || used2.count(p.j)) continue;
      matches.insert({p.i, p.j});
      used1.insert(p.i);
      used2.insert(p.j);
    }
    for (std::int64_t i : idx1)
      if (!used1.count(i)) deletes.insert(i);
    for (std::int64_t j : idx2)
      if (!used2.count(j)) inserts.insert(j);
  }

  // Phase 3: an unmatched node that wraps the other side's unmatched node (or whose GPU-path
  // children are the other's) is replaced by its GPU-path children, and the free children are
  // aligned again; the matches found so far stay.
  Edits reconcile_wrappers(const Edits& edits, Rows& c1, Rows& c2) const {
    std::map<std::int64_t, Rows> sub1, sub2;
    for (const Edit& d : edits) {
      if (d.kind != EditKind::kDelete) continue;
      for (const Edit& n : edits) {
        if (n.kind != EditKind::kInsert) continue;
        find_wrapper(d.i, n.j, c1, c2, sub1, sub2);
      }
    }
    if (sub1.empty() && sub2.empty()) return edits;
    const Rows recon1 = expanded(c1, sub1, one_), recon2 = expanded(c2, sub2, two_);
    std::unordered_map<Row, std::int64_t> at1, at2;
    for (std::size_t k = 0; k < recon1.size(); ++k) at1[recon1[k]] = static_cast<std::int64_t>(k);
    for (std::size_t k = 0; k < recon2.size(); ++k) at2[recon2[k]] = static_cast<std::int64_t>(k);
    Edits out;
    std::set<std::int64_t> pinned1, pinned2;
    for (const Edit& e : edits) {
      if (e.kind != EditKind::kMatch) continue;
      auto a = at1.find(c1[e.i]);
      auto b = at2.find(c2[e.j]);
      if (a == at1.end() || b == at2.end()) continue;
      out.push_back({EditKind::kMatch, a->second, b->second});
      pinned1.insert(a->second);
      pinned2.insert(b->second);
    }
    std::vector<std::int64_t> free1, free2;
    Rows items1, items2;
    for (std::size_t k = 0; k < recon1.size(); ++k)
      if (!pinned1.count(static_cast<std::int64_t>(k)))
        free1.push_back(static_cast<std::int64_t>(k)), items1.push_back(recon1[k]);
    for (std::size_t k = 0; k < recon2.size(); ++k)
      if (!pinned2.count(static_cast<std::int64_t>(k)))
        free2.push_back(static_cast<std::int64_t>(k)), items2.push_back(recon2[k]);
    if (!free1.empty() && !free2.empty()) {
      for (const Edit& e : first_alignment(items1, items2))
        out.push_back({e.kind, e.i >= 0 ? free1[e.i] : -1, e.j >= 0 ? free2[e.j] : -1});
    } else {
      for (std::int64_t i : free1) out.push_back({EditKind::kDelete, i, -1});
      for (std::int64_t j : free2) out.push_back({EditKind::kInsert, -1, j});
    }
    c1 = recon1;
    c2 = recon2;
    return out;
  }

  void find_wrapper(std::int64_t di, std::int64_t ii, const Rows& c1, const Rows& c2,
                    std::map<std::int64_t, Rows>& sub1, std::map<std::int64_t, Rows>& sub2) const {
    const Row d = c1[di], n = c2[ii];
    auto leaf = [](const SideView& s, Row r) {
      const EventKind k = s.kind(r);
      return (k == EventKind::kKernel || index::is_runtime_kind(k)) && !is_graph_launch(s.name(r));
    };
    if (leaf(one_, d) || leaf(two_, n)) return;
    const Rows kids_d = one_.gpu_path_children(d), kids_n = two_.gpu_path_children(n);
    std::vector<std::string> names_d, names_n;
    for (Row c : kids_d) names_d.push_back(one_.norm(c));
    for (Row c : kids_n) names_n.push_back(two_.norm(c));
    if (std::find(names_n.begin(), names_n.end(), one_.norm(d)) != names_n.end()) sub2[ii] = kids_n;
    if (std::find(names_d.begin(), names_d.end(), two_.norm(n)) != names_d.end()) sub1[di] = kids_d;
    if (!kids_d.empty() && !kids_n.empty() && names_d == names_n) {
      sub1[di] = kids_d;
      sub2[ii] = kids_n;
    }
  }

  static Rows expanded(const Rows& children, const std::map<std::int64_t, Rows>& sub,
                       const SideView& side) {
    Rows out;
    for (std::size_t k = 0; k < children.size(); ++k) {
      auto it = sub.find(static_cast<std::int64_t>(k));
      if (it == sub.end())
        out.push_back(children[k]);
      else
        out.insert(out.end(), it->second.begin(), it->second.end());
    }
    side.sort_by_ts(out);
    return out;
  }

  // Phase 4: the children still unmatched are collapsed through their wrappers and aligned
  // again, then what is left once more ignoring function details.
  Edits realign_collapsed(const Edits& edits, Rows& c1, Rows& c2) const {
    std::vector<std::int64_t> idx1, idx2;
    for (const Edit& e : edits) {
      if (e.kind == EditKind::kDelete) idx1.push_back(e.i);
      if (e.kind == EditKind::kInsert) idx2.push_back(e.j);
    }
    if (idx1.empty() || idx2.empty()) return edits;
    Rows col1, col2;
    for (std::int64_t i : idx1) col1.push_back(one_.collapse(c1[i]).first);
    for (std::int64_t j : idx2) col2.push_back(two_.collapse(c2[j]).first);
    const Edits pass1 = aligned(col1, col2, false);
    std::vector<std::int64_t> left1, left2;
    for (const Edit& e : pass1) {
      if (e.kind == EditKind::kDelete) left1.push_back(e.i);
      if (e.kind == EditKind::kInsert) left2.push_back(e.j);
    }
    Edits collapsed;
    if (!left1.empty() && !left2.empty()) {
      for (const Edit& e : pass1)
        if (e.kind == EditKind::kMatch) collapsed.push_back(e);
      Rows rest1, rest2;
      for (std::int64_t i : left1) rest1.push_back(col1[i]);
      for (std::int64_t j : left2) rest2.push_back(col2[j]);
      for (const Edit& e : aligned(rest1, rest2, true))
        collapsed.push_back({e.kind, e.i >= 0 ? left1[e.i] : -1, e.j >= 0 ? left2[e.j] : -1});
    } else {
      collapsed = pass1;
    }
    Edits out;
    for (const Edit& e : edits)
      if (e.kind == EditKind::kMatch) out.push_back(e);
    for (const Edit& e : collapsed) {
      const std::int64_t i = e.i >= 0 ? idx1[e.i] : -1, j = e.j >= 0 ? idx2[e.j] : -1;
      if (i >= 0) c1[i] = col1[e.i];
      if (j >= 0) c2[j] = col2[e.j];
      out.push_back({e.kind, i, j});
    }
    return out;
  }

  const SideView& one_;
  const SideView& two_;
  static constexpr std::uint32_t kNoNode = UINT32_MAX;
  std::vector<std::uint32_t> node_of_row1_, node_of_row2_;
  std::vector<std::pair<std::int64_t, std::int64_t>> first_rows_;  // by merged id: the pair asked
  MergedTree out_;
};

}  // namespace

namespace {

// The name rewrites below are done by hand rather than with std::regex: libstdc++'s matcher
// recurses once per character, and a long name overflowed the stack. Each comment gives the
// regex whose replacement it reproduces.

bool is_space(char c) {
  return c == ' ' || (c >= '\t' && c <= '\r');
}

bool is_hex_digit(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

std::size_t digit_run(std::string_view s, std::size_t from) {
  std::size_t end = from;
  while (end < s.size() && s[end] >= '0' && s[end] <= '9') ++end;
  return end - from;
}

// "0x[0-9a-fA-F]+" -> "0xXXXX"
std::string masked_hex(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size();) {
    std::size_t end = i + 2;
    if (s.substr(i).starts_with("0x"))
      while (end < s.size() && is_hex_digit(s[end])) ++end;
    if (end > i + 2) {
      out += "0xXXXX";
      i = end;
    } else {
      out += s[i++];
    }
  }
  return out;
}

// "\.py\(\d+\):" -> ".py:"
std::string without_py_line_numbers(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t digits = s.substr(i).starts_with(".py(") ? digit_run(s, i + 4) : 0;
    if (digits > 0 && s.substr(i + 4 + digits).starts_with("):")) {
      out += ".py:";
      i += 4 + digits + 2;
    } else {
      out += s[i++];
    }
  }
  return out;
}

// Where ":\s+\S+$" starts (npos for no match): the colon whose rest is blanks then one word.
std::size_t detail_start(std::string_view s) {
  const std::size_t word = s.find_last_of(" \t\n\v\f\r");
  if (word == std::string_view::npos || word + 1 == s.size()) return std::string_view::npos;
  std::size_t blanks = word;
  while (blanks > 0 && is_space(s[blanks - 1])) --blanks;
  return blanks > 0 && s[blanks - 1] == ':' ? blanks - 1 : std::string_view::npos;
}

// "^.*/([^/]+\.py)$" -> "$1": the file name of a path to a .py file (no line break before it).
std::string py_file_of_path(std::string s) {
  const std::size_t slash = s.rfind('/');
  if (slash == std::string::npos || s.find_first_of("\n\r") < slash) return s;
  const std::string_view file = std::string_view(s).substr(slash + 1);
  return file.size() > 3 && file.ends_with(".py") ? std::string(file) : s;
}

}  // namespace

std::string normalized_name(std::string_view name, bool strip_details) {
  std::string s = name.find("0x") == std::string_view::npos ? std::string(name) : masked_hex(name);
  if (s.find(".py(") != std::string::npos) s = without_py_line_numbers(s);
  if (strip_details) {
    s.erase(std::min(s.size(), detail_start(s)));
    s = py_file_of_path(std::move(s));
  }
  if (s == "hipModuleLaunchKernel" || s == "cuLaunchKernel") return "__kernel_launch__";
  return s;
}

MergedTree merge_trees(const DiffSide& trace1, const DiffSide& trace2) {
  const SideView one(trace1), two(trace2);
  return Merger(one, two).run();
}

}  // namespace traceprism::comparison
