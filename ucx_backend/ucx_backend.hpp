// SPDX-License-Identifier: MIT
// The Ucx provider's factory: "Ucx -server|-client -IP=<addr> (-port=<p> | -ID=<n>) [-reuse]" or
// "Ucx -ID=<n>" (both endpoints on this host), each with optional -tls=<list> and
// -protocol=auto|am|map.
#pragma once

#include "backend.hpp"

namespace takyon::detail {

struct UcxBackend {
  static Status create(const EndpointConfig& config, Deadline deadline, ErrorLog& log,
                       std::unique_ptr<Backend>& out);
};

}  // namespace takyon::detail
