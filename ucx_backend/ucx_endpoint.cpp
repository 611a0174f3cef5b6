// SPDX-License-Identifier: MIT
#include "ucx_endpoint.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>

#include "backends/common/layout_check.hpp"
#include "backends/common/spin.hpp"
#include "ucx_fd_budget.hpp"

namespace takyon::detail {

/// The fixed part of the greeting; the body follows: send sizes, receive sizes, receive
/// addresses (uint64 each), the worker address, then the packed key of the control area and of
/// each receive buffer (uint32 length + bytes; length 0 for a zero-byte buffer). Outside the
/// anonymous namespace: UcxEndpoint::PeerGreeting, a member of a class with external linkage,
/// holds one (GCC's -Wsubobject-linkage in unity builds).
struct UcxGreetingHead {
  char magic[8];
  uint32_t side;
  uint32_t polling;
  uint32_t protocol;
  uint32_t nsend;
  uint32_t nrecv;
  uint32_t worker_address_bytes;
  uint64_t control_addr;
  uint64_t body_bytes;
};
static_assert(sizeof(UcxGreetingHead) == 48);

namespace {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the Ucx greeting is little-endian");

constexpr char kGreetingMagic[8] = {'T', 'A', 'K', 'Y', 'O', 'N', 'U', '3'};
using GreetingHead = UcxGreetingHead;

struct Verdict {
  char word[8];  // "OK" or "REFUSE"
  uint32_t can_map;
  uint32_t reserved;
  char reason[240];
};
static_assert(sizeof(Verdict) == 256);

// Limits on what a peer may announce (anything larger is not a Takyon endpoint).
constexpr uint32_t kMaxBuffers = 1u << 20;
constexpr uint32_t kMaxWorkerAddress = 1u << 20;
constexpr uint64_t kMaxBody = 1ull << 30;

/// The active-message header: which receive buffer, the message size and offset, and the
/// sender's receive buffers that are free again (`ncredits` uint32 indexes follow).
struct AmHeader {
  uint32_t buffer;
  uint16_t ncredits;
  uint16_t flags;  // kPlaced
  uint64_t bytes;
  uint64_t offset;
  uint32_t piggyback;  // takyonWritePiggyback's value
  uint32_t reserved;
};
static_assert(sizeof(AmHeader) == 32);
/// The message is already in the receive buffer: the sender, which maps it, copied it there before
/// sending this header (no payload follows).
constexpr uint16_t kPlaced = 1;
/// From this size up, a sender that maps the peer's receive buffer copies the message there itself
/// and sends only the header: one copy, where an eager active message costs two (into UCX's
/// shared-memory FIFO and out of it) and UCX 1.13's rendezvous over sysv/posix pipelines the data
/// through the FIFO the same way. Below it the message rides in the header's FIFO entry.
constexpr uint64_t kPlaceMinBytes = 256;
constexpr uint32_t kNoBuffer = UINT32_MAX;   // credits only
constexpr uint32_t kHello = UINT32_MAX - 1;  // create: the connection works
constexpr size_t kHelloBytes = 1024;         // an eager copied message on every UCX transport
constexpr unsigned kAmId = 0x7a;
constexpr size_t kMaxPiggyback = 32;

// Codes on the stream after the handshake.
constexpr char kHeartbeat = 'H';
constexpr char kClosing = 'C';
constexpr char kClosed = 'D';
constexpr char kReady = 'R';        // create: UCX connected and flushed on this side
constexpr char kReadyCanMap = 'M';  // the same, and this side can map the peer's buffers

// A polling waiter reads the stream this often; a sleeping one wakes on it.
constexpr int64_t kStreamCheckNs = 2'000'000;
constexpr int64_t kEventRecheckNs = 100'000'000;

enum : uint8_t { kEmpty = 0, kArriving = 1, kArrived = 2 };

template <typename T>
void put(std::vector<std::byte>& out, const T& value) {
  const auto* p = reinterpret_cast<const std::byte*>(&value);
  out.insert(out.end(), p, p + sizeof(T));
}

/// Reads from a received greeting body, never past its end.
class Reader {
 public:
  Reader(const std::byte* data, size_t size) : data_(data), size_(size) {}
  template <typename T>
  bool get(T& value) {
    if (size_ - at_ < sizeof(T)) return false;
    std::memcpy(&value, data_ + at_, sizeof(T));
    at_ += sizeof(T);
    return true;
  }
  bool bytes(size_t n, const std::byte*& out) {
    if (size_ - at_ < n) return false;
    out = data_ + at_;
    at_ += n;
    return true;
  }
  [[nodiscard]] bool done() const { return at_ == size_; }

 private:
  const std::byte* data_;
  size_t size_;
  size_t at_ = 0;
};

bool request_pending(void* request) {
  return request != nullptr && ucp_request_check_status(request) == UCS_INPROGRESS;
}

std::string printable_prefix(const std::byte* data, size_t n) {
  std::string out;
  for (size_t i = 0; i < n && i < 16; ++i) {
    const auto c = static_cast<unsigned char>(data[i]);
    out += (c >= 32 && c < 127) ? static_cast<char>(c) : '.';
  }
  return out;
}

}  // namespace

UcxEndpoint::UcxEndpoint(std::shared_ptr<UcxContext> context, StreamConnection stream, Options options,
                         ErrorLog& log)
    : context_(std::move(context)), stream_(std::move(stream)), options_(std::move(options)), log_(log) {}

UcxEndpoint::~UcxEndpoint() {
  if (worker_ != nullptr) (void)destroy(false, Deadline::after(0.0));
}

// ----- create ----------------------------------------------------------------------------------

Status UcxEndpoint::create_worker(size_t recv_buffers) {
  // UCX aborts the process when the worker cannot open a descriptor it needs: refuse first.
  const long need = ucx_endpoint_fds(context_->resources(), static_cast<long>(recv_buffers));
  if (require_free_fds(need, "the UCX worker and endpoint", options_.provider, log_) != Status::kOk) {
    return log_.status();
  }
  ucp_worker_params_t params{};
  params.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
  params.thread_mode = UCS_THREAD_MODE_SERIALIZED;  // one call at a time, from any thread
  ucs_status_t status = ucp_worker_create(context_->get(), &params, &worker_);
  if (status != UCS_OK) {
    worker_ = nullptr;
    return TAKYON_FAIL(log_, status == UCS_ERR_NO_MEMORY ? Status::kNoMemory : Status::kSystem,
                       "ucp_worker_create failed: %s", ucs_text(status).c_str());
  }
  if (!options_.polling) {
    status = ucp_worker_get_efd(worker_, &efd_);
    if (status != UCS_OK) {
      return TAKYON_FAIL(log_, Status::kSystem, "ucp_worker_get_efd failed (event-driven mode needs it): %s",
                         ucs_text(status).c_str());
    }
  }
  ucp_am_handler_param_t handler{};
  handler.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB |
                       UCP_AM_HANDLER_PARAM_FIELD_ARG | UCP_AM_HANDLER_PARAM_FIELD_FLAGS;
  handler.id = kAmId;
  handler.cb = &UcxEndpoint::on_data;
  handler.arg = this;
  handler.flags = UCP_AM_FLAG_WHOLE_MSG;
  status = ucp_worker_set_am_recv_handler(worker_, &handler);
  if (status != UCS_OK) {
    return TAKYON_FAIL(log_, Status::kSystem, "ucp_worker_set_am_recv_handler failed: %s",
                       ucs_text(status).c_str());
  }
  return Status::kOk;
}

Status UcxEndpoint::map_region(std::byte* app_addr, uint64_t bytes, bool allocate, const char* what,
                               Region& out) {
  out.bytes = bytes;
  if (bytes == 0) return Status::kOk;
  ucp_mem_map_params_t params{};
  params.field_mask = UCP_MEM_MAP_PARAM_FIELD_LENGTH | UCP_MEM_MAP_PARAM_FIELD_FLAGS;
  params.length = bytes;
  if (allocate) {
    params.flags = UCP_MEM_MAP_ALLOCATE;
  } else {
    params.field_mask |= UCP_MEM_MAP_PARAM_FIELD_ADDRESS;
    params.address = app_addr;
  }
  const ucs_status_t status = ucp_mem_map(context_->get(), &params, &out.memh);
  if (status != UCS_OK) {
    out.memh = nullptr;
    return TAKYON_FAIL(log_, status == UCS_ERR_NO_MEMORY ? Status::kNoMemory : Status::kSystem,
                       "ucp_mem_map of %s (%llu bytes) failed: %s", what,
                       static_cast<unsigned long long>(bytes), ucs_text(status).c_str());
  }
  if (!allocate) {
    out.addr = app_addr;
    return Status::kOk;
  }
  ucp_mem_attr_t attr{};
  attr.field_mask = UCP_MEM_ATTR_FIELD_ADDRESS;
  const ucs_status_t queried = ucp_mem_query(out.memh, &attr);
  if (queried != UCS_OK) {
    return TAKYON_FAIL(log_, Status::kSystem, "ucp_mem_query of %s failed: %s", what,
                       ucs_text(queried).c_str());
  }
  out.addr = static_cast<std::byte*>(attr.address);
  std::memset(out.addr, 0, bytes);
  return Status::kOk;
}

Status UcxEndpoint::connect(const EndpointConfig& config, Deadline deadline) {
  if (create_worker(config.recv.size()) != Status::kOk) return log_.status();
  const size_t nsend = config.send.size();
  const size_t nrecv = config.recv.size();
  send_regions_.resize(nsend);
  recv_regions_.resize(nrecv);
  for (size_t i = 0; i < nsend; ++i) {
    std::byte* addr = nullptr;
    if (use_or_allocate(config.send[i].app_addr, config.send[i].bytes, owned_, log_, addr) != Status::kOk) {
      return log_.status();
    }
    if (map_region(addr, config.send[i].bytes, false, "a send buffer", send_regions_[i]) != Status::kOk) {
      return log_.status();
    }
    send_regions_[i].addr = addr;
    buffers_.send.push_back(addr);
  }
  // Receive buffers Takyon owns are allocated by UCX: on a host with shared-memory transports
  // that memory can be mapped by the peer (the map protocol).
  for (size_t i = 0; i < nrecv; ++i) {
    const BufferSpec& spec = config.recv[i];
    if (map_region(spec.app_addr, spec.bytes, spec.app_addr == nullptr, "a receive buffer",
                   recv_regions_[i]) != Status::kOk) {
      return log_.status();
    }
    buffers_.recv.push_back(recv_regions_[i].addr);
    recv_size_.push_back(spec.bytes);
  }
  const uint64_t control_bytes = sizeof(MailboxHeader) + sizeof(MailboxSlot) * std::max<size_t>(nrecv, 1);
  if (map_region(nullptr, control_bytes, true, "the notification area", control_) != Status::kOk)
    return log_.status();
  new (control_.addr) MailboxHeader;
  for (size_t i = 0; i < nrecv; ++i)
    new (control_.addr + sizeof(MailboxHeader) + i * sizeof(MailboxSlot)) MailboxSlot;

  tickets_.resize(nrecv);
  for (size_t i = 0; i < nrecv; ++i) tickets_[i] = {this, static_cast<int>(i)};
  state_.assign(nrecv, kEmpty);
  arrived_bytes_.assign(nrecv, 0);
  arrived_offset_.assign(nrecv, 0);
  arrived_piggyback_.assign(nrecv, 0);
  recv_req_.assign(nrecv, nullptr);
  remote_busy_.assign(nsend, 0);
  send_req_.assign(nsend, nullptr);
  send_headers_.assign(nsend, std::vector<std::byte>(sizeof(AmHeader) + 4 * kMaxPiggyback));
  return handshake(config, deadline);
}

Status UcxEndpoint::send_hello() {
  put(hello_header_, AmHeader{kHello, 0, 0, 0, 0, 0, 0});
  ucp_request_param_t p{};
  p.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
  p.flags = UCP_AM_SEND_FLAG_EAGER;
  // The hello carries a payload too: over UCX's shared-memory transports the first copied
  // (bcopy) message on an endpoint otherwise stays pending until the receiver progresses, which
  // would often make a small blocking send wait for the receiver's next call.
  hello_payload_.assign(kHelloBytes, std::byte{0x5a});
  hello_req_ = ucp_am_send_nbx(ep_, kAmId, hello_header_.data(), hello_header_.size(), hello_payload_.data(),
                               hello_payload_.size(), &p);
  if (UCS_PTR_IS_ERR(hello_req_)) {
    const ucs_status_t error = UCS_PTR_STATUS(hello_req_);
    hello_req_ = nullptr;
    return TAKYON_FAIL(log_, Status::kDisconnected, "UCX could not send to %s's worker: %s",
                       stream_.peer.c_str(), ucs_text(error).c_str());
  }
  return Status::kOk;
}

Status UcxEndpoint::connect_timeout() {
  return TAKYON_FAIL(log_, Status::kTimeout,
                     "UCX did not connect to %s's worker within path_create_timeout (transports: %s)",
                     stream_.peer.c_str(),
                     context_->tls().empty() ? "UCX's default" : context_->tls().c_str());
}

Status UcxEndpoint::confirm_connection(Deadline deadline, bool can_map) {
  void* hello = hello_req_;
  hello_req_ = nullptr;
  Status status =
      wait([&] { return hello_received_ && !request_pending(hello); }, deadline, Wait::kConnect, -1);
  void* flush = nullptr;
  if (status == Status::kOk) {
    ucp_request_param_t fp{};
    flush = ucp_ep_flush_nbx(ep_, &fp);
    if (UCS_PTR_IS_ERR(flush)) {
      status = TAKYON_FAIL(log_, Status::kDisconnected, "ucp_ep_flush_nbx failed: %s",
                           ucs_text(UCS_PTR_STATUS(flush)).c_str());
      flush = nullptr;
    } else if (flush != nullptr) {
      status = wait([&] { return !request_pending(flush); }, deadline, Wait::kConnect, -1);
    }
  }
  for (void* request : {hello, flush}) {
    if (request == nullptr) continue;
    const ucs_status_t done = ucp_request_check_status(request);
    ucp_request_free(
        request);  // a pending one is freed by UCX when it completes (hello_payload_ outlives it)
    if (done != UCS_OK && done != UCS_INPROGRESS && status == Status::kOk) {
      status = TAKYON_FAIL(log_, Status::kDisconnected, "UCX could not reach %s's worker: %s",
                           stream_.peer.c_str(), ucs_text(done).c_str());
    }
  }
  // The peer may still need this side's progress to finish its own wireup: keep progressing
  // until it says it is done too. The code also says whether this side can map the peer's memory.
  if (status == Status::kOk) status = write_stream(can_map ? kReadyCanMap : kReady);
  if (status == Status::kOk) status = wait([&] { return peer_ready_; }, deadline, Wait::kConnect, -1);
  wired_ = status == Status::kOk;
  if (status == Status::kTimedOut) return connect_timeout();
  return status;
}

Status UcxEndpoint::exchange(const std::vector<std::byte>& mine, std::vector<std::byte>& theirs,
                             size_t fixed_bytes, Deadline deadline, const char* what) {
  // Full duplex: both sides write first, so neither may insist on finishing its write before
  // reading (a large greeting would fill both socket buffers). A greeting is read in two steps:
  // its fixed head (checked at once: a stranger is named by its first bytes), then its body.
  const bool greeting = fixed_bytes == sizeof(GreetingHead);
  theirs.assign(fixed_bytes, std::byte{0});
  bool grown = !greeting;
  bool magic_checked = !greeting;
  size_t sent = 0;
  size_t got = 0;
  const int fd = stream_.fd.get();
  for (;;) {
    if (!magic_checked && got >= sizeof(kGreetingMagic)) {
      if (std::memcmp(theirs.data(), kGreetingMagic, sizeof(kGreetingMagic)) != 0) {
        return TAKYON_FAIL(log_, Status::kProtocol,
                           "%s is not a Takyon Ucx endpoint: its first bytes are \"%s\", not a Ucx greeting",
                           stream_.peer.c_str(), printable_prefix(theirs.data(), got).c_str());
      }
      magic_checked = true;
    }
    if (!grown && got == theirs.size()) {
      uint64_t total = 0;
      if (read_greeting_length(theirs, total) != Status::kOk) return log_.status();
      theirs.resize(total);
      grown = true;
    }
    if (sent == mine.size() && got == theirs.size()) return Status::kOk;
    bool moved = false;
    if (sent < mine.size()) {
      const ssize_t n = ::send(fd, mine.data() + sent, mine.size() - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n > 0) {
        sent += static_cast<size_t>(n);
        moved = true;
      } else if (n < 0 && errno != EAGAIN && errno != EINTR) {
        return TAKYON_FAIL(log_, Status::kDisconnected, "sending the %s to %s failed: %s", what,
                           stream_.peer.c_str(), errno_text(errno).c_str());
      }
    }
    if (got < theirs.size()) {
      const ssize_t n = ::recv(fd, theirs.data() + got, theirs.size() - got, MSG_DONTWAIT);
      if (n == 0) {
        return TAKYON_FAIL(log_, Status::kDisconnected, "%s closed the connection during the %s exchange%s",
                           stream_.peer.c_str(), what,
                           got == 0 ? "" : " (after bytes that are not a complete Takyon Ucx greeting)");
      }
      if (n > 0) {
        got += static_cast<size_t>(n);
        moved = true;
      } else if (errno != EAGAIN && errno != EINTR) {
        return TAKYON_FAIL(log_, Status::kDisconnected, "receiving the %s from %s failed: %s", what,
                           stream_.peer.c_str(), errno_text(errno).c_str());
      }
    }
    if (moved) continue;
    short events = 0;
    if (sent < mine.size()) events |= POLLOUT;
    if (got < theirs.size()) events |= POLLIN;
    short revents = 0;
    const Status waited = wait_fd(fd, events, deadline, -1, revents, log_);
    if (waited == Status::kTimedOut) {
      return TAKYON_FAIL(
          log_, Status::kTimeout,
          "%s sent %zu of the %zu bytes of its %s before path_create_timeout (a Takyon Ucx endpoint "
          "sends it at once)",
          stream_.peer.c_str(), got, theirs.size(), what);
    }
    if (waited != Status::kOk) return waited;
  }
}

Status UcxEndpoint::read_greeting_length(const std::vector<std::byte>& fixed, uint64_t& total) {
  GreetingHead head{};
  std::memcpy(&head, fixed.data(), sizeof(head));
  if (head.body_bytes == 0 || head.body_bytes > kMaxBody) {
    return TAKYON_FAIL(log_, Status::kProtocol,
                       "%s announced a greeting body of %llu bytes: not a Takyon Ucx endpoint",
                       stream_.peer.c_str(), static_cast<unsigned long long>(head.body_bytes));
  }
  total = sizeof(GreetingHead) + head.body_bytes;
  return Status::kOk;
}

/// What the peer's greeting said; the pointers point into `bytes`, the greeting as received.
struct UcxEndpoint::PeerGreeting {
  std::vector<std::byte> bytes;
  GreetingHead head{};
  char side = 0;  ///< the side the peer must be ('A' or 'B')
  std::vector<uint64_t> send, recv, recv_addr;
  const std::byte* address = nullptr;  ///< its worker address (head.worker_address_bytes bytes)
  /// The packed remote keys of its control area ([0]) and of each receive buffer (length 0: none).
  std::vector<std::pair<const std::byte*, uint32_t>> keys;
  std::byte my_address_head{};  ///< the first byte of this side's own worker address
};

// Create, after the stream is up: greetings, verdicts, the UCX endpoint, keys, wireup, protocol.
Status UcxEndpoint::handshake(const EndpointConfig& config, Deadline deadline) {
  PeerGreeting peer;
  if (const Status s = greet(config, deadline, peer); s != Status::kOk) return s;
  if (const Status s = agree(config, peer, deadline); s != Status::kOk) return s;
  if (const Status s = create_ucx_endpoint(config, peer, deadline); s != Status::kOk) return s;
  std::string map_problem;
  const bool can_map = unpack_keys(peer, map_problem);
  // Finish UCX's wireup before any verdict below can fail the path: tearing down an endpoint
  // whose wireup is still pending aborts inside UCX 1.13 (error handling mode NONE).
  if (confirm_connection(deadline, can_map) != Status::kOk) return log_.status();
  return choose_protocol(config, peer, can_map, map_problem);
}

// Sends this side's greeting (layout, receive addresses, worker address, packed keys) and reads
// and checks the peer's: everything in it comes from a stranger until checked.
Status UcxEndpoint::greet(const EndpointConfig& config, Deadline deadline, PeerGreeting& peer) {
  ucp_worker_attr_t wattr{};
  wattr.field_mask = UCP_WORKER_ATTR_FIELD_ADDRESS;
  ucs_status_t ustatus = ucp_worker_query(worker_, &wattr);
  if (ustatus != UCS_OK) {
    return TAKYON_FAIL(log_, Status::kSystem, "ucp_worker_query failed: %s", ucs_text(ustatus).c_str());
  }
  std::vector<std::byte> body;
  for (const BufferSpec& b : config.send) put(body, b.bytes);
  for (const BufferSpec& b : config.recv) put(body, b.bytes);
  for (const Region& r : recv_regions_) put(body, reinterpret_cast<uint64_t>(r.addr));
  const auto* waddr = static_cast<const std::byte*>(static_cast<const void*>(wattr.address));
  body.insert(body.end(), waddr, waddr + wattr.address_length);
  const auto worker_address_bytes = static_cast<uint32_t>(wattr.address_length);
  peer.my_address_head = waddr[0];
  ucp_worker_release_address(worker_, wattr.address);
  std::vector<const Region*> keyed{&control_};
  for (const Region& r : recv_regions_) keyed.push_back(&r);
  for (const Region* r : keyed) {
    if (r->memh == nullptr) {
      put(body, uint32_t{0});
      continue;
    }
    void* packed = nullptr;
    size_t packed_bytes = 0;
    ustatus = ucp_rkey_pack(context_->get(), r->memh, &packed, &packed_bytes);
    if (ustatus != UCS_OK) {
      return TAKYON_FAIL(log_, Status::kSystem, "ucp_rkey_pack failed: %s", ucs_text(ustatus).c_str());
    }
    put(body, static_cast<uint32_t>(packed_bytes));
    const auto* p = static_cast<const std::byte*>(packed);
    body.insert(body.end(), p, p + packed_bytes);
    ucp_rkey_buffer_release(packed);
  }
  GreetingHead head{};
  std::memcpy(head.magic, kGreetingMagic, sizeof(head.magic));
  head.side = static_cast<unsigned char>(config.side());
  head.polling = config.is_polling ? 1 : 0;
  head.protocol = static_cast<uint32_t>(options_.protocol);
  head.nsend = static_cast<uint32_t>(config.send.size());
  head.nrecv = static_cast<uint32_t>(config.recv.size());
  head.worker_address_bytes = worker_address_bytes;
  head.control_addr = reinterpret_cast<uint64_t>(control_.addr);
  head.body_bytes = body.size();
  std::vector<std::byte> mine;
  put(mine, head);
  mine.insert(mine.end(), body.begin(), body.end());

  if (exchange(mine, peer.bytes, sizeof(GreetingHead), deadline, "greeting") != Status::kOk)
    return log_.status();

  std::memcpy(&peer.head, peer.bytes.data(), sizeof(peer.head));
  const GreetingHead& h = peer.head;
  peer.side = config.is_endpoint_a ? 'B' : 'A';
  if (h.side != static_cast<uint32_t>(peer.side)) {
    return TAKYON_FAIL(log_, Status::kProtocol,
                       "%s says it is endpoint %c too; '%s' needs one endpoint A and one B",
                       stream_.peer.c_str(), config.side(), options_.provider.c_str());
  }
  if (h.nsend > kMaxBuffers || h.nrecv > kMaxBuffers || h.worker_address_bytes == 0 ||
      h.worker_address_bytes > kMaxWorkerAddress || h.protocol > 2) {
    return TAKYON_FAIL(log_, Status::kProtocol,
                       "%s sent a malformed greeting (nsend %u, nrecv %u, address %u bytes)",
                       stream_.peer.c_str(), h.nsend, h.nrecv, h.worker_address_bytes);
  }
  Reader reader(peer.bytes.data() + sizeof(GreetingHead), peer.bytes.size() - sizeof(GreetingHead));
  peer.send.resize(h.nsend);
  peer.recv.resize(h.nrecv);
  peer.recv_addr.resize(h.nrecv);
  bool ok = true;
  for (auto& v : peer.send) ok = ok && reader.get(v);
  for (auto& v : peer.recv) ok = ok && reader.get(v);
  for (auto& v : peer.recv_addr) ok = ok && reader.get(v);
  ok = ok && reader.bytes(h.worker_address_bytes, peer.address);
  peer.keys.resize(h.nrecv + 1);
  for (auto& [data, bytes] : peer.keys) ok = ok && reader.get(bytes) && reader.bytes(bytes, data);
  if (!ok || !reader.done()) {
    return TAKYON_FAIL(log_, Status::kProtocol, "%s sent a greeting whose body does not match its header",
                       stream_.peer.c_str());
  }
  return Status::kOk;
}

// The verdicts: each side says whether the layouts pair up, the protocol wishes agree and the
// peer's worker address is one its UCX can read; both go on only if both said OK.
Status UcxEndpoint::agree(const EndpointConfig& config, const PeerGreeting& peer, Deadline deadline) {
  std::vector<uint64_t> my_send, my_recv;
  for (const BufferSpec& b : config.send) my_send.push_back(b.bytes);
  for (const BufferSpec& b : config.recv) my_recv.push_back(b.bytes);
  ErrorLog layout_log;
  Verdict verdict{};
  std::strcpy(verdict.word, "OK");
  if (check_layout({config.side(), my_send, my_recv}, {peer.side, peer.send, peer.recv}, false,
                   options_.provider, layout_log) != Status::kOk) {
    std::strcpy(verdict.word, "REFUSE");
    std::snprintf(verdict.reason, sizeof(verdict.reason), "%s", layout_log.cause().c_str());
  }

  // Both sides must agree on the protocol wishes before anything else.
  const auto wish = options_.protocol;
  const auto peer_wish = static_cast<Protocol>(peer.head.protocol);
  if (std::strcmp(verdict.word, "OK") == 0 && wish != Protocol::kAuto && peer_wish != Protocol::kAuto &&
      wish != peer_wish) {
    std::strcpy(verdict.word, "REFUSE");
    std::snprintf(verdict.reason, sizeof(verdict.reason),
                  "endpoint %c asked for -protocol=%s and endpoint %c for -protocol=%s", config.side(),
                  wish == Protocol::kMap ? "map" : "am", peer.side,
                  peer_wish == Protocol::kMap ? "map" : "am");
  }
  // UCX trusts worker addresses completely (a malformed one aborts the process), so take only
  // one that starts like ours: the same UCX build writes the same address header.
  if (std::strcmp(verdict.word, "OK") == 0 && peer.address[0] != peer.my_address_head) {
    std::strcpy(verdict.word, "REFUSE");
    std::snprintf(
        verdict.reason, sizeof(verdict.reason),
        "endpoint %c sent a UCX worker address that endpoint %c's UCX cannot read (header byte 0x%02x, "
        "expected 0x%02x: a different UCX version, or not a Takyon endpoint)",
        peer.side, config.side(), static_cast<unsigned>(peer.address[0]),
        static_cast<unsigned>(peer.my_address_head));
  }
  std::vector<std::byte> my_verdict;
  put(my_verdict, verdict);
  std::vector<std::byte> their_bytes;
  if (exchange(my_verdict, their_bytes, sizeof(Verdict), deadline, "verdict") != Status::kOk)
    return log_.status();
  Verdict their{};
  std::memcpy(&their, their_bytes.data(), sizeof(their));
  their.word[sizeof(their.word) - 1] = '\0';
  their.reason[sizeof(their.reason) - 1] = '\0';
  if (std::strcmp(verdict.word, "OK") != 0) return TAKYON_FAIL(log_, Status::kProtocol, "%s", verdict.reason);
  if (std::strcmp(their.word, "OK") != 0) {
    return TAKYON_FAIL(log_, Status::kProtocol, "%s refused the connection: %s", stream_.peer.c_str(),
                       their.reason);
  }
  return Status::kOk;
}

// The UCX endpoint to the peer's worker, and this side's hello over it.
Status UcxEndpoint::create_ucx_endpoint(const EndpointConfig& config, const PeerGreeting& peer,
                                        Deadline deadline) {
  // Endpoint B creates its UCX endpoint only once A's hello has come in over A's: two workers
  // connecting to each other at the same moment over tcp can leave UCX 1.13's wireup stuck
  // (rarely, in event-driven creates), one after the other never does.
  if (!config.is_endpoint_a) {
    const Status hello = wait([&] { return hello_received_; }, deadline, Wait::kConnect, -1);
    if (hello == Status::kTimedOut) return connect_timeout();
    if (hello != Status::kOk) return hello;
  }
  ucp_ep_params_t ep_params{};
  ep_params.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE;
  ep_params.address = reinterpret_cast<const ucp_address_t*>(peer.address);
  // Error handling mode NONE keeps UCX's shared-memory transports (PEER disables them on UCX
  // 1.13); a dead peer or link is detected on the stream instead (see the header).
  ep_params.err_mode = UCP_ERR_HANDLING_MODE_NONE;
  const ucs_status_t ustatus = ucp_ep_create(worker_, &ep_params, &ep_);
  if (ustatus != UCS_OK) {
    ep_ = nullptr;
    return TAKYON_FAIL(log_, Status::kUnsupported,
                       "endpoint %c cannot reach %s's UCX worker with the transports it has%s%s: %s",
                       config.side(), stream_.peer.c_str(), context_->tls().empty() ? "" : " (-tls=",
                       context_->tls().empty() ? "" : (context_->tls() + ")").c_str(),
                       ucs_text(ustatus).c_str());
  }
  if (send_hello() != Status::kOk) return log_.status();
  return Status::kOk;
}

// Unpacks the peer's remote keys (rkeys_) and maps what can be mapped (peer_recv_, [0] the control
// area): a local question, no wireup needed. Returns whether every area maps; `problem` says why not
// when a key did not even unpack.
bool UcxEndpoint::unpack_keys(const PeerGreeting& peer, std::string& problem) {
  bool can_map = true;
  for (size_t i = 0; i < peer.keys.size(); ++i) {
    const auto& [data, bytes] = peer.keys[i];
    ucp_rkey_h rkey = nullptr;
    if (bytes != 0) {
      const ucs_status_t ustatus = ucp_ep_rkey_unpack(ep_, data, &rkey);
      if (ustatus != UCS_OK) {
        rkey = nullptr;
        can_map = false;
        problem = "a remote key did not unpack: " + ucs_text(ustatus);
      }
    }
    rkeys_.push_back(rkey);
    if (i != 0) peer_recv_addr_.push_back(peer.recv_addr[i - 1]);
    const uint64_t raddr = i == 0 ? peer.head.control_addr : peer.recv_addr[i - 1];
    void* local = nullptr;
    if (i != 0 && bytes == 0) {
      peer_recv_.push_back(nullptr);  // a zero-byte buffer: nothing to map
      continue;
    }
    can_map = can_map && rkey != nullptr && ucp_rkey_ptr(rkey, raddr, &local) == UCS_OK;
    peer_recv_.push_back(static_cast<std::byte*>(local));  // [0]: the control area
  }
  return can_map;
}

// map when both sides can map the other's buffers and neither asked for am; -protocol=map that
// cannot be honoured fails the path.
Status UcxEndpoint::choose_protocol(const EndpointConfig& config, const PeerGreeting& peer, bool can_map,
                                    const std::string& map_problem) {
  const auto wish = options_.protocol;
  const auto peer_wish = static_cast<Protocol>(peer.head.protocol);
  const bool want_am = wish == Protocol::kAm || peer_wish == Protocol::kAm;
  mapped_ = can_map && peer_can_map_ && !want_am;
  if (!mapped_ && (wish == Protocol::kMap || peer_wish == Protocol::kMap)) {
    return TAKYON_FAIL(
        log_, Status::kProtocol,
        "-protocol=map, but endpoint %c cannot map endpoint %c's receive buffers (UCX maps memory only "
        "over shared-memory transports, and only buffers Takyon allocated)%s%s",
        can_map ? peer.side : config.side(), can_map ? config.side() : peer.side,
        map_problem.empty() ? "" : ": ", map_problem.c_str());
  }
  buffers_.remote_recv_bytes = peer.recv;
  if (mapped_) {
    auto* peer_control = peer_recv_.front();
    peer_recv_.erase(peer_recv_.begin());
    Mailbox::Side my_side{reinterpret_cast<MailboxHeader*>(control_.addr),
                          reinterpret_cast<MailboxSlot*>(control_.addr + sizeof(MailboxHeader))};
    Mailbox::Side theirs_side{reinterpret_cast<MailboxHeader*>(peer_control),
                              reinterpret_cast<MailboxSlot*>(peer_control + sizeof(MailboxHeader))};
    mailbox_ = std::make_unique<Mailbox>(my_side, theirs_side, static_cast<int>(config.send.size()),
                                         static_cast<int>(config.recv.size()), true, options_.polling, this,
                                         peer.head.polling != 0);
  } else if (can_map) {
    // am over shared memory: larger messages are copied into place (kPlaced).
    peer_recv_.erase(peer_recv_.begin());
  } else {
    peer_recv_.clear();
  }
  return Status::kOk;
}

// ----- active messages -------------------------------------------------------------------------

ucs_status_t UcxEndpoint::on_data(void* arg, const void* header, size_t header_length, void* data,
                                  size_t length, const ucp_am_recv_param_t* param) {
  return static_cast<UcxEndpoint*>(arg)->handle_data(header, header_length, data, length, param);
}

void UcxEndpoint::protocol_error(Status status, std::string text) {
  if (failure_ != Status::kOk) return;  // keep the first cause
  failure_ = status;
  failure_text_ = std::move(text);
}

ucs_status_t UcxEndpoint::handle_data(const void* header, size_t header_length, void* data, size_t length,
                                      const ucp_am_recv_param_t* param) {
  AmHeader h{};
  if (header_length < sizeof(h)) {
    protocol_error(Status::kProtocol,
                   strf("the peer sent an active message with a %zu-byte header", header_length));
    return UCS_OK;
  }
  std::memcpy(&h, header, sizeof(h));
  if (h.ncredits > send_regions_.size() || header_length != sizeof(h) + 4 * static_cast<size_t>(h.ncredits)) {
    protocol_error(Status::kProtocol, strf("the peer sent a malformed message header (%u credits, %zu bytes)",
                                           h.ncredits, header_length));
    return UCS_OK;
  }
  const auto* credits = static_cast<const std::byte*>(header) + sizeof(h);
  for (uint32_t i = 0; i < h.ncredits; ++i) {
    uint32_t c = 0;
    std::memcpy(&c, credits + 4 * i, 4);
    if (c >= remote_busy_.size() || remote_busy_[c] == 0) {
      protocol_error(Status::kProtocol,
                     strf("the peer freed its receive buffer %u, which held no message of ours", c));
      return UCS_OK;
    }
    remote_busy_[c] = 0;
  }
  if (h.buffer == kHello) {
    if (length != kHelloBytes || hello_received_)
      protocol_error(Status::kProtocol, "the peer sent a malformed hello");
    hello_received_ = true;
    return UCS_OK;
  }
  if (h.buffer == kNoBuffer) {
    if (length != 0) protocol_error(Status::kProtocol, "the peer sent data with a credit-only header");
    return UCS_OK;
  }
  const uint32_t b = h.buffer;
  const bool placed = (h.flags & kPlaced) != 0;
  // A placed message may come before this side read the peer's kReadyCanMap (create is still
  // finishing here while the peer already sends), so only the header's form is checked.
  if (h.flags > kPlaced || (placed && length != 0)) {
    protocol_error(Status::kProtocol,
                   strf("the peer sent a message header with flags 0x%x and %zu bytes of data, which this "
                        "endpoint does not take",
                        static_cast<unsigned>(h.flags), length));
    return UCS_OK;
  }
  if (b >= state_.size() || (!placed && h.bytes != length) || h.offset > recv_size_[b] ||
      h.bytes > recv_size_[b] - h.offset) {
    protocol_error(
        Status::kProtocol,
        strf("the peer sent %zu bytes announced as %llu bytes at offset %llu of receive buffer %u, which "
             "does not fit (%zu receive buffers)",
             length, static_cast<unsigned long long>(h.bytes), static_cast<unsigned long long>(h.offset), b,
             state_.size()));
    return UCS_OK;
  }
  if (state_[b] != kEmpty) {
    protocol_error(
        Status::kProtocol,
        strf("the peer sent a message into receive buffer %u, which still holds one not received", b));
    return UCS_OK;
  }
  std::byte* dest = recv_regions_[b].addr + h.offset;
  arrived_bytes_[b] = h.bytes;
  arrived_offset_[b] = h.offset;
  arrived_piggyback_[b] = h.piggyback;
  if (placed) {  // copied into place by the sender before it sent this header
    state_[b] = kArrived;
    return UCS_OK;
  }
  if ((param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) != 0) {
    ucp_request_param_t p{};
    p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
    p.cb.recv_am = &UcxEndpoint::on_rndv_done;
    p.user_data = &tickets_[b];
    if (recv_regions_[b].memh != nullptr) {
      p.op_attr_mask |= UCP_OP_ATTR_FIELD_MEMH;
      p.memh = recv_regions_[b].memh;
    }
    void* request = ucp_am_recv_data_nbx(worker_, data, dest, length, &p);
    if (UCS_PTR_IS_ERR(request)) {
      protocol_error(Status::kDisconnected, strf("receiving %zu bytes into buffer %u failed: %s", length, b,
                                                 ucs_text(UCS_PTR_STATUS(request)).c_str()));
      return UCS_OK;
    }
    state_[b] = request == nullptr ? kArrived : kArriving;
    recv_req_[b] = request;
    return UCS_OK;
  }
  if (length != 0) std::memcpy(dest, data, length);
  state_[b] = kArrived;
  return UCS_OK;
}

void UcxEndpoint::on_rndv_done(void* request, ucs_status_t status, size_t length, void* user_data) {
  auto* ticket = static_cast<RecvTicket*>(user_data);
  UcxEndpoint* self = ticket->self;
  const int b = ticket->buffer;
  if (self->recv_req_[b] != request) return;  // destroy() already released it
  ucp_request_free(request);
  self->recv_req_[b] = nullptr;
  if (self->tearing_down_) return;
  if (status != UCS_OK || length != self->arrived_bytes_[b]) {
    self->state_[b] = kEmpty;
    self->protocol_error(
        Status::kDisconnected,
        strf("the message into receive buffer %d was lost in transfer: %s", b, ucs_text(status).c_str()));
    return;
  }
  self->state_[b] = kArrived;
}

Status UcxEndpoint::send_credits() {
  while (!owed_credits_.empty()) {
    const size_t n = std::min<size_t>(owed_credits_.size(), kMaxPiggyback);
    // Reused while sends complete at once (they usually do): a pending send takes the header
    // with it, since UCX reads it until the send completes.
    std::vector<std::byte>& header = credit_header_;
    const AmHeader h{kNoBuffer, static_cast<uint16_t>(n), 0, 0, 0, 0, 0};
    header.resize(sizeof(h) + 4 * n);
    std::memcpy(header.data(), &h, sizeof(h));
    std::memcpy(header.data() + sizeof(h), owed_credits_.data(), 4 * n);
    ucp_request_param_t p{};
    p.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
    p.flags = UCP_AM_SEND_FLAG_EAGER;
    void* request = ucp_am_send_nbx(ep_, kAmId, header.data(), header.size(), nullptr, 0, &p);
    if (UCS_PTR_IS_ERR(request)) {
      return TAKYON_FAIL(log_, Status::kDisconnected, "returning buffers to %s failed: %s",
                         stream_.peer.c_str(), ucs_text(UCS_PTR_STATUS(request)).c_str());
    }
    if (request != nullptr) control_sends_.push_back({std::move(header), request});  // reaped by progress()
    owed_credits_.erase(owed_credits_.begin(), owed_credits_.begin() + static_cast<ptrdiff_t>(n));
  }
  return Status::kOk;
}

Status UcxEndpoint::send_am(int buffer, const SendArgs& args, bool placed) {
  std::byte* header = send_headers_[buffer].data();
  const size_t ncredits = std::min(owed_credits_.size(), kMaxPiggyback);
  const AmHeader h{static_cast<uint32_t>(buffer),
                   static_cast<uint16_t>(ncredits),
                   placed ? kPlaced : uint16_t{0},
                   args.bytes,
                   args.dest_offset,
                   args.piggyback,
                   0};
  std::memcpy(header, &h, sizeof(h));
  if (ncredits != 0) std::memcpy(header + sizeof(h), owed_credits_.data(), 4 * ncredits);
  const Region& region = send_regions_[buffer];
  ucp_request_param_t p{};
  // No memory handle without data: UCX 1.13 would keep a reference to it that nothing returns
  // (ucp_cleanup then aborts on a region still in use).
  if (region.memh != nullptr && !placed) {
    p.op_attr_mask |= UCP_OP_ATTR_FIELD_MEMH;
    p.memh = region.memh;
  }
  void* request =
      ucp_am_send_nbx(ep_, kAmId, header, sizeof(h) + 4 * ncredits,
                      placed ? nullptr : region.addr + args.src_offset, placed ? 0 : args.bytes, &p);
  if (UCS_PTR_IS_ERR(request)) {
    return TAKYON_FAIL(log_, Status::kDisconnected, "ucp_am_send_nbx of %llu bytes to %s failed: %s",
                       static_cast<unsigned long long>(args.bytes), stream_.peer.c_str(),
                       ucs_text(UCS_PTR_STATUS(request)).c_str());
  }
  if (ncredits != 0)
    owed_credits_.erase(owed_credits_.begin(), owed_credits_.begin() + static_cast<ptrdiff_t>(ncredits));
  remote_busy_[buffer] = 1;
  send_req_[buffer] = request;
  return Status::kOk;
}

void UcxEndpoint::progress(bool drain) {
  // One pass while a wait loops anyway: the message it waits for is seen at once, not after a
  // second, empty pass over every transport.
  if (drain) {
    while (ucp_worker_progress(worker_) != 0) {
    }
  } else {
    (void)ucp_worker_progress(worker_);
  }
  if (!control_sends_.empty()) [[unlikely]] {
    std::erase_if(control_sends_, [&](ControlSend& c) {
      const ucs_status_t status = ucp_request_check_status(c.request);
      if (status == UCS_INPROGRESS) return false;
      ucp_request_free(c.request);
      if (status != UCS_OK) {
        protocol_error(Status::kDisconnected, strf("returning buffers to %s failed: %s", stream_.peer.c_str(),
                                                   ucs_text(status).c_str()));
      }
      return true;
    });
  }
}

template <typename Ready>
Status UcxEndpoint::wait(Ready ready, Deadline deadline, Wait what, int buffer) {
  // The peer may be waiting for these, and a waiting endpoint has nothing to piggyback them on.
  if (!owed_credits_.empty() && send_credits() != Status::kOk) return log_.status();
  // A polling wait for data looks at the clock (deadline, stream, yielding) only every 64th
  // progress: a message that arrives within a few microseconds is taken without a clock read.
  const bool quick =
      options_.polling && !deadline.is_immediate() && what != Wait::kConnect && what != Wait::kClose;
  int64_t spin_since = quick ? -1 : now_ns();
  for (uint32_t spins = 1;; ++spins) {
    progress();
    if (failure_ != Status::kOk) return TAKYON_FAIL(log_, failure_, "%s", failure_text_.c_str());
    if (ready()) return Status::kOk;
    if (quick && (spins & 63u) != 0) {
      cpu_relax();
      continue;
    }
    if (spin_since < 0) spin_since = now_ns();
    // Create and destroy wait on the peer's codes on the stream: read it on every step then.
    if (what == Wait::kConnect || what == Wait::kClose) next_stream_check_ns_ = 0;
    const Status stepped = wait_step(deadline, spin_since);
    if (stepped == Status::kTimedOut) {
      progress(true);
      return ready() ? Status::kOk : Status::kTimedOut;
    }
    if (stepped == Status::kDisconnected && eof_) {
      progress(true);  // what arrived before the peer left is still delivered
      if (failure_ == Status::kOk && ready()) return Status::kOk;
      return peer_gone(what, buffer);
    }
    if (stepped != Status::kOk) return stepped;
    if (peer_closed_ && what != Wait::kClose) {
      progress(true);  // a message sent before the peer destroyed its endpoint is still delivered
      if (failure_ == Status::kOk && ready()) return Status::kOk;
      // A one-sided operation already on its way is still answered: the peer progresses until
      // this endpoint closes. Leaving it in flight would have the peer's UCX answer a closed
      // endpoint, which UCX 1.13 (error handling mode NONE) treats as fatal in the peer.
      if (what == Wait::kOneSided && failure_ == Status::kOk && !deadline.expired(now_ns())) continue;
      return peer_gone(what, buffer);
    }
  }
}

Status UcxEndpoint::wait_step(Deadline deadline, int64_t& spin_since) {
  const int64_t now = now_ns();
  if (now >= next_stream_check_ns_) {
    next_stream_check_ns_ = now + kStreamCheckNs;
    if (check_stream() != Status::kOk) return log_.status();
  }
  if (eof_) return Status::kDisconnected;
  if (peer_closed_) return Status::kOk;  // the caller decides what the peer's close means to it
  if (deadline.expired(now)) return Status::kTimedOut;
  if (options_.polling) {
    spin_step(spin_since, now);
    return Status::kOk;
  }
  const ucs_status_t armed = ucp_worker_arm(worker_);
  if (armed == UCS_ERR_BUSY) return Status::kOk;  // events are pending: progress again
  if (armed != UCS_OK) {
    return TAKYON_FAIL(log_, Status::kSystem, "ucp_worker_arm failed: %s", ucs_text(armed).c_str());
  }
  pollfd fds[2] = {{efd_, POLLIN, 0}, {stream_.fd.get(), POLLIN, 0}};
  // Sleep until UCX or the stream has something, the deadline, or the next link check; never
  // longer than kEventRecheckNs, a safety net should a transport fail to signal its descriptor.
  int64_t wait_ns = std::min(deadline.remaining_ns(now), kEventRecheckNs);
  if (stream_.tcp) wait_ns = std::min(wait_ns, std::max<int64_t>(next_tick_ns_ - now, 0));
  timespec ts{static_cast<time_t>(wait_ns / 1'000'000'000), static_cast<long>(wait_ns % 1'000'000'000)};
  const int n = ppoll(fds, 2, wait_ns == INT64_MAX ? nullptr : &ts, nullptr);
  if (n < 0 && errno != EINTR) {
    return TAKYON_FAIL(log_, Status::kSystem, "poll on the UCX wakeup descriptor failed: %s",
                       errno_text(errno).c_str());
  }
  if (n > 0 && (fds[1].revents & (POLLIN | POLLHUP | POLLERR)) != 0) next_stream_check_ns_ = 0;
  return Status::kOk;
}

// ----- the stream: liveness and close ----------------------------------------------------------

Status UcxEndpoint::write_stream(char code) {
  const ssize_t n = ::send(stream_.fd.get(), &code, 1, MSG_NOSIGNAL | MSG_DONTWAIT);
  if (n == 1 || (n < 0 && (errno == EAGAIN || errno == EINTR) && code == kHeartbeat)) return Status::kOk;
  if (n < 0 && (errno == EPIPE || errno == ECONNRESET)) {
    eof_ = true;
    return Status::kOk;  // reported by the caller as the peer being gone
  }
  return TAKYON_FAIL(log_, Status::kSystem, "writing to the connection with %s failed: %s",
                     stream_.peer.c_str(), n < 0 ? errno_text(errno).c_str() : "short write");
}

Status UcxEndpoint::check_stream() {
  while (!eof_) {
    char codes[64];
    const ssize_t n = ::recv(stream_.fd.get(), codes, sizeof(codes), MSG_DONTWAIT);
    if (n == 0) {
      eof_ = true;
      break;
    }
    if (n < 0) {
      if (errno == EAGAIN || errno == EINTR) break;
      eof_ = true;
      stream_error_ = errno_text(errno);
      break;
    }
    for (ssize_t i = 0; i < n; ++i) {
      if (codes[i] == kReady || codes[i] == kReadyCanMap) {
        peer_ready_ = true;
        peer_can_map_ = codes[i] == kReadyCanMap;
      } else if (codes[i] == kClosing || codes[i] == kClosed) {
        peer_closed_ = true;
        if (codes[i] == kClosed) eof_ = true;  // nothing more will come
      } else if (codes[i] != kHeartbeat) {
        return TAKYON_FAIL(log_, Status::kProtocol, "%s sent an unknown code 0x%02x on the connection",
                           stream_.peer.c_str(), static_cast<unsigned char>(codes[i]));
      }
    }
  }
  if (!stream_.tcp || eof_) return Status::kOk;
  const int64_t now = now_ns();
  if (now < next_tick_ns_) return Status::kOk;
  next_tick_ns_ = now + kLinkTickNs;
  bool idle = false;
  if (check_tcp_link(stream_.fd.get(), outq_since_ns_, stream_.peer, idle, log_) != Status::kOk)
    return log_.status();
  return idle ? write_stream(kHeartbeat) : Status::kOk;
}

std::string UcxEndpoint::gone_reason() const {
  if (peer_closed_) return strf("%s destroyed its endpoint", stream_.peer.c_str());
  return strf("%s is gone (its process died or the connection broke%s%s)", stream_.peer.c_str(),
              stream_error_.empty() ? "" : ": ", stream_error_.c_str());
}

bool UcxEndpoint::alive(std::string& why) {
  if (check_stream() != Status::kOk) {
    why = log_.cause();
    return false;
  }
  if (!eof_) return true;
  why = gone_reason();
  return false;
}

Status UcxEndpoint::peer_gone(Wait what, int buffer) {
  const std::string why = gone_reason();
  const char* waiting = "";
  switch (what) {
    case Wait::kMessage:
      waiting = "a message";
      break;
    case Wait::kCredit:
      waiting = "the peer to receive the previous message in this buffer";
      break;
    case Wait::kSendDone:
      waiting = "the send to finish";
      break;
    case Wait::kClose:
      waiting = "the peer to destroy its endpoint";
      break;
    case Wait::kConnect:
      waiting = "UCX to connect";
      break;
    case Wait::kOneSided:
      waiting = "a one-sided operation to complete";
      break;
  }
  if (buffer < 0)
    return TAKYON_FAIL(log_, Status::kDisconnected, "%s while waiting for %s", why.c_str(), waiting);
  return TAKYON_FAIL(log_, Status::kDisconnected, "%s while waiting on buffer %d for %s", why.c_str(), buffer,
                     waiting);
}

// ----- the Backend operations ------------------------------------------------------------------

Status UcxEndpoint::send(const SendArgs& args) {
  const int k = args.buffer;
  if (mapped_) {
    const Status free = mailbox_->wait_send_slot(k, args.start, log_);
    if (free != Status::kOk) return free;
    // A small message travels inside the notification line: one cache line handed over, where
    // a message in the buffer costs the buffer's line too (the receiver copies it into place).
    if (args.bytes <= kInlineBytes) {
      mailbox_->post_inline(k, send_regions_[k].addr + args.src_offset, args.bytes, args.dest_offset,
                            args.piggyback);
      return Status::kOk;
    }
    std::memcpy(peer_recv_[k] + args.dest_offset, send_regions_[k].addr + args.src_offset, args.bytes);
    mailbox_->post(k, args.bytes, args.dest_offset, args.piggyback);
    return Status::kOk;
  }
  if (failure_ != Status::kOk) return TAKYON_FAIL(log_, failure_, "%s", failure_text_.c_str());
  if (remote_busy_[k] != 0) {
    progress();
    if (remote_busy_[k] != 0) {
      const Status free = wait([&] { return remote_busy_[k] == 0; }, args.start, Wait::kCredit, k);
      if (free != Status::kOk) return free;
    }
  }
  // Over shared memory, when this side maps the peer's receive buffer, a larger message is copied
  // straight into it; the active message that follows carries only the header.
  const bool placed = args.bytes >= kPlaceMinBytes && !peer_recv_.empty() && peer_recv_[k] != nullptr;
  if (placed)
    std::memcpy(peer_recv_[k] + args.dest_offset, send_regions_[k].addr + args.src_offset, args.bytes);
  if (send_am(k, args, placed) != Status::kOk) return log_.status();
  if (!args.blocking || send_req_[k] == nullptr) return Status::kOk;
  return is_send_finished(k, Deadline::after(args.finish_timeout));
}

Status UcxEndpoint::is_send_finished(int buffer, Deadline finish) {
  void*& request = send_req_[buffer];
  if (mapped_ || request == nullptr) return Status::kOk;
  if (request_pending(request)) {
    progress();
    if (request_pending(request)) {
      const Status done = wait([&] { return !request_pending(request); }, finish, Wait::kSendDone, buffer);
      if (done == Status::kTimedOut) {
        return TAKYON_FAIL(log_, Status::kTimeout,
                           "the send on buffer %d did not finish within send_finish_timeout", buffer);
      }
      if (done != Status::kOk) return done;
    }
  }
  const ucs_status_t status = ucp_request_check_status(request);
  ucp_request_free(request);
  request = nullptr;
  if (status != UCS_OK) {
    return TAKYON_FAIL(log_, Status::kDisconnected, "the send on buffer %d to %s failed: %s", buffer,
                       stream_.peer.c_str(), ucs_text(status).c_str());
  }
  return Status::kOk;
}

Status UcxEndpoint::recv(int buffer, Deadline start, double finish_timeout, RecvResult& out) {
  if (mapped_)
    return mailbox_->receive(buffer, start, recv_size_[buffer], recv_regions_[buffer].addr, out, log_);
  uint8_t& state = state_[buffer];
  if (state != kArrived) {
    progress();
    if (state == kEmpty) {
      const Status started = wait([&] { return state != kEmpty; }, start, Wait::kMessage, buffer);
      if (started != Status::kOk) return started;
    }
    if (state == kArriving) {
      const Status done =
          wait([&] { return state == kArrived; }, Deadline::after(finish_timeout), Wait::kMessage, buffer);
      if (done == Status::kTimedOut) {
        return TAKYON_FAIL(
            log_, Status::kTimeout,
            "the message into buffer %d started to arrive but did not finish within recv_finish_timeout",
            buffer);
      }
      if (done != Status::kOk) return done;
    }
  }
  if (failure_ != Status::kOk) return TAKYON_FAIL(log_, failure_, "%s", failure_text_.c_str());
  out.bytes = arrived_bytes_[buffer];
  out.offset = arrived_offset_[buffer];
  out.piggyback = arrived_piggyback_[buffer];
  state = kEmpty;
  owed_credits_.push_back(static_cast<uint32_t>(buffer));
  return Status::kOk;
}

// ----- one-sided operations ----------------------------------------------------------------------

Status UcxEndpoint::check_peer(bool thorough) {
  if (mailbox_ && mailbox_->peer_closing())
    return TAKYON_FAIL(log_, Status::kDisconnected, "the peer destroyed its endpoint (%s)",
                       stream_.peer.c_str());
  // The stream says when the peer left: read it now and then (it costs a system call).
  const int64_t now = now_ns();
  if (thorough || now >= next_stream_check_ns_) {
    next_stream_check_ns_ = now + kStreamCheckNs;
    if (check_stream() != Status::kOk) return log_.status();
    if (peer_closed_) {
      return TAKYON_FAIL(log_, Status::kDisconnected, "the peer destroyed its endpoint (%s)",
                         stream_.peer.c_str());
    }
    if (eof_) return TAKYON_FAIL(log_, Status::kDisconnected, "%s", gone_reason().c_str());
  }
  if (failure_ != Status::kOk) return TAKYON_FAIL(log_, failure_, "%s", failure_text_.c_str());
  return Status::kOk;
}

Status UcxEndpoint::finish_remote(void* request, const RemoteArgs& args, const char* what) {
  if (UCS_PTR_IS_ERR(request)) {
    return TAKYON_FAIL(log_, Status::kDisconnected, "%s to %s (buffer %d) failed: %s", what,
                       stream_.peer.c_str(), args.buffer, ucs_text(UCS_PTR_STATUS(request)).c_str());
  }
  if (request == nullptr) return Status::kOk;
  Status done = Status::kOk;
  if (request_pending(request)) {
    progress();
    if (request_pending(request))
      done = wait([&] { return !request_pending(request); }, args.finish, Wait::kOneSided, args.buffer);
  }
  const ucs_status_t ustatus = done == Status::kOk ? ucp_request_check_status(request) : UCS_OK;
  ucp_request_free(request);  // one still pending is freed by UCX when it completes
  if (done == Status::kTimedOut) {
    return TAKYON_FAIL(log_, Status::kTimeout,
                       "%s on buffer %d did not complete within send_finish_timeout (over a transport "
                       "without remote memory access, the peer carries it out when it enters the library)",
                       what, args.buffer);
  }
  if (done != Status::kOk) return done;
  if (ustatus != UCS_OK) {
    return TAKYON_FAIL(log_, Status::kDisconnected, "%s to %s (buffer %d) failed: %s", what,
                       stream_.peer.c_str(), args.buffer, ucs_text(ustatus).c_str());
  }
  return Status::kOk;
}

Status UcxEndpoint::remote(const RemoteArgs& args) {
  const auto k = static_cast<size_t>(args.buffer);
  if (failure_ != Status::kOk) return TAKYON_FAIL(log_, failure_, "%s", failure_text_.c_str());
  ucp_rkey_h rkey = k + 1 < rkeys_.size() ? rkeys_[k + 1] : nullptr;
  if (rkey == nullptr || k >= peer_recv_addr_.size()) {
    if (args.bytes == 0) return Status::kOk;  // a zero-byte buffer: nothing to move
    return TAKYON_FAIL(log_, Status::kUnsupported, "the peer's receive buffer %d has no UCX remote key",
                       args.buffer);
  }
  const uint64_t raddr = peer_recv_addr_[k] + args.remote_offset;
  std::byte* local = send_regions_[k].addr + args.local_offset;
  if ((args.op == RemoteOp::kFetchAdd || args.op == RemoteOp::kCompareSwap) && raddr % 8 != 0) {
    return TAKYON_FAIL(log_, Status::kInvalidArgument,
                       "offset %llu of the peer's receive buffer %d is not 8-byte aligned (a 64-bit "
                       "atomic; the buffer itself is not)",
                       static_cast<unsigned long long>(args.remote_offset), args.buffer);
  }
  if (args.start_only) return start_remote(args, raddr, rkey, local);
  ucp_request_param_t param{};
  switch (args.op) {
    case RemoteOp::kWrite: {
      if (args.bytes > 0) {
        void* put = ucp_put_nbx(ep_, local, args.bytes, raddr, rkey, &param);
        if (finish_remote(put, args, "takyonWrite") != Status::kOk) return log_.status();
      }
      // Complete at the target, not only locally, before the call returns.
      ucp_request_param_t flush_param{};
      return finish_remote(ucp_ep_flush_nbx(ep_, &flush_param), args, "takyonWrite (flush)");
    }
    case RemoteOp::kRead:
      if (args.bytes == 0) return Status::kOk;
      return finish_remote(ucp_get_nbx(ep_, local, args.bytes, raddr, rkey, &param), args, "takyonRead");
    case RemoteOp::kFetchAdd:
    case RemoteOp::kCompareSwap: {
      const bool add = args.op == RemoteOp::kFetchAdd;
      // Add: the operand goes, the old value comes back. Compare-and-swap: the compare value goes,
      // the reply buffer holds the new value going and the old value coming back.
      // In members, not on the stack: UCX may still write the reply after a timed-out call returned.
      amo_operand_ = add ? args.operand : args.compare;
      amo_reply_ = add ? 0 : args.operand;
      param.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE | UCP_OP_ATTR_FIELD_REPLY_BUFFER;
      param.datatype = ucp_dt_make_contig(8);
      param.reply_buffer = &amo_reply_;
      void* request = ucp_atomic_op_nbx(ep_, add ? UCP_ATOMIC_OP_ADD : UCP_ATOMIC_OP_CSWAP, &amo_operand_, 1,
                                        raddr, rkey, &param);
      if (finish_remote(request, args, add ? "takyonAtomicFetchAdd" : "takyonAtomicCompareSwap") !=
          Status::kOk)
        return log_.status();
      *args.result = amo_reply_;
      return Status::kOk;
    }
  }
  return TAKYON_FAIL(log_, Status::kInvalidArgument, "unknown one-sided operation");
}

Status UcxEndpoint::start_remote(const RemoteArgs& args, uint64_t raddr, ucp_rkey_h rkey, std::byte* local) {
  static constexpr const char* kNames[] = {"takyonWriteStart", "takyonReadStart", "takyonAtomicFetchAddStart",
                                           "takyonAtomicCompareSwapStart"};
  const char* what = kNames[static_cast<int>(args.op)];
  if (started_flush_issued_) started_after_flush_ = true;  // the flush out now does not cover this one
  ucp_request_param_t param{};
  void* request = nullptr;
  switch (args.op) {
    case RemoteOp::kWrite:
      if (args.bytes > 0) request = ucp_put_nbx(ep_, local, args.bytes, raddr, rkey, &param);
      break;
    case RemoteOp::kRead:
      if (args.bytes > 0) request = ucp_get_nbx(ep_, local, args.bytes, raddr, rkey, &param);
      break;
    case RemoteOp::kFetchAdd:
    case RemoteOp::kCompareSwap: {
      const bool add = args.op == RemoteOp::kFetchAdd;
      StartedAtomic& amo = started_amo_.emplace_back();
      amo.operand = add ? args.operand : args.compare;
      amo.reply = add ? 0 : args.operand;
      amo.result = args.result;
      param.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE | UCP_OP_ATTR_FIELD_REPLY_BUFFER;
      param.datatype = ucp_dt_make_contig(8);
      param.reply_buffer = &amo.reply;
      request = ucp_atomic_op_nbx(ep_, add ? UCP_ATOMIC_OP_ADD : UCP_ATOMIC_OP_CSWAP, &amo.operand, 1, raddr,
                                  rkey, &param);
      break;
    }
  }
  if (UCS_PTR_IS_ERR(request)) {
    return TAKYON_FAIL(log_, Status::kDisconnected, "%s to %s (buffer %d) failed: %s", what,
                       stream_.peer.c_str(), args.buffer, ucs_text(UCS_PTR_STATUS(request)).c_str());
  }
  if (request != nullptr) started_req_.push_back(request);
  return Status::kOk;
}

Status UcxEndpoint::remote_finish(Deadline finish) {
  if (failure_ != Status::kOk) return TAKYON_FAIL(log_, failure_, "%s", failure_text_.c_str());
  // One flush completes every operation issued before it, at the target too. A finish test that
  // timed out keeps waiting on the same flush next time; operations started meanwhile need
  // another flush once it is done.
  for (;;) {
    if (!started_flush_issued_) {
      ucp_request_param_t flush_param{};
      void* flush = ucp_ep_flush_nbx(ep_, &flush_param);
      if (UCS_PTR_IS_ERR(flush)) {
        return TAKYON_FAIL(log_, Status::kDisconnected,
                           "flushing the started one-sided operations to %s failed: %s", stream_.peer.c_str(),
                           ucs_text(UCS_PTR_STATUS(flush)).c_str());
      }
      started_flush_ = flush;
      started_flush_issued_ = true;
      started_after_flush_ = false;
    }
    if (started_flush_ != nullptr) {
      void* flush = started_flush_;
      progress();
      if (request_pending(flush)) {
        const Status done = wait([&] { return !request_pending(flush); }, finish, Wait::kOneSided, -1);
        if (done != Status::kOk) return done;  // kTimedOut: still in flight, call again
      }
      const ucs_status_t ustatus = ucp_request_check_status(flush);
      ucp_request_free(flush);
      started_flush_ = nullptr;
      started_flush_issued_ = false;
      if (ustatus != UCS_OK) {
        return TAKYON_FAIL(log_, Status::kDisconnected,
                           "flushing the started one-sided operations to %s failed: %s", stream_.peer.c_str(),
                           ucs_text(ustatus).c_str());
      }
    }
    started_flush_issued_ = false;
    if (!started_after_flush_) break;
  }
  // The flush is done, so each operation before it is too; report the first that failed.
  Status result = Status::kOk;
  for (void* request : started_req_) {
    const ucs_status_t ustatus = ucp_request_check_status(request);
    if (ustatus != UCS_OK && result == Status::kOk) {
      result = TAKYON_FAIL(
          log_, Status::kDisconnected, "a started one-sided operation to %s failed: %s", stream_.peer.c_str(),
          ustatus == UCS_INPROGRESS ? "not complete after the flush" : ucs_text(ustatus).c_str());
    }
    ucp_request_free(request);  // one still pending is freed by UCX when it completes
  }
  started_req_.clear();
  if (result != Status::kOk) return result;
  for (const StartedAtomic& amo : started_amo_) {
    if (amo.result != nullptr) *amo.result = amo.reply;
  }
  started_amo_.clear();
  return Status::kOk;
}

Status UcxEndpoint::destroy(bool graceful, Deadline deadline) {
  if (worker_ == nullptr) return Status::kOk;
  Status result = Status::kOk;
  if (graceful && failure_ == Status::kOk && ep_ != nullptr) {
    if (mapped_) {
      mailbox_->close();
      result = mailbox_->wait_peer_closing(deadline, log_);
    } else {
      for (size_t k = 0; k < send_req_.size() && result == Status::kOk; ++k) {
        if (send_req_[k] != nullptr) result = is_send_finished(static_cast<int>(k), deadline);
      }
      if (result == Status::kOk) {
        ucp_request_param_t p{};
        void* flush = ucp_worker_flush_nbx(worker_, &p);
        if (UCS_PTR_IS_ERR(flush)) {
          result = TAKYON_FAIL(log_, Status::kDisconnected, "ucp_worker_flush_nbx failed: %s",
                               ucs_text(UCS_PTR_STATUS(flush)).c_str());
        } else if (flush != nullptr) {
          result = wait([&] { return !request_pending(flush); }, deadline, Wait::kClose, -1);
          ucp_request_free(flush);  // a pending one is freed by UCX when it completes
        }
      }
    }
    if (result == Status::kOk) result = write_stream(kClosing);
    if (result == Status::kOk && !peer_closed_) {
      result = eof_ ? Status::kDisconnected
                    : wait([&] { return peer_closed_ || eof_; }, deadline, Wait::kClose, -1);
      if (result == Status::kOk && !peer_closed_) result = Status::kDisconnected;
      if (result == Status::kDisconnected) result = peer_gone(Wait::kClose, -1);
    }
    if (result == Status::kTimedOut) {
      result =
          TAKYON_FAIL(log_, Status::kTimeout, "%s did not destroy its endpoint within path_destroy_timeout",
                      stream_.peer.c_str());
    }
  }
  // Started operations still in flight (a failed path): let them end, bounded, so that the peer's
  // UCX does not answer a closed endpoint (fatal there in error handling mode NONE).
  if (!started_req_.empty() || started_flush_ != nullptr) {
    const auto pending = [&] {
      return (started_flush_ != nullptr && request_pending(started_flush_)) ||
             std::any_of(started_req_.begin(), started_req_.end(),
                         [&](void* r) { return request_pending(r); });
    };
    const Deadline bound = Deadline::after(0.1);
    while (!bound.expired() && pending()) ucp_worker_progress(worker_);
  }
  // Release: requests, keys, the UCX endpoint, registrations, the worker.
  tearing_down_ = true;
  bool cancelled = false;
  for (void* request : recv_req_) {
    if (request != nullptr) {
      ucp_request_cancel(worker_, request);  // on_rndv_done frees it when the cancel completes
      cancelled = true;
    }
  }
  if (cancelled) {
    const Deadline bound = Deadline::after(0.01);
    while (!bound.expired() &&
           std::any_of(recv_req_.begin(), recv_req_.end(), [](void* r) { return r != nullptr; })) {
      ucp_worker_progress(worker_);
    }
  }
  for (void*& request : recv_req_) {
    if (request != nullptr)
      ucp_request_free(request);  // UCX frees it when it completes; on_rndv_done will not
    request = nullptr;
  }
  for (void*& request : send_req_) {
    if (request != nullptr) ucp_request_free(request);
    request = nullptr;
  }
  for (void* request : started_req_) ucp_request_free(request);
  started_req_.clear();
  if (started_flush_ != nullptr) ucp_request_free(started_flush_);
  started_flush_ = nullptr;
  for (ControlSend& c : control_sends_) ucp_request_free(c.request);
  for (ucp_rkey_h rkey : rkeys_) {
    if (rkey != nullptr) ucp_rkey_destroy(rkey);
  }
  rkeys_.clear();
  mailbox_.reset();
  if (ep_ != nullptr && !wired_) {
    // UCX 1.13 aborts the process when it tears down an endpoint whose wireup is still pending
    // (error handling mode NONE): leave this worker and its endpoint to the process's exit.
    for (Region* region : {&control_}) region->memh = nullptr;
    for (auto* regions : {&send_regions_, &recv_regions_}) {
      for (Region& region : *regions) region.memh = nullptr;  // registrations stay with the worker
    }
    ep_ = nullptr;
    worker_ = nullptr;
    stream_.fd.reset();
    return result;
  }
  if (ep_ != nullptr) {
    // A flushing close, bounded: UCP_EP_CLOSE_FLAG_FORCE needs error handling mode PEER.
    ucp_request_param_t p{};
    p.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
    p.flags = 0;
    void* close = ucp_ep_close_nbx(ep_, &p);
    if (close != nullptr && !UCS_PTR_IS_ERR(close)) {
      // After the close handshake the flush is local and quick; after an error, do not wait for
      // a peer that may be gone (the released request is freed with the worker).
      if (graceful && result == Status::kOk) {
        while (request_pending(close) && !deadline.expired()) ucp_worker_progress(worker_);
      }
      ucp_request_free(close);  // a pending one is freed by UCX when it completes
    }
    ep_ = nullptr;
    if (graceful && result == Status::kOk && !eof_) {
      // Keep this worker until the peer has closed its endpoint to it too.
      (void)write_stream(kClosed);
      const Deadline bound =
          Deadline::after(std::min(1.0, static_cast<double>(deadline.remaining_ns(now_ns())) / 1e9));
      while (!eof_ && !bound.expired()) {
        ucp_worker_progress(worker_);
        if (check_stream() != Status::kOk) break;
        if (!eof_) {
          short revents = 0;
          ErrorLog ignored;
          (void)wait_fd(stream_.fd.get(), POLLIN, bound, 1'000'000, revents, ignored);
        }
      }
    }
  }
  for (Region* region : {&control_}) {
    if (region->memh != nullptr) ucp_mem_unmap(context_->get(), region->memh);
    region->memh = nullptr;
  }
  for (auto* regions : {&send_regions_, &recv_regions_}) {
    for (Region& region : *regions) {
      if (region.memh != nullptr) ucp_mem_unmap(context_->get(), region.memh);
      region.memh = nullptr;
    }
  }
  ucp_worker_destroy(worker_);
  worker_ = nullptr;
  stream_.fd.reset();
  return result;
}

}  // namespace takyon::detail
