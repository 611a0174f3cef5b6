// SPDX-License-Identifier: MIT
// Helpers for the graph tests: temporary graph files and loading them with the error at hand.
#include "graph/graph_test_util.hpp"

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <stdexcept>

namespace takyon::test {

TempGraphFile::TempGraphFile(const std::string& text) {
  static std::atomic<int> counter{0};
  path_ = "/tmp/takyon-graph-test-" + std::to_string(getpid()) + "-" + std::to_string(counter++) + ".txt";
  std::ofstream out(path_, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path_);
}

TempGraphFile::~TempGraphFile() {
  std::remove(path_.c_str());
}

std::string substitute(std::string text, const std::string& name, const std::string& value) {
  const std::string key = "{" + name + "}";
  for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + value.size())) {
    text.replace(at, key.size(), value);
  }
  return text;
}

}  // namespace takyon::test
