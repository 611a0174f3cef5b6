// SPDX-License-Identifier: MIT
// The provider table as the public APIs show it (takyon_providers.h, takyon::providers()).
#include <cstring>
#include <span>
#include <string_view>
#include <vector>

#include "backend_registry.hpp"
#include "path_core.hpp"
#include "takyon/takyon.hpp"
#include "takyon/takyon_providers.h"

namespace takyon {
namespace {

/// The rows' public part, contiguous (the C API indexes it, the C++ API spans it).
const std::vector<TakyonProviderInfo>& rows() {
  static const std::vector<TakyonProviderInfo> all = [] {
    std::vector<TakyonProviderInfo> out;
    for (const detail::BackendEntry& e : detail::backends()) out.push_back(e.info);
    return out;
  }();
  return all;
}

}  // namespace

std::span<const TakyonProviderInfo> providers() noexcept {
  return rows();
}

const TakyonProviderInfo* find_provider(std::string_view name) noexcept {
  name = name.substr(0, name.find(' '));
  for (const TakyonProviderInfo& row : rows()) {
    if (name == row.name) return &row;
  }
  return nullptr;
}

}  // namespace takyon

extern "C" {

TAKYON_API int takyonProviderCount(void) {
  return static_cast<int>(takyon::providers().size());
}

TAKYON_API const TakyonProviderInfo* takyonProviderInfo(int index) {
  const auto all = takyon::providers();
  return index < 0 || static_cast<size_t>(index) >= all.size() ? nullptr : &all[static_cast<size_t>(index)];
}

TAKYON_API const TakyonProviderInfo* takyonFindProvider(const char* name) {
  return name == nullptr ? nullptr : takyon::find_provider(name);
}

TAKYON_API const TakyonProviderInfo* takyonPathProvider(const TakyonPath* path) {
  if (path == nullptr || path->private_path == nullptr) return nullptr;
  const auto& info = static_cast<const takyon::detail::PathCore*>(path->private_path)->provider_info();
  return takyon::find_provider(info.name);
}

TAKYON_API bool takyonPathCapabilities(const TakyonPath* path, TakyonPathCapabilities* caps_ret) {
  if (path == nullptr || path->private_path == nullptr || caps_ret == nullptr) return false;
  static_cast<const takyon::detail::PathCore*>(path->private_path)->capabilities(*caps_ret);
  return true;
}

}  // extern "C"
