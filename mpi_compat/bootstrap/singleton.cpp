// SPDX-License-Identifier: MIT
// The singleton bootstrap: no launcher, a job of one rank.
#include <unistd.h>

#include <cstdio>
#include <ctime>

#include "job_id.hpp"
#include "sources.hpp"
#include "wire.hpp"

namespace takyon::mpi::detail {
namespace {

class SingletonBootstrap final : public Bootstrap {
 public:
  SingletonBootstrap() {
    // pid + time + randomness: unique on this host even across pid reuse.
    char head[32];
    std::snprintf(head, sizeof head, "s%x-%lx-", static_cast<unsigned>(getpid()),
                  static_cast<unsigned long>(std::time(nullptr)) & 0xffffffffu);
    job_.job_id = std::string(head) + random_hex(4);
    job_.launcher = "singleton";
  }
  [[nodiscard]] const JobInfo& job() const override { return job_; }
  std::vector<std::string> allgather(const std::string& mine) override {
    if (mine.size() > wire::kMaxBlobBytes) {
      throw BootstrapError("singleton allgather: " + std::to_string(mine.size()) + " bytes, more than the " +
                           std::to_string(wire::kMaxBlobBytes) + " allowed");
    }
    return {mine};
  }
  void barrier() override {}
  void abort(int /*code*/, const std::string& /*why*/) noexcept override {}
  void finalize() override {}

 private:
  JobInfo job_;
};

}  // namespace

std::unique_ptr<Bootstrap> make_singleton_bootstrap() {
  return std::make_unique<SingletonBootstrap>();
}

}  // namespace takyon::mpi::detail
