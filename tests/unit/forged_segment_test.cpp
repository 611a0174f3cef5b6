// SPDX-License-Identifier: MIT
// A forged endpoint A (this user's process, so it passes the socket's user check) hands endpoint B
// shared memory that is not what a Takyon endpoint creates: an unsealed memfd whose size the
// sender could still cut, or a header whose offsets point outside the segment (one near 2^64, so
// that an unchecked sum would wrap). B refuses each at create, naming the problem, and never
// touches memory outside the mapping.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>

#include "backends/inter_process/shm_segment.hpp"
#include "takyon/takyon.h"
#include "takyon/takyon_extensions.h"

namespace takyon::detail {
namespace {

uint32_t forged_id() {
  static uint32_t counter = 0;
  return static_cast<uint32_t>(getpid()) * 64u + 800000000u + counter++;
}

// The greeting endpoints exchange first (inter_process_backend.cpp).
struct Hello {
  uint64_t magic;
  uint32_t version;
  uint32_t pointer;
};

// A segment as a real endpoint lays it out (4 KiB header page, one 4 KiB receive buffer), then
// `forge` spoils it; `seal` says whether its size is sealed.
int forged_segment(const std::function<void(SegmentHeader&, uint64_t*)>& forge, bool seal) {
  const int fd = memfd_create("forged", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  const uint64_t total = 8192;
  if (fd < 0 || ftruncate(fd, static_cast<off_t>(total)) != 0) return -1;
  void* map = mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (map == MAP_FAILED) return -1;
  auto* h = new (map) SegmentHeader{};
  h->magic = 0x54414b594f4e5348ull;
  h->version = 6;
  h->nsend = 1;
  h->nrecv = 1;
  h->total_bytes = total;
  h->slots_offset = (sizeof(SegmentHeader) + 63) / 64 * 64;
  h->sizes_offset = h->slots_offset + sizeof(MailboxSlot);
  h->recv_offsets_offset = h->sizes_offset + 16;
  auto* tables = reinterpret_cast<uint64_t*>(static_cast<std::byte*>(map) + h->sizes_offset);
  tables[0] = 4096;  // send size
  tables[1] = 4096;  // receive size
  tables[2] = 4096;  // receive buffer offset
  forge(*h, tables);
  munmap(map, total);
  if (seal) fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);
  return fd;
}

// Plays endpoint A of "InterProcessMemcpy -ID=id": accepts B, sends `segment` with its hello.
void forged_endpoint_a(uint32_t id, int segment, std::atomic<int>& ready) {
  const std::string name = "takyon-" + std::to_string(getuid()) + "-InterProcessMemcpy-" + std::to_string(id);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path + 1, name.data(), name.size());
  const auto len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
  const int listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (bind(listener, reinterpret_cast<sockaddr*>(&addr), len) != 0 || listen(listener, 1) != 0) {
    ready = -1;
    close(listener);
    return;
  }
  ready = 1;
  pollfd p{listener, POLLIN, 0};
  if (poll(&p, 1, 5000) == 1) {
    const int fd = accept(listener, nullptr, nullptr);
    Hello hello{0x54414b594f4e4950ull, 1, 0};
    iovec iov{&hello, sizeof(hello)};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof(control);
    cmsghdr* cmsg = CMSG_FIRSTHDR(&msg);
    cmsg->cmsg_level = SOL_SOCKET;
    cmsg->cmsg_type = SCM_RIGHTS;
    cmsg->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(cmsg), &segment, sizeof(int));
    (void)sendmsg(fd, &msg, MSG_NOSIGNAL);
    char sink[4096];
    while (read(fd, sink, sizeof(sink)) > 0) {
    }
    close(fd);
  }
  close(listener);
}

std::string endpoint_b_error(const std::function<void(SegmentHeader&, uint64_t*)>& forge, bool seal,
                             double timeout = 5.0) {
  const uint32_t id = forged_id();
  const int segment = forged_segment(forge, seal);
  if (segment < 0) return "could not forge a segment";
  std::atomic<int> ready{0};
  std::thread a([&] { forged_endpoint_a(id, segment, ready); });
  while (ready == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  if (ready < 0) {
    a.join();
    close(segment);
    return "the forged endpoint A could not listen";
  }
  const std::string provider = "InterProcessMemcpy -ID=" + std::to_string(id);
  TakyonPathAttributes attrs = takyonAllocAttributes(false, true, 1, 1, 4096, timeout, provider.c_str());
  attrs.verbosity = TAKYON_VERBOSITY_NONE;
  TakyonPath* path = takyonCreate(&attrs);
  std::string error = attrs.error_message != nullptr ? attrs.error_message : "";
  std::free(attrs.error_message);
  if (path != nullptr) {
    std::free(takyonDestroy(&path));
    error = "created";
  }
  takyonFreeAttributes(attrs);
  a.join();
  close(segment);
  return error;
}

TEST(ForgedSegment, UnsealedMemoryIsRefused) {
  const std::string error = endpoint_b_error([](SegmentHeader&, uint64_t*) {}, false);
  EXPECT_NE(error.find("is not a sealed memfd"), std::string::npos) << error;
}

TEST(ForgedSegment, TheGenuineLayoutIsAcceptedAsFarAsTheVerdict) {
  // The control case: the same forged segment, sealed and unspoiled, passes B's checks (B then
  // waits for a verdict the forger never sends and reports that instead).
  const std::string error = endpoint_b_error([](SegmentHeader&, uint64_t*) {}, true, 0.5);
  EXPECT_EQ(error.find("the peer's shared memory"), std::string::npos) << error;
  EXPECT_NE(error.find("endpoint A did not finish the pairing"), std::string::npos) << error;
}

TEST(ForgedSegment, SlotsOffsetThatWouldWrapIsRefused) {
  const std::string error =
      endpoint_b_error([](SegmentHeader& h, uint64_t*) { h.slots_offset = ~uint64_t{0} - 63; }, true);
  EXPECT_NE(error.find("describes tables outside itself"), std::string::npos) << error;
}

TEST(ForgedSegment, ReceiveBufferOutsideTheSegmentIsRefused) {
  const std::string error =
      endpoint_b_error([](SegmentHeader&, uint64_t* tables) { tables[2] = 8000; }, true);
  EXPECT_NE(error.find("describes receive buffer 0 outside itself"), std::string::npos) << error;
}

TEST(ForgedSegment, HugeCountsAreRefused) {
  const std::string error =
      endpoint_b_error([](SegmentHeader& h, uint64_t*) { h.nrecv = 0xffffffffu; }, true);
  EXPECT_NE(error.find("describes tables outside itself"), std::string::npos) << error;
}

}  // namespace
}  // namespace takyon::detail
