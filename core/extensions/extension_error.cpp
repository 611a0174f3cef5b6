// SPDX-License-Identifier: MIT
// The per-thread error text of the collective and graph extensions (takyonExtensionError()).
#include "extensions/extension_error.hpp"

#include <cstdarg>
#include <cstdio>
#include <vector>

#include "takyon/takyon_extensions.h"

namespace takyon::detail {
namespace {
thread_local std::string t_last_error;
}  // namespace

void set_extension_error_quietly(const std::string& message) {
  t_last_error = message;
}

bool fail_extension(const std::string& message) {
  t_last_error = message;
  std::fprintf(stderr, "%s\n", message.c_str());
  return false;
}

bool fail_extensionf(const char* format, ...) {
  va_list args;
  va_start(args, format);
  va_list copy;
  va_copy(copy, args);
  const int needed = std::vsnprintf(nullptr, 0, format, copy);
  va_end(copy);
  std::vector<char> text(needed > 0 ? static_cast<size_t>(needed) + 1 : 1, '\0');
  std::vsnprintf(text.data(), text.size(), format, args);
  va_end(args);
  return fail_extension(std::string(text.data()));
}

}  // namespace takyon::detail

extern "C" const char* takyonExtensionError(void) {
  return takyon::detail::t_last_error.c_str();
}
