// SPDX-License-Identifier: MIT
// The interconnect ("provider") string: "<Name> [-flag] [-key=value] ...", parsed once, precisely.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "error_log.hpp"

namespace takyon::detail {

enum class ValueKind { kUint32, kUint16, kText };

/// One -key=value a provider accepts.
struct KeySpec {
  std::string_view key;
  ValueKind kind;
  bool required;
};

/// What a provider accepts: bare flags (-server) and keys (-ID=3).
struct ProviderSpec {
  std::span<const std::string_view> flags;
  std::span<const KeySpec> keys;
};

/// A parsed provider string.
class ProviderArgs {
 public:
  [[nodiscard]] const std::string& name() const noexcept { return name_; }
  [[nodiscard]] const std::string& text() const noexcept { return text_; }
  [[nodiscard]] bool has_flag(std::string_view flag) const noexcept;
  [[nodiscard]] std::optional<std::string_view> value(std::string_view key) const noexcept;
  /// The value of a key already validated as numeric (0 if absent).
  [[nodiscard]] uint64_t number(std::string_view key) const noexcept;

  /// Splits `text` into name, flags and key=values: syntax errors only (empty string, tokens
  /// without '-', empty keys or values, duplicates).
  static Status parse(std::string_view text, ProviderArgs& out, ErrorLog& log);
  /// Checks the flags and keys against what the provider accepts (unknown, missing, bad values).
  Status validate(const ProviderSpec& spec, ErrorLog& log) const;

 private:
  std::string text_;
  std::string name_;
  std::vector<std::string> flags_;
  std::vector<std::pair<std::string, std::string>> values_;
};

}  // namespace takyon::detail
