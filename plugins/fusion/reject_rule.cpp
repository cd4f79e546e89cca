#include "reject_rule.hpp"

#include <algorithm>
#include <string_view>

#include "name_text.hpp"

namespace traceprism::plugins::fusion {
namespace {

// Function names that say nothing about what a frame computes.
bool is_generic_function(std::string_view f) {
  return f == "forward" || f == "__call__" || f == "_call_impl" || f == "main" || f == "<module>" ||
         f == "_wrapped_call_impl";
}

// The spec's container names: whole models, layers, blocks and module lists, and the
// script-level entry points whose frames wrap everything below them. Matched by hand rather than
// with std::regex (libstdc++'s matcher recurses once per character, and a trace's names can be
// any length); the same answer as std::regex_search of
// "Sequential|ModuleList|ModuleDict|DecoderLayer|EncoderLayer|TransformerBlock|Block$|"
// "Layer$|Model$|ForCausalLM|main|forward$" ($: the end of the name).
bool is_container_name(std::string_view name) {
  auto ends_with = [name](std::string_view suffix) {
    return name.size() >= suffix.size() && name.substr(name.size() - suffix.size()) == suffix;
  };
  return contains_any(name, {"Sequential", "ModuleList", "ModuleDict", "DecoderLayer",
                             "EncoderLayer", "TransformerBlock", "ForCausalLM", "main"}) ||
         ends_with("Block") || ends_with("Layer") || ends_with("Model") || ends_with("forward");
}

}  // namespace

bool is_python_frame(const std::string& base_name) {
  return contains(base_name, ".py(");
}

std::string short_name(const std::string& base_name) {
  if (!is_python_frame(base_name)) return base_name;
  const std::size_t colon = base_name.find("): ");
  if (colon == std::string::npos) return base_name;
  std::string function = base_name.substr(colon + 3);
  if (!is_generic_function(function)) return function;
  const std::size_t slash = base_name.rfind('/', colon);
  return slash == std::string::npos ? base_name : base_name.substr(slash + 1);
}

std::string reject_reason(const FusionCandidate& c, const RejectSettings& settings) {
  if (!settings.reject_containers) return {};
  const bool frame = is_python_frame(c.base_name);
  if (frame && settings.reject_python_frames) return "a Python frame, not a module";
  // A frame is judged by its function name, so that a path such as ".../domain/x.py" is not
  // taken for "main".
  const std::size_t colon = c.base_name.find("): ");
  const std::string judged =
      frame && colon != std::string::npos ? c.base_name.substr(colon + 3) : c.base_name;
  if (is_container_name(judged)) return "a container (" + judged + "), not a fusable op sequence";
  const bool one_op = !c.kernels.empty() && std::all_of(c.kernels.begin(), c.kernels.end(),
                                                        [&](const CandidateKernel& k) {
                                                          return k.name == c.kernels.front().name;
                                                        });
  if (one_op && (frame || c.sibling_sequence))
    return "independent repeats of one kernel from a loop, not a dependent chain";
  return {};
}

}  // namespace traceprism::plugins::fusion
