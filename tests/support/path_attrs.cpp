// SPDX-License-Identifier: MIT
// Provider traits and the Attrs owner.
#include "support/path_attrs.hpp"

#include <cstdio>
#include <cstring>

#include "support/sanitizers.hpp"

namespace takyon::test {

bool is_inter_process(std::string_view provider) {
  return provider == "InterProcessMemcpy" || provider == "InterProcessPointer";
}

bool is_socket(std::string_view provider) {
  return provider == "InterProcessSocket" || provider == "Socket";
}

bool is_ucx(std::string_view provider) { return provider.starts_with("Ucx"); }

std::string provider_name(std::string_view provider) { return is_ucx(provider) ? "Ucx" : std::string(provider); }

bool is_pointer(std::string_view provider) {
  return provider.ends_with("Pointer");
}

Mode mode_for(std::string_view provider) {
  return provider.starts_with("InterThread") ? Mode::kThreads : Mode::kProcesses;
}

std::string interconnect_for(std::string_view provider, uint32_t id, bool endpoint_a) {
  if (provider == "Socket") {
    return std::string(endpoint_a ? "Socket -server" : "Socket -client") + " -IP=127.0.0.1 -ID=" + std::to_string(id);
  }
  const std::string n = std::to_string(id);
  if (provider == "UcxTcp") {
    return std::string(endpoint_a ? "Ucx -server" : "Ucx -client") + " -IP=127.0.0.1 -ID=" + n + " -tls=tcp";
  }
  if (provider == "UcxShm") return "Ucx -ID=" + n + " -tls=sysv,posix";
  if (provider == "UcxShmAm") return "Ucx -ID=" + n + " -tls=sysv,posix -protocol=am";
  return std::string(provider) + " -ID=" + n;
}

void PrintTo(const ProviderParam& param, std::ostream* os) {
  *os << param.provider << (param.polling ? ", polling" : ", event driven");
}

std::vector<ProviderParam> all_provider_params() {
  std::vector<ProviderParam> out;
  for (const char* provider : kAllProviders) {
    // TSan watches the threads of one process: a provider run as two processes of one thread each
    // (all but Ucx, whose processes have UCX's async thread) gives it nothing to check.
    if (kTsan && mode_for(provider) == Mode::kProcesses && !is_ucx(provider)) continue;
    out.push_back({provider, true});
    out.push_back({provider, false});
  }
  return out;
}

std::string provider_param_name(const ::testing::TestParamInfo<ProviderParam>& info) {
  return std::string(info.param.provider) + (info.param.polling ? "_Polling" : "_Event");
}

std::string provider_name_param_name(const ::testing::TestParamInfo<const char*>& info) {
  return info.param;
}

Attrs::Attrs(std::string_view provider, uint32_t id, bool endpoint_a, bool polling, int nbufs_atob,
             int nbufs_btoa, uint64_t bytes, double timeout) {
  set_interconnect(interconnect_for(provider, id, endpoint_a));
  attrs.is_endpointA = endpoint_a;
  attrs.is_polling = polling;
  attrs.abort_on_failure = false;
  attrs.verbosity = TAKYON_VERBOSITY_NONE;
  set_timeouts(timeout);
  attrs.send_completion_method = TAKYON_BLOCKING;
  attrs.recv_completion_method = TAKYON_BLOCKING;
  attrs.nbufs_AtoB = nbufs_atob;
  attrs.nbufs_BtoA = nbufs_btoa;
  const int nsend = endpoint_a ? nbufs_atob : nbufs_btoa;
  const int nrecv = endpoint_a ? nbufs_btoa : nbufs_atob;
  send_bytes.assign(static_cast<size_t>(nsend > 0 ? nsend : 0), bytes);
  recv_bytes.assign(static_cast<size_t>(nrecv > 0 ? nrecv : 0), bytes);
  send_addrs.assign(send_bytes.size(), 0);
  recv_addrs.assign(recv_bytes.size(), 0);
  attrs.error_message = nullptr;
}

TakyonPathAttributes* Attrs::get() {
  attrs.sender_max_bytes_list = send_bytes.empty() ? nullptr : send_bytes.data();
  attrs.recver_max_bytes_list = recv_bytes.empty() ? nullptr : recv_bytes.data();
  attrs.sender_addr_list = send_addrs.empty() ? nullptr : send_addrs.data();
  attrs.recver_addr_list = recv_addrs.empty() ? nullptr : recv_addrs.data();
  return &attrs;
}

void Attrs::set_timeouts(double seconds) {
  attrs.path_create_timeout = seconds;
  attrs.send_start_timeout = seconds;
  attrs.send_finish_timeout = seconds;
  attrs.recv_start_timeout = seconds;
  attrs.recv_finish_timeout = seconds;
  attrs.path_destroy_timeout = seconds;
}

void Attrs::set_interconnect(std::string_view text) {
  std::memset(attrs.interconnect, 0, sizeof(attrs.interconnect));
  const size_t n =
      text.size() < sizeof(attrs.interconnect) - 1 ? text.size() : sizeof(attrs.interconnect) - 1;
  std::memcpy(attrs.interconnect, text.data(), n);
}

}  // namespace takyon::test
