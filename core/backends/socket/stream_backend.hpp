// SPDX-License-Identifier: MIT
// Stream socket backend: providers InterProcessSocket (Unix domain) and Socket (TCP).
#pragma once

#include <memory>

#include "backend.hpp"

namespace takyon::detail {

struct StreamBackend {
  static Status create_unix(const EndpointConfig& config, Deadline deadline, ErrorLog& log,
                            std::unique_ptr<Backend>& out);
  static Status create_tcp(const EndpointConfig& config, Deadline deadline, ErrorLog& log,
                           std::unique_ptr<Backend>& out);
};

}  // namespace takyon::detail
