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
#include "takyon/takyon_providers.h"

namespace takyon::test {

/// One configuration the provider-parameterized suites run: a row of the provider table
/// (takyon_providers.h) with the options it is tested with. The suites instantiate over
/// all_providers(), which is built from the table, so a new provider is tested by default.
struct ProviderConfig {
  std::string label;                         ///< the test name: the provider's, or a variant's ("UcxTcp")
  const TakyonProviderInfo* info = nullptr;  ///< its row
  std::string options;                       ///< flags after the addressing ("-tls=tcp")
  bool client_server = false;                ///< addressed "-server|-client -IP=127.0.0.1 -ID=<n>"
};
/// Every reliable, connected, two-way provider this library has, each addressed as its row allows
/// (by ID where it can, else client/server on loopback), then the option variants of kVariants
/// (path_attrs.cpp). A provider that needs an addressing the tests cannot give is listed too and
/// fails its tests, so it is not silently left out.
[[nodiscard]] const std::vector<ProviderConfig>& provider_configs();
/// The labels of provider_configs(), for ::testing::ValuesIn (stable C strings).
[[nodiscard]] const std::vector<const char*>& all_providers();
/// The configurations whose ID names memory the provider owns (the ownership suite's subject): the
/// table's reliable providers that reach no farther than processes of one OS and are not streams.
[[nodiscard]] std::vector<const char*> memory_providers();
/// memory_providers() whose endpoints are processes: their memory is named shared memory, which a
/// killed process leaves behind (the stale-memory and killed-peer suites).
[[nodiscard]] std::vector<const char*> shared_memory_providers();
/// The configuration of `label` (one of all_providers()); aborts the test program on an unknown one.
[[nodiscard]] const ProviderConfig& config_of(std::string_view label);

/// The provider moves data through shared memory it allocates: receive buffers cannot be the
/// application's (TakyonProviderInfo.app_recv_buffers false).
[[nodiscard]] bool is_inter_process(std::string_view label);
/// The provider's name as it appears in its interconnect string ("Ucx" for every Ucx variant).
[[nodiscard]] std::string provider_name(std::string_view label);
/// Both endpoints share each buffer (TakyonProviderInfo.shares_buffers).
[[nodiscard]] bool is_pointer(std::string_view label);
/// The mode the runner uses: threads where the provider reaches only threads, processes otherwise.
[[nodiscard]] Mode mode_for(std::string_view label);
/// The interconnect string of endpoint A or B of path `id`: "<provider> -ID=<id> <options>", or
/// "<provider> -server|-client -IP=127.0.0.1 -ID=<id> <options>" (endpoint A is the server; the port
/// is the system's choice, found by discovery).
[[nodiscard]] std::string interconnect_for(std::string_view label, uint32_t id, bool endpoint_a);

/// One instantiation of a provider-parameterized suite.
struct ProviderParam {
  const char* provider;
  bool polling;
};
/// For gtest's messages: "InterThreadMemcpy, polling".
void PrintTo(const ProviderParam& param, std::ostream* os);
/// Every configuration of all_providers(), each polling and event driven; under TSan only those whose
/// endpoints run as threads of one process, or whose processes have threads of their own.
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
