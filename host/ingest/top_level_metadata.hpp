#pragma once

#include <string>

#include "index/trace_metadata.hpp"

namespace traceprism::ingest {

// Fills devices and distributed info from the captured (compact JSON) texts of the top-level
// `deviceProperties` and `distributedInfo` values. Malformed entries are ignored field by field.
void apply_top_level_metadata(index::TraceMetadata& metadata, const std::string& device_properties,
                              const std::string& distributed_info);

}  // namespace traceprism::ingest
