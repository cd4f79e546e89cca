#include "multirank/collective_matching.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <tuple>

#include "multirank/saturating.hpp"

namespace traceprism::multirank {

namespace {

using model::CollectiveInstance;
using model::CollectiveKind;
using model::MatchTier;

constexpr std::int64_t kMaxTolerance = 1'000'000'000'000;  // 1000 s keeps sums of costs in int64
constexpr std::int64_t kSeqBlock = 1024;

std::int64_t saturating_abs(std::int64_t v) {
  if (v == kInt64Min) return kInt64Max;
  return v < 0 ? -v : v;
}

// The first field on which two instances disagree, in §5.2's validation order.
enum class Field : std::uint8_t {
  kNone,
  kKind,
  kGroupSize,
  kDtype,
  kInNelems,
  kOutNelems,
  kInBytes,
  kOutBytes
};

bool known_and_different(std::int64_t a, std::int64_t b) {
  return a >= 0 && b >= 0 && a != b;
}

Field first_disagreement(const CollectiveInstance& a, const CollectiveInstance& b) {
  if (a.kind != b.kind) return Field::kKind;
  if (known_and_different(a.group_size, b.group_size)) return Field::kGroupSize;
  if (!model::is_symmetric(a.kind)) return Field::kNone;
  const auto unknown = model::CollectiveDtype::kUnknown;
  if (a.dtype != unknown && b.dtype != unknown && a.dtype != b.dtype) return Field::kDtype;
  if (known_and_different(a.in_nelems, b.in_nelems)) return Field::kInNelems;
  if (known_and_different(a.out_nelems, b.out_nelems)) return Field::kOutNelems;
  if (known_and_different(a.in_bytes, b.in_bytes)) return Field::kInBytes;
  if (known_and_different(a.out_bytes, b.out_bytes)) return Field::kOutBytes;
  return Field::kNone;
}

std::string describe(Field field, const CollectiveInstance& a, const CollectiveInstance& b) {
  const auto pair = [](auto x, auto y) { return std::to_string(x) + " vs " + std::to_string(y); };
  switch (field) {
    case Field::kKind:
      return std::string("kind ") + model::kind_name(a.kind) + " vs " + model::kind_name(b.kind);
    case Field::kGroupSize:
      return "group size " + pair(a.group_size, b.group_size);
    case Field::kDtype:
      return std::string("dtype ") + model::dtype_name(a.dtype) + " vs " +
             model::dtype_name(b.dtype);
    case Field::kInNelems:
      return "in nelems " + pair(a.in_nelems, b.in_nelems);
    case Field::kOutNelems:
      return "out nelems " + pair(a.out_nelems, b.out_nelems);
    case Field::kInBytes:
      return "in bytes " + pair(a.in_bytes, b.in_bytes);
    case Field::kOutBytes:
      return "out bytes " + pair(a.out_bytes, b.out_bytes);
    case Field::kNone:
      break;
  }
  return {};
}

// ---- timeline alignment -------------------------------------------------------------------

// Alignments are scored by Σ (2T − |Δ|) over their pairs: cost = T·(n + m) − that sum, so
// the highest score is the cheapest alignment. More pairs break ties (T = 0 would otherwise
// leave exact pairs unmatched).
struct Score {
  std::int64_t weight = 0;
  std::int64_t pairs = 0;
  friend auto operator<=>(const Score&, const Score&) = default;
};

// The best alignment ending with some pair: its score and the pair's candidate id (-1: none).
// Ties go to the earlier id, so every choice is unique and the result independent of the tree.
struct Best {
  Score score;
  std::int64_t id = -1;

  bool beats(const Best& other) const {
    if (id < 0 || other.id < 0) return other.id < 0 && id >= 0;
    if (score != other.score) return score > other.score;
    return id < other.id;
  }
};

// An allowed pair and the pair before it in the best alignment ending with it (-1: none).
struct Candidate {
  std::uint32_t reference = 0;
  std::uint32_t other = 0;
  std::int64_t previous = -1;
};

// Fenwick tree of prefix maxima over the other rank's positions: the best alignment whose last
// pair's other position is below a bound, among those offered so far.
class PrefixBest {
 public:
  explicit PrefixBest(std::size_t positions) : tree_(positions + 1) {}

  void offer(std::size_t position, const Best& best) {
    for (std::size_t i = position + 1; i < tree_.size(); i += i & (~i + 1))
      if (best.beats(tree_[i])) tree_[i] = best;
  }

  Best best_below(std::size_t position) const {
    Best best;
    for (std::size_t i = position; i > 0; i -= i & (~i + 1))
      if (tree_[i].beats(best)) best = tree_[i];
    return best;
  }

 private:
  std::vector<Best> tree_;
};

// (|Δ|, other position) of the allowed partners of one reference instance, into `out`.
void partners_of(const CollectiveInstance& reference, std::int64_t corrected_end,
                 std::span<const CollectiveInstance* const> other,
                 const std::vector<std::pair<std::int64_t, std::size_t>>& other_by_end,
                 std::int64_t tolerance, std::size_t limit,
                 std::vector<std::pair<std::int64_t, std::size_t>>& out) {
  out.clear();
  const std::int64_t lowest = saturating_sub(corrected_end, tolerance);
  const std::int64_t highest = saturating_add(corrected_end, tolerance);
  auto it = std::lower_bound(other_by_end.begin(), other_by_end.end(),
                             std::pair<std::int64_t, std::size_t>{lowest, 0});
  for (; it != other_by_end.end() && it->first <= highest; ++it)
    if (first_disagreement(reference, *other[it->second]) == Field::kNone)
      out.emplace_back(saturating_abs(saturating_sub(corrected_end, it->first)), it->second);
  if (limit > 0 && out.size() > limit) {
    std::nth_element(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(limit), out.end());
    out.resize(limit);
  }
}

// ---- matching state -------------------------------------------------------------------------

struct Ref {
  std::uint32_t rank_pos = 0;  // position in Context::ranks
  std::uint32_t index = 0;
};

using RankSequences = std::map<std::uint32_t, std::vector<Ref>>;  // rank_pos → instances

struct GroupInstances {
  bool all_have_seq = true;
  std::vector<Ref> collectives;  // rendezvous instances, by (rank_pos, index)
  std::vector<Ref> p2p;
};

struct Context {
  std::vector<RankCollectives> ranks;  // ascending rank numbers, unique
  const MatchOptions& options;
  std::vector<std::vector<bool>> matched;  // per rank_pos, per index
  std::map<std::string, GroupMatchSummary> summaries;
  MatchResult result;

  const CollectiveInstance& at(Ref r) const { return ranks[r.rank_pos].instances[r.index]; }
  std::int32_t rank_of(Ref r) const { return ranks[r.rank_pos].rank; }
  std::int64_t offset_of(std::uint32_t rank_pos) const {
    const auto it = options.clock_offset_ns.find(ranks[rank_pos].rank);
    return it == options.clock_offset_ns.end() ? 0 : it->second;
  }
};

std::vector<RankCollectives> unique_ranks(std::span<const RankCollectives> ranks) {
  std::vector<RankCollectives> out(ranks.begin(), ranks.end());
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& a, const auto& b) { return a.rank < b.rank; });
  out.erase(std::unique(out.begin(), out.end(),
                        [](const auto& a, const auto& b) { return a.rank == b.rank; }),
            out.end());
  return out;
}

bool is_p2p(const CollectiveInstance& c) {
  return c.p2p || model::is_point_to_point(c.kind);
}

MatchTier tier_of(const std::string& pg_name, const GroupInstances& group) {
  if (pg_name.empty()) return MatchTier::kTimeline;
  return group.all_have_seq ? MatchTier::kSeq : MatchTier::kOrdinal;
}

std::map<std::string, GroupInstances> group_by_pg(Context& ctx) {
  std::map<std::string, GroupInstances> groups;
  for (std::uint32_t pos = 0; pos < ctx.ranks.size(); ++pos) {
    const std::span<const CollectiveInstance> list = ctx.ranks[pos].instances;
    const std::size_t count = std::min<std::size_t>(list.size(), UINT32_MAX);
    ctx.matched.emplace_back(count, false);
    for (std::uint32_t i = 0; i < count; ++i) {
      GroupInstances& group = groups[list[i].pg_name];
      group.all_have_seq = group.all_have_seq && list[i].seq >= 0;
      (is_p2p(list[i]) ? group.p2p : group.collectives).push_back({pos, i});
      ++ctx.summaries[list[i].pg_name].instances;
    }
  }
  for (const auto& [name, group] : groups) {
    GroupMatchSummary& summary = ctx.summaries[name];
    summary.pg_name = name;
    summary.tier = tier_of(name, group);
  }
  return groups;
}

// Records one matched collective; refs are in ascending rank_pos (= ascending rank).
void emit(Context& ctx, MatchTier tier, const PartitionKey& key, std::int64_t instance_key,
          std::int32_t key_rank, const std::vector<Ref>& refs, bool mismatch = false) {
  MatchedCollective out;
  out.tier = tier;
  out.partition_key = key;
  out.key = instance_key;
  out.key_rank = key_rank;
  out.mismatch = mismatch;
  for (const Ref r : refs) {
    out.members.push_back({ctx.rank_of(r), r.index});
    ctx.matched[r.rank_pos][r.index] = true;
  }
  ctx.result.collectives.push_back(std::move(out));
}

// §5.2 ordinal order: launch time when every instance has one (ties GPU start), else GPU start.
void sort_by_launch(const Context& ctx, std::vector<Ref>& refs) {
  const bool launches_known =
      std::all_of(refs.begin(), refs.end(), [&](Ref r) { return ctx.at(r).launch_ns >= 0; });
  std::sort(refs.begin(), refs.end(), [&](Ref a, Ref b) {
    const CollectiveInstance& x = ctx.at(a);
    const CollectiveInstance& y = ctx.at(b);
    if (launches_known && x.launch_ns != y.launch_ns) return x.launch_ns < y.launch_ns;
    return std::tie(x.start_ns, a.index) < std::tie(y.start_ns, b.index);
  });
}

void sort_by_end(const Context& ctx, std::vector<Ref>& refs) {
  std::sort(refs.begin(), refs.end(), [&](Ref a, Ref b) {
    const CollectiveInstance& x = ctx.at(a);
    const CollectiveInstance& y = ctx.at(b);
    return std::make_tuple(x.end_ns(), x.start_ns, a.index) <
           std::make_tuple(y.end_ns(), y.start_ns, b.index);
  });
}

// ---- timeline tier --------------------------------------------------------------------------

// §5.3: the rank with most instances (ties: lowest rank) is the reference; every other rank is
// aligned to it and each reference instance with a partner becomes one collective.
void align_partition(Context& ctx, const PartitionKey& key, RankSequences sequences) {
  if (sequences.size() < 2 || !ctx.options.align_timeline) return;
  for (auto& [pos, refs] : sequences) sort_by_end(ctx, refs);
  auto reference = sequences.begin();
  for (auto it = sequences.begin(); it != sequences.end(); ++it)
    if (it->second.size() > reference->second.size()) reference = it;
  const std::uint32_t reference_pos = reference->first;
  const std::vector<Ref>& reference_refs = reference->second;
  const auto pointers = [&](const std::vector<Ref>& refs) {
    std::vector<const CollectiveInstance*> out;
    for (const Ref r : refs) out.push_back(&ctx.at(r));
    return out;
  };
  const std::vector<const CollectiveInstance*> reference_list = pointers(reference_refs);
  std::vector<std::vector<Ref>> clusters(reference_refs.size());
  for (const auto& [pos, refs] : sequences) {
    if (pos == reference_pos) continue;
    const auto pairs = align_to_reference(
        reference_list, ctx.offset_of(reference_pos), pointers(refs), ctx.offset_of(pos),
        ctx.options.tolerance_ns, ctx.options.max_candidates_per_instance);
    for (const auto& [r, o] : pairs) clusters[r].push_back(refs[o]);
  }
  for (std::size_t i = 0; i < clusters.size(); ++i) {
    if (clusters[i].empty()) continue;
    clusters[i].push_back(reference_refs[i]);
    std::sort(clusters[i].begin(), clusters[i].end(),
              [](Ref a, Ref b) { return a.rank_pos < b.rank_pos; });
    emit(ctx, MatchTier::kTimeline, key, static_cast<std::int64_t>(i),
         ctx.ranks[reference_pos].rank, clusters[i]);
  }
}

void match_unnamed(Context& ctx, const std::vector<Ref>& refs) {
  std::map<std::pair<std::int32_t, std::int32_t>, RankSequences> partitions;  // (step, channel)
  for (const Ref r : refs) partitions[{ctx.at(r).step, ctx.at(r).channel}][r.rank_pos].push_back(r);
  for (auto& [step_channel, sequences] : partitions) {
    PartitionKey key;
    key.kind = PartitionKind::kTimeline;
    key.step = step_channel.first;
    key.channel = step_channel.second;
    align_partition(ctx, key, std::move(sequences));
  }
}

// ---- seq tier -------------------------------------------------------------------------------

PartitionKey seq_key(const std::string& pg, std::int64_t seq) {
  PartitionKey key;
  key.pg_name = pg;
  key.kind = PartitionKind::kSeq;
  key.seq_block = seq / kSeqBlock;
  return key;
}

// §5.2: a seq match is kept even when its members disagree; one warning names the first
// disagreeing rank and how many disagree.
bool warn_if_inconsistent(Context& ctx, const PartitionKey& key, std::int64_t seq,
                          const std::vector<Ref>& refs) {
  const CollectiveInstance& first = ctx.at(refs.front());
  std::string detail;
  std::size_t disagreeing = 0;
  for (std::size_t k = 1; k < refs.size(); ++k) {
    const CollectiveInstance& other = ctx.at(refs[k]);
    std::string what = describe(first_disagreement(first, other), first, other);
    if (what.empty() && first.comms_id != 0 && other.comms_id != 0 &&
        first.comms_id != other.comms_id)
      what = "Comms Id " + std::to_string(first.comms_id) + " vs " + std::to_string(other.comms_id);
    if (what.empty()) continue;
    if (++disagreeing == 1)
      detail = "ranks " + std::to_string(ctx.rank_of(refs.front())) + " and " +
               std::to_string(ctx.rank_of(refs[k])) + " disagree on " + what;
  }
  if (disagreeing == 0) return false;
  detail += " under Seq " + std::to_string(seq) + " of process group " + key.pg_name + " (" +
            std::to_string(disagreeing) + " of " + std::to_string(refs.size() - 1) +
            " ranks differ from the lowest)";
  ctx.result.mismatches.push_back({key, seq, std::move(detail)});
  return true;
}

void match_seq(Context& ctx, const std::string& pg, std::vector<Ref> refs) {
  std::sort(refs.begin(), refs.end(), [&](Ref a, Ref b) {
    return std::make_tuple(a.rank_pos, ctx.at(a).start_ns, a.index) <
           std::make_tuple(b.rank_pos, ctx.at(b).start_ns, b.index);
  });
  std::map<std::int64_t, std::vector<Ref>> by_seq;
  for (const Ref r : refs) {
    const std::int64_t seq = ctx.at(r).seq;
    std::vector<Ref>& members = by_seq[seq];
    if (members.empty() || members.back().rank_pos != r.rank_pos) {
      members.push_back(r);
      continue;
    }
    ctx.result.mismatches.push_back({seq_key(pg, seq), seq,
                                     "Seq " + std::to_string(seq) + " of process group " + pg +
                                         " appears more than once on rank " +
                                         std::to_string(ctx.rank_of(r)) +
                                         "; the later instance is left unmatched"});
  }
  for (const auto& [seq, members] : by_seq) {
    if (members.size() < 2) continue;
    const PartitionKey key = seq_key(pg, seq);
    const bool mismatch = warn_if_inconsistent(ctx, key, seq, members);
    emit(ctx, MatchTier::kSeq, key, seq, -1, members, mismatch);
  }
}

// ---- ordinal tier ---------------------------------------------------------------------------

// Every present rank has the same count and the k-th instances agree (§5.2): else the ranks
// dropped different collectives and k-th-with-k-th would pair the wrong ones.
bool ordinals_consistent(const Context& ctx, const RankSequences& sequences) {
  const std::vector<Ref>& first = sequences.begin()->second;
  for (const auto& [pos, refs] : sequences) {
    if (refs.size() != first.size()) return false;
    for (std::size_t k = 0; k < refs.size(); ++k)
      if (first_disagreement(ctx.at(first[k]), ctx.at(refs[k])) != Field::kNone) return false;
  }
  return true;
}

void match_ordinal(Context& ctx, const std::string& pg, const std::vector<Ref>& refs) {
  std::map<std::int32_t, RankSequences> by_step;
  for (const Ref r : refs) by_step[ctx.at(r).step][r.rank_pos].push_back(r);
  for (auto& [step, sequences] : by_step) {
    PartitionKey key;
    key.pg_name = pg;
    key.kind = PartitionKind::kOrdinal;
    key.step = step;
    for (auto& [pos, sequence] : sequences) sort_by_launch(ctx, sequence);
    if (!ordinals_consistent(ctx, sequences)) {
      ctx.result.timeline_fallbacks.push_back(key);
      ++ctx.summaries[pg].timeline_fallbacks;
      align_partition(ctx, key, std::move(sequences));
      continue;
    }
    if (sequences.size() < 2) continue;
    const std::size_t count = sequences.begin()->second.size();
    for (std::size_t k = 0; k < count; ++k) {
      std::vector<Ref> members;
      for (const auto& [pos, sequence] : sequences) members.push_back(sequence[k]);
      emit(ctx, MatchTier::kOrdinal, key, static_cast<std::int64_t>(k), -1, members);
    }
  }
}

// ---- point-to-point -------------------------------------------------------------------------

struct Direction {
  std::vector<Ref> sends;  // on the sender
  std::vector<Ref> recvs;  // on the receiver
};

// §7.4: the k-th send a→b pairs with the k-th recv at b from a, per (pg, step).
void match_p2p(Context& ctx, const std::string& pg, MatchTier tier, const std::vector<Ref>& refs) {
  std::map<std::tuple<std::int32_t, std::int32_t, std::int32_t>, Direction> directions;
  for (const Ref r : refs) {
    const CollectiveInstance& c = ctx.at(r);
    const std::int32_t self = ctx.rank_of(r);
    const bool has_peer = c.peer_rank >= 0 && c.peer_rank != self;
    if (has_peer && c.kind == CollectiveKind::kSend)
      directions[{c.step, self, c.peer_rank}].sends.push_back(r);
    else if (has_peer && c.kind == CollectiveKind::kRecv)
      directions[{c.step, c.peer_rank, self}].recvs.push_back(r);
    else
      ++ctx.summaries[pg].p2p_without_peer;
  }
  for (auto& [step_src_dst, direction] : directions) {
    const auto [step, src, dst] = step_src_dst;
    PartitionKey key;
    key.pg_name = pg;
    key.kind = PartitionKind::kPointToPoint;
    key.step = step;
    key.peer_low = std::min(src, dst);
    key.peer_high = std::max(src, dst);
    sort_by_launch(ctx, direction.sends);
    sort_by_launch(ctx, direction.recvs);
    const std::size_t pairs = std::min(direction.sends.size(), direction.recvs.size());
    for (std::size_t k = 0; k < pairs; ++k) {
      std::vector<Ref> members = {direction.sends[k], direction.recvs[k]};
      if (members[1].rank_pos < members[0].rank_pos) std::swap(members[0], members[1]);
      emit(ctx, tier, key, static_cast<std::int64_t>(k), src, members);
    }
  }
}

// ---- result ---------------------------------------------------------------------------------

void finish(Context& ctx) {
  MatchResult& result = ctx.result;
  for (MatchedCollective& c : result.collectives) {
    c.partition = partition_of(c.partition_key, ctx.options.partition_count);
    ++ctx.summaries[c.partition_key.pg_name].collectives;
  }
  std::sort(result.collectives.begin(), result.collectives.end(), [](const auto& a, const auto& b) {
    return std::tie(a.partition_key, a.key, a.key_rank) <
           std::tie(b.partition_key, b.key, b.key_rank);
  });
  std::sort(result.mismatches.begin(), result.mismatches.end(), [](const auto& a, const auto& b) {
    return std::tie(a.partition_key, a.key, a.detail) < std::tie(b.partition_key, b.key, b.detail);
  });
  std::sort(result.timeline_fallbacks.begin(), result.timeline_fallbacks.end());
  for (std::uint32_t pos = 0; pos < ctx.ranks.size(); ++pos)
    for (std::uint32_t i = 0; i < ctx.matched[pos].size(); ++i) {
      const std::string& pg = ctx.ranks[pos].instances[i].pg_name;
      if (ctx.matched[pos][i]) {
        ++ctx.summaries[pg].matched_instances;
      } else {
        ++ctx.summaries[pg].unmatched_instances;
        result.unmatched.push_back({ctx.ranks[pos].rank, i});
      }
    }
  for (auto& [name, summary] : ctx.summaries) result.groups.push_back(std::move(summary));
}

}  // namespace

std::string PartitionKey::canonical_text() const {
  const std::string bar = "|";
  switch (kind) {
    case PartitionKind::kSeq:
      return "seq|" + std::to_string(seq_block) + bar + pg_name;
    case PartitionKind::kOrdinal:
      return "ordinal|" + std::to_string(step) + bar + pg_name;
    case PartitionKind::kTimeline:
      return "timeline|" + std::to_string(step) + bar + std::to_string(channel);
    case PartitionKind::kPointToPoint:
      return "p2p|" + std::to_string(step) + bar + std::to_string(peer_low) + bar +
             std::to_string(peer_high) + bar + pg_name;
  }
  return {};
}

std::uint64_t fnv1a64(std::string_view text) {
  std::uint64_t hash = 14695981039346656037ULL;
  for (const char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ULL;
  }
  return hash;
}

std::uint32_t partition_of(const PartitionKey& key, std::uint32_t partition_count) {
  const std::uint64_t count = partition_count == 0 ? 1 : partition_count;
  return static_cast<std::uint32_t>(fnv1a64(key.canonical_text()) % count);
}

bool signatures_agree(const model::CollectiveInstance& a, const model::CollectiveInstance& b) {
  return first_disagreement(a, b) == Field::kNone;
}

std::vector<std::pair<std::size_t, std::size_t>> align_to_reference(
    std::span<const model::CollectiveInstance* const> reference, std::int64_t reference_offset_ns,
    std::span<const model::CollectiveInstance* const> other, std::int64_t other_offset_ns,
    std::int64_t tolerance_ns, std::size_t max_candidates_per_instance) {
  const std::int64_t tolerance = std::clamp<std::int64_t>(tolerance_ns, 0, kMaxTolerance);
  std::vector<std::pair<std::int64_t, std::size_t>> other_by_end;
  for (std::size_t j = 0; j < other.size(); ++j)
    other_by_end.emplace_back(saturating_sub(other[j]->end_ns(), other_offset_ns), j);
  std::sort(other_by_end.begin(), other_by_end.end());

  // Sparse form of the O(n·m) programme: only allowed pairs can raise the score, so the best
  // alignment ending with pair (i, j) extends the best one ending before both i and j.
  std::vector<Candidate> candidates;
  std::vector<Best> row;  // the best alignments ending with this row's pairs
  PrefixBest best_before(other.size());
  Best last;
  std::vector<std::pair<std::int64_t, std::size_t>> partners;
  for (std::size_t i = 0; i < reference.size(); ++i) {
    const std::int64_t end = saturating_sub(reference[i]->end_ns(), reference_offset_ns);
    partners_of(*reference[i], end, other, other_by_end, tolerance, max_candidates_per_instance,
                partners);
    row.clear();
    for (const auto& [distance, j] : partners) {
      const Best previous = best_before.best_below(j);
      Best here{{2 * tolerance - distance, 1}, static_cast<std::int64_t>(candidates.size())};
      here.score.weight += previous.score.weight;
      here.score.pairs += previous.score.pairs;
      candidates.push_back(
          {static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(j), previous.id});
      if (here.beats(last)) last = here;
      row.push_back(here);
    }
    // Offered after the whole row so two partners of one reference instance never chain.
    for (const Best& b : row)
      best_before.offer(candidates[static_cast<std::size_t>(b.id)].other, b);
  }

  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  for (std::int64_t id = last.id; id >= 0; id = candidates[static_cast<std::size_t>(id)].previous)
    pairs.emplace_back(candidates[static_cast<std::size_t>(id)].reference,
                       candidates[static_cast<std::size_t>(id)].other);
  std::reverse(pairs.begin(), pairs.end());
  return pairs;
}

MatchResult match_collectives(std::span<const RankCollectives> ranks, const MatchOptions& options) {
  Context ctx{unique_ranks(ranks), options, {}, {}, {}};
  const std::map<std::string, GroupInstances> groups = group_by_pg(ctx);
  for (const auto& [pg, group] : groups) {
    const MatchTier tier = tier_of(pg, group);
    match_p2p(ctx, pg, tier, group.p2p);
    if (tier == MatchTier::kSeq)
      match_seq(ctx, pg, group.collectives);
    else if (tier == MatchTier::kOrdinal)
      match_ordinal(ctx, pg, group.collectives);
    else
      match_unnamed(ctx, group.collectives);
  }
  finish(ctx);
  return std::move(ctx.result);
}

}  // namespace traceprism::multirank
