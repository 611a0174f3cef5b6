// SPDX-License-Identifier: MIT
// Helpers for the graph tests: temporary graph files and loading them with the error at hand.
#pragma once

#include <string>

#include "takyon/takyon_extensions.h"

namespace takyon::test {

/// A graph file in /tmp with a name unique to this process, removed when this goes away.
class TempGraphFile {
 public:
  explicit TempGraphFile(const std::string& text);
  ~TempGraphFile();
  TempGraphFile(const TempGraphFile&) = delete;
  TempGraphFile& operator=(const TempGraphFile&) = delete;
  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  std::string path_;
};

/// Owns a loaded graph and frees it with the process ID it was loaded for.
class LoadedGraph {
 public:
  LoadedGraph(int process_id, const std::string& file)
      : graph_(takyonLoadGraphDescription(process_id, file.c_str())), process_id_(process_id) {}
  ~LoadedGraph() { takyonFreeGraphDescription(graph_, process_id_); }
  LoadedGraph(const LoadedGraph&) = delete;
  LoadedGraph& operator=(const LoadedGraph&) = delete;
  [[nodiscard]] TakyonGraph* get() const { return graph_; }
  TakyonGraph* operator->() const { return graph_; }

 private:
  TakyonGraph* graph_;
  int process_id_;
};

/// Replaces every "{name}" in text with value.
std::string substitute(std::string text, const std::string& name, const std::string& value);

}  // namespace takyon::test
