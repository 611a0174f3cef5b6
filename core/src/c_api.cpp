// SPDX-License-Identifier: MIT
// The guide's C API. One guard per entry point: no C++ exception crosses extern "C".
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>

#include "path_core.hpp"
#include "takyon/takyon.h"

using takyon::Status;
using takyon::detail::PathCore;

namespace {

char* c_string(const std::string& text) {
  char* out = static_cast<char*>(std::malloc(text.size() + 1));
  if (out != nullptr) std::memcpy(out, text.c_str(), text.size() + 1);
  return out;
}

bool null_path(const char* operation) {
  std::fprintf(stderr, "%s: path is NULL (never created, or already destroyed)\n", operation);
  return false;
}

// Runs `body` and turns a stray exception into an error the caller can see.
template <typename Body>
bool guarded(const char* operation, Body body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "%s: out of memory\n", operation);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: internal error: %s\n", operation, e.what());
  }
  return false;
}

bool report(Status status, bool* timed_out_ret) {
  if (timed_out_ret != nullptr) *timed_out_ret = status == Status::kTimedOut;
  return status >= Status::kOk;
}

}  // namespace

extern "C" {

TakyonPath* takyonCreate(TakyonPathAttributes* attributes) {
  if (attributes == nullptr) {
    std::fprintf(stderr, "takyonCreate: attributes is NULL\n");
    return nullptr;
  }
  attributes->error_message = nullptr;
  TakyonPath* path = nullptr;
  guarded("takyonCreate", [&] {
    std::string error;
    Status status = Status::kOk;
    std::unique_ptr<PathCore> core = PathCore::create(*attributes, error, status);
    if (!core) {
      attributes->error_message = c_string(error);
      return false;
    }
    path = core.release()->c_path();
    return true;
  });
  return path;
}

bool takyonSend(TakyonPath* path, int buffer_index, uint64_t bytes, uint64_t src_offset, uint64_t dest_offset,
                bool* timed_out_ret) {
  if (path == nullptr) return null_path("takyonSend");
  return guarded("takyonSend", [&] {
    return report(
        PathCore::from(path)->send(buffer_index, bytes, src_offset, dest_offset, timed_out_ret != nullptr),
        timed_out_ret);
  });
}

bool takyonIsSendFinished(TakyonPath* path, int buffer_index, bool* timed_out_ret) {
  if (path == nullptr) return null_path("takyonIsSendFinished");
  return guarded("takyonIsSendFinished", [&] {
    return report(PathCore::from(path)->is_send_finished(buffer_index, timed_out_ret != nullptr,
                                                         "takyonIsSendFinished"),
                  timed_out_ret);
  });
}

bool takyonSendTest(TakyonPath* path, int buffer_index, bool* timed_out_ret) {
  if (path == nullptr) return null_path("takyonSendTest");
  return guarded("takyonSendTest", [&] {
    return report(
        PathCore::from(path)->is_send_finished(buffer_index, timed_out_ret != nullptr, "takyonSendTest"),
        timed_out_ret);
  });
}

bool takyonRecv(TakyonPath* path, int buffer_index, uint64_t* bytes_ret, uint64_t* offset_ret,
                bool* timed_out_ret) {
  if (path == nullptr) return null_path("takyonRecv");
  return guarded("takyonRecv", [&] {
    return report(PathCore::from(path)->recv(buffer_index, bytes_ret, offset_ret, timed_out_ret != nullptr),
                  timed_out_ret);
  });
}

bool takyonRecvPiggyback(TakyonPath* path, int buffer_index, uint64_t* bytes_ret, uint64_t* offset_ret,
                         uint32_t* piggyback_ret, bool* timed_out_ret) {
  if (path == nullptr) return null_path("takyonRecvPiggyback");
  return guarded("takyonRecvPiggyback", [&] {
    return report(PathCore::from(path)->recv(buffer_index, bytes_ret, offset_ret, timed_out_ret != nullptr,
                                             piggyback_ret, "takyonRecvPiggyback"),
                  timed_out_ret);
  });
}

bool takyonWritePiggyback(TakyonPath* path, int buffer_index, uint64_t bytes, uint64_t src_offset,
                          uint64_t dest_offset, uint32_t piggyback, bool* timed_out_ret) {
  if (path == nullptr) return null_path("takyonWritePiggyback");
  return guarded("takyonWritePiggyback", [&] {
    return report(PathCore::from(path)->write_piggyback(buffer_index, bytes, src_offset, dest_offset,
                                                        piggyback, timed_out_ret != nullptr),
                  timed_out_ret);
  });
}

bool takyonWrite(TakyonPath* path, int buffer_index, uint64_t bytes, uint64_t src_offset,
                 uint64_t dest_offset) {
  if (path == nullptr) return null_path("takyonWrite");
  return guarded("takyonWrite", [&] {
    return report(PathCore::from(path)->write(buffer_index, bytes, src_offset, dest_offset), nullptr);
  });
}

bool takyonRead(TakyonPath* path, int buffer_index, uint64_t bytes, uint64_t local_offset,
                uint64_t remote_offset) {
  if (path == nullptr) return null_path("takyonRead");
  return guarded("takyonRead", [&] {
    return report(PathCore::from(path)->read(buffer_index, bytes, local_offset, remote_offset), nullptr);
  });
}

bool takyonAtomicFetchAdd(TakyonPath* path, int buffer_index, uint64_t offset, uint64_t add,
                          uint64_t* old_ret) {
  if (path == nullptr) return null_path("takyonAtomicFetchAdd");
  return guarded("takyonAtomicFetchAdd", [&] {
    return report(PathCore::from(path)->fetch_add(buffer_index, offset, add, old_ret), nullptr);
  });
}

bool takyonAtomicCompareSwap(TakyonPath* path, int buffer_index, uint64_t offset, uint64_t compare,
                             uint64_t swap, uint64_t* old_ret) {
  if (path == nullptr) return null_path("takyonAtomicCompareSwap");
  return guarded("takyonAtomicCompareSwap", [&] {
    return report(PathCore::from(path)->compare_swap(buffer_index, offset, compare, swap, old_ret), nullptr);
  });
}

bool takyonWriteStart(TakyonPath* path, int buffer_index, uint64_t bytes, uint64_t src_offset,
                      uint64_t dest_offset) {
  if (path == nullptr) return null_path("takyonWriteStart");
  return guarded("takyonWriteStart", [&] {
    return report(PathCore::from(path)->write(buffer_index, bytes, src_offset, dest_offset, true), nullptr);
  });
}

bool takyonReadStart(TakyonPath* path, int buffer_index, uint64_t bytes, uint64_t local_offset,
                     uint64_t remote_offset) {
  if (path == nullptr) return null_path("takyonReadStart");
  return guarded("takyonReadStart", [&] {
    return report(PathCore::from(path)->read(buffer_index, bytes, local_offset, remote_offset, true),
                  nullptr);
  });
}

bool takyonAtomicFetchAddStart(TakyonPath* path, int buffer_index, uint64_t offset, uint64_t add,
                               uint64_t* old_ret) {
  if (path == nullptr) return null_path("takyonAtomicFetchAddStart");
  return guarded("takyonAtomicFetchAddStart", [&] {
    return report(PathCore::from(path)->fetch_add(buffer_index, offset, add, old_ret, true), nullptr);
  });
}

bool takyonAtomicCompareSwapStart(TakyonPath* path, int buffer_index, uint64_t offset, uint64_t compare,
                                  uint64_t swap, uint64_t* old_ret) {
  if (path == nullptr) return null_path("takyonAtomicCompareSwapStart");
  return guarded("takyonAtomicCompareSwapStart", [&] {
    return report(PathCore::from(path)->compare_swap(buffer_index, offset, compare, swap, old_ret, true),
                  nullptr);
  });
}

bool takyonIsOneSidedFinished(TakyonPath* path, bool* timed_out_ret) {
  if (path == nullptr) return null_path("takyonIsOneSidedFinished");
  return guarded("takyonIsOneSidedFinished", [&] {
    return report(PathCore::from(path)->is_one_sided_finished(timed_out_ret != nullptr), timed_out_ret);
  });
}

char* takyonDestroy(TakyonPath** path_ret) {
  if (path_ret == nullptr || *path_ret == nullptr) {
    return c_string("takyonDestroy: path is NULL (never created, or already destroyed)");
  }
  PathCore* core = PathCore::from(*path_ret);
  *path_ret = nullptr;
  std::string error;
  guarded("takyonDestroy", [&] {
    error = core->destroy();
    return true;
  });
  delete core;
  return error.empty() ? nullptr : c_string(error);
}

}  // extern "C"
