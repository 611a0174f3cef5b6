// SPDX-License-Identifier: MIT
// The table of providers: the interconnect string's first word picks the row.
#pragma once

#include <string_view>

#include "backend.hpp"
#include "provider_string.hpp"

namespace takyon::detail {

struct BackendEntry {
  std::string_view name;
  ProviderSpec spec;
  BackendFactory create;
};

/// The row for `name`, or nullptr.
const BackendEntry* find_backend(std::string_view name) noexcept;
/// "InterThreadMemcpy, InterThreadPointer, ..." for messages.
std::string backend_names();

}  // namespace takyon::detail
