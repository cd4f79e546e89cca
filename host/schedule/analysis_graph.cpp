#include "schedule/analysis_graph.hpp"

#include <oneapi/tbb/flow_graph.h>
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/info.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <new>

#include "plugins/host_api.hpp"
#include "schedule/isolated_call.hpp"

namespace traceprism::schedule {
namespace {

namespace flow = oneapi::tbb::flow;
using findings::AnalyzerOutcome;
using findings::AnalyzerStatus;

struct AnalyzerSlot {
  const plugins::LoadedPlugin* plugin = nullptr;
  const traceprism_analyzer_v1* analyzer = nullptr;
  AnalyzerOutcome outcome;
  std::vector<std::size_t> depends_on;                      // slot indices of enabled dependencies
  std::vector<const AnalyzerOutcome*> dependency_outcomes;  // theirs, for products
};

traceprism_run_ctx make_context(const GraphInputs& in, const plugins::RunProducts& products,
                                std::string owner) {
  traceprism_run_ctx ctx;
  ctx.products = &products;
  ctx.config = in.config;
  ctx.platform = in.platform;
  ctx.trace_path = in.trace_path;
  ctx.owner = std::move(owner);
  return ctx;
}

// Calls the plugin's run function and turns its status into the outcome.
void call_analyzer(const GraphInputs& in, const plugins::RunProducts& products,
                   const AnalyzerSlot& slot, AnalyzerOutcome& out) {
  traceprism_run_ctx ctx = make_context(in, products, out.name);
  ctx.analyzer = slot.analyzer;
  ctx.outcome = &out;
  for (const AnalyzerOutcome* d : slot.dependency_outcomes) ctx.dependencies.push_back(d);
  std::int32_t status = TRACEPRISM_ERROR;
  try {
    status = slot.analyzer->run(&ctx, plugins::host_api(), slot.analyzer->user);
  } catch (const std::exception& e) {
    // The SDK wrapper catches inside the plugin; this is for plugins written without it.
    out.error = std::string("unhandled exception: ") + e.what();
  } catch (...) {
    out.error = "unhandled exception";
  }
  switch (status) {
    case TRACEPRISM_OK:
      out.error.clear();
      break;
    case TRACEPRISM_SKIPPED:
      out.status = AnalyzerStatus::kSkipped;
      if (out.error.empty()) out.error = "not applicable to this trace";
      break;
    case TRACEPRISM_ERROR:
      out.status = AnalyzerStatus::kFailed;
      if (out.error.empty()) out.error = "returned an error without a message";
      break;
    default:
      out.status = AnalyzerStatus::kFailed;
      out.error = "returned the unknown status " + std::to_string(status);
  }
  // A failed analyzer's findings are not trusted.
  if (out.status == AnalyzerStatus::kFailed) out.findings.clear();
}

// Analyzers failed or disabled before the run are not run.
bool runnable(const AnalyzerSlot& slot) {
  return slot.outcome.status == AnalyzerStatus::kOk;
}

void run_analyzer(const GraphInputs& in, const plugins::RunProducts& products,
                  const AnalyzerSlot& slot, AnalyzerOutcome& out) {
  try {
    call_analyzer(in, products, slot, out);
  } catch (...) {
    out.status = AnalyzerStatus::kFailed;
    out.error = "the host failed while running it";
  }
}

// Resolves depends_on into slot indices; marks analyzers with unknown dependencies or in a
// cycle as failed.
void resolve_dependencies(std::vector<AnalyzerSlot>& slots) {
  std::map<std::string, std::size_t> by_name;
  for (std::size_t i = 0; i < slots.size(); ++i) by_name[slots[i].outcome.name] = i;
  for (AnalyzerSlot& slot : slots) {
    if (slot.outcome.status != AnalyzerStatus::kOk || !slot.analyzer->depends_on) continue;
    for (const char* const* d = slot.analyzer->depends_on; *d; ++d) {
      // "?name": an optional dependency (ABI 1.2), waited for only when it is loaded.
      const bool optional = (*d)[0] == '?';
      auto it = by_name.find(optional ? *d + 1 : *d);
      if (it == by_name.end()) {
        if (optional) continue;
        slot.outcome.status = AnalyzerStatus::kFailed;
        slot.outcome.error =
            std::string("depends on '") + *d + "', which no loaded plugin provides";
        break;
      }
      // A disabled dependency is simply not waited for.
      if (slots[it->second].outcome.status != AnalyzerStatus::kDisabled)
        slot.depends_on.push_back(it->second);
    }
  }
  // Cycle check by depth-first search (0 = new, 1 = on the stack, 2 = done).
  std::vector<int> state(slots.size(), 0);
  std::vector<std::size_t> stack;
  std::function<bool(std::size_t)> visit = [&](std::size_t i) {
    if (state[i] == 1) {
      auto from = std::find(stack.begin(), stack.end(), i);
      std::string path;
      for (auto it = from; it != stack.end(); ++it) path += slots[*it].outcome.name + " -> ";
      path += slots[i].outcome.name;
      for (auto it = from; it != stack.end(); ++it) {
        slots[*it].outcome.status = AnalyzerStatus::kFailed;
        slots[*it].outcome.error = "is part of a dependency cycle: " + path;
      }
      return true;
    }
    if (state[i] == 2) return false;
    state[i] = 1;
    stack.push_back(i);
    for (std::size_t d : slots[i].depends_on) visit(d);
    stack.pop_back();
    state[i] = 2;
    return false;
  };
  for (std::size_t i = 0; i < slots.size(); ++i) visit(i);
  // Edges into failed analyzers are dropped; failed ones are never run anyway.
  for (AnalyzerSlot& slot : slots) {
    if (slot.outcome.status == AnalyzerStatus::kFailed) slot.depends_on.clear();
    for (std::size_t d : slot.depends_on) slot.dependency_outcomes.push_back(&slots[d].outcome);
  }
}

// A forked worker inherits only the forking thread: a oneTBB worker that held a lock at the
// fork (AddressSanitizer's allocator has no fork handler in clang 14; a child hung in it for
// good) would leave that lock held in the child. Joining the oneTBB workers first makes every
// fork single-threaded; a later parallel stage starts new ones. Best effort: nothing happens
// while another part of the process still holds the scheduler.
void join_worker_threads() {
  oneapi::tbb::task_scheduler_handle handle{oneapi::tbb::attach{}};
  (void)oneapi::tbb::finalize(handle, std::nothrow);
}

// The analyzers in forked worker processes, `threads` at a time (isolated_call.hpp).
void run_in_children(const GraphInputs& in, plugins::RunProducts& products,
                     std::vector<AnalyzerSlot>& slots, int threads) {
  // Built here once rather than in every child that asks for it.
  products.columns();
  std::vector<IsolatedTask> tasks;
  constexpr std::size_t kNotRun = static_cast<std::size_t>(-1);
  std::vector<std::size_t> task_of(slots.size(), kNotRun);
  for (std::size_t i = 0; i < slots.size(); ++i) {
    if (!runnable(slots[i])) continue;
    task_of[i] = tasks.size();
    AnalyzerSlot& slot = slots[i];
    tasks.push_back(
        {[&in, &products, &slot](AnalyzerOutcome& out) { run_analyzer(in, products, slot, out); },
         &slot.outcome,
         {}});
  }
  for (std::size_t i = 0; i < slots.size(); ++i) {
    if (task_of[i] == kNotRun) continue;
    for (std::size_t d : slots[i].depends_on)
      if (task_of[d] != kNotRun) tasks[task_of[i]].after.push_back(task_of[d]);
  }
  join_worker_threads();
  run_isolated(tasks, threads, in.analyzer_timeout_seconds);
}

// The analyzers in this process as a oneTBB flow graph on `threads` threads.
void run_in_process(const GraphInputs& in, const plugins::RunProducts& products,
                    std::vector<AnalyzerSlot>& slots, int threads) {
  // More threads than cores gain nothing (and make oneTBB warn).
  oneapi::tbb::task_arena graph_arena(std::min(threads, oneapi::tbb::info::default_concurrency()));
  graph_arena.execute([&] {
    flow::graph g;
    flow::broadcast_node<flow::continue_msg> start(g);
    std::vector<std::unique_ptr<flow::continue_node<flow::continue_msg>>> nodes;
    for (AnalyzerSlot& slot : slots)
      nodes.push_back(std::make_unique<flow::continue_node<flow::continue_msg>>(
          g, [&in, &products, &slot](const flow::continue_msg&) {
            if (runnable(slot)) run_analyzer(in, products, slot, slot.outcome);
          }));
    for (std::size_t i = 0; i < slots.size(); ++i) {
      if (slots[i].depends_on.empty()) flow::make_edge(start, *nodes[i]);
      for (std::size_t d : slots[i].depends_on) flow::make_edge(*nodes[d], *nodes[i]);
    }
    start.try_put(flow::continue_msg());
    g.wait_for_all();
  });
}

}  // namespace

GraphResult run_analysis_graph(const GraphInputs& in, plugins::RunProducts& products) {
  std::vector<AnalyzerSlot> slots;
  for (const auto& plugin : in.registry->plugins())
    for (std::uint32_t i = 0; i < plugin.info->analyzer_count; ++i) {
      const traceprism_analyzer_v1& a = plugin.info->analyzers[i];
      AnalyzerSlot slot;
      slot.plugin = &plugin;
      slot.analyzer = &a;
      slot.outcome.name = a.name;
      slot.outcome.plugin = plugin.info->name;
      slot.outcome.plugin_version = plugin.info->version ? plugin.info->version : "";
      slot.outcome.summary = a.summary ? a.summary : "";
      if (!in.config->enabled(a.name)) {
        slot.outcome.status = AnalyzerStatus::kDisabled;
        slot.outcome.error = "disabled by the configuration";
      }
      slots.push_back(std::move(slot));
    }
  std::sort(slots.begin(), slots.end(), [](const AnalyzerSlot& a, const AnalyzerSlot& b) {
    return a.outcome.name < b.outcome.name;
  });
  resolve_dependencies(slots);

  const int threads = in.jobs > 0 ? in.jobs : oneapi::tbb::this_task_arena::max_concurrency();
  if (in.isolate)
    run_in_children(in, products, slots, threads);
  else
    run_in_process(in, products, slots, threads);
  GraphResult result;
  for (AnalyzerSlot& slot : slots) result.analyzers.push_back(std::move(slot.outcome));
  return result;
}

}  // namespace traceprism::schedule
