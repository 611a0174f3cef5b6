// SPDX-License-Identifier: MIT
// libFuzzer entry: any bytes through the graph parser and checker must fail cleanly, never crash.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "extensions/graph/graph_model.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace takyon::detail::graph;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Graph graph;
  std::string error;
  // The fuzzer links the parser alone, without the provider table: every provider string is
  // acceptable, and names starting "InterThread" stand for providers that join threads only.
  static const ProviderQueries providers{
      {}, [](std::string_view name) { return name.substr(0, 11) == "InterThread"; }};
  if (parse_graph(text, "fuzz.txt", graph, error)) {
    (void)check_graph(graph, providers, error);
  }
  // Every failure must carry "<file>:<line>: <what>".
  if (!error.empty() && error.rfind("fuzz.txt:", 0) != 0) __builtin_trap();
  return 0;
}
