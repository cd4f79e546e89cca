#include "model/capture_alignment.hpp"

#include <algorithm>
#include <deque>
#include <map>

namespace traceprism::model {

namespace {

bool has(const std::string& text, const char* part) {
  return text.find(part) != std::string::npos;
}

bool is_copy_or_set(const CapturedCall& c) {
  return has(c.name, "Memcpy") || has(c.name, "Memset");
}

const std::string& kernel_name(const CapturedCall& c) {
  return c.kernel ? *c.kernel : c.name;
}

// Several streams: one FIFO per stream (first-seen order); each call takes the head of the
// stream that matches it, the one matching the longest run of following calls on ties.
Alignment align_streams(const std::vector<CapturedCall>& calls,
                        const std::vector<ReplayedEvent>& replayed) {
  Alignment a;
  for (const CapturedCall& c : calls)
    if (!c.kernel && !is_copy_or_set(c)) {
      a.merge_failed = true;
      return a;
    }
  std::vector<std::optional<std::int64_t>> streams;
  std::vector<std::deque<std::size_t>> queues;
  for (std::size_t g = 0; g < replayed.size(); ++g) {
    auto it = std::find(streams.begin(), streams.end(), replayed[g].stream);
    if (it == streams.end()) {
      streams.push_back(replayed[g].stream);
      queues.emplace_back();
      it = streams.end() - 1;
    }
    queues[static_cast<std::size_t>(it - streams.begin())].push_back(g);
  }
  auto run_length = [&](const std::deque<std::size_t>& q, std::size_t from) {
    std::size_t n = 0;
    while (n < q.size() && from + n < calls.size() && call_matches(calls[from + n], replayed[q[n]]))
      ++n;
    return n;
  };
  for (std::size_t c = 0; c < calls.size(); ++c) {
    std::optional<std::size_t> best;
    std::size_t best_run = 0;
    for (std::size_t s = 0; s < queues.size(); ++s) {
      if (queues[s].empty() || !call_matches(calls[c], replayed[queues[s].front()])) continue;
      const std::size_t run = run_length(queues[s], c);
      if (!best || run > best_run) best = s, best_run = run;
    }
    if (!best) continue;  // a call no stream's next kernel matches is dropped
    a.pairs.emplace_back(queues[*best].front(), c);
    queues[*best].pop_front();
  }
  if (a.pairs.size() != replayed.size()) {
    a.pairs.clear();
    return a;
  }
  std::sort(a.pairs.begin(), a.pairs.end());
  a.code = AlignmentCode::kPerStream;
  return a;
}

// Different lengths: each event takes the next call that matches it; skipped calls are dropped.
Alignment align_greedy(const std::vector<CapturedCall>& calls,
                       const std::vector<ReplayedEvent>& replayed) {
  Alignment a;
  std::size_t c = 0;
  for (std::size_t g = 0; g < replayed.size(); ++g) {
    while (c < calls.size() && !call_matches(calls[c], replayed[g])) ++c;
    if (c == calls.size()) {
      a.pairs.clear();
      return a;
    }
    a.pairs.emplace_back(g, c++);
  }
  a.code = AlignmentCode::kGreedy;
  return a;
}

// Same length, names out of order: equal counts per name required; events are taken in the
// calls' order, the k-th call of a name getting the k-th event of that name.
Alignment align_regrouped(const std::vector<CapturedCall>& calls,
                          const std::vector<ReplayedEvent>& replayed) {
  Alignment a;
  std::map<std::string, std::vector<std::size_t>> events_by_name;
  std::map<std::string, std::size_t> calls_by_name;
  for (std::size_t g = 0; g < replayed.size(); ++g) events_by_name[replayed[g].name].push_back(g);
  for (const CapturedCall& c : calls) ++calls_by_name[kernel_name(c)];
  for (const auto& [name, count] : calls_by_name) {
    const auto it = events_by_name.find(name);
    if (it == events_by_name.end() || it->second.size() != count) return a;
  }
  std::map<std::string, std::size_t> taken;
  for (std::size_t c = 0; c < calls.size(); ++c) {
    const std::string& name = kernel_name(calls[c]);
    a.pairs.emplace_back(events_by_name[name][taken[name]++], c);
  }
  a.code = AlignmentCode::kRegrouped;
  return a;
}

}  // namespace

bool call_matches(const CapturedCall& c, const ReplayedEvent& g) {
  if (has(c.name, "Memcpy") && has(g.name, "Memcpy")) return true;
  if (has(c.name, "Memset") && (has(g.name, "Memset") || has(g.name, "fillBuffer"))) return true;
  return kernel_name(c) == g.name;
}

Alignment align_capture(const std::vector<CapturedCall>& calls,
                        const std::vector<ReplayedEvent>& replayed) {
  std::vector<std::optional<std::int64_t>> streams;
  for (const ReplayedEvent& g : replayed)
    if (std::find(streams.begin(), streams.end(), g.stream) == streams.end())
      streams.push_back(g.stream);
  if (streams.size() > 1) return align_streams(calls, replayed);
  if (calls.size() != replayed.size()) return align_greedy(calls, replayed);
  Alignment a;
  for (std::size_t i = 0; i < calls.size(); ++i) {
    // A call without a kernel name (CUDA, copies) is taken as it comes.
    if (calls[i].kernel && *calls[i].kernel != replayed[i].name)
      return align_regrouped(calls, replayed);
    a.pairs.emplace_back(i, i);
  }
  a.code = AlignmentCode::kExact;
  return a;
}

}  // namespace traceprism::model
