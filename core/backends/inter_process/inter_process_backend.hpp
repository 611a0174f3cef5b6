// SPDX-License-Identifier: MIT
// Inter-process backend: endpoints in processes of one OS, receive buffers in named shared
// memory (providers InterProcessMemcpy, InterProcessPointer).
#pragma once

#include <memory>

#include "backend.hpp"

namespace takyon::detail {

struct InterProcessBackend {
  static Status create_memcpy(const EndpointConfig& config, Deadline deadline, ErrorLog& log,
                              std::unique_ptr<Backend>& out);
  static Status create_pointer(const EndpointConfig& config, Deadline deadline, ErrorLog& log,
                               std::unique_ptr<Backend>& out);
};

}  // namespace takyon::detail
