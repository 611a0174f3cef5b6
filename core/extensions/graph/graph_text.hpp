// SPDX-License-Identifier: MIT
// Small text helpers shared by the graph parser and checker: trimming, splitting, strict numbers.
#ifndef TAKYON_EXTENSIONS_GRAPH_GRAPH_TEXT_HPP_
#define TAKYON_EXTENSIONS_GRAPH_GRAPH_TEXT_HPP_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace takyon::detail::graph {

// The first problem found in a file; thrown inside the parser and checker (never across the C
// API) and turned into "<file>:<line>: <what>".
struct GraphError {
  int line;
  std::string what;
};

[[noreturn]] inline void fail_at(int line, std::string what) {
  throw GraphError{line, std::move(what)};
}

[[nodiscard]] std::string_view trim(std::string_view text);
// Whitespace-separated words.
[[nodiscard]] std::vector<std::string_view> split_words(std::string_view text);
// Decimal digits only (no sign, no spaces), at most max; nullopt if not a number or too large.
[[nodiscard]] std::optional<uint64_t> parse_uint(std::string_view text, uint64_t max);
// Names of groups, buffers and collectives: letters, digits, '_', '.', '-' (not "-" alone).
[[nodiscard]] bool is_name(std::string_view text);
// Quotes text for a message, cut short so a huge token cannot flood the output.
[[nodiscard]] std::string quote(std::string_view text);

}  // namespace takyon::detail::graph

#endif  // TAKYON_EXTENSIONS_GRAPH_GRAPH_TEXT_HPP_
