// SPDX-License-Identifier: MIT
// libFuzzer entry: any file through the public takyonLoadGraphDescription, as an application loads
// one (a path on disk, the provider table of this libtakyon, its Buffers allocated through
// appAllocateMemory), must load or fail naming the file, never crash or leak.
//
// Input: byte 0 is the process ID to load for (0..3), the rest the file's text. A graph that loads
// is printed (to /dev/null) and freed. No path is created: a graph file's paths may name any address.
#include <fcntl.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "takyon/takyon.h"
#include "takyon/takyon_extensions.h"

namespace {

std::string g_path;  // the file each input is written to (one per fuzzing process)

}  // namespace

// The application's memory hooks: "CPU" Buffers come from malloc, up to 1 MiB (a fuzzed size could
// ask for anything; NULL makes the load fail naming the buffer, which is the path worth fuzzing).
extern "C" void* appAllocateMemory(const char* /*name*/, const char* where, uint64_t bytes,
                                   void** user_data_ret) {
  if (std::strcmp(where, "CPU") != 0 || bytes > (1u << 20)) return nullptr;
  *user_data_ret = nullptr;
  return std::malloc(bytes == 0 ? 1 : bytes);
}

extern "C" void appFreeMemory(const char* /*where*/, void* /*user_data*/, void* addr) {
  std::free(addr);
}

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  const char* dir = std::getenv("TMPDIR");
  g_path = std::string(dir != nullptr && dir[0] != '\0' ? dir : "/tmp") + "/takyon-graph-fuzz-" +
           std::to_string(getpid()) + ".txt";
  // takyonPrintGraph writes to stdout; libFuzzer reports on stderr.
  const int null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (null_fd >= 0) {
    (void)dup2(null_fd, STDOUT_FILENO);
    close(null_fd);
  }
  std::atexit([] { (void)unlink(g_path.c_str()); });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const int process_id = data[0] % 4;
  FILE* file = std::fopen(g_path.c_str(), "wb");
  if (file == nullptr) __builtin_trap();
  if (size > 1 && std::fwrite(data + 1, 1, size - 1, file) != size - 1) __builtin_trap();
  if (std::fclose(file) != 0) __builtin_trap();

  TakyonGraph* graph = takyonLoadGraphDescription(process_id, g_path.c_str());
  if (graph == nullptr) {
    // Every failure names the file (syntax and consistency errors also the line).
    const char* error = takyonExtensionError();
    if (error == nullptr || std::strstr(error, g_path.c_str()) == nullptr) {
      std::fprintf(stderr, "takyonLoadGraphDescription failed without naming the file: '%s'\n",
                   error != nullptr ? error : "(null)");
      __builtin_trap();
    }
    return 0;
  }
  takyonPrintGraph(graph);
  for (int g = -1; g <= graph->group_count + 1; ++g) {
    (void)takyonGetGroup(graph, g);
    (void)takyonGetGroupInstance(graph, g);
  }
  takyonFreeGraphDescription(graph, process_id);
  return 0;
}
