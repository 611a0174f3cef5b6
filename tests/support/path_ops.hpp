// SPDX-License-Identifier: MIT
// Path operations for endpoint functions: create/send/recv/destroy that record failures with the caller's
// line.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "support/endpoint_runner.hpp"
#include "support/path_attrs.hpp"
#include "takyon/takyon.h"

namespace takyon::test {

/// The caller's file and line, as a default argument (like std::source_location, which clang 14
/// with libstdc++ 12 lacks, so clang-tidy can still parse these tests).
struct CallSite {
  const char* file;
  int line;
  static CallSite here(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
    return {file, line};
  }
};

/// Copies a malloc()ed Takyon string and frees it ("" for NULL).
std::string take_string(char* text);
/// path->attrs.error_message, or "" when there is none.
std::string path_error(const TakyonPath* path);
/// Case-insensitive substring test, for checking error messages for key words.
bool contains_ci(std::string_view text, std::string_view word);
/// Every word appears in text (case-sensitive: field names, values, provider names).
::testing::AssertionResult mentions_all(const std::string& text, const std::vector<std::string>& words);
/// At least one word appears in text (case-insensitive: prose such as "twice" or "duplicate").
::testing::AssertionResult mentions_any(const std::string& text, const std::vector<std::string>& words);

[[nodiscard]] uint8_t* send_buffer(const TakyonPath* path, int buffer);
[[nodiscard]] uint8_t* recv_buffer(const TakyonPath* path, int buffer);

/// Owns a TakyonPath*: the destructor destroys it (result ignored), so an endpoint function that
/// ends early still lets its peer see the endpoint go away.
class PathHandle {
 public:
  PathHandle() = default;
  explicit PathHandle(TakyonPath* path) noexcept : path_(path) {}
  ~PathHandle();
  PathHandle(PathHandle&& other) noexcept : path_(other.path_) { other.path_ = nullptr; }
  PathHandle& operator=(PathHandle&& other) noexcept;
  PathHandle(const PathHandle&) = delete;
  PathHandle& operator=(const PathHandle&) = delete;

  [[nodiscard]] TakyonPath* get() const noexcept { return path_; }
  TakyonPath* operator->() const noexcept { return path_; }
  explicit operator bool() const noexcept { return path_ != nullptr; }
  /// takyonDestroy(): "" on success, else the error (freed). Checks that it reset the pointer.
  std::string destroy();

 private:
  TakyonPath* path_ = nullptr;
};

/// takyonCreate(); a NULL result is a fatal failure carrying the error message.
PathHandle create_path(Endpoint& ep, Attrs& attrs, CallSite loc = CallSite::here());

/// takyonSend() that must succeed without timing out (fatal otherwise).
void send_message(Endpoint& ep, TakyonPath* path, int buffer, uint64_t bytes, uint64_t src_offset = 0,
                  uint64_t dest_offset = 0, CallSite loc = CallSite::here());

/// takyonIsSendFinished() until done (fatal on error or after `timeout_s`).
void finish_send(Endpoint& ep, TakyonPath* path, int buffer, double timeout_s = kDefaultTimeout,
                 CallSite loc = CallSite::here());

struct Message {
  uint64_t bytes = 0;
  uint64_t offset = 0;
};
/// takyonRecv() that must succeed without timing out (fatal otherwise).
Message recv_message(Endpoint& ep, TakyonPath* path, int buffer, CallSite loc = CallSite::here());

/// Destroys the path; a non-NULL result is a (non-fatal) failure.
void destroy_path(Endpoint& ep, PathHandle& path, CallSite loc = CallSite::here());

/// Fills the message's bytes in the send buffer with the pattern of (message, buffer).
void fill_message(TakyonPath* path, int buffer, uint64_t bytes, uint64_t src_offset, uint64_t message);
/// Checks the received message's bytes (non-fatal failure naming the mismatch).
void expect_message(Endpoint& ep, TakyonPath* path, int buffer, const Message& got, uint64_t message,
                    CallSite loc = CallSite::here());

}  // namespace takyon::test
