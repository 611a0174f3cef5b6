// SPDX-License-Identifier: MIT
// The other endpoint of a test: a thread (InterThread*) or a forked process (InterProcess*).
#pragma once

#include <sys/types.h>

#include <functional>
#include <memory>
#include <string>
#include <thread>

namespace takyon::bench {

enum class PeerKind { kThread, kProcess };

/// Runs `body` on CPU `cpu` in a new thread or a forked child. Fork happens in the constructor,
/// so construct it while the calling process has no other threads. The child leaves with _exit:
/// no static destructors, no second flush of stdio buffers (stdout is flushed before fork).
class Peer {
 public:
  Peer(PeerKind kind, int cpu, std::function<void()> body);
  ~Peer();  ///< Joins the thread, or kills and reaps a child that was not joined.
  Peer(const Peer&) = delete;
  Peer& operator=(const Peer&) = delete;
  Peer(Peer&&) = delete;
  Peer& operator=(Peer&&) = delete;

  /// Waits for the peer to finish; throws std::runtime_error with its error if it failed.
  void join();

 private:
  PeerKind kind_;
  std::thread thread_;
  std::shared_ptr<std::string> thread_error_ = std::make_shared<std::string>();
  pid_t child_ = -1;
};

}  // namespace takyon::bench
