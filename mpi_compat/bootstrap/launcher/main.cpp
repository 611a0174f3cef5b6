// SPDX-License-Identifier: MIT
// takyon-run: starts N local ranks of a program and serves their bootstrap (see job.hpp).
#include <cstdio>
#include <exception>

#include "../bootstrap.hpp"
#include "job.hpp"
#include "options.hpp"
#include "spawn.hpp"

int main(int argc, char** argv) {
  using namespace takyon::mpi::launcher;
  std::optional<Options> opts;
  try {
    opts = parse_options(argc, argv);
  } catch (const UsageError& e) {
    std::fprintf(
        stderr,
        "takyon-run: %s\nusage: takyon-run -n N [--bind-to core|none] [--timeout S] program [args...]"
        "\n(takyon-run --help for more)\n",
        e.what());
    return 2;
  }
  if (!opts) return 0;
  try {
    Job job(std::move(*opts));
    return job.run();
  } catch (const LaunchError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return e.exit_code();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "takyon-run: %s\n", e.what());
    return 1;
  }
}
