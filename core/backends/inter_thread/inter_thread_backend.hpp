// SPDX-License-Identifier: MIT
// Inter-thread backend: both endpoints are threads of one process (providers InterThreadMemcpy,
// InterThreadPointer). Memcpy copies once into the peer's receive buffer; Pointer shares it.
#pragma once

#include <memory>

#include "backend.hpp"

namespace takyon::detail {

struct InterThreadBackend {
  static Status create_memcpy(const EndpointConfig& config, Deadline deadline, ErrorLog& log,
                              std::unique_ptr<Backend>& out);
  static Status create_pointer(const EndpointConfig& config, Deadline deadline, ErrorLog& log,
                               std::unique_ptr<Backend>& out);
};

}  // namespace takyon::detail
