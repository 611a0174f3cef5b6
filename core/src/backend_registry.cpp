// SPDX-License-Identifier: MIT
// The provider table. Adding a transport is adding a row.
#include "backend_registry.hpp"

#include "backends/inter_process/inter_process_backend.hpp"
#include "backends/inter_thread/inter_thread_backend.hpp"

namespace takyon::detail {
namespace {

constexpr KeySpec kIdOnly[] = {{"ID", ValueKind::kUint32, true}};
constexpr ProviderSpec kIdSpec{{}, kIdOnly};

constexpr BackendEntry kBackends[] = {
    {"InterThreadMemcpy", kIdSpec, &InterThreadBackend::create_memcpy},
    {"InterThreadPointer", kIdSpec, &InterThreadBackend::create_pointer},
    {"InterProcessMemcpy", kIdSpec, &InterProcessBackend::create_memcpy},
    {"InterProcessPointer", kIdSpec, &InterProcessBackend::create_pointer},
};

}  // namespace

const BackendEntry* find_backend(std::string_view name) noexcept {
  for (const BackendEntry& entry : kBackends) {
    if (entry.name == name) return &entry;
  }
  return nullptr;
}

std::string backend_names() {
  std::string out;
  for (const BackendEntry& entry : kBackends) {
    if (!out.empty()) out += ", ";
    out += entry.name;
  }
  return out;
}

}  // namespace takyon::detail
