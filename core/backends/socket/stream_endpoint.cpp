// SPDX-License-Identifier: MIT
// The connected socket protocol: greeting, framed messages read straight into receive buffers,
// per-buffer credits, heartbeats and link checks, graceful close; and the factories of the connected
// socket providers (Socket, InterProcessSocket) over a stream from backends/net/stream_connect.hpp.
#include "backends/socket/stream_endpoint.hpp"

#include <endian.h>
#include <fcntl.h>
#include <linux/sockios.h>
#include <linux/tcp.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "backends/common/layout_check.hpp"
#include "backends/common/spin.hpp"
#include "backends/net/stream_connect.hpp"
#include "backends/socket/socket_backend.hpp"

namespace takyon::detail {
namespace {

enum FrameType : uint32_t {
  kData = 1,
  kCredit = 2,
  kWantCredit = 3,
  kHeartbeat = 4,
  kClose = 5,
  kWrite = 6,   // one-sided: buffer, bytes, offset in the receiver's receive buffer; the bytes follow
  kRead = 7,    // one-sided: buffer, bytes, offset; answered with the bytes
  kAtomic = 8,  // one-sided: buffer, bytes = kAtomicAdd or kAtomicSwap, offset; 16 bytes follow
  kReply = 9,   // the answer: bytes of payload (read bytes, the atomic's old word), offset = a ReplyCode
};
constexpr uint64_t kAtomicAdd = 1;
constexpr uint64_t kAtomicSwap = 2;
constexpr uint64_t kAtomicPayload = 16;  // operand, compare (little-endian)
enum ReplyCode : uint64_t { kReplyOk = 0, kReplyMisaligned = 1 };

constexpr char kGreetingMagic[8] = {'T', 'A', 'K', 'Y', 'O', 'N', 'S', '2'};
constexpr char kAccept[8] = {'T', 'A', 'K', 'Y', 'O', 'N', 'O', 'K'};
constexpr char kRefuse[8] = {'T', 'A', 'K', 'Y', 'O', 'N', 'N', 'O'};
constexpr uint32_t kMaxBuffersOnWire = 1u << 16;

struct Greeting {
  char magic[8];
  uint32_t side;  // 'A' or 'B'
  uint32_t nsend;
  uint32_t nrecv;
  uint32_t reserved;
};
static_assert(sizeof(Greeting) == 24);

struct Verdict {
  char word[8];
  char reason[248];
};

// Liveness over TCP: a waiting call ticks this often (check_tcp_link).
constexpr int64_t kTickNs = kLinkTickNs;

void to_wire(WireFrame& f) noexcept {
  f.type = htole32(f.type);
  f.buffer = htole32(f.buffer);
  f.bytes = htole64(f.bytes);
  f.offset = htole64(f.offset);
  f.ncredits = htole32(f.ncredits);
  f.credit0 = htole32(f.credit0);
  f.piggyback = htole32(f.piggyback);
}

void from_wire(WireFrame& f) noexcept {
  f.type = le32toh(f.type);
  f.buffer = le32toh(f.buffer);
  f.bytes = le64toh(f.bytes);
  f.offset = le64toh(f.offset);
  f.ncredits = le32toh(f.ncredits);
  f.credit0 = le32toh(f.credit0);
  f.piggyback = le32toh(f.piggyback);
}

// One call at a time per endpoint: a second thread gets a clear error instead of a torn stream.
class CallGuard {
 public:
  explicit CallGuard(std::atomic<bool>& flag) noexcept : flag_(flag), entered_(!flag.exchange(true)) {}
  ~CallGuard() {
    if (entered_) flag_.store(false, std::memory_order_release);
  }
  CallGuard(const CallGuard&) = delete;
  CallGuard& operator=(const CallGuard&) = delete;
  [[nodiscard]] bool entered() const noexcept { return entered_; }

 private:
  std::atomic<bool>& flag_;
  bool entered_;
};

#define TAKYON_ONE_CALL_AT_A_TIME()                                                                        \
  CallGuard guard(in_call_);                                                                               \
  if (!guard.entered()) [[unlikely]] {                                                                     \
    return TAKYON_FAIL(log_, Status::kInvalidArgument,                                                     \
                       "another thread is inside a call on this socket endpoint; a socket endpoint takes " \
                       "one call at a time");                                                              \
  }

}  // namespace

StreamEndpoint::StreamEndpoint(common::UniqueFd fd, Options options, ErrorLog& log)
    : fd_(std::move(fd)), options_(std::move(options)), log_(log) {}

StreamEndpoint::~StreamEndpoint() = default;

Status StreamEndpoint::disconnected_error(const char* context) {
  return TAKYON_FAIL(log_, Status::kDisconnected, "the peer %s destroyed its endpoint; %s",
                     options_.peer.c_str(), context);
}

Status StreamEndpoint::connect(const EndpointConfig& config, Deadline deadline) {
  for (const BufferSpec& spec : config.send) {
    std::byte* addr = nullptr;
    if (use_or_allocate(spec.app_addr, spec.bytes, owned_, log_, addr) != Status::kOk) return log_.status();
    buffers_.send.push_back(addr);
  }
  for (const BufferSpec& spec : config.recv) {
    std::byte* addr = nullptr;
    if (use_or_allocate(spec.app_addr, spec.bytes, owned_, log_, addr) != Status::kOk) return log_.status();
    buffers_.recv.push_back(addr);
    recv_size_.push_back(spec.bytes);
  }
  const size_t nsend = config.send.size();
  const size_t nrecv = config.recv.size();
  arrived_.assign(nrecv, 0);
  arrived_bytes_.assign(nrecv, 0);
  arrived_offset_.assign(nrecv, 0);
  arrived_piggyback_.assign(nrecv, 0);
  peer_wants_.assign(nrecv, 0);
  remote_busy_.assign(nsend, 0);
  want_sent_.assign(nsend, 0);
  owed_credits_.reserve(nrecv);
  in_credits_.reserve(nsend);
  if (handshake(config, deadline) != Status::kOk) return log_.status();
  if (!options_.polling) {
    // Event driven: the descriptor blocks, so a receive can sleep in recv() itself
    // (wait_for_header); every other call passes MSG_DONTWAIT.
    const int flags = fcntl(fd_.get(), F_GETFL);
    if (flags < 0 || fcntl(fd_.get(), F_SETFL, flags & ~O_NONBLOCK) != 0) {
      return TAKYON_FAIL(log_, Status::kSystem, "cannot make the socket blocking: %s",
                         errno_text(errno).c_str());
    }
  }
  return Status::kOk;
}

Status StreamEndpoint::write_all_blocking(const void* data, size_t bytes, Deadline deadline,
                                          const char* what) {
  const auto* p = static_cast<const std::byte*>(data);
  while (bytes > 0) {
    const ssize_t n = ::send(fd_.get(), p, bytes, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n > 0) {
      p += n;
      bytes -= static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
      return TAKYON_FAIL(log_, Status::kDisconnected, "sending the %s to %s failed: %s", what,
                         options_.peer.c_str(), errno_text(errno).c_str());
    }
    short revents = 0;
    const Status waited = wait_fd(fd_.get(), POLLOUT, deadline, -1, revents, log_);
    if (waited == Status::kTimedOut) {
      return TAKYON_FAIL(log_, Status::kTimeout, "could not send the %s to %s within path_create_timeout",
                         what, options_.peer.c_str());
    }
    if (waited != Status::kOk) return waited;
  }
  return Status::kOk;
}

Status StreamEndpoint::read_all_blocking(void* data, size_t bytes, Deadline deadline, const char* what) {
  auto* p = static_cast<std::byte*>(data);
  while (bytes > 0) {
    const ssize_t n = ::recv(fd_.get(), p, bytes, MSG_DONTWAIT);
    if (n > 0) {
      p += n;
      bytes -= static_cast<size_t>(n);
      continue;
    }
    if (n == 0) {
      return TAKYON_FAIL(log_, Status::kDisconnected, "%s closed the connection before sending its %s",
                         options_.peer.c_str(), what);
    }
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) {
      return TAKYON_FAIL(log_, Status::kDisconnected, "reading the %s from %s failed: %s", what,
                         options_.peer.c_str(), errno_text(errno).c_str());
    }
    short revents = 0;
    const Status waited = wait_fd(fd_.get(), POLLIN, deadline, -1, revents, log_);
    if (waited == Status::kTimedOut) {
      return TAKYON_FAIL(log_, Status::kTimeout, "%s sent no %s within path_create_timeout",
                         options_.peer.c_str(), what);
    }
    if (waited != Status::kOk) return waited;
  }
  return Status::kOk;
}

Status StreamEndpoint::handshake(const EndpointConfig& config, Deadline deadline) {
  std::vector<uint64_t> my_send;
  std::vector<uint64_t> my_recv;
  for (const BufferSpec& spec : config.send) my_send.push_back(spec.bytes);
  for (const BufferSpec& spec : config.recv) my_recv.push_back(spec.bytes);

  std::vector<std::byte> out(sizeof(Greeting) + 8 * (my_send.size() + my_recv.size()));
  Greeting mine{};
  std::memcpy(mine.magic, kGreetingMagic, sizeof(mine.magic));
  mine.side = htole32(static_cast<uint32_t>(config.side()));
  mine.nsend = htole32(static_cast<uint32_t>(my_send.size()));
  mine.nrecv = htole32(static_cast<uint32_t>(my_recv.size()));
  std::memcpy(out.data(), &mine, sizeof(mine));
  size_t at = sizeof(Greeting);
  for (const auto* list : {&my_send, &my_recv}) {
    for (uint64_t bytes : *list) {
      const uint64_t le = htole64(bytes);
      std::memcpy(out.data() + at, &le, 8);
      at += 8;
    }
  }
  if (write_all_blocking(out.data(), out.size(), deadline, "Takyon greeting") != Status::kOk)
    return log_.status();

  Greeting theirs{};
  if (read_all_blocking(&theirs, sizeof(theirs), deadline, "Takyon greeting") != Status::kOk)
    return log_.status();
  const uint32_t peer_side = le32toh(theirs.side);
  const uint32_t peer_nsend = le32toh(theirs.nsend);
  const uint32_t peer_nrecv = le32toh(theirs.nrecv);
  if (std::memcmp(theirs.magic, kGreetingMagic, sizeof(theirs.magic)) != 0 ||
      (peer_side != 'A' && peer_side != 'B') || peer_nsend > kMaxBuffersOnWire ||
      peer_nrecv > kMaxBuffersOnWire) {
    return TAKYON_FAIL(log_, Status::kProtocol,
                       "%s is not a Takyon '%s' endpoint: its first bytes are not a Takyon socket greeting",
                       options_.peer.c_str(), config.provider->name().c_str());
  }
  std::vector<uint64_t> peer_send(peer_nsend);
  std::vector<uint64_t> peer_recv(peer_nrecv);
  for (auto* list : {&peer_send, &peer_recv}) {
    for (uint64_t& bytes : *list) {
      if (read_all_blocking(&bytes, 8, deadline, "buffer layout") != Status::kOk) return log_.status();
      bytes = le64toh(bytes);
    }
  }

  // Judge the pairing, tell the peer, then hear its judgement.
  Status mine_ok = Status::kOk;
  if (peer_side == static_cast<uint32_t>(config.side())) {
    mine_ok = TAKYON_FAIL(log_, Status::kProtocol,
                          "both endpoints of '%s' are endpoint %c; one must be A, the other B",
                          config.provider->text().c_str(), config.side());
  } else {
    const LayoutView my_view{config.side(), my_send, my_recv};
    const LayoutView peer_view{static_cast<char>(peer_side), peer_send, peer_recv};
    mine_ok = check_layout(my_view, peer_view, false, config.provider->name(), log_);
  }
  Verdict verdict{};
  std::memcpy(verdict.word, mine_ok == Status::kOk ? kAccept : kRefuse, sizeof(verdict.word));
  if (mine_ok != Status::kOk)
    std::snprintf(verdict.reason, sizeof(verdict.reason), "%s", log_.cause().c_str());
  if (mine_ok != Status::kOk) {
    // Best effort: the peer learns why; our own error stands either way.
    (void)::send(fd_.get(), &verdict, sizeof(verdict), MSG_DONTWAIT | MSG_NOSIGNAL);
    return mine_ok;
  }
  if (write_all_blocking(&verdict, sizeof(verdict), deadline, "pairing verdict") != Status::kOk)
    return log_.status();
  Verdict peer_verdict{};
  if (read_all_blocking(&peer_verdict, sizeof(peer_verdict), deadline, "pairing verdict") != Status::kOk) {
    return log_.status();
  }
  if (std::memcmp(peer_verdict.word, kAccept, sizeof(kAccept)) != 0) {
    peer_verdict.reason[sizeof(peer_verdict.reason) - 1] = '\0';
    const bool refused = std::memcmp(peer_verdict.word, kRefuse, sizeof(kRefuse)) == 0;
    return TAKYON_FAIL(log_, Status::kProtocol, "endpoint %c (%s) refused the pairing: %s",
                       static_cast<char>(peer_side), options_.peer.c_str(),
                       refused ? peer_verdict.reason : "(malformed verdict)");
  }
  for (size_t i = 0; i < config.send.size(); ++i) buffers_.remote_recv_bytes.push_back(peer_recv[i]);
  return Status::kOk;
}

// ----- inbound ---------------------------------------------------------------------------------

Status StreamEndpoint::read_error(ssize_t n, int err, const char* what) {
  if (n == 0) {
    eof_ = true;
    if (in_state_ == InState::kPayload && in_frame_.type != kData) {
      return TAKYON_FAIL(
          log_, Status::kDisconnected,
          "%s closed the connection in the middle of a one-sided %s (%llu bytes of it missing)",
          options_.peer.c_str(), in_frame_.type == kReply ? "reply to this endpoint" : "request",
          static_cast<unsigned long long>(in_left_));
    }
    if (in_state_ == InState::kPayload) {
      const uint64_t got = in_frame_.bytes - in_left_;
      return TAKYON_FAIL(
          log_, Status::kDisconnected,
          "%s closed the connection in the middle of a message to receive buffer %u (%llu of %llu "
          "bytes arrived); the message is lost",
          options_.peer.c_str(), in_frame_.buffer, static_cast<unsigned long long>(got),
          static_cast<unsigned long long>(in_frame_.bytes));
    }
    if (in_state_ != InState::kHeader || in_got_ != 0) {
      return TAKYON_FAIL(log_, Status::kDisconnected,
                         "%s closed the connection in the middle of a frame header", options_.peer.c_str());
    }
    if (peer_closed_) return Status::kOk;
    return TAKYON_FAIL(
        log_, Status::kDisconnected,
        "%s closed the connection without destroying its endpoint (the process exited or was killed)",
        options_.peer.c_str());
  }
  if (err == EAGAIN || err == EWOULDBLOCK || err == EINTR) return Status::kOk;
  return TAKYON_FAIL(log_, Status::kDisconnected, "reading the %s from %s failed: %s", what,
                     options_.peer.c_str(), errno_text(err).c_str());
}

Status StreamEndpoint::apply_credit(uint32_t buffer) {
  if (buffer >= remote_busy_.size() || remote_busy_[buffer] == 0) {
    return TAKYON_FAIL(
        log_, Status::kProtocol,
        "%s returned a credit for send buffer %u, which has no message outstanding (protocol error)",
        options_.peer.c_str(), buffer);
  }
  remote_busy_[buffer] = 0;
  return Status::kOk;
}

Status StreamEndpoint::on_header() {
  from_wire(in_frame_);
  const WireFrame& f = in_frame_;
  if (f.type < kData || f.type > kReply) {
    return TAKYON_FAIL(log_, Status::kProtocol, "%s sent a frame of unknown type %u (protocol error)",
                       options_.peer.c_str(), f.type);
  }
  if (f.ncredits > remote_busy_.size()) {
    return TAKYON_FAIL(log_, Status::kProtocol, "%s sent %u credits but this endpoint has %zu send buffers",
                       options_.peer.c_str(), f.ncredits, remote_busy_.size());
  }
  if (f.ncredits > 0 && apply_credit(f.credit0) != Status::kOk) return log_.status();
  if (f.ncredits > 1) {
    in_state_ = InState::kCredits;
    in_got_ = 0;
    in_credits_.resize(f.ncredits - 1);
    return Status::kOk;
  }
  return on_frame_body();
}

Status StreamEndpoint::on_frame_body() {
  const WireFrame& f = in_frame_;
  in_state_ = InState::kHeader;
  in_got_ = 0;
  switch (f.type) {
    case kData: {
      if (f.buffer >= arrived_.size()) {
        return TAKYON_FAIL(log_, Status::kProtocol,
                           "%s sent a message to receive buffer %u, but there are only %zu",
                           options_.peer.c_str(), f.buffer, arrived_.size());
      }
      const uint64_t size = recv_size_[f.buffer];
      if (f.offset > size || f.bytes > size - f.offset) {
        return TAKYON_FAIL(
            log_, Status::kProtocol,
            "%s sent %llu bytes at offset %llu into receive buffer %u of %llu bytes (protocol error)",
            options_.peer.c_str(), static_cast<unsigned long long>(f.bytes),
            static_cast<unsigned long long>(f.offset), f.buffer, static_cast<unsigned long long>(size));
      }
      if (arrived_[f.buffer] != 0) {
        return TAKYON_FAIL(
            log_, Status::kProtocol,
            "%s sent a second message into receive buffer %u before this endpoint received the first "
            "(protocol error)",
            options_.peer.c_str(), f.buffer);
      }
      if (f.bytes == 0) {
        arrived_[f.buffer] = 1;
        arrived_bytes_[f.buffer] = 0;
        arrived_offset_[f.buffer] = f.offset;
        arrived_piggyback_[f.buffer] = f.piggyback;
        return Status::kOk;
      }
      in_state_ = InState::kPayload;
      in_dest_ = buffers_.recv[f.buffer] + f.offset;
      in_left_ = f.bytes;
      return Status::kOk;
    }
    case kWantCredit: {
      if (f.buffer >= peer_wants_.size()) {
        return TAKYON_FAIL(log_, Status::kProtocol, "%s asked for receive buffer %u, but there are only %zu",
                           options_.peer.c_str(), f.buffer, peer_wants_.size());
      }
      if (std::find(owed_credits_.begin(), owed_credits_.end(), f.buffer) != owed_credits_.end()) {
        return queue_control(kCredit, 0);
      }
      peer_wants_[f.buffer] = 1;
      return Status::kOk;
    }
    case kClose:
      peer_closed_ = true;
      return Status::kOk;
    case kWrite:
    case kRead:
    case kAtomic:
      return on_request();
    case kReply:
      return on_reply();
    default:  // kCredit, kHeartbeat: the credits were applied with the header
      return Status::kOk;
  }
}

Status StreamEndpoint::pump(int want) {
  for (;;) {
    if (eof_) return Status::kOk;
    switch (in_state_) {
      case InState::kHeader: {
        auto* raw = reinterpret_cast<std::byte*>(&in_frame_);
        const ssize_t n = ::recv(fd_.get(), raw + in_got_, sizeof(WireFrame) - in_got_, MSG_DONTWAIT);
        if (n <= 0) {
          const int err = errno;
          if (n < 0 && err == EINTR) continue;
          return read_error(n, err, "frame header");
        }
        in_got_ += static_cast<size_t>(n);
        if (in_got_ < sizeof(WireFrame)) break;
        if (on_header() != Status::kOk) return log_.status();
        break;
      }
      case InState::kCredits: {
        auto* raw = reinterpret_cast<std::byte*>(in_credits_.data());
        const size_t total = in_credits_.size() * sizeof(uint32_t);
        const ssize_t n = ::recv(fd_.get(), raw + in_got_, total - in_got_, MSG_DONTWAIT);
        if (n <= 0) {
          const int err = errno;
          if (n < 0 && err == EINTR) continue;
          if (n == 0) in_state_ = InState::kHeader, in_got_ = 1;  // report a torn frame
          return read_error(n, err, "frame credits");
        }
        in_got_ += static_cast<size_t>(n);
        if (in_got_ < total) break;
        for (uint32_t credit : in_credits_) {
          if (apply_credit(le32toh(credit)) != Status::kOk) return log_.status();
        }
        if (on_frame_body() != Status::kOk) return log_.status();
        break;
      }
      case InState::kPayload: {
        const ssize_t n = ::recv(fd_.get(), in_dest_, in_left_, MSG_DONTWAIT);
        if (n <= 0) {
          const int err = errno;
          if (n < 0 && err == EINTR) continue;
          return read_error(n, err, "message payload");
        }
        in_dest_ += n;
        in_left_ -= static_cast<uint64_t>(n);
        if (in_left_ > 0) break;
        in_state_ = InState::kHeader;
        in_got_ = 0;
        if (in_frame_.type != kData) {
          if (in_frame_.type == kReply) {
            complete_reply(true);
          } else if (on_request_payload() != Status::kOk) {
            return log_.status();
          }
          break;
        }
        const uint32_t b = in_frame_.buffer;
        arrived_[b] = 1;
        arrived_bytes_[b] = in_frame_.bytes;
        arrived_offset_[b] = in_frame_.offset;
        arrived_piggyback_[b] = in_frame_.piggyback;
        if (static_cast<int>(b) == want) return Status::kOk;
        break;
      }
    }
    if (want >= 0 && arrived_[static_cast<size_t>(want)] != 0) return Status::kOk;  // a zero-byte message
  }
}

// ----- outbound --------------------------------------------------------------------------------

Status StreamEndpoint::queue_control(uint32_t type, uint32_t buffer) {
  WireFrame f{};
  f.type = type;
  f.buffer = buffer;
  return queue_frame(f, nullptr, 0);
}

Status StreamEndpoint::queue_reply(uint32_t buffer, uint64_t code, const std::byte* payload, uint64_t bytes) {
  WireFrame f{};
  f.type = kReply;
  f.buffer = buffer;
  f.bytes = bytes;
  f.offset = code;
  return queue_frame(f, payload, bytes);
}

Status StreamEndpoint::queue_frame(WireFrame f, const std::byte* payload, uint64_t payload_bytes) {
  f.ncredits = static_cast<uint32_t>(owed_credits_.size());
  f.credit0 = owed_credits_.empty() ? 0 : owed_credits_[0];
  to_wire(f);
  const size_t at = pending_.size();
  const size_t extra = 4 * (owed_credits_.empty() ? 0 : owed_credits_.size() - 1);
  pending_.resize(at + sizeof(f) + extra + payload_bytes);
  std::memcpy(pending_.data() + at, &f, sizeof(f));
  for (size_t k = 1; k < owed_credits_.size(); ++k) {
    const uint32_t le = htole32(owed_credits_[k]);
    std::memcpy(pending_.data() + at + sizeof(f) + 4 * (k - 1), &le, 4);
  }
  if (payload_bytes > 0) std::memcpy(pending_.data() + at + sizeof(f) + extra, payload, payload_bytes);
  owed_credits_.clear();
  return flush_pending();
}

Status StreamEndpoint::flush_pending() {
  while (!data_in_progress_ && pending_sent_ < pending_.size()) {
    const ssize_t n = ::send(fd_.get(), pending_.data() + pending_sent_, pending_.size() - pending_sent_,
                             MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n > 0) {
      pending_sent_ += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return Status::kOk;
    return TAKYON_FAIL(log_, Status::kDisconnected, "writing to %s failed: %s", options_.peer.c_str(),
                       errno_text(errno).c_str());
  }
  if (pending_sent_ == pending_.size()) {
    pending_.clear();
    pending_sent_ = 0;
  }
  return Status::kOk;
}

Status StreamEndpoint::write_data(const SendArgs& args) {
  WireFrame f{};
  f.type = kData;
  f.buffer = static_cast<uint32_t>(args.buffer);
  f.bytes = args.bytes;
  f.offset = args.dest_offset;
  f.piggyback = args.piggyback;
  return write_frame(f, buffers_.send[args.buffer] + args.src_offset, args.bytes, args.start,
                     args.finish_timeout);
}

Status StreamEndpoint::write_frame(WireFrame f, const std::byte* payload, uint64_t payload_bytes,
                                   Deadline start, double finish_timeout) {
  const uint32_t buffer = f.buffer;
  const WireFrame plain = f;
  std::vector<uint32_t> extra;
  iovec iov[3] = {{&f, sizeof(f)}, {nullptr, 0}, {const_cast<std::byte*>(payload), payload_bytes}};
  uint64_t total = 0;
  // The header and the credits it carries, from what is owed when the first byte goes: until then
  // pump() may queue (and send) control frames that take owed credits.
  const auto build = [&] {
    f = plain;
    const size_t ncredits = owed_credits_.size();
    f.ncredits = static_cast<uint32_t>(ncredits);
    f.credit0 = ncredits == 0 ? 0 : owed_credits_[0];
    to_wire(f);
    extra.clear();
    for (size_t k = 1; k < ncredits; ++k) extra.push_back(htole32(owed_credits_[k]));
    iov[1] = {extra.data(), extra.size() * sizeof(uint32_t)};
    total = sizeof(f) + iov[1].iov_len + payload_bytes;
  };
  uint64_t written = 0;
  Deadline finish;
  for (;;) {
    if (written == 0) {
      // Control bytes go first, whole: a frame must never start inside a half-written one.
      if (!pending_.empty() && flush_pending() != Status::kOk) return log_.status();
      if (!pending_.empty()) {
        if (pump() != Status::kOk) return log_.status();
        const Status waited = wait_step(start, true);
        if (waited == Status::kTimedOut) return Status::kTimedOut;
        if (waited != Status::kOk) return waited;
        continue;
      }
      build();
    }
    // Skip what is written already.
    msghdr msg{};
    iovec rest[3];
    int count = 0;
    uint64_t skip = written;
    for (const iovec& v : iov) {
      if (skip >= v.iov_len) {
        skip -= v.iov_len;
        continue;
      }
      rest[count++] = {static_cast<std::byte*>(v.iov_base) + skip, v.iov_len - skip};
      skip = 0;
    }
    msg.msg_iov = rest;
    msg.msg_iovlen = static_cast<size_t>(count);
    const ssize_t n = ::sendmsg(fd_.get(), &msg, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n > 0) {
      if (written == 0) {
        owed_credits_.clear();  // they are on the wire now
        data_in_progress_ = true;
        finish = Deadline::after(finish_timeout);
      }
      written += static_cast<uint64_t>(n);
      if (written == total) break;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
      const int err = errno;
      data_in_progress_ = false;
      if (peer_closed_ || err == EPIPE || err == ECONNRESET) {
        return TAKYON_FAIL(log_, Status::kDisconnected, "sending to %s failed (%s); the message is lost",
                           options_.peer.c_str(), errno_text(err).c_str());
      }
      return TAKYON_FAIL(log_, Status::kDisconnected, "sending to %s failed: %s", options_.peer.c_str(),
                         errno_text(err).c_str());
    }
    // The socket is full: keep reading (the peer may be writing to us too) while waiting for room.
    if (pump() != Status::kOk) return log_.status();
    const Status waited = wait_step(written == 0 ? start : finish, true);
    if (waited == Status::kTimedOut) {
      if (written == 0) return Status::kTimedOut;  // nothing went out: a retryable no-op
      data_in_progress_ = false;
      return TAKYON_FAIL(
          log_, Status::kTimeout,
          "the message to buffer %u did not finish within send_finish_timeout (%llu of %llu bytes "
          "written); the stream is cut",
          buffer, static_cast<unsigned long long>(written), static_cast<unsigned long long>(total));
    }
    if (waited != Status::kOk) {
      data_in_progress_ = false;
      return waited;
    }
  }
  data_in_progress_ = false;
  return flush_pending();  // control frames that pump() queued meanwhile
}

// ----- one-sided operations -------------------------------------------------------------------

// Target side: the peer checked the bounds against the sizes both sides agreed at create, so a
// request outside them is a protocol error, not a user's.
Status StreamEndpoint::on_request() {
  const WireFrame& f = in_frame_;
  const uint64_t bytes = f.type == kAtomic ? 8 : f.bytes;
  if (f.type == kAtomic && f.bytes != kAtomicAdd && f.bytes != kAtomicSwap) {
    return TAKYON_FAIL(log_, Status::kProtocol,
                       "%s sent a one-sided request for an unknown atomic kind %llu (protocol error)",
                       options_.peer.c_str(), static_cast<unsigned long long>(f.bytes));
  }
  if (f.buffer >= recv_size_.size() || f.offset > recv_size_[f.buffer] ||
      bytes > recv_size_[f.buffer] - f.offset) {
    return TAKYON_FAIL(
        log_, Status::kProtocol,
        "%s sent a one-sided request (type %u) for %llu bytes at offset %llu of receive buffer "
        "%u, which this endpoint does not have (protocol error)",
        options_.peer.c_str(), f.type, static_cast<unsigned long long>(bytes),
        static_cast<unsigned long long>(f.offset), f.buffer);
  }
  std::byte* at = buffers_.recv[f.buffer] + f.offset;
  switch (f.type) {
    case kRead:
      return queue_reply(f.buffer, kReplyOk, at, f.bytes);
    case kWrite:
      if (f.bytes == 0) return queue_reply(f.buffer, kReplyOk, nullptr, 0);
      in_state_ = InState::kPayload;
      in_dest_ = at;
      in_left_ = f.bytes;
      return Status::kOk;
    default:  // kAtomic: its operands come next
      in_state_ = InState::kPayload;
      in_dest_ = reinterpret_cast<std::byte*>(request_words_);
      in_left_ = kAtomicPayload;
      return Status::kOk;
  }
}

Status StreamEndpoint::on_request_payload() {
  const WireFrame& f = in_frame_;
  if (f.type == kWrite) return queue_reply(f.buffer, kReplyOk, nullptr, 0);
  std::byte* at = buffers_.recv[f.buffer] + f.offset;
  if (reinterpret_cast<std::uintptr_t>(at) % 8 != 0)
    return queue_reply(f.buffer, kReplyMisaligned, nullptr, 0);
  const uint64_t operand = le64toh(request_words_[0]);
  const uint64_t compare = le64toh(request_words_[1]);
  std::atomic_ref<uint64_t> word(*reinterpret_cast<uint64_t*>(at));
  uint64_t old = 0;
  if (f.bytes == kAtomicAdd) {
    old = word.fetch_add(operand, std::memory_order_seq_cst);
  } else {
    old = compare;
    word.compare_exchange_strong(old, operand, std::memory_order_seq_cst);
  }
  const uint64_t le = htole64(old);
  return queue_reply(f.buffer, kReplyOk, reinterpret_cast<const std::byte*>(&le), 8);
}

Status StreamEndpoint::on_reply() {
  const WireFrame& f = in_frame_;
  if (started_.empty() || f.buffer != started_.front().buffer ||
      (f.offset == kReplyOk && f.bytes != started_.front().reply_bytes) ||
      (f.offset != kReplyOk && f.bytes != 0)) {
    return TAKYON_FAIL(log_, Status::kProtocol,
                       "%s sent a one-sided reply (%llu bytes) that no request of this endpoint awaits "
                       "(protocol error)",
                       options_.peer.c_str(), static_cast<unsigned long long>(f.bytes));
  }
  if (f.offset != kReplyOk && f.offset != kReplyMisaligned) {
    return TAKYON_FAIL(log_, Status::kProtocol,
                       "%s sent an unknown one-sided reply code %llu (protocol error)", options_.peer.c_str(),
                       static_cast<unsigned long long>(f.offset));
  }
  if (f.offset == kReplyMisaligned && !misaligned_) {
    misaligned_ = true;
    misaligned_buffer_ = started_.front().buffer;
    misaligned_offset_ = started_.front().remote_offset;
  }
  if (f.bytes == 0) {
    complete_reply(f.offset == kReplyOk);
    return Status::kOk;
  }
  in_state_ = InState::kPayload;
  in_dest_ = started_.front().dest;
  in_left_ = f.bytes;
  return Status::kOk;
}

void StreamEndpoint::complete_reply(bool ok) {
  const StartedRequest& done = started_.front();
  if (ok && done.atomic && done.result != nullptr) *done.result = le64toh(done.word);
  started_.pop_front();
}

Status StreamEndpoint::check_peer(bool /*thorough*/) {
  if (peer_closed_) {
    return TAKYON_FAIL(log_, Status::kDisconnected, "the peer destroyed its endpoint (%s)",
                       options_.peer.c_str());
  }
  if (eof_) {
    return TAKYON_FAIL(log_, Status::kDisconnected,
                       "%s closed the connection (its process exited or was killed)", options_.peer.c_str());
  }
  return Status::kOk;
}

Status StreamEndpoint::remote(const RemoteArgs& args) {
  TAKYON_ONE_CALL_AT_A_TIME();
  static constexpr const char* kNames[] = {"takyonWrite", "takyonRead", "takyonAtomicFetchAdd",
                                           "takyonAtomicCompareSwap"};
  const char* what = kNames[static_cast<int>(args.op)];
  begin_wait();
  // Requests go after whatever control bytes are queued, never inside them.
  while (!pending_.empty()) {
    if (pump() != Status::kOk || flush_pending() != Status::kOk) return log_.status();
    if (pending_.empty()) break;
    const Status waited = wait_step(args.finish, true);
    if (waited == Status::kTimedOut) {
      return TAKYON_FAIL(log_, Status::kTimeout, "%s on buffer %d could not start within send_finish_timeout",
                         what, args.buffer);
    }
    if (waited != Status::kOk) return waited;
  }
  if (peer_closed_ || eof_) return disconnected_error("no one-sided operation can reach it");
  WireFrame f{};
  f.buffer = static_cast<uint32_t>(args.buffer);
  f.offset = args.remote_offset;
  uint64_t words[2] = {};
  const std::byte* payload = nullptr;
  uint64_t payload_bytes = 0;
  std::byte* local = buffers_.send[args.buffer] + args.local_offset;
  // Queued before the request goes: its reply can come while write_frame() reads the socket.
  StartedRequest& request = started_.emplace_back();
  request.buffer = f.buffer;
  request.remote_offset = args.remote_offset;
  switch (args.op) {
    case RemoteOp::kWrite:
      f.type = kWrite;
      f.bytes = args.bytes;
      payload = local;
      payload_bytes = args.bytes;
      break;
    case RemoteOp::kRead:
      f.type = kRead;
      f.bytes = args.bytes;
      request.dest = local;
      request.reply_bytes = args.bytes;
      break;
    case RemoteOp::kFetchAdd:
    case RemoteOp::kCompareSwap:
      f.type = kAtomic;
      f.bytes = args.op == RemoteOp::kFetchAdd ? kAtomicAdd : kAtomicSwap;
      words[0] = htole64(args.operand);
      words[1] = htole64(args.compare);
      payload = reinterpret_cast<const std::byte*>(words);
      payload_bytes = kAtomicPayload;
      request.atomic = true;
      request.result = args.result;
      request.dest = reinterpret_cast<std::byte*>(&request.word);
      request.reply_bytes = 8;
      break;
  }
  const double seconds =
      args.finish.is_forever() ? -1.0 : static_cast<double>(args.finish.remaining_ns(now_ns())) / 1e9;
  const Status status = write_frame(f, payload, payload_bytes, args.finish, seconds);
  if (status == Status::kTimedOut) {
    started_.pop_back();  // nothing of it went out: no reply will come
    return TAKYON_FAIL(log_, Status::kTimeout, "%s on buffer %d could not start within send_finish_timeout",
                       what, args.buffer);
  }
  if (status != Status::kOk) return status;
  if (args.start_only) return Status::kOk;
  return await_replies(args.finish, what, args.buffer);
}

Status StreamEndpoint::remote_finish(Deadline finish) {
  TAKYON_ONE_CALL_AT_A_TIME();
  begin_wait();
  return await_replies(finish, nullptr, -1);
}

Status StreamEndpoint::await_replies(Deadline finish, const char* what, int buffer) {
  const std::string op = what != nullptr ? strf("%s on buffer %d", what, buffer)
                                         : std::string("the started one-sided operations");
  while (!started_.empty()) {
    if (pump() != Status::kOk) return log_.status();
    if (started_.empty()) break;
    // A peer inside its destroy still answers (its close frame may come first): only the end of
    // the stream means no answer will come.
    if (eof_) return disconnected_error(strf("%s got no answer", op.c_str()).c_str());
    const Status waited = wait_step(finish, !pending_.empty());
    if (waited == Status::kTimedOut) {
      if (what == nullptr) return Status::kTimedOut;  // the finish test: call again
      return TAKYON_FAIL(log_, Status::kTimeout,
                         "%s got no answer within send_finish_timeout (over a socket the peer carries out "
                         "one-sided operations only while it is inside a call on the path)",
                         op.c_str());
    }
    if (waited != Status::kOk) return waited;
  }
  if (!pending_.empty() && flush_pending() != Status::kOk) return log_.status();
  if (misaligned_) {
    misaligned_ = false;
    return TAKYON_FAIL(log_, Status::kInvalidArgument,
                       "offset %llu of the peer's receive buffer %u is not 8-byte aligned (a 64-bit atomic; "
                       "the peer's buffer itself is not)",
                       static_cast<unsigned long long>(misaligned_offset_), misaligned_buffer_);
  }
  return Status::kOk;
}

// ----- waiting and liveness --------------------------------------------------------------------

void StreamEndpoint::begin_wait() {
  const int64_t now = now_ns();
  spin_since_ns_ = now;
  next_tick_ns_ = now + kTickNs;
  outq_since_ns_ = 0;
  // The peer may be waiting for these; a waiting endpoint cannot piggyback them on anything.
  if (!owed_credits_.empty() && !data_in_progress_) (void)queue_control(kCredit, 0);
}

Status StreamEndpoint::check_link() {
  if (!options_.tcp || eof_) return Status::kOk;
  bool idle = false;
  if (check_tcp_link(fd_.get(), outq_since_ns_, options_.peer, idle, log_) != Status::kOk)
    return log_.status();
  if (idle && pending_.empty() && !data_in_progress_) return queue_control(kHeartbeat, 0);
  return Status::kOk;
}

Status StreamEndpoint::wait_step(Deadline deadline, bool want_output) {
  const int64_t now = now_ns();
  if (now >= next_tick_ns_) {
    next_tick_ns_ = now + kTickNs;
    if (check_link() != Status::kOk) return log_.status();
  }
  if (!pending_.empty() && flush_pending() != Status::kOk) return log_.status();
  if (deadline.expired(now)) return Status::kTimedOut;
  if (options_.polling) {
    spin_step(spin_since_ns_, now);
    return Status::kOk;
  }
  short events = eof_ ? 0 : POLLIN;
  if (want_output || !pending_.empty()) events |= POLLOUT;
  short revents = 0;
  const int64_t cap = options_.tcp ? std::max<int64_t>(next_tick_ns_ - now, 0) : -1;
  const Status waited = wait_fd(fd_.get(), events, deadline, cap, revents, log_);
  if (waited == Status::kTimedOut) return deadline.expired() ? Status::kTimedOut : Status::kOk;
  return waited;
}

Status StreamEndpoint::wait_for_header(Deadline deadline) {
  int64_t now = now_ns();
  if (now >= next_tick_ns_) {
    next_tick_ns_ = now + kTickNs;
    if (check_link() != Status::kOk) return log_.status();
    if (!pending_.empty()) return wait_step(deadline, false);  // a heartbeat that did not go out
  }
  if (deadline.expired(now)) return Status::kTimedOut;
  int64_t wait_ns = deadline.remaining_ns(now);
  if (options_.tcp) wait_ns = std::min(wait_ns, next_tick_ns_ - now);
  if (wait_ns == INT64_MAX) wait_ns = 0;  // SO_RCVTIMEO 0: no limit
  wait_ns = wait_ns == 0 ? 0 : std::max<int64_t>(wait_ns, 1000);
  if (wait_ns != rcvtimeo_ns_) {
    timeval tv{static_cast<time_t>(wait_ns / 1'000'000'000),
               static_cast<suseconds_t>((wait_ns % 1'000'000'000) / 1000)};
    if (setsockopt(fd_.get(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) != 0) {
      return TAKYON_FAIL(log_, Status::kSystem, "setsockopt(SO_RCVTIMEO) failed: %s",
                         errno_text(errno).c_str());
    }
    rcvtimeo_ns_ = wait_ns;
  }
  auto* raw = reinterpret_cast<std::byte*>(&in_frame_);
  const ssize_t n = ::recv(fd_.get(), raw + in_got_, sizeof(WireFrame) - in_got_, 0);
  if (n <= 0) {
    const int err = errno;
    if (n < 0 && err == EINTR) return Status::kOk;
    if (read_error(n, err, "frame header") != Status::kOk) return log_.status();
    now = now_ns();
    return deadline.expired(now) && n < 0 ? Status::kTimedOut : Status::kOk;
  }
  in_got_ += static_cast<size_t>(n);
  if (in_got_ == sizeof(WireFrame)) return on_header();
  return Status::kOk;
}

// ----- the Backend interface -------------------------------------------------------------------

Status StreamEndpoint::send(const SendArgs& args) {
  TAKYON_ONE_CALL_AT_A_TIME();
  if (peer_closed_ || eof_) return disconnected_error("the message would be lost");
  const auto b = static_cast<size_t>(args.buffer);
  if (remote_busy_[b] != 0 || !pending_.empty()) {
    if (remote_busy_[b] != 0 && want_sent_[b] == 0) {
      if (queue_control(kWantCredit, static_cast<uint32_t>(b)) != Status::kOk) return log_.status();
      want_sent_[b] = 1;
    }
    begin_wait();
    for (;;) {
      if (pump() != Status::kOk) return log_.status();
      if (peer_closed_ || eof_) return disconnected_error("the message would be lost");
      if (!pending_.empty() && flush_pending() != Status::kOk) return log_.status();
      if (remote_busy_[b] == 0 && pending_.empty()) break;
      const Status waited = wait_step(args.start, !pending_.empty());
      if (waited == Status::kTimedOut) return Status::kTimedOut;
      if (waited != Status::kOk) return waited;
    }
  }
  const Status written = write_data(args);
  if (written != Status::kOk) return written;
  remote_busy_[b] = 1;
  want_sent_[b] = 0;
  return Status::kOk;
}

Status StreamEndpoint::is_send_finished(int /*buffer*/, Deadline /*finish*/) {
  return Status::kOk;  // send() hands the whole message to the kernel before it returns
}

Status StreamEndpoint::recv(int buffer, Deadline start, double finish_timeout, RecvResult& out) {
  TAKYON_ONE_CALL_AT_A_TIME();
  const auto b = static_cast<size_t>(buffer);
  // Polling: look first. Event driven: ppoll() returns at once if something is there, so looking
  // first would only add a system call.
  if (arrived_[b] == 0 && options_.polling && pump(buffer) != Status::kOk) return log_.status();
  if (arrived_[b] == 0) {
    begin_wait();
    bool started = false;
    Deadline finish;
    for (;;) {
      if (peer_closed_ || eof_)
        return disconnected_error(strf("no message is left for receive buffer %d", buffer).c_str());
      if (!started && in_state_ == InState::kPayload && in_frame_.type == kData && in_frame_.buffer == b) {
        started = true;
        finish = Deadline::after(finish_timeout);
      }
      const bool header_next =
          !options_.polling && pending_.empty() && in_state_ == InState::kHeader && !eof_;
      const Status waited = header_next ? wait_for_header(start) : wait_step(started ? finish : start, false);
      if (waited == Status::kTimedOut) {
        if (pump(buffer) != Status::kOk) return log_.status();  // one last look: try once at timeout 0
        if (arrived_[b] != 0) break;
        if (!started) {
          // A receive that gives up (a try-once receive above all) still hands back the credits it
          // owes: the sender may be blocked on them, and this endpoint may not wait again soon.
          if (flush_pending() != Status::kOk) return log_.status();
          return Status::kTimedOut;
        }
        return TAKYON_FAIL(
            log_, Status::kTimeout,
            "the message to receive buffer %d started but did not finish within recv_finish_timeout "
            "(%llu of %llu bytes arrived)",
            buffer, static_cast<unsigned long long>(in_frame_.bytes - in_left_),
            static_cast<unsigned long long>(in_frame_.bytes));
      }
      if (waited != Status::kOk) return waited;
      if (pump(buffer) != Status::kOk) return log_.status();
      if (arrived_[b] != 0) break;
    }
  }
  out.bytes = arrived_bytes_[b];
  out.offset = arrived_offset_[b];
  out.piggyback = arrived_piggyback_[b];
  arrived_[b] = 0;
  owed_credits_.push_back(static_cast<uint32_t>(b));
  if (peer_wants_[b] != 0) {
    peer_wants_[b] = 0;
    if (!data_in_progress_ && queue_control(kCredit, 0) != Status::kOk) return log_.status();
  }
  // Queued control frames (a credit the peer asked for) go out now, not at this endpoint's next
  // wait: a receiver whose messages are always already there may never wait again.
  if (!pending_.empty() && flush_pending() != Status::kOk) return log_.status();
  return Status::kOk;
}

Status StreamEndpoint::destroy(bool graceful, Deadline deadline) {
  TAKYON_ONE_CALL_AT_A_TIME();
  Status status = Status::kOk;
  if (graceful && fd_.valid() && !eof_) {
    if (queue_control(kClose, 0) != Status::kOk && !peer_closed_) {
      status = log_.status();
    } else {
      begin_wait();
      for (;;) {
        if (pump() != Status::kOk) {
          status = log_.status();
          break;
        }
        if (!pending_.empty() && flush_pending() != Status::kOk) {
          if (!peer_closed_) status = log_.status();
          break;
        }
        if (peer_closed_ && (pending_.empty() || eof_)) break;
        const Status waited = wait_step(deadline, !pending_.empty());
        if (waited == Status::kTimedOut) {
          status = TAKYON_FAIL(log_, Status::kTimeout,
                               "%s did not destroy its endpoint within path_destroy_timeout",
                               options_.peer.c_str());
          break;
        }
        if (waited != Status::kOk) {
          status = waited;
          break;
        }
      }
    }
    if (status == Status::kOk) (void)shutdown(fd_.get(), SHUT_WR);
  }
  fd_.reset();
  return status;
}

// ----- the connected socket providers' factories ------------------------------------------------

namespace {

Status make_endpoint(StreamConnection connection, const EndpointConfig& config, Deadline deadline,
                     ErrorLog& log, std::unique_ptr<Backend>& out) {
  StreamEndpoint::Options options;
  options.tcp = connection.tcp;
  options.polling = config.is_polling;
  options.provider = config.provider->text();
  options.peer = std::move(connection.peer);
  auto endpoint = std::make_unique<StreamEndpoint>(std::move(connection.fd), std::move(options), log);
  if (endpoint->connect(config, deadline) != Status::kOk) return log.status();
  out = std::move(endpoint);
  return Status::kOk;
}

}  // namespace

Status SocketBackend::create_inter_process(const EndpointConfig& config, Deadline deadline, ErrorLog& log,
                                           std::unique_ptr<Backend>& out) {
  const std::string name = strf("takyon-%u-InterProcessSocket-%llu", static_cast<unsigned>(getuid()),
                                static_cast<unsigned long long>(config.provider->number("ID")));
  StreamConnection connection;
  if (connect_unix_stream(name, config, deadline, log, connection) != Status::kOk) return log.status();
  return make_endpoint(std::move(connection), config, deadline, log, out);
}

Status SocketBackend::create_tcp(const EndpointConfig& config, Deadline deadline, ErrorLog& log,
                                 std::unique_ptr<Backend>& out) {
  StreamConnection connection;
  if (connect_tcp_stream(config, deadline, log, connection) != Status::kOk) return log.status();
  return make_endpoint(std::move(connection), config, deadline, log, out);
}

}  // namespace takyon::detail
