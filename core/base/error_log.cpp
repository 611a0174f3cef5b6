// SPDX-License-Identifier: MIT
// ErrorLog implementation and small formatting helpers.
#include "error_log.hpp"

#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <utility>

namespace takyon::detail {

std::string strf(const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  va_list copy;
  va_copy(copy, args);
  const int needed = std::vsnprintf(nullptr, 0, fmt, copy);
  va_end(copy);
  std::string out;
  if (needed > 0) {
    out.resize(static_cast<size_t>(needed));
    std::vsnprintf(out.data(), out.size() + 1, fmt, args);
  }
  va_end(args);
  return out;
}

std::string errno_text(int errnum) {
  char buffer[256];
  // GNU strerror_r returns the message pointer (may not use the buffer).
  const char* text = strerror_r(errnum, buffer, sizeof(buffer));
  return strf("%s (errno %d)", text, errnum);
}

namespace {

// Source paths are shown relative to the repository's core/ folder: "backends/x/y.cpp".
const char* short_path(const char* file) {
  const char* found = std::strstr(file, "/core/");
  return found != nullptr ? found + 6 : file;
}

std::string frame_text(const char* file, const char* function, int line, const std::string& text) {
  return strf("%s:%s:%d: %s", short_path(file), function, line, text.c_str());
}

}  // namespace

Status ErrorLog::fail(Status status, const char* file, const char* function, int line, std::string text) {
  status_ = status;
  frames_.clear();
  frames_.push_back(frame_text(file, function, line, text));
  cause_ = std::move(text);
  return status;
}

void ErrorLog::add_frame(const char* file, const char* function, int line, const std::string& text) {
  frames_.push_back(frame_text(file, function, line, text));
}

void ErrorLog::clear() noexcept {
  status_ = Status::kOk;
  cause_.clear();
  frames_.clear();
}

std::string ErrorLog::format(const std::string& headline) const {
  std::string out = headline + ": " + status_name(status_);
  for (const std::string& frame : frames_) {
    out += "\n  ";
    out += frame;
  }
  return out;
}

}  // namespace takyon::detail
