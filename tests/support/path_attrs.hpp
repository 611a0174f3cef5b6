// SPDX-License-Identifier: MIT
// Provider traits, test parameters and an owner of TakyonPathAttributes with its four lists.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "support/endpoint_runner.hpp"
#include "support/timing.hpp"
#include "takyon/takyon.h"

namespace takyon::test {

/// Every connected provider: the suites that test the path contract run on each.
/// "Ucx" is UCX's own choice of transports, "UcxTcp" forces -tls=tcp (active messages, TCP
/// bootstrap with discovery), "UcxShm" forces shared memory (-tls=sysv,posix: the map protocol, or active messages for application buffers)
/// and "UcxShmAm" active messages over shared memory.
inline constexpr const char* kAllProviders[] = {"InterThreadMemcpy",  "InterThreadPointer", "InterProcessMemcpy",
                                                "InterProcessPointer", "InterProcessSocket", "Socket",
                                                "Ucx",                 "UcxTcp",             "UcxShm",
                                                "UcxShmAm"};
/// The providers whose ID names memory they own (the ownership suite's subject).
inline constexpr const char* kMemoryProviders[] = {"InterThreadMemcpy", "InterThreadPointer", "InterProcessMemcpy",
                                                   "InterProcessPointer"};

/// The shared-memory providers (receive buffers live in memory the provider allocates).
[[nodiscard]] bool is_inter_process(std::string_view provider);
/// Socket providers (connected): TCP or Unix socket.
[[nodiscard]] bool is_socket(std::string_view provider);
/// The Ucx provider in any of its test variants.
[[nodiscard]] bool is_ucx(std::string_view provider);
/// The provider's name as it appears in its interconnect string ("Ucx" for every Ucx variant).
[[nodiscard]] std::string provider_name(std::string_view provider);
/// Pointer providers: the sender's send buffer is the receiver's receive buffer.
[[nodiscard]] bool is_pointer(std::string_view provider);
/// The mode the runner uses for the provider: threads for InterThread*, processes otherwise.
[[nodiscard]] Mode mode_for(std::string_view provider);
/// "<provider> -ID=<id>"; for Socket, "Socket -server|-client -IP=127.0.0.1 -ID=<id>" (endpoint A
/// is the server; the port is the system's choice, found by discovery).
[[nodiscard]] std::string interconnect_for(std::string_view provider, uint32_t id, bool endpoint_a);

/// One instantiation of a provider-parameterized suite.
struct ProviderParam {
  const char* provider;
  bool polling;
};
/// For gtest's messages: "InterThreadMemcpy, polling".
void PrintTo(const ProviderParam& param, std::ostream* os);
/// Every provider of kAllProviders, each polling and event driven; under TSan only those whose
/// endpoints run as threads of one process, or whose processes have threads (Ucx).
[[nodiscard]] std::vector<ProviderParam> all_provider_params();
/// "InterThreadMemcpy_Polling", "InterProcessPointer_Event", ...
[[nodiscard]] std::string provider_param_name(const ::testing::TestParamInfo<ProviderParam>& info);
/// Test name suffix for suites parameterized over the provider name alone.
[[nodiscard]] std::string provider_name_param_name(const ::testing::TestParamInfo<const char*>& info);

/// Owns a TakyonPathAttributes and its four lists (sized for this endpoint). Edit the vectors or
/// `attrs`, then pass get() to takyonCreate(); get() points the lists at the vectors (NULL when a
/// vector is empty), so set a list pointer to something else only after calling get().
class Attrs {
 public:
  /// Every buffer `bytes` bytes, all six timeouts `timeout`, blocking, verbosity none, no abort.
  Attrs(std::string_view provider, uint32_t id, bool endpoint_a, bool polling, int nbufs_atob, int nbufs_btoa,
        uint64_t bytes, double timeout = kDefaultTimeout);

  TakyonPathAttributes* get();
  void set_timeouts(double seconds);
  void set_interconnect(std::string_view text);
  [[nodiscard]] int nbufs_send() const { return attrs.is_endpointA ? attrs.nbufs_AtoB : attrs.nbufs_BtoA; }
  [[nodiscard]] int nbufs_recv() const { return attrs.is_endpointA ? attrs.nbufs_BtoA : attrs.nbufs_AtoB; }

  TakyonPathAttributes attrs{};
  std::vector<uint64_t> send_bytes;
  std::vector<uint64_t> recv_bytes;
  std::vector<size_t> send_addrs;
  std::vector<size_t> recv_addrs;
};

}  // namespace takyon::test
