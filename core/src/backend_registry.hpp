// SPDX-License-Identifier: MIT
// The table of providers: the interconnect string's first word picks the row.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "backend.hpp"
#include "provider_string.hpp"
#include "takyon/takyon_providers.h"

namespace takyon::detail {

/// One provider: what it is (the public row, TakyonProviderInfo), the interconnect string it takes,
/// and how an endpoint is made.
struct BackendEntry {
  TakyonProviderInfo info;
  ProviderSpec spec;
  BackendFactory create;
};

/// The row for `name`, or nullptr.
const BackendEntry* find_backend(std::string_view name) noexcept;
/// Every row, in table order.
std::span<const BackendEntry> backends() noexcept;
/// "InterThreadMemcpy, InterThreadPointer, ..." for messages.
std::string backend_names();

}  // namespace takyon::detail
