#include "ingest/top_level_metadata.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>

namespace traceprism::ingest {

namespace {

std::int64_t int_or(const boost::json::object& o, const char* key, std::int64_t fallback) {
  auto it = o.find(key);
  if (it == o.end()) return fallback;
  if (auto* i = it->value().if_int64()) return *i;
  if (auto* u = it->value().if_uint64()) return static_cast<std::int64_t>(*u);
  if (auto* d = it->value().if_double()) return static_cast<std::int64_t>(*d);
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
        d.id = int_or(*o, "id", static_cast<std::int64_t>(metadata.devices.size()));
        d.name = string_or(*o, "name");
        d.total_global_mem = int_or(*o, "totalGlobalMem", 0);
        d.compute_major = static_cast<int>(int_or(*o, "computeMajor", 0));
        d.compute_minor = static_cast<int>(int_or(*o, "computeMinor", 0));
        d.num_sms = static_cast<int>(int_or(*o, "numSms", 0));
        d.warp_size = static_cast<int>(int_or(*o, "warpSize", 0));
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
      info.rank = int_or(o, "rank", -1);
      info.world_size = int_or(o, "world_size", -1);
      info.raw_json = distributed_info;
      metadata.distributed = std::move(info);
    }
  }
}

}  // namespace traceprism::ingest
