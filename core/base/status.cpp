// SPDX-License-Identifier: MIT
// Names of takyon::Status values, for messages.
#include "takyon/takyon.hpp"

namespace takyon {

const char* status_name(Status status) noexcept {
  switch (status) {
    case Status::kOk:
      return "ok";
    case Status::kTimedOut:
      return "timed out";
    case Status::kInvalidArgument:
      return "invalid argument";
    case Status::kDisconnected:
      return "disconnected";
    case Status::kSystem:
      return "system error";
    case Status::kNoMemory:
      return "out of memory";
    case Status::kUnsupported:
      return "unsupported";
    case Status::kTimeout:
      return "timeout";
    case Status::kProtocol:
      return "protocol error";
    case Status::kFailedPath:
      return "path failed earlier";
  }
  return "unknown status";
}

}  // namespace takyon
