// SPDX-License-Identifier: MIT
// Every malformed graph in malformed/ fails to load with exactly the message in its .error file.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "takyon/takyon_extensions.h"

namespace {

namespace fs = std::filesystem;

std::vector<std::string> case_names() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(TAKYON_GRAPH_MALFORMED_DIR)) {
    if (entry.path().extension() == ".txt") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class Malformed : public ::testing::TestWithParam<std::string> {};

TEST_P(Malformed, FailsWithTheExpectedMessage) {
  const fs::path dir = TAKYON_GRAPH_MALFORMED_DIR;
  const fs::path graph_file = dir / (GetParam() + ".txt");
  const fs::path error_file = dir / (GetParam() + ".error");
  ASSERT_TRUE(fs::exists(error_file)) << "missing " << error_file;
  std::string expected = read_text(error_file);
  while (!expected.empty() && expected.back() == '\n') expected.pop_back();

  TakyonGraph* graph = takyonLoadGraphDescription(0, graph_file.c_str());
  EXPECT_EQ(graph, nullptr);
  takyonFreeGraphDescription(graph, 0);
  // The file part is the path given to the loader; the expectations hold the bare file name.
  std::string actual = takyonExtensionError();
  const std::string prefix = dir.string() + "/";
  if (actual.rfind(prefix, 0) == 0) actual.erase(0, prefix.size());
  EXPECT_EQ(actual, expected);
}

INSTANTIATE_TEST_SUITE_P(Graph, Malformed, ::testing::ValuesIn(case_names()),
                         [](const ::testing::TestParamInfo<std::string>& param) { return param.param; });

TEST(MalformedCorpus, IsLargeAndComplete) {
  EXPECT_GE(case_names().size(), 40u);
}

}  // namespace
