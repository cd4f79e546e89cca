#pragma once

#include <cstdint>
#include <string_view>

namespace traceprism::index {

enum class CopyDirection : std::uint8_t {
  kUnknown,
  kHostToDevice,
  kDeviceToHost,
  kDeviceToDevice,
  kHostToHost,
  kPeerToPeer
};
// Where a copy's source or destination lives; pageable host memory forces a staged,
// synchronous copy, which later analyzers flag.
enum class MemoryKind : std::uint8_t {
  kUnknown,
  kPageable,
  kPinned,
  kDevice,
  kHost,
  kManaged,
  kArray
};

struct CopyKind {
  CopyDirection direction = CopyDirection::kUnknown;
  MemoryKind source = MemoryKind::kUnknown;
  MemoryKind destination = MemoryKind::kUnknown;
};

// Reads a GPU copy event's name as Kineto writes it for CUDA and ROCm:
// "Memcpy HtoD (Pageable -> Device)", "Memcpy DtoH (Device -> Host)", "Memcpy PtoP (Device ->
// Device)". `kind_arg` is the ROCm args.kind ("HtoD"), used when the name has no direction.
CopyKind parse_copy_kind(std::string_view name, std::string_view kind_arg = {});

std::string_view copy_direction_name(CopyDirection d);  // "HtoD", ..., "unknown"
std::string_view memory_kind_name(MemoryKind m);        // "pageable", ..., "unknown"

}  // namespace traceprism::index
