// SPDX-License-Identifier: MIT
// libFuzzer entry: any interconnect string through the public takyonCreate must fail cleanly or make a
// path that works, never crash, hang or leak (memory, descriptors, /dev/shm entries).
//
// Input: byte 0 picks the endpoint and options, byte 1 the buffer size, the rest is the interconnect
// string (up to the first NUL). Every timeout is a few milliseconds, so a string that names a real
// provider waits for no peer longer than that. With bit 2 set, and a provider whose endpoints may be
// threads of one process, the other endpoint is created in a thread and one message goes across.
//
// No packet leaves this host: before takyonCreate sees the string, the value of every -IP= option is
// replaced by 127.0.0.1, the only address the providers then bind, connect, send or join a group on
// (discovery queries go out on that interface too). Addresses are parsed with inet_pton, never
// resolved, so no name lookup happens either. Ports stay as fuzzed: only loopback services see them.
#include <dirent.h>
#include <unistd.h>

#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "takyon/takyon.h"
#include "takyon/takyon_providers.h"

namespace {

constexpr double kTimeout = 0.005;  // seconds: every wait of every call

std::vector<std::string> split(std::string_view text) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i])) != 0) ++i;
    const size_t start = i;
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i])) == 0) ++i;
    if (i > start) out.emplace_back(text.substr(start, i - start));
  }
  return out;
}

bool key_is(std::string_view token, std::string_view key) {
  if (token.size() < key.size() + 2 || token[0] != '-' || token[key.size() + 1] != '=') return false;
  for (size_t i = 0; i < key.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(token[i + 1])) !=
        std::tolower(static_cast<unsigned char>(key[i])))
      return false;
  }
  return true;
}

// The string with every -IP= value replaced by 127.0.0.1 (and, for the peer endpoint, -server and
// -client swapped). Tokens are joined by single spaces, as the provider parser splits them.
std::string loopback_only(std::string_view text, bool swap_roles) {
  std::string out;
  for (std::string token : split(text)) {
    if (key_is(token, "IP")) token = token.substr(0, 4) + "127.0.0.1";
    if (swap_roles && token == "-server") {
      token = "-client";
    } else if (swap_roles && token == "-client") {
      token = "-server";
    }
    if (!out.empty()) out += ' ';
    out += token;
  }
  return out;
}

int fd_count() {
  int n = 0;
  DIR* dir = opendir("/proc/self/fd");
  if (dir == nullptr) return -1;
  while (const dirent* e = readdir(dir)) {
    if (e->d_name[0] != '.') ++n;
  }
  closedir(dir);
  return n - 1;  // the DIR's own descriptor
}

std::set<std::string> takyon_shm_entries() {
  std::set<std::string> out;
  DIR* dir = opendir("/dev/shm");
  if (dir == nullptr) return out;
  while (const dirent* e = readdir(dir)) {
    if (std::strstr(e->d_name, "takyon") != nullptr) out.insert(e->d_name);
  }
  closedir(dir);
  return out;
}

// `id` appears in `name` as a whole '-'-delimited field, as the providers name their entries.
bool has_id_field(std::string_view name, std::string_view id) {
  if (id.empty()) return false;
  for (size_t pos = name.find(id); pos != std::string_view::npos; pos = name.find(id, pos + 1)) {
    const size_t end = pos + id.size();
    const bool left_ok = pos > 0 && name[pos - 1] == '-';
    const bool right_ok = end == name.size() || name[end] == '-' || name[end] == '.' || name[end] == '_';
    if (left_ok && right_ok) return true;
  }
  return false;
}

// "<provider>-<id>" as the shared-memory providers put them in their names, or "" when the string
// has no -ID= with a number.
std::string shm_key(const std::string& text) {
  const std::vector<std::string> tokens = split(text);
  for (const std::string& token : tokens) {
    if (token.rfind("-ID=", 0) != 0 || token.size() == 4 || token.size() > 24) continue;
    if (token.find_first_not_of("0123456789", 4) != std::string::npos) return "";
    return tokens[0] + "-" + std::to_string(std::strtoull(token.c_str() + 4, nullptr, 10));
  }
  return "";
}

struct Endpoint {
  TakyonPathAttributes attrs{};
  std::vector<uint64_t> send_bytes;
  std::vector<uint64_t> recv_bytes;
  std::vector<size_t> send_addrs;
  std::vector<size_t> recv_addrs;
  TakyonPath* path = nullptr;

  Endpoint(const std::string& text, bool is_a, uint8_t flags, uint64_t bytes) {
    std::snprintf(attrs.interconnect, sizeof(attrs.interconnect), "%s", text.c_str());
    attrs.is_endpointA = is_a;
    attrs.is_polling = (flags & 2u) != 0;
    attrs.verbosity = TAKYON_VERBOSITY_NONE;
    attrs.path_create_timeout = kTimeout;
    attrs.send_start_timeout = kTimeout;
    attrs.send_finish_timeout = kTimeout;
    attrs.recv_start_timeout = kTimeout;
    attrs.recv_finish_timeout = kTimeout;
    attrs.path_destroy_timeout = kTimeout;
    attrs.send_completion_method = (flags & 0x20u) != 0 ? TAKYON_USE_IS_SEND_FINISHED : TAKYON_BLOCKING;
    attrs.recv_completion_method = TAKYON_BLOCKING;
    attrs.nbufs_AtoB = 1 + ((flags >> 3) & 1);
    attrs.nbufs_BtoA = (flags >> 4) & 1;
    const int nsend = is_a ? attrs.nbufs_AtoB : attrs.nbufs_BtoA;
    const int nrecv = is_a ? attrs.nbufs_BtoA : attrs.nbufs_AtoB;
    send_bytes.assign(static_cast<size_t>(nsend), bytes);
    recv_bytes.assign(static_cast<size_t>(nrecv), bytes);
    send_addrs.assign(send_bytes.size(), 0);
    recv_addrs.assign(recv_bytes.size(), 0);
    attrs.sender_max_bytes_list = send_bytes.empty() ? nullptr : send_bytes.data();
    attrs.recver_max_bytes_list = recv_bytes.empty() ? nullptr : recv_bytes.data();
    attrs.sender_addr_list = send_addrs.empty() ? nullptr : send_addrs.data();
    attrs.recver_addr_list = recv_addrs.empty() ? nullptr : recv_addrs.data();
  }

  void create() {
    path = takyonCreate(&attrs);
    if (path == nullptr) {
      // A failed create always says why.
      if (attrs.error_message == nullptr || attrs.error_message[0] == '\0') {
        std::fprintf(stderr, "takyonCreate('%s') failed without a message\n", attrs.interconnect);
        __builtin_trap();
      }
      std::free(attrs.error_message);
      attrs.error_message = nullptr;
    } else if (attrs.error_message != nullptr) {
      std::fprintf(stderr, "takyonCreate('%s') succeeded but left error_message set\n", attrs.interconnect);
      __builtin_trap();
    }
  }

  void destroy() {
    if (path == nullptr) return;
    char* error = takyonDestroy(&path);
    std::free(error);
    if (path != nullptr) __builtin_trap();  // destroy always frees the endpoint
  }
};

// One message A to B over a path whose endpoints both exist; it must arrive intact if it arrives.
void exchange(Endpoint& a, Endpoint& b, uint64_t bytes) {
  if (a.path == nullptr || b.path == nullptr || a.attrs.nbufs_AtoB < 1) return;
  const uint64_t n = bytes < 8 ? bytes : 8;
  auto* src = reinterpret_cast<uint8_t*>(a.path->attrs.sender_addr_list[0]);
  if (src != nullptr) std::memcpy(src, "takyon!!", n);
  bool timed_out = false;
  std::thread receiver([&b, n] {
    uint64_t got = 0;
    uint64_t offset = 0;
    bool recv_timed_out = false;
    if (!takyonRecv(b.path, 0, &got, &offset, &recv_timed_out) || recv_timed_out) return;
    const auto* dst = reinterpret_cast<const uint8_t*>(b.path->attrs.recver_addr_list[0]);
    if (got != n || offset != 0 || (n > 0 && std::memcmp(dst, "takyon!!", n) != 0)) {
      std::fprintf(stderr, "'%s': %llu bytes at %llu arrived, %llu sent at 0, or not as sent\n",
                   b.attrs.interconnect, static_cast<unsigned long long>(got),
                   static_cast<unsigned long long>(offset), static_cast<unsigned long long>(n));
      __builtin_trap();
    }
  });
  if (takyonSend(a.path, 0, n, 0, 0, &timed_out) && !timed_out &&
      a.attrs.send_completion_method == TAKYON_USE_IS_SEND_FINISHED) {
    (void)takyonIsSendFinished(a.path, 0, &timed_out);
  }
  receiver.join();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const uint8_t flags = data[0];
  const uint64_t bytes = static_cast<uint64_t>(data[1]) * 16;
  const auto* chars = reinterpret_cast<const char*>(data + 2);
  const std::string_view raw(chars, strnlen(chars, size - 2));
  const std::string text = loopback_only(raw, false);
  if (text.size() >= TAKYON_MAX_INTERCONNECT_CHARS) return 0;

  const int fds_before = fd_count();
  const std::set<std::string> shm_before = takyon_shm_entries();
  {
    const bool is_a = (flags & 1u) != 0;
    Endpoint me(text, is_a, flags, bytes);
    const TakyonProviderInfo* info = takyonFindProvider(text.c_str());
    const bool pair =
        (flags & 4u) != 0 && info != nullptr && info->connected && info->sends && info->receives;
    if (pair) {
      Endpoint peer(loopback_only(raw, true), !is_a, flags, bytes);
      std::thread other([&peer] { peer.create(); });
      me.create();
      other.join();
      exchange(is_a ? me : peer, is_a ? peer : me, bytes);
      std::thread other_destroy([&peer] { peer.destroy(); });
      me.destroy();
      other_destroy.join();
    } else {
      me.create();
      me.destroy();
    }
  }
  // Everything the endpoints had is gone with them.
  const int fds_after = fd_count();
  if (fds_after > fds_before) {
    std::fprintf(stderr, "'%s': %d descriptors open after destroy, %d before\n", text.c_str(), fds_after,
                 fds_before);
    __builtin_trap();
  }
  // Other processes (tests running beside the fuzzer) make entries meanwhile: only a new entry with
  // this input's provider and ID as fields ("takyon-<uid>-<provider>-<id>-...") is this input's.
  const std::string ours = shm_key(text);
  for (const std::string& name : takyon_shm_entries()) {
    if (shm_before.count(name) != 0 || !has_id_field(name, ours)) continue;
    std::fprintf(stderr, "'%s' left /dev/shm/%s behind\n", text.c_str(), name.c_str());
    __builtin_trap();
  }
  return 0;
}
