// SPDX-License-Identifier: MIT
// What libtakyon and the Ucx module (libtakyon_ucx.so) pass each other. libtakyon parses the
// provider string and connects the stream; the module, which alone links UCX, does the rest. Both
// are compiled from this header in one build; build_key and the sizes catch a module of another.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "backend.hpp"
#include "backends/net/stream_connect.hpp"

namespace takyon::detail {

/// -protocol=: auto (map when every peer buffer can be mapped, else am), am or map.
enum class UcxProtocol : uint32_t { kAuto = 0, kAm = 1, kMap = 2 };

/// One endpoint's choices, from its provider string.
struct UcxOptions {
  std::string provider;  ///< The interconnect text, for messages.
  std::string tls;       ///< -tls= ("" = UCX's default choice, or UCX_TLS from the environment).
  bool polling = true;
  UcxProtocol protocol = UcxProtocol::kAuto;
};

/// Creates the endpoint on `stream` (already connected to the peer). Never throws.
using UcxCreateFn = Status (*)(const EndpointConfig& config, StreamConnection& stream,
                               const UcxOptions& options, Deadline deadline, ErrorLog& log,
                               std::unique_ptr<Backend>& out) noexcept;

/// Sizes of what crosses the boundary: a module built against other headers differs in one.
struct UcxAbiSizes {
  size_t api = 0;
  size_t endpoint_config = 0;
  size_t stream_connection = 0;
  size_t error_log = 0;
  size_t options = 0;
  size_t backend = 0;
  friend bool operator==(const UcxAbiSizes&, const UcxAbiSizes&) = default;
};

/// What the module's entry point returns.
struct UcxModuleApi {
  UcxAbiSizes sizes;
  const char* build_key;  ///< TAKYON_UCX_BUILD_KEY of the build that made the module.
  const char* ucx_version;
  UcxCreateFn create;
};

inline UcxAbiSizes ucx_abi_sizes() {
  return {sizeof(UcxModuleApi), sizeof(EndpointConfig), sizeof(StreamConnection),
          sizeof(ErrorLog),     sizeof(UcxOptions),     sizeof(Backend)};
}

/// The module's one exported symbol: extern "C" const UcxModuleApi* takyon_ucx_module_api(void).
inline constexpr char kUcxModuleEntry[] = "takyon_ucx_module_api";
using UcxModuleEntry = const UcxModuleApi* (*)();

}  // namespace takyon::detail
