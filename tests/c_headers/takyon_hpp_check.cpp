// SPDX-License-Identifier: MIT
// Compiles takyon.hpp (and the C headers from C++) with -Werror and checks the API's shape.
#include <takyon/takyon.hpp>  // first and alone: the header must be self-contained

#include <takyon/takyon.h>
#include <takyon/takyon_extensions.h>

#include <cstdio>
#include <cstring>
#include <optional>
#include <span>
#include <stdexcept>
#include <type_traits>

// The C API seen from C++ keeps the guide's signatures.
static_assert(std::is_same_v<decltype(&takyonCreate), TakyonPath* (*)(TakyonPathAttributes*)>);
static_assert(
    std::is_same_v<decltype(&takyonSend), bool (*)(TakyonPath*, int, uint64_t, uint64_t, uint64_t, bool*)>);
static_assert(std::is_same_v<decltype(&takyonIsSendFinished), bool (*)(TakyonPath*, int, bool*)>);
static_assert(std::is_same_v<decltype(&takyonSendTest), bool (*)(TakyonPath*, int, bool*)>);
static_assert(std::is_same_v<decltype(&takyonRecv), bool (*)(TakyonPath*, int, uint64_t*, uint64_t*, bool*)>);
static_assert(std::is_same_v<decltype(&takyonDestroy), char* (*)(TakyonPath**)>);
static_assert(std::is_same_v<decltype(&takyonAllocAttributes),
                             TakyonPathAttributes (*)(bool, bool, int, int, uint64_t, double, const char*)>);
static_assert(std::is_same_v<decltype(&takyonFreeAttributes), void (*)(TakyonPathAttributes)>);
static_assert(
    std::is_same_v<decltype(&takyonMmapAlloc), void (*)(const char*, uint64_t, void**, TakyonMmapHandle*)>);

// The C++ API: RAII, move-only paths; errors as exceptions carrying a Status.
static_assert(!std::is_copy_constructible_v<takyon::Path> && !std::is_copy_assignable_v<takyon::Path>);
static_assert(std::is_nothrow_move_constructible_v<takyon::Path> &&
              std::is_nothrow_move_assignable_v<takyon::Path>);
static_assert(std::is_nothrow_destructible_v<takyon::Path>);
static_assert(std::is_constructible_v<takyon::Path, const takyon::PathOptions&>);
static_assert(!std::is_convertible_v<const takyon::PathOptions&, takyon::Path>);  // explicit
static_assert(std::is_base_of_v<std::runtime_error, takyon::Error>);
static_assert(std::is_same_v<std::underlying_type_t<takyon::Status>, std::int8_t>);
static_assert(static_cast<int>(takyon::Status::kOk) == 0 && static_cast<int>(takyon::Status::kTimedOut) > 0);
static_assert(static_cast<int>(takyon::Status::kInvalidArgument) < 0 &&
              static_cast<int>(takyon::Status::kDisconnected) < 0 &&
              static_cast<int>(takyon::Status::kSystem) < 0 &&
              static_cast<int>(takyon::Status::kNoMemory) < 0 &&
              static_cast<int>(takyon::Status::kUnsupported) < 0 &&
              static_cast<int>(takyon::Status::kTimeout) < 0 &&
              static_cast<int>(takyon::Status::kProtocol) < 0 &&
              static_cast<int>(takyon::Status::kFailedPath) < 0);
static_assert(std::is_same_v<decltype(std::declval<takyon::Path&>().send(0, 1)), bool>);
static_assert(std::is_same_v<decltype(std::declval<takyon::Path&>().send(0, 1, 2, 3)), bool>);
static_assert(std::is_same_v<decltype(std::declval<takyon::Path&>().is_send_finished(0)), bool>);
static_assert(
    std::is_same_v<decltype(std::declval<takyon::Path&>().recv(0)), std::optional<takyon::Received>>);
static_assert(
    std::is_same_v<decltype(std::declval<const takyon::Path&>().send_buffer(0)), std::span<std::byte>>);
static_assert(
    std::is_same_v<decltype(std::declval<const takyon::Path&>().recv_buffer(0)), std::span<std::byte>>);
static_assert(std::is_same_v<decltype(std::declval<const takyon::Path&>().c_path()), TakyonPath*>);
static_assert(std::is_same_v<decltype(std::declval<const takyon::Path&>().send_buffer_count()), int>);
static_assert(std::is_same_v<decltype(std::declval<const takyon::Path&>().recv_buffer_count()), int>);
static_assert(std::is_same_v<decltype(std::declval<takyon::Path&>().destroy()), void>);
static_assert(std::is_same_v<decltype(takyon::PathOptions::symmetric("InterThreadMemcpy -ID=1", true, 1, 64)),
                             takyon::PathOptions>);
static_assert(std::is_same_v<decltype(takyon::status_name(takyon::Status::kOk)), const char*>);
static_assert(noexcept(takyon::status_name(takyon::Status::kOk)));
static_assert(std::is_same_v<decltype(std::declval<const takyon::Error&>().status()), takyon::Status>);

int main() {
  int failures = 0;
  const takyon::Status all[] = {
      takyon::Status::kOk,           takyon::Status::kTimedOut, takyon::Status::kInvalidArgument,
      takyon::Status::kDisconnected, takyon::Status::kSystem,   takyon::Status::kNoMemory,
      takyon::Status::kUnsupported,  takyon::Status::kTimeout,  takyon::Status::kProtocol,
      takyon::Status::kFailedPath};
  for (takyon::Status status : all) {
    const char* name = takyon::status_name(status);
    if (name == nullptr || std::strlen(name) == 0) {
      std::fprintf(stderr, "status_name(%d) is empty\n", static_cast<int>(status));
      failures++;
    }
  }
  const takyon::PathOptions options =
      takyon::PathOptions::symmetric("InterThreadMemcpy -ID=1", false, 2, 128);
  if (options.provider != "InterThreadMemcpy -ID=1" || options.endpoint_a || options.send_bytes.size() != 2 ||
      options.recv_bytes.size() != 2 || options.send_bytes[1] != 128) {
    std::fprintf(stderr, "PathOptions::symmetric did not fill in the options\n");
    failures++;
  }
  const takyon::Error error(takyon::Status::kDisconnected, "peer went away");
  if (error.status() != takyon::Status::kDisconnected || std::strcmp(error.what(), "peer went away") != 0) {
    std::fprintf(stderr, "takyon::Error does not keep its status and message\n");
    failures++;
  }
  std::printf("takyon.hpp: %s\n", failures == 0 ? "ok" : "FAILED");
  return failures == 0 ? 0 : 1;
}
