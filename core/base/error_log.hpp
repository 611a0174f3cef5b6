// SPDX-License-Identifier: MIT
// ErrorLog: the readable error stack of a path (cause first, then one frame per caller).
#pragma once

#include <string>
#include <vector>

#include "takyon/takyon.hpp"

namespace takyon::detail {

/// printf-style formatting into a std::string.
[[gnu::format(printf, 1, 2)]] std::string strf(const char* fmt, ...);

/// strerror(errnum) as a std::string, thread safe.
std::string errno_text(int errnum);

class ErrorLog {
 public:
  /// Records the cause of a failure (clears any earlier stack) and returns `status`.
  Status fail(Status status, const char* file, const char* function, int line, std::string text);
  /// Adds one caller frame below the cause.
  void add_frame(const char* file, const char* function, int line, const std::string& text);
  void clear() noexcept;
  [[nodiscard]] bool empty() const noexcept { return frames_.empty(); }
  [[nodiscard]] Status status() const noexcept { return status_; }
  /// The cause's text without its location (what fail() was given).
  [[nodiscard]] const std::string& cause() const noexcept { return cause_; }
  /// "<headline>: <status name>\n  <frame>\n  <frame>..." The headline names the operation.
  [[nodiscard]] std::string format(const std::string& headline) const;

 private:
  Status status_ = Status::kOk;
  std::string cause_;
  std::vector<std::string> frames_;
};

}  // namespace takyon::detail

/// Records the cause of a failure in `log` with this file:function:line; evaluates to the status.
#define TAKYON_FAIL(log, status, ...) \
  (log).fail((status), __FILE__, __func__, __LINE__, ::takyon::detail::strf(__VA_ARGS__))
/// Adds a caller frame to `log` with this file:function:line.
#define TAKYON_FRAME(log, ...) \
  (log).add_frame(__FILE__, __func__, __LINE__, ::takyon::detail::strf(__VA_ARGS__))
