// SPDX-License-Identifier: MIT
// Path operations for endpoint functions.
#include "support/path_ops.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "support/byte_pattern.hpp"

namespace takyon::test {

std::string take_string(char* text) {
  if (text == nullptr) return {};
  std::string out(text);
  std::free(text);
  return out;
}

std::string path_error(const TakyonPath* path) {
  if (path == nullptr || path->attrs.error_message == nullptr) return {};
  return path->attrs.error_message;
}

bool contains_ci(std::string_view text, std::string_view word) {
  auto it = std::search(text.begin(), text.end(), word.begin(), word.end(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
  });
  return it != text.end();
}

uint8_t* send_buffer(const TakyonPath* path, int buffer) {
  // NOLINTNEXTLINE(performance-no-int-to-ptr): the API carries addresses as size_t.
  return reinterpret_cast<uint8_t*>(path->attrs.sender_addr_list[buffer]);
}

uint8_t* recv_buffer(const TakyonPath* path, int buffer) {
  return reinterpret_cast<uint8_t*>(path->attrs.recver_addr_list[buffer]);
}

PathHandle::~PathHandle() {
  if (path_ != nullptr) std::free(takyonDestroy(&path_));
}

PathHandle& PathHandle::operator=(PathHandle&& other) noexcept {
  if (this != &other) {
    if (path_ != nullptr) std::free(takyonDestroy(&path_));
    path_ = other.path_;
    other.path_ = nullptr;
  }
  return *this;
}

std::string PathHandle::destroy() {
  if (path_ == nullptr) return "destroy: no path";
  std::string error = take_string(takyonDestroy(&path_));
  if (path_ != nullptr) {
    path_ = nullptr;
    error += " [takyonDestroy did not set *path_ret to NULL]";
  }
  return error;
}

PathHandle create_path(Endpoint& ep, Attrs& attrs, CallSite loc) {
  TakyonPath* path = takyonCreate(attrs.get());
  if (path == nullptr) {
    const std::string error = take_string(attrs.attrs.error_message);
    attrs.attrs.error_message = nullptr;
    FailureBuilder(ep, loc.file, loc.line, "", true)
        << "takyonCreate('" << attrs.attrs.interconnect << "', endpoint " << ep.name()
        << ") returned NULL: " << error;
  }
  return PathHandle(path);
}

void send_message(Endpoint& ep, TakyonPath* path, int buffer, uint64_t bytes, uint64_t src_offset,
                  uint64_t dest_offset, CallSite loc) {
  bool timed_out = false;
  const bool ok = takyonSend(path, buffer, bytes, src_offset, dest_offset, &timed_out);
  if (!ok || timed_out) {
    FailureBuilder(ep, loc.file, loc.line, "", true)
        << "takyonSend(buffer " << buffer << ", bytes " << bytes << ", src_offset " << src_offset
        << ", dest_offset " << dest_offset << ") on endpoint " << ep.name() << ": "
        << (ok ? "timed out" : "failed: " + path_error(path));
  }
}

void finish_send(Endpoint& ep, TakyonPath* path, int buffer, double timeout_s, CallSite loc) {
  const Stopwatch watch;
  for (;;) {
    bool timed_out = false;
    const bool ok = takyonIsSendFinished(path, buffer, &timed_out);
    if (!ok) {
      FailureBuilder(ep, loc.file, loc.line, "", true)
          << "takyonIsSendFinished(buffer " << buffer << ") on endpoint " << ep.name()
          << " failed: " << path_error(path);
    }
    if (!timed_out) return;
    if (watch.seconds() > timeout_s) {
      FailureBuilder(ep, loc.file, loc.line, "", true)
          << "takyonIsSendFinished(buffer " << buffer << ") still not finished after " << timeout_s << " s";
    }
  }
}

Message recv_message(Endpoint& ep, TakyonPath* path, int buffer, CallSite loc) {
  Message m;
  bool timed_out = false;
  const bool ok = takyonRecv(path, buffer, &m.bytes, &m.offset, &timed_out);
  if (!ok || timed_out) {
    FailureBuilder(ep, loc.file, loc.line, "", true)
        << "takyonRecv(buffer " << buffer << ") on endpoint " << ep.name() << ": "
        << (ok ? "timed out" : "failed: " + path_error(path));
  }
  return m;
}

void destroy_path(Endpoint& ep, PathHandle& path, CallSite loc) {
  const std::string error = path.destroy();
  if (!error.empty()) {
    FailureBuilder(ep, loc.file, loc.line, "", false)
        << "takyonDestroy on endpoint " << ep.name() << " returned an error: " << error;
  }
}

void fill_message(TakyonPath* path, int buffer, uint64_t bytes, uint64_t src_offset, uint64_t message) {
  if (bytes > 0) fill_pattern(send_buffer(path, buffer) + src_offset, bytes, message, buffer);
}

void expect_message(Endpoint& ep, TakyonPath* path, int buffer, const Message& got, uint64_t message,
                    CallSite loc) {
  if (got.bytes == 0) return;
  const std::string bad = check_pattern(recv_buffer(path, buffer) + got.offset, got.bytes, message, buffer);
  if (!bad.empty()) {
    FailureBuilder(ep, loc.file, loc.line, "", false)
        << "endpoint " << ep.name() << " received wrong bytes in buffer " << buffer << " (offset "
        << got.offset << ", " << got.bytes << " bytes): " << bad;
  }
}

::testing::AssertionResult mentions_all(const std::string& text, const std::vector<std::string>& words) {
  for (const std::string& word : words) {
    if (text.find(word) == std::string::npos) {
      return ::testing::AssertionFailure() << "the message does not mention '" << word << "':\n" << text;
    }
  }
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult mentions_any(const std::string& text, const std::vector<std::string>& words) {
  std::string list;
  for (const std::string& word : words) {
    if (contains_ci(text, word)) return ::testing::AssertionSuccess();
    list += (list.empty() ? "'" : ", '") + word + "'";
  }
  return ::testing::AssertionFailure() << "the message mentions none of " << list << ":\n" << text;
}

}  // namespace takyon::test
