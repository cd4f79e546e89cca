#include "ingest/top_level_metadata.hpp"

#include <cmath>
#include <utility>

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>

namespace traceprism::ingest {

namespace {

// The integer at `key`, or `fallback` when it is absent, not a number, not integral, or out of
// Int's range (a double such as 1e36 cast to an integer would be undefined behaviour).
template <class Int>
Int int_or(const boost::json::object& o, const char* key, Int fallback) {
  auto it = o.find(key);
  if (it == o.end()) return fallback;
  const boost::json::value& v = it->value();
  if (const auto* i = v.if_int64()) return std::in_range<Int>(*i) ? static_cast<Int>(*i) : fallback;
  if (const auto* u = v.if_uint64())
    return std::in_range<Int>(*u) ? static_cast<Int>(*u) : fallback;
  if (const auto* d = v.if_double()) {
    // 2^63 and -2^63 are exact doubles; the range test is done in double before any cast.
    constexpr double kLimit = 9223372036854775808.0;
    if (!(*d >= -kLimit && *d < kLimit) || std::trunc(*d) != *d) return fallback;
    const auto whole = static_cast<std::int64_t>(*d);
    return std::in_range<Int>(whole) ? static_cast<Int>(whole) : fallback;
  }
  return fallback;
}

std::string string_or(const boost::json::object& o, const char* key) {
  auto it = o.find(key);
  if (it == o.end()) return {};
  if (auto* s = it->value().if_string()) return std::string(s->data(), s->size());
  return {};
}

}  // namespace

void apply_top_level_metadata(index::TraceMetadata& metadata, const std::string& device_properties,
                              const std::string& distributed_info) {
  boost::json::error_code ec;
  if (!device_properties.empty()) {
    boost::json::value v = boost::json::parse(device_properties, ec);
    if (!ec && v.is_array()) {
      for (const auto& entry : v.as_array()) {
        const auto* o = entry.if_object();
        if (!o) continue;
        index::DeviceInfo d;
        d.id = int_or<std::int64_t>(*o, "id", static_cast<std::int64_t>(metadata.devices.size()));
        d.name = string_or(*o, "name");
        d.total_global_mem = int_or<std::int64_t>(*o, "totalGlobalMem", 0);
        d.compute_major = int_or<int>(*o, "computeMajor", 0);
        d.compute_minor = int_or<int>(*o, "computeMinor", 0);
        d.num_sms = int_or<int>(*o, "numSms", 0);
        d.warp_size = int_or<int>(*o, "warpSize", 0);
        metadata.devices.push_back(std::move(d));
      }
    }
  }
  if (!distributed_info.empty()) {
    boost::json::value v = boost::json::parse(distributed_info, ec);
    if (!ec && v.is_object()) {
      const auto& o = v.as_object();
      index::DistributedInfo info;
      info.backend = string_or(o, "backend");
      info.rank = int_or<std::int64_t>(o, "rank", -1);
      info.world_size = int_or<std::int64_t>(o, "world_size", -1);
      info.raw_json = distributed_info;
      metadata.distributed = std::move(info);
    }
  }
}

}  // namespace traceprism::ingest
