#include "perf_report/call_stacks.hpp"

#include <algorithm>
#include <array>

#include "io/ascii_text.hpp"
#include "text/python_repr.hpp"

namespace traceprism::perf_report {

namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

bool contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

// The function part of a python frame name, "file.py(12): name" -> "name".
std::string_view function_of(std::string_view frame) {
  const std::size_t at = frame.rfind("): ");
  return at == std::string_view::npos ? frame : frame.substr(at + 3);
}

// Frames that dispatch, wrap or decorate rather than call the op (spec §4 "entry_point").
bool is_wrapper(std::string_view frame) {
  static constexpr std::array<std::string_view, 3> kPrefixes = {"<built-in", "pybind11_builtins",
                                                                "nn.Module:"};
  static constexpr std::array<std::string_view, 11> kPaths = {"torch/_ops.py",
                                                              "torch/nn/modules/module.py",
                                                              "torch/utils/_contextlib.py",
                                                              "torch/utils/_device.py",
                                                              "torch/_tensor.py",
                                                              "torch/functional.py",
                                                              "torch/overrides.py",
                                                              "torch/_inductor/",
                                                              "torch/_functorch/",
                                                              "torch/distributed/c10d_logger.py",
                                                              "triton/backends/"};
  static constexpr std::array<std::string_view, 10> kFunctions = {"__torch_function__",
                                                                  "_call_impl",
                                                                  "_wrapped_call_impl",
                                                                  "decorate_context",
                                                                  "dispatch_wrapper",
                                                                  "handle_torch_function",
                                                                  "wrapper",
                                                                  "custom_wrapper",
                                                                  "wrapper_custom",
                                                                  "outer_wrapper"};
  for (std::string_view p : kPrefixes)
    if (frame.starts_with(p)) return true;
  for (std::string_view p : kPaths)
    if (contains(frame, p)) return true;
  const std::string_view function = function_of(frame);
  return std::find(kFunctions.begin(), kFunctions.end(), function) != kFunctions.end();
}

// The op name without one trailing `_<digits>`.
std::string_view without_trailing_counter(std::string_view name) {
  std::size_t end = name.size();
  while (end > 0 && is_digit(name[end - 1])) --end;
  if (end == name.size() || end == 0 || name[end - 1] != '_') return name;
  return name.substr(0, end - 1);
}

}  // namespace

std::string without_counters(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    std::size_t end = i + 1;
    if (text[i] == '_')
      while (end < text.size() && is_digit(text[end])) ++end;
    if (end > i + 1) {
      i = end - 1;  // drop "_<digits>"
      continue;
    }
    out += text[i];
  }
  return out;
}

ModuleCallStack module_call_stack(const index::EventIndex& index,
                                  std::span<const std::int32_t> python_parents, index::Row row) {
  constexpr std::size_t kMaxFrame = 256;
  ModuleCallStack stack;
  stack.frames.emplace_back(index.name(row));
  for (std::int32_t up = row < python_parents.size() ? python_parents[row] : -1; up >= 0;
       up = python_parents[static_cast<std::size_t>(up)]) {
    const std::string_view name = index.name(static_cast<index::Row>(up));
    if (!contains(name, "nn.Module")) continue;
    stack.frames.push_back(name.size() > kMaxFrame ? std::string(name.substr(0, kMaxFrame)) + ".."
                                                   : std::string(name));
  }
  stack.parent_module = stack.frames.size() > 1 ? without_counters(stack.frames[1]) : "NA";
  return stack;
}

// ---- kernel call stacks ---------------------------------------------------------------------

std::int32_t KernelCallStacks::parent(index::Row row) const {
  return row < parents_.size() ? parents_[row] : -1;
}

std::string_view KernelCallStacks::frame(index::Row row) {
  const std::string_view name = index_.name(row);
  if (index_.kind(row) != index::EventKind::kCpuOp && !contains(name, "nn.Module") &&
      !contains(name, "::") && !contains(name, "/"))
    return {};
  auto [it, fresh] = frame_names_.try_emplace(index_.name_id(row));
  if (fresh) it->second = text::intern_report_text(without_counters(name));
  return it->second;
}

void KernelCallStacks::frames_up(index::Row row, std::int32_t stop,
                                 std::vector<std::string_view>& out) {
  // A kernel's launch adopted by a pseudo op does not have it as an ancestor (CallTree's
  // adoptions): its frames go up to the root, as the reference's walk does.
  for (std::int32_t at = static_cast<std::int32_t>(row); at >= 0 && at != stop;
       at = parent(static_cast<index::Row>(at))) {
    const std::string_view name = frame(static_cast<index::Row>(at));
    if (!name.empty()) out.push_back(name);
  }
}

void KernelCallStacks::annotate(index::Row collected, std::span<const index::Row> gpu_events,
                                KernelDetails& details) {
  std::vector<std::string_view> base;
  frames_up(collected, -1, base);
  std::reverse(base.begin(), base.end());
  for (std::size_t i = 0; i < gpu_events.size() && i < details.size(); ++i) {
    scratch_.clear();
    const std::int32_t launch = links_.launcher(gpu_events[i]);
    if (launch >= 0) frames_up(static_cast<index::Row>(launch), collected, scratch_);
    std::vector<std::string_view>& stack = details[i].call_stack;
    stack = base;
    stack.insert(stack.end(), scratch_.rbegin(), scratch_.rend());
  }
}

// ---- call_stack_full and entry_point --------------------------------------------------------

FullCallStack full_call_stack(const std::vector<KernelSummaryEntry>& summary) {
  FullCallStack out;
  if (summary.empty()) return out;
  out.found = true;
  std::vector<std::vector<std::string_view>> chains;
  for (const KernelSummaryEntry& entry : summary) {
    chains.push_back(entry.call_stack);
    chains.back().emplace_back(entry.name);
  }
  if (chains.size() == 1) {
    out.prefix = std::move(chains.front());
    return out;
  }
  std::size_t common = chains.front().size();
  for (const auto& chain : chains) {
    std::size_t same = 0;
    while (same < common && same < chain.size() && chain[same] == chains.front()[same]) ++same;
    common = same;
  }
  out.prefix.assign(chains.front().begin(), chains.front().begin() + common);
  for (const auto& chain : chains) {
    std::vector<std::string_view> tail(chain.begin() + common, chain.end());
    if (std::find(out.tails.begin(), out.tails.end(), tail) == out.tails.end())
      out.tails.push_back(std::move(tail));
  }
  return out;
}

std::string full_call_stack_repr(const FullCallStack& stack) {
  if (!stack.found) return "Not found";
  std::string out = "[";
  auto separate = [&] {
    if (out.size() > 1) out += ", ";
  };
  for (std::string_view frame : stack.prefix) {
    separate();
    out += text::python_string_repr(frame);
  }
  for (const auto& tail : stack.tails) {
    separate();
    out += text::python_string_list_repr(tail);
  }
  return out + "]";
}

std::string entry_point(std::string_view op_name, const FullCallStack& stack) {
  std::vector<std::string_view> flat = stack.prefix;
  for (const auto& tail : stack.tails) flat.insert(flat.end(), tail.begin(), tail.end());
  auto last_match = [&](std::string_view name) -> std::ptrdiff_t {
    for (std::size_t i = flat.size(); i-- > 0;)
      if (flat[i] == name) return static_cast<std::ptrdiff_t>(i);
    return -1;
  };
  std::ptrdiff_t op = last_match(op_name);
  if (op < 0) op = last_match(without_trailing_counter(op_name));
  if (op < 0) return "Not found";
  const std::size_t colons = op_name.rfind("::");
  const std::string local =
      io::ascii_lower(colons == std::string_view::npos ? op_name : op_name.substr(colons + 2));
  for (std::size_t j = static_cast<std::size_t>(op) + 1; j < flat.size(); ++j)
    if (contains(flat[j], ".py") && contains(io::ascii_lower(function_of(flat[j])), local))
      return std::string(flat[j]);
  for (std::ptrdiff_t j = op - 1; j >= 0; --j) {
    const std::string_view frame = flat[static_cast<std::size_t>(j)];
    if (contains(frame, ".py") && !is_wrapper(frame)) return std::string(frame);
  }
  return "Not found";
}

}  // namespace traceprism::perf_report
