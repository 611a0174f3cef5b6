// SPDX-License-Identifier: MIT
// The provider table. Adding a transport is adding a row.
#include "backend_registry.hpp"

#include "backends/inter_process/inter_process_backend.hpp"
#include "backends/inter_thread/inter_thread_backend.hpp"
#include "backends/socket/socket_backend.hpp"
#if defined(TAKYON_HAVE_UCX)
#include "ucx_backend/ucx_backend.hpp"
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
constexpr KeySpec kUcxKeys[] = {{"IP", ValueKind::kText, false},
                                {"port", ValueKind::kUint16, false},
                                {"ID", ValueKind::kUint32, false},
                                {"tls", ValueKind::kText, false},
                                {"protocol", ValueKind::kText, false}};

#if !defined(TAKYON_HAVE_UCX)
Status create_ucx_unavailable(const EndpointConfig& config, Deadline, ErrorLog& log,
                              std::unique_ptr<Backend>&) {
  return TAKYON_FAIL(
      log, Status::kUnsupported,
      "interconnect '%s': this libtakyon was built without UCX (install libucx-dev and reconfigure; "
      "TAKYON_WITH_UCX=ON makes a missing UCX a configure error)",
      config.provider->text().c_str());
}
#endif

#if defined(TAKYON_HAVE_UCX)
constexpr bool kHaveUcx = true;
constexpr BackendFactory kCreateUcx = &UcxBackend::create;
#else
constexpr bool kHaveUcx = false;
constexpr BackendFactory kCreateUcx = &create_ucx_unavailable;
#endif

constexpr uint64_t kMaxUdpPayload = 65507;  // 65535 minus the IPv4 and UDP headers (or less: the MTU)

// Application memory a provider accepts for its buffers (TakyonProviderInfo.app_*_buffers).
struct AppBuffers {
  bool send;
  bool recv;
};
constexpr AppBuffers kAnyMemory{true, true};

// What each provider is (takyon_providers.h): name, peer, reach, addressing, available,
// shares_buffers, reliable, connected, sends, receives, stream, application buffers, max_message_bytes.
constexpr TakyonProviderInfo info(const char* name, const char* peer, TakyonProviderReach reach,
                                  uint32_t addressing, bool available, bool shares_buffers, bool reliable,
                                  bool connected, bool sends, bool receives, bool stream, AppBuffers app,
                                  uint64_t max_bytes, const char* description) {
  return {name,
          peer,
          reach,
          addressing,
          available,
          shares_buffers,
          reliable,
          connected,
          sends,
          receives,
          stream,
          app.send,
          app.recv,
          /*one_sided=*/false,
          max_bytes,
          description,
          /*piggyback=*/false,
          /*zero_byte=*/true};
}

// A provider with takyonWrite, takyonRead and the atomics: on the peer's receive buffers directly
// where they are mapped (Backend::peer_recv_memory), else carried to the peer (Backend::remote).
// Such a provider also carries a piggyback value with each notification.
constexpr TakyonProviderInfo one_sided(TakyonProviderInfo row) {
  row.one_sided = true;
  row.piggyback = true;
  return row;
}

constexpr BackendEntry kBackends[] = {
    {one_sided(info("InterThreadMemcpy", "InterThreadMemcpy", TAKYON_REACH_THREADS, TAKYON_ADDRESS_ID, true,
                    false, true, true, true, true, false, kAnyMemory, 0,
                    "threads of one process; a send copies into the peer's buffer")),
     kIdSpec, &InterThreadBackend::create_memcpy},
    {one_sided(info("InterThreadPointer", "InterThreadPointer", TAKYON_REACH_THREADS, TAKYON_ADDRESS_ID, true,
                    true, true, true, true, true, false, {false, true}, 0,
                    "threads of one process sharing each buffer (the receiver's); a send only signals")),
     kIdSpec, &InterThreadBackend::create_pointer},
    {one_sided(info("InterProcessMemcpy", "InterProcessMemcpy", TAKYON_REACH_PROCESSES, TAKYON_ADDRESS_ID,
                    true, false, true, true, true, true, false, {true, false}, 0,
                    "processes of one OS; receive buffers in shared memory, a send copies")),
     kIdSpec, &InterProcessBackend::create_memcpy},
    {one_sided(info("InterProcessPointer", "InterProcessPointer", TAKYON_REACH_PROCESSES, TAKYON_ADDRESS_ID,
                    true, true, true, true, true, true, false, {false, false}, 0,
                    "processes of one OS sharing each buffer in shared memory; a send only signals")),
     kIdSpec, &InterProcessBackend::create_pointer},
    {one_sided(info("InterProcessSocket", "InterProcessSocket", TAKYON_REACH_PROCESSES, TAKYON_ADDRESS_ID,
                    true, false, true, true, true, true, true, kAnyMemory, 0,
                    "processes of one OS over a Unix stream socket")),
     kIdSpec, &SocketBackend::create_inter_process},
    {one_sided(info("Socket", "Socket", TAKYON_REACH_HOSTS, TAKYON_ADDRESS_CLIENT_SERVER, true, false, true,
                    true, true, true, true, kAnyMemory, 0,
                    "TCP between hosts; fixed port or one discovered from -ID")),
     {kSocketFlags, kSocketKeys},
     &SocketBackend::create_tcp},
    {info("UnicastSendSocket", "UnicastRecvSocket", TAKYON_REACH_HOSTS, TAKYON_ADDRESS_UNICAST, true, false,
          false, false, true, false, false, kAnyMemory, kMaxUdpPayload,
          "UDP datagrams to one receiver; may drop or reorder whole messages"),
     {{}, kUnicastKeys},
     &SocketBackend::create_unicast_send},
    {info("UnicastRecvSocket", "UnicastSendSocket", TAKYON_REACH_HOSTS, TAKYON_ADDRESS_UNICAST, true, false,
          false, false, false, true, false, kAnyMemory, kMaxUdpPayload,
          "receives UnicastSendSocket's datagrams"),
     {kReuseFlag, kUnicastKeys},
     &SocketBackend::create_unicast_recv},
    {info("MulticastSendSocket", "MulticastRecvSocket", TAKYON_REACH_HOSTS, TAKYON_ADDRESS_MULTICAST, true,
          false, false, false, true, false, false, kAnyMemory, kMaxUdpPayload,
          "UDP multicast to a group (at most the interface's MTU); may drop or reorder whole messages"),
     {kMulticastSendFlags, kMulticastSendKeys},
     &SocketBackend::create_multicast_send},
    {info("MulticastRecvSocket", "MulticastSendSocket", TAKYON_REACH_HOSTS, TAKYON_ADDRESS_MULTICAST, true,
          false, false, false, false, true, false, kAnyMemory, kMaxUdpPayload,
          "receives a multicast group's datagrams"),
     {kReuseFlag, kMulticastRecvKeys},
     &SocketBackend::create_multicast_recv},
    {one_sided(info("Ucx", "Ucx", TAKYON_REACH_HOSTS, TAKYON_ADDRESS_ID | TAKYON_ADDRESS_CLIENT_SERVER,
                    kHaveUcx, false, true, true, true, true, false, kAnyMemory, 0,
                    "UCX: any transport it has (shared memory, TCP, RDMA); a send is a put")),
     {kUcxFlags, kUcxKeys},
     kCreateUcx},
};
}  // namespace

const BackendEntry* find_backend(std::string_view name) noexcept {
  for (const BackendEntry& entry : kBackends) {
    if (entry.info.name == name) return &entry;
  }
  return nullptr;
}

std::span<const BackendEntry> backends() noexcept {
  return kBackends;
}

std::string backend_names() {
  std::string out;
  for (const BackendEntry& entry : kBackends) {
    if (!out.empty()) out += ", ";
    out += entry.info.name;
  }
  return out;
}

}  // namespace takyon::detail
