// SPDX-License-Identifier: MIT
// Error-message checks for the fault tests.
#include "fault/fault_common.hpp"

#include <cctype>

#include "support/path_ops.hpp"
#include "takyon/takyon_providers.h"

namespace takyon::test {

std::vector<BadInterconnect> bad_interconnects(const std::string& p) {
  // What a provider string must name at least: the path ID, or where the server is.
  const TakyonProviderInfo* info = takyonFindProvider(p.c_str());
  const bool by_id = info != nullptr && (info->addressing & TAKYON_ADDRESS_ID) != 0;
  return {
      {"", {"interconnect"}, {}},
      {"   ", {"interconnect"}, {}},
      {"Bogus -ID=1", {"Bogus"}, {}},
      {"x" + p + " -ID=1", {"x" + p}, {}},
      {p, {by_id ? "-ID" : "-IP"}, {"missing", "required", "needs", "no "}},
      {p + " -ID=1 -ID=2", {"-ID"}, {"twice", "duplicate", "more than once", "again"}},
      {p + " -ID=abc", {"abc"}, {}},
      {p + " -ID=-5", {"-5"}, {}},
      {p + " -ID=4294967296", {"4294967296"}, {}},
      {p + " -ID=99999999999999999999999", {"99999999999999999999999"}, {}},
      {p + " -ID=1 -bogusflag", {"bogusflag"}, {}},
      {p + " -ID=1 -boguskey=3", {"boguskey"}, {}},
      {p + " -ID", {"-ID"}, {}},
      {p + " -ID=", {"-ID"}, {}},
      {p + " -ID=1 stray", {"stray"}, {}},
      {"-ID=1 " + p, {"-ID=1"}, {}},
  };
}

bool mentions_number(std::string_view text, std::string_view number) {
  size_t pos = 0;
  while ((pos = text.find(number, pos)) != std::string_view::npos) {
    const bool left = pos == 0 || std::isdigit(static_cast<unsigned char>(text[pos - 1])) == 0;
    const size_t end = pos + number.size();
    const bool right = end == text.size() || std::isdigit(static_cast<unsigned char>(text[end])) == 0;
    if (left && right) return true;
    pos = end;
  }
  return false;
}

}  // namespace takyon::test
