// SPDX-License-Identifier: MIT
// The per-thread error text of the collective and graph extensions (takyonExtensionError()).
#ifndef TAKYON_EXTENSIONS_EXTENSION_ERROR_HPP_
#define TAKYON_EXTENSIONS_EXTENSION_ERROR_HPP_

#include <string>

namespace takyon::detail {

// Records why the calling thread's current extension call fails and prints it to stderr (the
// guide's programs ignore results, so an unprinted error would be invisible). Returns false so a
// caller can write `return fail_extension(...)`.
bool fail_extension(const std::string& message);

// printf-style variant of fail_extension().
[[gnu::format(printf, 1, 2)]] bool fail_extensionf(const char* format, ...);

// Records the message without printing it (for callers that print once for several failures).
void set_extension_error_quietly(const std::string& message);

}  // namespace takyon::detail

#endif  // TAKYON_EXTENSIONS_EXTENSION_ERROR_HPP_
