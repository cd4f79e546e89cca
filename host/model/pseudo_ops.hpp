// Inference mode's pseudo-op pass, the part traceprism has (inference-mode spec §4.2 step 1):
// SGLang's profiler ops carry a call counter
// (`sglang_profiler::attention_paged_attention_ragged_100`) that splits one op into as many names
// as calls; the reference drops it before modelling.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace traceprism::model {

// `sglang_profiler::<name>_<digits>` -> `sglang_profiler::<name>` (only the trailing number);
// nullopt for every other name.
std::optional<std::string> normalized_op_name(std::string_view name);

}  // namespace traceprism::model
