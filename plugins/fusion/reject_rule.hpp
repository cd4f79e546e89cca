// The judgement the reference leaves to its LLM (analysis-rules §9.7 item 1), as the spec's
// proposed rule: an estimate whose candidate is a container or a loop of one op is not a
// fusion opportunity. Applied after the estimates are computed, so the metrics stay the
// reference's; only the findings leave these out.
#pragma once

#include <string>

#include "fusion_candidate.hpp"

namespace traceprism::plugins::fusion {

struct RejectSettings {
  bool reject_containers = true;      // option RejectContainers
  bool reject_python_frames = false;  // option RejectPythonFrames (the rule's literal reading)
};

// Why the candidate is not a fusion opportunity; empty when it is one.
std::string reject_reason(const FusionCandidate& c, const RejectSettings& settings);

// "transformers/.../modeling_qwen2.py(68): apply_rotary_pos_emb" is a Python frame.
bool is_python_frame(const std::string& base_name);

// The name a reader knows the candidate by: a module's class name, a frame's function name
// (with its file when the function is a generic one such as forward), an op's name.
std::string short_name(const std::string& base_name);

}  // namespace traceprism::plugins::fusion
