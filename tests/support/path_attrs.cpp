// SPDX-License-Identifier: MIT
// Provider traits and the Attrs owner.
#include "support/path_attrs.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "support/sanitizers.hpp"

namespace takyon::test {

namespace {

/// Option variants the suites run besides a provider's defaults: the provider's own flags that pick
/// different machinery (Ucx: its transports and its active-message protocol).
struct Variant {
  const char* provider;
  const char* label;
  const char* options;
  bool client_server;
};
constexpr Variant kVariants[] = {
    {"Ucx", "UcxTcp", "-tls=tcp", true},  // active messages, TCP bootstrap with discovery
    {"Ucx", "UcxShm", "-tls=sysv,posix", false},
    {"Ucx", "UcxShmAm", "-tls=sysv,posix -protocol=am", false},
};

/// Providers whose endpoints start threads of their own (UCX's progress thread): under TSan their
/// processes still have threads to watch.
constexpr const char* kThreadedProviders[] = {"Ucx"};

bool threaded(const TakyonProviderInfo& info) {
  for (const char* name : kThreadedProviders) {
    if (std::string_view(name) == info.name) return true;
  }
  return false;
}

}  // namespace

const std::vector<ProviderConfig>& provider_configs() {
  static const std::vector<ProviderConfig> configs = [] {
    std::vector<ProviderConfig> out;
    const int n = takyonProviderCount();
    for (int i = 0; i < n; ++i) {
      const TakyonProviderInfo* row = takyonProviderInfo(i);
      if (!row->available || !row->reliable || !row->connected || !row->sends || !row->receives) continue;
      out.push_back({row->name, row, "", (row->addressing & TAKYON_ADDRESS_ID) == 0});
    }
    for (const Variant& v : kVariants) {
      const TakyonProviderInfo* row = takyonFindProvider(v.provider);
      if (row != nullptr && row->available) out.push_back({v.label, row, v.options, v.client_server});
    }
    return out;
  }();
  return configs;
}

const std::vector<const char*>& all_providers() {
  static const std::vector<const char*> labels = [] {
    std::vector<const char*> out;
    for (const ProviderConfig& c : provider_configs()) out.push_back(c.label.c_str());
    return out;
  }();
  return labels;
}

std::vector<const char*> memory_providers() {
  std::vector<const char*> out;
  for (const ProviderConfig& c : provider_configs()) {
    if (c.options.empty() && c.info->reach <= TAKYON_REACH_PROCESSES && !c.info->stream)
      out.push_back(c.label.c_str());
  }
  return out;
}

std::vector<const char*> shared_memory_providers() {
  std::vector<const char*> out;
  for (const char* label : memory_providers()) {
    if (config_of(label).info->reach == TAKYON_REACH_PROCESSES) out.push_back(label);
  }
  return out;
}

const ProviderConfig& config_of(std::string_view label) {
  for (const ProviderConfig& c : provider_configs()) {
    if (c.label == label) return c;
  }
  std::fprintf(stderr, "tests: '%.*s' is no provider configuration (see provider_configs())\n",
               static_cast<int>(label.size()), label.data());
  std::abort();
}

bool is_inter_process(std::string_view label) {
  return !config_of(label).info->app_recv_buffers;
}

std::string provider_name(std::string_view label) {
  return config_of(label).info->name;
}

bool is_pointer(std::string_view label) {
  return config_of(label).info->shares_buffers;
}

Mode mode_for(std::string_view label) {
  return config_of(label).info->reach == TAKYON_REACH_THREADS ? Mode::kThreads : Mode::kProcesses;
}

std::string interconnect_for(std::string_view label, uint32_t id, bool endpoint_a) {
  const ProviderConfig& c = config_of(label);
  std::string text = c.info->name;
  if (c.client_server) text += endpoint_a ? " -server -IP=127.0.0.1" : " -client -IP=127.0.0.1";
  text += " -ID=" + std::to_string(id);
  if (!c.options.empty()) text += " " + c.options;
  return text;
}

void PrintTo(const ProviderParam& param, std::ostream* os) {
  *os << param.provider << (param.polling ? ", polling" : ", event driven");
}

std::vector<ProviderParam> all_provider_params() {
  std::vector<ProviderParam> out;
  for (const char* provider : all_providers()) {
    // TSan watches the threads of one process: a provider run as two processes of one thread each
    // gives it nothing to check (a provider that starts threads of its own still does).
    if (kTsan && mode_for(provider) == Mode::kProcesses && !threaded(*config_of(provider).info)) continue;
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
