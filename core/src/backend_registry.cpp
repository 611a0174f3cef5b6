// SPDX-License-Identifier: MIT
// The provider table. Adding a transport is adding a row.
#include "backend_registry.hpp"

#include "backends/inter_process/inter_process_backend.hpp"
#include "backends/inter_thread/inter_thread_backend.hpp"
#include "backends/socket/socket_backend.hpp"
#if defined(TAKYON_HAVE_UCX)
#include "ucx_backend.hpp"
#endif

namespace takyon::detail {
namespace {

constexpr KeySpec kIdOnly[] = {{"ID", ValueKind::kUint32, true}};
constexpr ProviderSpec kIdSpec{{}, kIdOnly};

constexpr std::string_view kSocketFlags[] = {"server", "client", "reuse"};
constexpr KeySpec kSocketKeys[] = {
    {"IP", ValueKind::kText, true}, {"port", ValueKind::kUint16, false}, {"ID", ValueKind::kUint32, false}};
constexpr std::string_view kReuseFlag[] = {"reuse"};
constexpr KeySpec kUnicastKeys[] = {{"IP", ValueKind::kText, true}, {"port", ValueKind::kUint16, true}};
constexpr std::string_view kMulticastSendFlags[] = {"noLoopback"};
constexpr KeySpec kMulticastSendKeys[] = {{"IP", ValueKind::kText, true},
                                          {"group", ValueKind::kText, true},
                                          {"port", ValueKind::kUint16, true},
                                          {"TTL", ValueKind::kUint32, false}};
constexpr KeySpec kMulticastRecvKeys[] = {
    {"IP", ValueKind::kText, true}, {"group", ValueKind::kText, true}, {"port", ValueKind::kUint16, true}};

constexpr std::string_view kUcxFlags[] = {"server", "client", "reuse"};
constexpr KeySpec kUcxKeys[] = {{"IP", ValueKind::kText, false},  {"port", ValueKind::kUint16, false},
                                {"ID", ValueKind::kUint32, false}, {"tls", ValueKind::kText, false},
                                {"protocol", ValueKind::kText, false}};

#if !defined(TAKYON_HAVE_UCX)
Status create_ucx_unavailable(const EndpointConfig& config, Deadline, ErrorLog& log, std::unique_ptr<Backend>&) {
  return TAKYON_FAIL(log, Status::kUnsupported,
                     "interconnect '%s': this libtakyon was built without UCX (install libucx-dev and reconfigure; "
                     "TAKYON_WITH_UCX=ON makes a missing UCX a configure error)", config.provider->text().c_str());
}
#endif

constexpr BackendEntry kBackends[] = {
    {"InterThreadMemcpy", kIdSpec, &InterThreadBackend::create_memcpy},
    {"InterThreadPointer", kIdSpec, &InterThreadBackend::create_pointer},
    {"InterProcessMemcpy", kIdSpec, &InterProcessBackend::create_memcpy},
    {"InterProcessPointer", kIdSpec, &InterProcessBackend::create_pointer},
    {"InterProcessSocket", kIdSpec, &SocketBackend::create_inter_process},
    {"Socket", {kSocketFlags, kSocketKeys}, &SocketBackend::create_tcp},
    {"UnicastSendSocket", {{}, kUnicastKeys}, &SocketBackend::create_unicast_send},
    {"UnicastRecvSocket", {kReuseFlag, kUnicastKeys}, &SocketBackend::create_unicast_recv},
    {"MulticastSendSocket", {kMulticastSendFlags, kMulticastSendKeys}, &SocketBackend::create_multicast_send},
    {"MulticastRecvSocket", {kReuseFlag, kMulticastRecvKeys}, &SocketBackend::create_multicast_recv},
#if defined(TAKYON_HAVE_UCX)
    {"Ucx", {kUcxFlags, kUcxKeys}, &UcxBackend::create},
#else
    {"Ucx", {kUcxFlags, kUcxKeys}, &create_ucx_unavailable},
#endif
};

}  // namespace

const BackendEntry* find_backend(std::string_view name) noexcept {
  for (const BackendEntry& entry : kBackends) {
    if (entry.name == name) return &entry;
  }
  return nullptr;
}

std::string backend_names() {
  std::string out;
  for (const BackendEntry& entry : kBackends) {
    if (!out.empty()) out += ", ";
    out += entry.name;
  }
  return out;
}

}  // namespace takyon::detail
