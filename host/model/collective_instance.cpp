#include "model/collective_instance.hpp"

#include <algorithm>
#include <cctype>
#include <iterator>

namespace traceprism::model {

namespace {

struct KindName {
  std::string_view name;
  CollectiveKind kind;
};

// multi-rank.md §5.1's normalisation table, lower case, after the prefix and the trailing "_"
// are stripped ("c10d::_allgather_base_" reads "_allgather_base").
constexpr KindName kKindNames[] = {
    {"allreduce", CollectiveKind::kAllReduce},
    {"allreduce_coalesced", CollectiveKind::kAllReduce},
    {"all_reduce", CollectiveKind::kAllReduce},
    {"all_reduce_coalesced", CollectiveKind::kAllReduce},
    {"barrier", CollectiveKind::kAllReduce},
    {"allgather", CollectiveKind::kAllGather},
    {"all_gather", CollectiveKind::kAllGather},
    {"_allgather_base", CollectiveKind::kAllGather},
    {"allgather_base", CollectiveKind::kAllGather},
    {"all_gather_base", CollectiveKind::kAllGather},
    {"_all_gather_base", CollectiveKind::kAllGather},
    {"all_gather_into_tensor", CollectiveKind::kAllGather},
    {"all_gather_into_tensor_coalesced", CollectiveKind::kAllGather},
    {"allgather_into_tensor_coalesced", CollectiveKind::kAllGather},
    {"allgather_coalesced", CollectiveKind::kAllGather},
    {"reduce_scatter", CollectiveKind::kReduceScatter},
    {"reducescatter", CollectiveKind::kReduceScatter},
    {"_reduce_scatter_base", CollectiveKind::kReduceScatter},
    {"reduce_scatter_base", CollectiveKind::kReduceScatter},
    {"reduce_scatter_tensor", CollectiveKind::kReduceScatter},
    {"reduce_scatter_tensor_coalesced", CollectiveKind::kReduceScatter},
    {"all_to_all", CollectiveKind::kAllToAll},
    {"alltoall", CollectiveKind::kAllToAll},
    {"alltoall_base", CollectiveKind::kAllToAll},
    {"all_to_all_single", CollectiveKind::kAllToAll},
    {"all_to_allv", CollectiveKind::kAllToAllV},
    {"alltoallv", CollectiveKind::kAllToAllV},
    {"broadcast", CollectiveKind::kBroadcast},
    {"reduce", CollectiveKind::kReduce},
    {"gather", CollectiveKind::kGather},
    {"scatter", CollectiveKind::kScatter},
    {"send", CollectiveKind::kSend},
    {"recv", CollectiveKind::kRecv},
    {"recv_any_source", CollectiveKind::kRecv},
    {"coalesced", CollectiveKind::kCoalesced},
};

struct DtypeInfo {
  std::string_view name;
  CollectiveDtype dtype;
  int bytes;
};

// The profiler's `dtype` spellings (c10's ScalarType names) and element sizes; a packed FP4
// element pair counts as one byte, as the profiler counts its nelems.
constexpr DtypeInfo kDtypes[] = {
    {"Float", CollectiveDtype::kFloat, 4},
    {"Int", CollectiveDtype::kInt, 4},
    {"Long", CollectiveDtype::kLong, 8},
    {"BFloat16", CollectiveDtype::kBFloat16, 2},
    {"Bool", CollectiveDtype::kBool, 1},
    {"Byte", CollectiveDtype::kByte, 1},
    {"Double", CollectiveDtype::kDouble, 8},
    {"Half", CollectiveDtype::kHalf, 2},
    {"Short", CollectiveDtype::kShort, 2},
    {"Char", CollectiveDtype::kChar, 1},
    {"UInt16", CollectiveDtype::kUInt16, 2},
    {"UInt32", CollectiveDtype::kUInt32, 4},
    {"UInt64", CollectiveDtype::kUInt64, 8},
    {"Float8_e4m3fn", CollectiveDtype::kFloat8E4m3fn, 1},
    {"Float8_e5m2", CollectiveDtype::kFloat8E5m2, 1},
    {"Float8_e4m3fnuz", CollectiveDtype::kFloat8E4m3fnuz, 1},
    {"Float8_e5m2fnuz", CollectiveDtype::kFloat8E5m2fnuz, 1},
    {"Float8_e8m0fnu", CollectiveDtype::kFloat8E8m0fnu, 1},
    {"ComplexHalf", CollectiveDtype::kComplexHalf, 4},
    {"ComplexFloat", CollectiveDtype::kComplexFloat, 8},
    {"ComplexDouble", CollectiveDtype::kComplexDouble, 16},
    {"Float4_e2m1fn_x2", CollectiveDtype::kFloat4E2m1fnX2, 1},
};

const DtypeInfo* dtype_info(CollectiveDtype dtype) {
  for (const DtypeInfo& d : kDtypes)
    if (d.dtype == dtype) return &d;
  return nullptr;
}

std::string_view strip_prefix(std::string_view s, std::string_view prefix) {
  if (s.size() >= prefix.size() && s.substr(0, prefix.size()) == prefix)
    s.remove_prefix(prefix.size());
  return s;
}

}  // namespace

const char* kind_name(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::kAllReduce:
      return "allreduce";
    case CollectiveKind::kAllGather:
      return "allgather";
    case CollectiveKind::kReduceScatter:
      return "reducescatter";
    case CollectiveKind::kAllToAll:
      return "alltoall";
    case CollectiveKind::kAllToAllV:
      return "alltoallv";
    case CollectiveKind::kBroadcast:
      return "broadcast";
    case CollectiveKind::kReduce:
      return "reduce";
    case CollectiveKind::kGather:
      return "gather";
    case CollectiveKind::kScatter:
      return "scatter";
    case CollectiveKind::kSend:
      return "send";
    case CollectiveKind::kRecv:
      return "recv";
    case CollectiveKind::kCoalesced:
      return "coalesced";
    case CollectiveKind::kUnknown:
      break;
  }
  return "unknown";
}

CollectiveKind kind_from_name(std::string_view name) {
  std::string lower;
  lower.reserve(name.size());
  std::transform(name.begin(), name.end(), std::back_inserter(lower),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  std::string_view s = strip_prefix(strip_prefix(lower, "c10d::"), "nccl:");
  if (s.size() > 1 && s.back() == '_') s.remove_suffix(1);
  for (const KindName& k : kKindNames)
    if (k.name == s) return k.kind;
  return CollectiveKind::kUnknown;
}

bool is_symmetric(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::kAllReduce:
    case CollectiveKind::kAllGather:
    case CollectiveKind::kReduceScatter:
    case CollectiveKind::kAllToAll:
    case CollectiveKind::kBroadcast:
    case CollectiveKind::kReduce:
      return true;
    default:
      return false;
  }
}

bool is_point_to_point(CollectiveKind kind) {
  return kind == CollectiveKind::kSend || kind == CollectiveKind::kRecv;
}

CollectiveDtype dtype_from_name(std::string_view profiler_name) {
  for (const DtypeInfo& d : kDtypes)
    if (d.name == profiler_name) return d.dtype;
  return CollectiveDtype::kUnknown;
}

const char* dtype_name(CollectiveDtype dtype) {
  const DtypeInfo* d = dtype_info(dtype);
  return d ? d->name.data() : "unknown";
}

int dtype_bytes(CollectiveDtype dtype) {
  const DtypeInfo* d = dtype_info(dtype);
  return d ? d->bytes : 0;
}

}  // namespace traceprism::model
