// SPDX-License-Identifier: MIT
// Provider-string parsing and validation with messages that name the offending token.
#include "provider_string.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace takyon::detail {
namespace {

std::vector<std::string_view> split_tokens(std::string_view text) {
  std::vector<std::string_view> tokens;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i])) != 0) ++i;
    const size_t start = i;
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i])) == 0) ++i;
    if (i > start) tokens.push_back(text.substr(start, i - start));
  }
  return tokens;
}

std::string join_names(std::span<const std::string_view> names, const char* prefix) {
  std::string out;
  for (std::string_view name : names) {
    if (!out.empty()) out += ", ";
    out += prefix;
    out += name;
  }
  return out.empty() ? std::string("none") : out;
}

std::string join_keys(std::span<const KeySpec> keys) {
  std::string out;
  for (const KeySpec& key : keys) {
    if (!out.empty()) out += ", ";
    out += '-';
    out += key.key;
    out += key.kind == ValueKind::kText ? "=<text>" : "=<number>";
  }
  return out.empty() ? std::string("none") : out;
}

}  // namespace

bool ProviderArgs::has_flag(std::string_view flag) const noexcept {
  return std::find(flags_.begin(), flags_.end(), flag) != flags_.end();
}

std::optional<std::string_view> ProviderArgs::value(std::string_view key) const noexcept {
  for (const auto& [k, v] : values_) {
    if (k == key) return std::string_view(v);
  }
  return std::nullopt;
}

uint64_t ProviderArgs::number(std::string_view key) const noexcept {
  const auto text = value(key);
  if (!text) return 0;
  uint64_t out = 0;
  std::from_chars(text->data(), text->data() + text->size(), out);
  return out;
}

Status ProviderArgs::parse(std::string_view text, ProviderArgs& out, ErrorLog& log) {
  out = ProviderArgs();
  out.text_ = std::string(text);
  const std::vector<std::string_view> tokens = split_tokens(text);
  if (tokens.empty()) {
    return TAKYON_FAIL(log, Status::kInvalidArgument,
                       "the interconnect string is empty; expected '<Provider> -ID=<n> ...', "
                       "e.g. 'InterProcessMemcpy -ID=1'");
  }
  out.name_ = std::string(tokens[0]);
  if (out.name_[0] == '-') {
    return TAKYON_FAIL(log, Status::kInvalidArgument,
                       "interconnect '%s' starts with the option '%s'; the provider name comes first",
                       out.text_.c_str(), out.name_.c_str());
  }
  for (size_t i = 1; i < tokens.size(); ++i) {
    const std::string_view token = tokens[i];
    if (token.size() < 2 || token[0] != '-') {
      return TAKYON_FAIL(log, Status::kInvalidArgument,
                         "interconnect '%s': unexpected token '%.*s'; options look like -flag or -key=value",
                         out.text_.c_str(), static_cast<int>(token.size()), token.data());
    }
    const std::string_view body = token.substr(1);
    const size_t eq = body.find('=');
    if (eq == std::string_view::npos) {
      if (out.has_flag(body)) {
        return TAKYON_FAIL(log, Status::kInvalidArgument, "interconnect '%s': option '-%.*s' is given twice",
                           out.text_.c_str(), static_cast<int>(body.size()), body.data());
      }
      out.flags_.emplace_back(body);
      continue;
    }
    const std::string_view key = body.substr(0, eq);
    const std::string_view value = body.substr(eq + 1);
    if (key.empty()) {
      return TAKYON_FAIL(log, Status::kInvalidArgument,
                         "interconnect '%s': option '%.*s' has no name before '='", out.text_.c_str(),
                         static_cast<int>(token.size()), token.data());
    }
    if (value.empty()) {
      return TAKYON_FAIL(log, Status::kInvalidArgument, "interconnect '%s': option '-%.*s=' has no value",
                         out.text_.c_str(), static_cast<int>(key.size()), key.data());
    }
    if (out.value(key)) {
      return TAKYON_FAIL(log, Status::kInvalidArgument, "interconnect '%s': option '-%.*s' is given twice",
                         out.text_.c_str(), static_cast<int>(key.size()), key.data());
    }
    out.values_.emplace_back(std::string(key), std::string(value));
  }
  return Status::kOk;
}

Status ProviderArgs::validate(const ProviderSpec& spec, ErrorLog& log) const {
  for (const std::string& flag : flags_) {
    const bool known = std::find(spec.flags.begin(), spec.flags.end(), flag) != spec.flags.end();
    if (known) continue;
    const bool is_key =
        std::any_of(spec.keys.begin(), spec.keys.end(), [&](const KeySpec& k) { return k.key == flag; });
    if (is_key) {
      return TAKYON_FAIL(log, Status::kInvalidArgument,
                         "interconnect '%s': option '-%s' needs a value (-%s=<value>)", text_.c_str(),
                         flag.c_str(), flag.c_str());
    }
    return TAKYON_FAIL(log, Status::kInvalidArgument,
                       "interconnect '%s': unknown option '-%s' for %s (accepted flags: %s; keys: %s)",
                       text_.c_str(), flag.c_str(), name_.c_str(), join_names(spec.flags, "-").c_str(),
                       join_keys(spec.keys).c_str());
  }
  for (const auto& entry : values_) {
    const auto& key = entry.first;
    const auto& value = entry.second;
    const auto found =
        std::find_if(spec.keys.begin(), spec.keys.end(), [&](const KeySpec& k) { return k.key == key; });
    if (found == spec.keys.end()) {
      const bool is_flag = std::find(spec.flags.begin(), spec.flags.end(), key) != spec.flags.end();
      if (is_flag) {
        return TAKYON_FAIL(log, Status::kInvalidArgument,
                           "interconnect '%s': flag '-%s' takes no value (got '=%s')", text_.c_str(),
                           key.c_str(), value.c_str());
      }
      return TAKYON_FAIL(log, Status::kInvalidArgument,
                         "interconnect '%s': unknown option '-%s' for %s (accepted flags: %s; keys: %s)",
                         text_.c_str(), key.c_str(), name_.c_str(), join_names(spec.flags, "-").c_str(),
                         join_keys(spec.keys).c_str());
    }
    if (found->kind == ValueKind::kText) continue;
    const uint64_t limit = found->kind == ValueKind::kUint16 ? UINT16_MAX : UINT32_MAX;
    uint64_t number = 0;
    const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), number);
    if (error == std::errc::result_out_of_range || (error == std::errc() && number > limit)) {
      return TAKYON_FAIL(log, Status::kInvalidArgument,
                         "interconnect '%s': -%s=%s is out of range (0 to %llu)", text_.c_str(), key.c_str(),
                         value.c_str(), static_cast<unsigned long long>(limit));
    }
    if (error != std::errc() || end != value.data() + value.size()) {
      return TAKYON_FAIL(log, Status::kInvalidArgument,
                         "interconnect '%s': -%s=%s is not a non-negative integer", text_.c_str(),
                         key.c_str(), value.c_str());
    }
  }
  for (const KeySpec& key : spec.keys) {
    if (key.required && !value(key.key)) {
      return TAKYON_FAIL(log, Status::kInvalidArgument, "interconnect '%s': %s needs -%.*s=<%s>",
                         text_.c_str(), name_.c_str(), static_cast<int>(key.key.size()), key.key.data(),
                         key.kind == ValueKind::kText ? "text" : "number");
    }
  }
  return Status::kOk;
}

}  // namespace takyon::detail
