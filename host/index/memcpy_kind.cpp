#include "index/memcpy_kind.hpp"

namespace traceprism::index {

namespace {

CopyDirection direction_of(std::string_view token) {
  if (token == "HtoD") return CopyDirection::kHostToDevice;
  if (token == "DtoH") return CopyDirection::kDeviceToHost;
  if (token == "DtoD") return CopyDirection::kDeviceToDevice;
  if (token == "HtoH") return CopyDirection::kHostToHost;
  if (token == "PtoP") return CopyDirection::kPeerToPeer;
  return CopyDirection::kUnknown;
}

MemoryKind memory_of(std::string_view word) {
  while (!word.empty() && word.front() == ' ') word.remove_prefix(1);
  while (!word.empty() && word.back() == ' ') word.remove_suffix(1);
  if (word == "Pageable") return MemoryKind::kPageable;
  if (word == "Pinned") return MemoryKind::kPinned;
  if (word == "Device") return MemoryKind::kDevice;
  if (word == "Host") return MemoryKind::kHost;
  if (word == "Managed") return MemoryKind::kManaged;
  if (word == "Array") return MemoryKind::kArray;
  return MemoryKind::kUnknown;
}

}  // namespace

CopyKind parse_copy_kind(std::string_view name, std::string_view kind_arg) {
  CopyKind kind;
  // "Memcpy HtoD (Pageable -> Device)"
  constexpr std::string_view kPrefix = "Memcpy ";
  if (name.substr(0, kPrefix.size()) == kPrefix) {
    std::string_view rest = name.substr(kPrefix.size());
    kind.direction = direction_of(rest.substr(0, 4));
    auto open = rest.find('(');
    auto arrow = rest.find("->");
    auto close = rest.rfind(')');
    if (open != std::string_view::npos && arrow != std::string_view::npos &&
        close != std::string_view::npos && open < arrow && arrow < close) {
      kind.source = memory_of(rest.substr(open + 1, arrow - open - 1));
      kind.destination = memory_of(rest.substr(arrow + 2, close - arrow - 2));
    }
  }
  if (kind.direction == CopyDirection::kUnknown) kind.direction = direction_of(kind_arg);
  return kind;
}

std::string_view copy_direction_name(CopyDirection d) {
  switch (d) {
    case CopyDirection::kHostToDevice:
      return "HtoD";
    case CopyDirection::kDeviceToHost:
      return "DtoH";
    case CopyDirection::kDeviceToDevice:
      return "DtoD";
    case CopyDirection::kHostToHost:
      return "HtoH";
    case CopyDirection::kPeerToPeer:
      return "PtoP";
    case CopyDirection::kUnknown:
      break;
  }
  return "unknown";
}

std::string_view memory_kind_name(MemoryKind m) {
  switch (m) {
    case MemoryKind::kPageable:
      return "pageable";
    case MemoryKind::kPinned:
      return "pinned";
    case MemoryKind::kDevice:
      return "device";
    case MemoryKind::kHost:
      return "host";
    case MemoryKind::kManaged:
      return "managed";
    case MemoryKind::kArray:
      return "array";
    case MemoryKind::kUnknown:
      break;
  }
  return "unknown";
}

}  // namespace traceprism::index
