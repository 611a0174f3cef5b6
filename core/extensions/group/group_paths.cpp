// SPDX-License-Identifier: MIT
// Paths between the members of a group (takyon_group.h): three all-gathers over the group's own
// exchange (who wants which paths and where each member is; then, after every path was attempted,
// who failed), checks every member makes alike, and takyonCreate for each pair in one global order.
// Built on the public path API only.
#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "takyon/takyon_group.h"
#include "takyon/takyon_providers.h"

namespace {

constexpr std::uint32_t kMagic = 0x54475031;  // "TGP1": every member runs this version's exchange
constexpr std::size_t kTextBytes = 256;       // a member's error message in the exchange
constexpr std::size_t kHostBytes = 128;

/// What each member publishes first: where it is, whether its own arguments were bad, how many paths
/// it wants, and (rank 0's is used) the base of the path IDs.
struct Header {
  std::uint32_t magic;
  std::int32_t npeers;
  std::uint32_t id_base;
  std::uint32_t failed;       ///< nonzero: `text` says why this member's arguments are bad
  std::uint64_t netns_inode;  ///< the network namespace (abstract socket names live there)
  char host[kHostBytes];      ///< host name and boot id: the same kernel and host name
  char text[kTextBytes];
};

/// One path a member wants, in the second exchange.
struct Want {
  std::int32_t peer;
  std::int32_t nbufs_send;
  std::int32_t nbufs_recv;
};

std::string host_identity() {
  char name[64] = {};
  gethostname(name, sizeof name - 1);
  std::string boot;
  std::ifstream in("/proc/sys/kernel/random/boot_id");
  std::getline(in, boot);
  return std::string(name) + " " + boot;
}

std::uint64_t netns_inode() {
  struct stat st {};
  return stat("/proc/self/ns/net", &st) == 0 ? std::uint64_t(st.st_ino) : 0;
}

std::uint32_t random_id_base() {
  std::uint32_t r = 0;
  if (getrandom(&r, sizeof r, 0) != ssize_t(sizeof r)) r = std::uint32_t(getpid()) * 2654435761U;
  return (1U << 20) + r % (1U << 29);  // IDs base + pair index stay below 2^31
}

std::string host_name_of(const Header& h) {
  std::string s(h.host, strnlen(h.host, kHostBytes));
  return s.substr(0, s.find(' '));
}

void copy_text(char (&dst)[kTextBytes], const std::string& s) {
  std::size_t n = std::min(s.size(), kTextBytes - 1);
  std::memcpy(dst, s.data(), n);
  dst[n] = '\0';
}

bool fail(char** error_ret, const std::string& message) {
  if (error_ret != nullptr) *error_ret = strdup(message.c_str());
  return false;
}

/// This member's own arguments; "" when they are fine.
std::string check_own(const TakyonGroupExchange& g, int npeers, const TakyonPeerBuffers* wants,
                      const TakyonProviderInfo* provider, const char* provider_name, TakyonPath** paths_ret) {
  const std::string me = "rank " + std::to_string(g.rank) + ": ";
  if (provider == nullptr || !provider->available) {
    return me + "provider '" + provider_name + "' is not in this libtakyon (options->same_host_provider)";
  }
  if (provider->reach < TAKYON_REACH_PROCESSES || (provider->addressing & TAKYON_ADDRESS_ID) == 0 ||
      !provider->connected || !provider->reliable || !provider->sends || !provider->receives) {
    return me + "provider '" + provider_name +
           "' cannot join two processes by ID both ways (options->same_host_provider; see "
           "takyon_providers.h)";
  }
  if (npeers < 0 || npeers > g.size - 1) {
    return me + "npeers is " + std::to_string(npeers) + " (0.." + std::to_string(g.size - 1) + ")";
  }
  if (npeers > 0 && (wants == nullptr || paths_ret == nullptr)) return me + "wants or paths_ret is NULL";
  std::vector<bool> seen(std::size_t(g.size), false);
  for (int k = 0; k < npeers; ++k) {
    const TakyonPeerBuffers& w = wants[k];
    const std::string which = me + "wants[" + std::to_string(k) + "]: ";
    if (w.peer < 0 || w.peer >= g.size) {
      return which + "peer " + std::to_string(w.peer) + " is outside the group (size " +
             std::to_string(g.size) + ")";
    }
    if (w.peer == g.rank) return which + "a path to itself";
    if (seen[std::size_t(w.peer)]) return which + "a second path to peer " + std::to_string(w.peer);
    seen[std::size_t(w.peer)] = true;
    if (w.nbufs_send < 0 || w.nbufs_recv < 0 || (w.nbufs_send == 0 && w.nbufs_recv == 0)) {
      return which + "nbufs_send and nbufs_recv must be >= 0 and not both 0";
    }
    if ((w.nbufs_send > 0 && w.send_bytes == nullptr) || (w.nbufs_recv > 0 && w.recv_bytes == nullptr)) {
      return which + "send_bytes or recv_bytes is NULL";
    }
    for (int b = 0; w.send_addrs != nullptr && b < w.nbufs_send; ++b) {
      if (w.send_addrs[b] != 0 && !provider->app_send_buffers) {
        return which + provider_name + " sends only from its own memory: send_addrs[" + std::to_string(b) +
               "] must be 0 (use the path's sender_addr_list)";
      }
    }
    for (int b = 0; w.recv_addrs != nullptr && b < w.nbufs_recv; ++b) {
      if (w.recv_addrs[b] != 0 && !provider->app_recv_buffers) {
        return which + provider_name + " receives only into its own memory: recv_addrs[" + std::to_string(b) +
               "] must be 0 (use the path's recver_addr_list)";
      }
    }
  }
  return "";
}

/// The checks every member makes alike on everyone's wants; "" when every pair agrees.
std::string check_pairs(const std::vector<Header>& heads, const std::vector<std::vector<Want>>& all) {
  const int size = int(heads.size());
  for (int i = 0; i < size; ++i) {
    for (const Want& w : all[std::size_t(i)]) {
      const Want* back = nullptr;
      for (const Want& v : all[std::size_t(w.peer)]) {
        if (v.peer == i) back = &v;
      }
      const std::string pair = "ranks " + std::to_string(i) + " and " + std::to_string(w.peer) + ": ";
      if (back == nullptr) {
        return pair + "rank " + std::to_string(i) + " asked for a path to rank " + std::to_string(w.peer) +
               ", which asked for none to it";
      }
      if (back->nbufs_recv != w.nbufs_send || back->nbufs_send != w.nbufs_recv) {
        return pair + "buffer counts differ: rank " + std::to_string(i) + " sends " +
               std::to_string(w.nbufs_send) + " and receives " + std::to_string(w.nbufs_recv) + ", rank " +
               std::to_string(w.peer) + " receives " + std::to_string(back->nbufs_recv) + " and sends " +
               std::to_string(back->nbufs_send);
      }
      const Header& a = heads[std::size_t(i)];
      const Header& b = heads[std::size_t(w.peer)];
      if (std::strncmp(a.host, b.host, kHostBytes) != 0 || a.netns_inode != b.netns_inode) {
        return pair + "on different hosts ('" + host_name_of(a) + "' and '" + host_name_of(b) +
               "'): paths between hosts are not made by takyonGroupCreatePaths yet";
      }
    }
  }
  return "";
}

/// The ID of the path between ranks i < j: unique among the pairs of one creation, and the creations
/// of one job differ by their random base.
std::uint32_t pair_id(std::uint32_t base, int i, int j, int size) {
  return base + std::uint32_t(i) * std::uint32_t(size) + std::uint32_t(j);
}

/// The path's ID back from its interconnect string (0 if none).
std::uint64_t id_of(const TakyonPath* path) {
  const char* at = std::strstr(path->attrs.interconnect, "-ID=");
  return at != nullptr ? std::strtoull(at + 4, nullptr, 10) : 0;
}

TakyonPath* create_one(const TakyonGroupExchange& g, const TakyonPeerBuffers& w, const TakyonGroupOptions& o,
                       const char* provider, std::uint32_t id, std::string& error) {
  TakyonPathAttributes attrs{};
  std::snprintf(attrs.interconnect, sizeof attrs.interconnect, "%s -ID=%u", provider, id);
  attrs.is_endpointA = g.rank < w.peer;
  attrs.is_polling = o.is_polling;
  attrs.abort_on_failure = false;
  attrs.verbosity = 0;
  attrs.path_create_timeout = o.path_create_timeout;
  attrs.send_start_timeout = o.send_start_timeout;
  attrs.send_finish_timeout = o.send_finish_timeout;
  attrs.recv_start_timeout = o.recv_start_timeout;
  attrs.recv_finish_timeout = o.recv_finish_timeout;
  attrs.path_destroy_timeout = o.path_destroy_timeout;
  attrs.send_completion_method = o.send_completion_method;
  attrs.recv_completion_method = TAKYON_BLOCKING;
  // Endpoint A's sends are the A-to-B buffers, B's the B-to-A ones.
  attrs.nbufs_AtoB = attrs.is_endpointA ? w.nbufs_send : w.nbufs_recv;
  attrs.nbufs_BtoA = attrs.is_endpointA ? w.nbufs_recv : w.nbufs_send;
  std::vector<uint64_t> send_bytes(w.send_bytes, w.send_bytes + w.nbufs_send);
  std::vector<uint64_t> recv_bytes(w.recv_bytes, w.recv_bytes + w.nbufs_recv);
  std::vector<size_t> send_addrs(std::size_t(w.nbufs_send), 0);
  std::vector<size_t> recv_addrs(std::size_t(w.nbufs_recv), 0);
  if (w.send_addrs != nullptr) std::copy(w.send_addrs, w.send_addrs + w.nbufs_send, send_addrs.begin());
  if (w.recv_addrs != nullptr) std::copy(w.recv_addrs, w.recv_addrs + w.nbufs_recv, recv_addrs.begin());
  attrs.sender_max_bytes_list = send_bytes.data();
  attrs.recver_max_bytes_list = recv_bytes.data();
  attrs.sender_addr_list = send_addrs.data();
  attrs.recver_addr_list = recv_addrs.data();
  TakyonPath* path = takyonCreate(&attrs);
  if (path == nullptr) {
    error = "rank " + std::to_string(g.rank) + ": path to rank " + std::to_string(w.peer) + " ('" +
            attrs.interconnect + "'): " + (attrs.error_message != nullptr ? attrs.error_message : "failed");
    std::free(attrs.error_message);
  }
  return path;
}

/// Destroys paths in the order of their IDs, the order every member creates them in.
std::string destroy_in_order(std::vector<TakyonPath**> paths) {
  std::sort(paths.begin(), paths.end(), [](TakyonPath** a, TakyonPath** b) { return id_of(*a) < id_of(*b); });
  std::string first;
  for (TakyonPath** p : paths) {
    const std::string name = (*p)->attrs.interconnect;
    char* why = takyonDestroy(p);
    if (why != nullptr && first.empty()) first = "destroying '" + name + "': " + why;
    std::free(why);
    *p = nullptr;
  }
  return first;
}

}  // namespace

extern "C" TakyonGroupOptions takyonGroupDefaultOptions(void) {
  TakyonGroupOptions o{};
  o.same_host_provider = "InterProcessMemcpy";
  o.is_polling = true;
  o.path_create_timeout = 10.0;
  o.send_start_timeout = TAKYON_WAIT_FOREVER;
  o.send_finish_timeout = TAKYON_WAIT_FOREVER;
  o.recv_start_timeout = TAKYON_WAIT_FOREVER;
  o.recv_finish_timeout = TAKYON_WAIT_FOREVER;
  o.path_destroy_timeout = 10.0;
  o.send_completion_method = TAKYON_BLOCKING;
  return o;
}

extern "C" bool takyonGroupCreatePaths(const TakyonGroupExchange* group, int npeers,
                                       const TakyonPeerBuffers* wants, const TakyonGroupOptions* options,
                                       TakyonPath** paths_ret, char** error_ret) {
  if (error_ret != nullptr) *error_ret = nullptr;
  // Without a working exchange nothing can be agreed: this member alone fails.
  if (group == nullptr || group->allgather == nullptr || group->size < 1 || group->rank < 0 ||
      group->rank >= group->size) {
    return fail(error_ret,
                "takyonGroupCreatePaths: group is NULL, has no allgather, or a rank outside its size");
  }
  const TakyonGroupExchange& g = *group;
  const TakyonGroupOptions o = options != nullptr ? *options : takyonGroupDefaultOptions();
  const char* provider_name = o.same_host_provider != nullptr ? o.same_host_provider : "InterProcessMemcpy";
  const TakyonProviderInfo* provider = takyonFindProvider(provider_name);

  Header mine{};
  mine.magic = kMagic;
  mine.id_base = random_id_base();
  mine.netns_inode = netns_inode();
  const std::string host = host_identity();
  std::strncpy(mine.host, host.c_str(), kHostBytes - 1);
  const std::string own = check_own(g, npeers, wants, provider, provider_name, paths_ret);
  mine.failed = own.empty() ? 0 : 1;
  mine.npeers = own.empty() ? npeers : 0;
  copy_text(mine.text, own);
  std::vector<Header> heads(std::size_t(g.size));
  if (g.allgather(g.context, &mine, heads.data(), sizeof(Header)) != 0) {
    return fail(error_ret, "takyonGroupCreatePaths: the group's allgather failed");
  }
  int most = 0;
  for (int r = 0; r < g.size; ++r) {
    if (heads[std::size_t(r)].magic != kMagic) {
      return fail(error_ret, "takyonGroupCreatePaths: rank " + std::to_string(r) +
                                 " runs another version of this exchange (or passed other bytes)");
    }
    most = std::max(most, int(heads[std::size_t(r)].npeers));
  }
  // Everyone's wants, padded to the longest list (the exchange moves equal sizes).
  std::vector<Want> my_wants(std::size_t(most) + 1, Want{-1, 0, 0});
  for (int k = 0; k < mine.npeers; ++k)
    my_wants[std::size_t(k)] = {wants[k].peer, wants[k].nbufs_send, wants[k].nbufs_recv};
  std::vector<Want> flat(my_wants.size() * std::size_t(g.size));
  if (g.allgather(g.context, my_wants.data(), flat.data(), my_wants.size() * sizeof(Want)) != 0) {
    return fail(error_ret, "takyonGroupCreatePaths: the group's allgather failed");
  }
  for (int r = 0; r < g.size; ++r) {
    if (heads[std::size_t(r)].failed != 0) {
      return fail(error_ret, "takyonGroupCreatePaths: " + std::string(heads[std::size_t(r)].text));
    }
  }
  std::vector<std::vector<Want>> all(std::size_t(g.size));
  for (int r = 0; r < g.size; ++r) {
    const Want* w = flat.data() + std::size_t(r) * my_wants.size();
    all[std::size_t(r)].assign(w, w + heads[std::size_t(r)].npeers);
  }
  const std::string bad = check_pairs(heads, all);
  if (!bad.empty()) return fail(error_ret, "takyonGroupCreatePaths: " + bad);

  // Every pair in one order on all members: the globally first pair not made yet is the next one
  // for both its members, so nobody waits on a member busy with another path.
  std::vector<int> order(static_cast<std::size_t>(npeers));
  for (int k = 0; k < npeers; ++k) order[std::size_t(k)] = k;
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    auto key = [&](int k) {
      return std::make_pair(std::min(g.rank, wants[k].peer), std::max(g.rank, wants[k].peer));
    };
    return key(a) < key(b);
  });
  const std::uint32_t base = heads[0].id_base;
  std::string error;
  for (int k = 0; k < npeers; ++k) paths_ret[k] = nullptr;
  for (int k : order) {
    const int lo = std::min(g.rank, wants[k].peer);
    const int hi = std::max(g.rank, wants[k].peer);
    std::string why;
    paths_ret[k] = create_one(g, wants[k], o, provider_name, pair_id(base, lo, hi, g.size), why);
    if (paths_ret[k] == nullptr && error.empty()) error = why;
  }

  // Whether every member made all its paths: if one did not, all give theirs back.
  Header done{};
  done.magic = kMagic;
  done.failed = error.empty() ? 0 : 1;
  copy_text(done.text, error);
  std::vector<Header> outcome(std::size_t(g.size));
  const bool exchanged = g.allgather(g.context, &done, outcome.data(), sizeof(Header)) == 0;
  std::string first = exchanged ? "" : "the group's allgather failed after the paths were made";
  for (int r = 0; exchanged && r < g.size && first.empty(); ++r) {
    if (outcome[std::size_t(r)].failed != 0) first = outcome[std::size_t(r)].text;
  }
  if (first.empty()) return true;
  std::vector<TakyonPath**> made;
  for (int k = 0; k < npeers; ++k) {
    if (paths_ret[k] != nullptr) made.push_back(&paths_ret[k]);
  }
  destroy_in_order(made);
  return fail(error_ret, "takyonGroupCreatePaths: " + first);
}

extern "C" bool takyonGroupDestroyPaths(int npeers, TakyonPath** paths, char** error_ret) {
  if (error_ret != nullptr) *error_ret = nullptr;
  if (npeers < 0 || (npeers > 0 && paths == nullptr)) {
    return fail(error_ret, "takyonGroupDestroyPaths: npeers is negative or paths is NULL");
  }
  std::vector<TakyonPath**> open;
  for (int k = 0; k < npeers; ++k) {
    if (paths[k] != nullptr) open.push_back(&paths[k]);
  }
  const std::string first = destroy_in_order(open);
  return first.empty() ? true : fail(error_ret, "takyonGroupDestroyPaths: " + first);
}
