// SPDX-License-Identifier: MIT
// PathCore implementation: argument validation, dispatch, state, error reporting, verbosity.
#include "path_core.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "backend_registry.hpp"

namespace takyon::detail {
namespace {

constexpr int kMaxBuffers = 1 << 16;

bool valid_timeout(double seconds) {
  return seconds == TAKYON_WAIT_FOREVER || (std::isfinite(seconds) && seconds >= 0);
}

const char* timeout_text(double seconds, char (&buffer)[32]) {
  if (seconds == TAKYON_WAIT_FOREVER) return "TAKYON_WAIT_FOREVER";
  std::snprintf(buffer, sizeof(buffer), "%g s", seconds);
  return buffer;
}

}  // namespace

PathCore::~PathCore() {
  std::free(c_.attrs.error_message);
}

std::string PathCore::headline(const char* operation, int buffer) const {
  std::string out =
      strf("%s: path '%s' endpoint %c", operation, c_.attrs.interconnect, c_.attrs.is_endpointA ? 'A' : 'B');
  if (buffer >= 0) out += strf(" buffer %d", buffer);
  return out;
}

Status PathCore::failed(const char* operation, int buffer, Status status) {
  if (status != Status::kFailedPath) failed_ = true;
  last_error_ = log_.format(headline(operation, buffer));
  if (c_.attrs.error_message != nullptr) {
    std::snprintf(c_.attrs.error_message, TAKYON_MAX_ERROR_MESSAGE_CHARS, "%s", last_error_.c_str());
  }
  if (c_.attrs.abort_on_failure) {
    std::fprintf(stderr, "Takyon error (abort_on_failure is set):\n%s\n", last_error_.c_str());
    std::fflush(stderr);
    std::abort();
  }
  if ((c_.attrs.verbosity & TAKYON_VERBOSITY_ERRORS) != 0) std::fprintf(stderr, "%s\n", last_error_.c_str());
  return status;
}

Status PathCore::reject_failed_path(const char* operation, int buffer) {
  (void)TAKYON_FAIL(log_, Status::kFailedPath, "the path failed earlier; destroy it (first error: %s)",
                    last_error_.c_str());
  return failed(operation, buffer, Status::kFailedPath);
}

Status PathCore::check_buffer(const char* operation, const char* which, int buffer, int count) {
  if (buffer >= 0 && buffer < count) return Status::kOk;
  (void)TAKYON_FAIL(log_, Status::kInvalidArgument,
                    "buffer_index %d is out of range: this endpoint has %d %s buffer%s%s", buffer, count,
                    which, count == 1 ? "" : "s", count == 0 ? "" : strf(" (0 to %d)", count - 1).c_str());
  return failed(operation, buffer, Status::kInvalidArgument);
}

Status PathCore::check_timed_out_ret(const char* operation, bool wanted, double start, double finish,
                                     const char* start_name, const char* finish_name) {
  if (wanted || (start == TAKYON_WAIT_FOREVER && finish == TAKYON_WAIT_FOREVER)) return Status::kOk;
  char a[32];
  char b[32];
  (void)TAKYON_FAIL(log_, Status::kInvalidArgument,
                    "timed_out_ret is NULL but %s is %s and %s is %s: a timeout could not be reported "
                    "(NULL is allowed only when both are TAKYON_WAIT_FOREVER)",
                    start_name, timeout_text(start, a), finish_name, timeout_text(finish, b));
  return failed(operation, -1, Status::kInvalidArgument);
}

std::unique_ptr<PathCore> PathCore::create(const TakyonPathAttributes& attrs, std::string& error,
                                           Status& status) {
  std::unique_ptr<PathCore> core(new PathCore());
  core->c_.attrs = attrs;
  core->c_.attrs.error_message = nullptr;
  core->c_.private_path = core.get();
  // Keep the provider string printable even if the caller's is not terminated.
  core->c_.attrs.interconnect[TAKYON_MAX_INTERCONNECT_CHARS - 1] = '\0';
  status = Status::kOk;
  if (core->init(attrs) != Status::kOk) {
    status = core->failed("takyonCreate", -1, core->log_.status());
    error = core->last_error_;
    return nullptr;
  }
  return core;
}

Status PathCore::init(const TakyonPathAttributes& attrs) {
  if (std::memchr(attrs.interconnect, '\0', TAKYON_MAX_INTERCONNECT_CHARS) == nullptr) {
    return TAKYON_FAIL(log_, Status::kInvalidArgument,
                       "interconnect is not NUL-terminated within TAKYON_MAX_INTERCONNECT_CHARS (%d)",
                       TAKYON_MAX_INTERCONNECT_CHARS);
  }
  if (ProviderArgs::parse(attrs.interconnect, provider_, log_) != Status::kOk) return log_.status();
  const BackendEntry* entry = find_backend(provider_.name());
  if (entry == nullptr) {
    return TAKYON_FAIL(log_, Status::kInvalidArgument,
                       "unknown provider '%s' in interconnect '%s' (known: %s)", provider_.name().c_str(),
                       attrs.interconnect, backend_names().c_str());
  }
  if (provider_.validate(entry->spec, log_) != Status::kOk) return log_.status();
  entry_ = entry;
  shares_buffers_ = entry->info.shares_buffers;

  if (attrs.nbufs_AtoB < 0 || attrs.nbufs_BtoA < 0 || attrs.nbufs_AtoB > kMaxBuffers ||
      attrs.nbufs_BtoA > kMaxBuffers) {
    return TAKYON_FAIL(log_, Status::kInvalidArgument, "nbufs_AtoB (%d) and nbufs_BtoA (%d) must be 0 to %d",
                       attrs.nbufs_AtoB, attrs.nbufs_BtoA, kMaxBuffers);
  }
  if (attrs.nbufs_AtoB == 0 && attrs.nbufs_BtoA == 0) {
    return TAKYON_FAIL(log_, Status::kInvalidArgument,
                       "nbufs_AtoB and nbufs_BtoA are both 0; one must be > 0");
  }
  // Read the enums as the integers the caller stored: an out-of-range value must be reported,
  // and loading it as the enum type would be undefined behaviour.
  int send_method = 0;
  int recv_method = 0;
  static_assert(sizeof(TakyonCompletionMethod) == sizeof(int));
  std::memcpy(&send_method, &attrs.send_completion_method, sizeof(int));
  std::memcpy(&recv_method, &attrs.recv_completion_method, sizeof(int));
  if (send_method != TAKYON_BLOCKING && send_method != TAKYON_USE_IS_SEND_FINISHED) {
    return TAKYON_FAIL(log_, Status::kInvalidArgument,
                       "send_completion_method is %d; use TAKYON_BLOCKING or TAKYON_USE_IS_SEND_FINISHED",
                       send_method);
  }
  if (recv_method != TAKYON_BLOCKING) {
    return TAKYON_FAIL(log_, Status::kInvalidArgument,
                       "recv_completion_method is %d; it must be TAKYON_BLOCKING", recv_method);
  }
  const struct {
    const char* name;
    double value;
  } timeouts[] = {{"path_create_timeout", attrs.path_create_timeout},
                  {"send_start_timeout", attrs.send_start_timeout},
                  {"send_finish_timeout", attrs.send_finish_timeout},
                  {"recv_start_timeout", attrs.recv_start_timeout},
                  {"recv_finish_timeout", attrs.recv_finish_timeout},
                  {"path_destroy_timeout", attrs.path_destroy_timeout}};
  for (const auto& t : timeouts) {
    if (!valid_timeout(t.value)) {
      return TAKYON_FAIL(log_, Status::kInvalidArgument,
                         "%s is %g; it must be >= 0 seconds or TAKYON_WAIT_FOREVER (-1)", t.name, t.value);
    }
  }

  const int nsend = attrs.is_endpointA ? attrs.nbufs_AtoB : attrs.nbufs_BtoA;
  const int nrecv = attrs.is_endpointA ? attrs.nbufs_BtoA : attrs.nbufs_AtoB;
  const char* send_count_name = attrs.is_endpointA ? "nbufs_AtoB" : "nbufs_BtoA";
  const char* recv_count_name = attrs.is_endpointA ? "nbufs_BtoA" : "nbufs_AtoB";
  const struct {
    const void* list;
    const char* name;
    const char* count_name;
    int count;
  } lists[] = {{attrs.sender_max_bytes_list, "sender_max_bytes_list", send_count_name, nsend},
               {attrs.sender_addr_list, "sender_addr_list", send_count_name, nsend},
               {attrs.recver_max_bytes_list, "recver_max_bytes_list", recv_count_name, nrecv},
               {attrs.recver_addr_list, "recver_addr_list", recv_count_name, nrecv}};
  for (const auto& l : lists) {
    if (l.count > 0 && l.list == nullptr) {
      return TAKYON_FAIL(log_, Status::kInvalidArgument,
                         "%s is NULL but endpoint %c needs %d entries (%s = %d)", l.name,
                         attrs.is_endpointA ? 'A' : 'B', l.count, l.count_name, l.count);
    }
  }

  EndpointConfig config;
  config.provider = &provider_;
  config.is_endpoint_a = attrs.is_endpointA;
  config.is_polling = attrs.is_polling;
  config.verbosity = attrs.verbosity;
  for (int i = 0; i < nsend; ++i) {
    config.send.push_back(
        {attrs.sender_max_bytes_list[i], reinterpret_cast<std::byte*>(attrs.sender_addr_list[i])});
  }
  for (int i = 0; i < nrecv; ++i) {
    config.recv.push_back(
        {attrs.recver_max_bytes_list[i], reinterpret_cast<std::byte*>(attrs.recver_addr_list[i])});
  }
  if (entry->create(config, Deadline::after(attrs.path_create_timeout), log_, backend_) != Status::kOk) {
    return log_.status();
  }

  // The path's own copy of the attributes, with the final buffer addresses.
  const BufferTable& table = backend_->buffers();
  for (int i = 0; i < nsend; ++i) {
    send_bytes_.push_back(config.send[i].bytes);
    send_addrs_.push_back(reinterpret_cast<size_t>(table.send[i]));
  }
  for (int i = 0; i < nrecv; ++i) {
    recv_bytes_.push_back(config.recv[i].bytes);
    recv_addrs_.push_back(reinterpret_cast<size_t>(table.recv[i]));
  }
  in_flight_.assign(static_cast<size_t>(nsend), 0);
  remote_recv_bytes_ = table.remote_recv_bytes;
  send_timeouts_forever_ =
      attrs.send_start_timeout == TAKYON_WAIT_FOREVER && attrs.send_finish_timeout == TAKYON_WAIT_FOREVER;
  recv_timeouts_forever_ =
      attrs.recv_start_timeout == TAKYON_WAIT_FOREVER && attrs.recv_finish_timeout == TAKYON_WAIT_FOREVER;
  blocking_send_ = send_method == TAKYON_BLOCKING;
  trace_send_recv_ = (attrs.verbosity & (TAKYON_VERBOSITY_SEND_RECV | TAKYON_VERBOSITY_SEND_RECV_MORE)) != 0;
  c_.attrs.sender_max_bytes_list = send_bytes_.empty() ? nullptr : send_bytes_.data();
  c_.attrs.sender_addr_list = send_addrs_.empty() ? nullptr : send_addrs_.data();
  c_.attrs.recver_max_bytes_list = recv_bytes_.empty() ? nullptr : recv_bytes_.data();
  c_.attrs.recver_addr_list = recv_addrs_.empty() ? nullptr : recv_addrs_.data();
  c_.attrs.error_message = static_cast<char*>(std::calloc(TAKYON_MAX_ERROR_MESSAGE_CHARS, 1));
  if (c_.attrs.error_message == nullptr)
    return TAKYON_FAIL(log_, Status::kNoMemory, "no memory for error_message");

  if ((attrs.verbosity & (TAKYON_VERBOSITY_CREATE_DESTROY | TAKYON_VERBOSITY_CREATE_DESTROY_MORE)) != 0) {
    std::printf("Takyon: created endpoint %c of '%s' (%s, %d send / %d recv buffers)\n",
                attrs.is_endpointA ? 'A' : 'B', attrs.interconnect,
                attrs.is_polling ? "polling" : "event driven", nsend, nrecv);
  }
  if ((attrs.verbosity & TAKYON_VERBOSITY_CREATE_DESTROY_MORE) != 0) {
    for (int i = 0; i < nsend; ++i) {
      std::printf("Takyon:   send buffer %d: %llu bytes at %p, peer receive buffer %llu bytes\n", i,
                  static_cast<unsigned long long>(send_bytes_[i]), static_cast<void*>(table.send[i]),
                  static_cast<unsigned long long>(table.remote_recv_bytes[i]));
    }
    for (int i = 0; i < nrecv; ++i) {
      std::printf("Takyon:   recv buffer %d: %llu bytes at %p\n", i,
                  static_cast<unsigned long long>(recv_bytes_[i]), static_cast<void*>(table.recv[i]));
    }
  }
  std::fflush(stdout);
  return Status::kOk;
}

// The cold half of send(): finds which argument is wrong and reports it precisely.
Status PathCore::reject_send(const char* kOp, int buffer, uint64_t bytes, uint64_t src_offset,
                             uint64_t dest_offset, bool timed_out_wanted) {
  const TakyonPathAttributes& a = c_.attrs;
  if (failed_) {
    return reject_failed_path(kOp, buffer);
  }
  if (check_timed_out_ret(kOp, timed_out_wanted, a.send_start_timeout, a.send_finish_timeout,
                          "send_start_timeout", "send_finish_timeout") != Status::kOk ||
      check_buffer(kOp, "send", buffer, send_count()) != Status::kOk) {
    return log_.status();
  }
  const uint64_t size = send_bytes_[buffer];
  if (src_offset > size || bytes > size - src_offset) {
    (void)TAKYON_FAIL(log_, Status::kInvalidArgument,
                      "bytes (%llu) + src_offset (%llu) exceed send buffer %d's size of %llu bytes",
                      static_cast<unsigned long long>(bytes), static_cast<unsigned long long>(src_offset),
                      buffer, static_cast<unsigned long long>(size));
    return failed(kOp, buffer, Status::kInvalidArgument);
  }
  const uint64_t remote = backend_->buffers().remote_recv_bytes[buffer];
  if (dest_offset > remote || bytes > remote - dest_offset) {
    (void)TAKYON_FAIL(log_, Status::kInvalidArgument,
                      "bytes (%llu) + dest_offset (%llu) exceed the peer's receive buffer %d of %llu bytes",
                      static_cast<unsigned long long>(bytes), static_cast<unsigned long long>(dest_offset),
                      buffer, static_cast<unsigned long long>(remote));
    return failed(kOp, buffer, Status::kInvalidArgument);
  }
  if (shares_buffers_ && src_offset != dest_offset) {
    (void)TAKYON_FAIL(
        log_, Status::kInvalidArgument,
        "src_offset (%llu) != dest_offset (%llu): %s shares one buffer between sender and receiver, so "
        "the data cannot move",
        static_cast<unsigned long long>(src_offset), static_cast<unsigned long long>(dest_offset),
        provider_.name().c_str());
    return failed(kOp, buffer, Status::kInvalidArgument);
  }
  if (in_flight_[buffer] != 0) {
    (void)TAKYON_FAIL(
        log_, Status::kInvalidArgument,
        "a non-blocking send on this buffer is still in progress; call takyonIsSendFinished() first");
    return failed(kOp, buffer, Status::kInvalidArgument);
  }
  // Not reached: send() calls this only when one of the checks above fails.
  (void)TAKYON_FAIL(log_, Status::kInvalidArgument, "rejected send with no recorded cause");
  return failed(kOp, buffer, Status::kInvalidArgument);
}

Status PathCore::send_as(const char* op, int buffer, uint64_t bytes, uint64_t src_offset,
                         uint64_t dest_offset, bool timed_out_wanted, uint32_t piggyback) {
  // One cheap test per argument on the hot path; reject_send() says which one failed and why.
  if (failed_ || (!timed_out_wanted && !send_timeouts_forever_) ||
      static_cast<unsigned>(buffer) >= static_cast<unsigned>(send_bytes_.size())) [[unlikely]] {
    return reject_send(op, buffer, bytes, src_offset, dest_offset, timed_out_wanted);
  }
  const uint64_t size = send_bytes_[buffer];
  const uint64_t remote = remote_recv_bytes_[buffer];
  if (src_offset > size || bytes > size - src_offset || dest_offset > remote ||
      bytes > remote - dest_offset || (shares_buffers_ && src_offset != dest_offset) ||
      in_flight_[buffer] != 0) [[unlikely]] {
    return reject_send(op, buffer, bytes, src_offset, dest_offset, timed_out_wanted);
  }
  // The notification must not overtake a started one-sided operation. If they are not complete
  // by send_finish_timeout, nothing was sent: a timeout the caller can take, and call again.
  if (started_ != 0) [[unlikely]] {
    const Status done = complete_started(op, buffer, finish_deadline(), timed_out_wanted);
    if (done != Status::kOk) return done;
  }
  const TakyonPathAttributes& a = c_.attrs;
  SendArgs args;
  args.buffer = buffer;
  args.bytes = bytes;
  args.src_offset = src_offset;
  args.dest_offset = dest_offset;
  args.start = Deadline::after(a.send_start_timeout);
  args.finish_timeout = a.send_finish_timeout;
  args.blocking = blocking_send_;
  args.piggyback = piggyback;
  const Status status = backend_->send(args);
  if (status < Status::kOk) [[unlikely]] {
    TAKYON_FRAME(log_, "sending %llu bytes from offset %llu to offset %llu",
                 static_cast<unsigned long long>(bytes), static_cast<unsigned long long>(src_offset),
                 static_cast<unsigned long long>(dest_offset));
    return failed(op, buffer, status);
  }
  if (status == Status::kOk && !blocking_send_) in_flight_[buffer] = 1;
  if (trace_send_recv_) [[unlikely]] {
    std::printf("Takyon: '%s' endpoint %c: send buffer %d: %llu bytes%s\n", a.interconnect,
                a.is_endpointA ? 'A' : 'B', buffer, static_cast<unsigned long long>(bytes),
                status == Status::kTimedOut ? ": timed out" : "");
    if ((a.verbosity & TAKYON_VERBOSITY_SEND_RECV_MORE) != 0) {
      std::printf("Takyon:   src_offset %llu, dest_offset %llu, %s\n",
                  static_cast<unsigned long long>(src_offset), static_cast<unsigned long long>(dest_offset),
                  blocking_send_ ? "blocking" : "non-blocking");
    }
    std::fflush(stdout);
  }
  return status;
}

Status PathCore::send(int buffer, uint64_t bytes, uint64_t src_offset, uint64_t dest_offset,
                      bool timed_out_wanted) {
  return send_as("takyonSend", buffer, bytes, src_offset, dest_offset, timed_out_wanted, 0);
}

Status PathCore::write_piggyback(int buffer, uint64_t bytes, uint64_t src_offset, uint64_t dest_offset,
                                 uint32_t piggyback, bool timed_out_wanted) {
  static constexpr const char* kOp = "takyonWritePiggyback";
  if (!failed_ && !entry_->info.piggyback) {
    (void)TAKYON_FAIL(log_, Status::kUnsupported,
                      "provider %s has no piggyback writes (its row of the provider table says piggyback "
                      "false; takyon-info lists the providers that have them)",
                      entry_->info.name);
    return failed(kOp, buffer, Status::kUnsupported);
  }
  return send_as(kOp, buffer, bytes, src_offset, dest_offset, timed_out_wanted, piggyback);
}

Status PathCore::is_send_finished(int buffer, bool timed_out_wanted, const char* api_name) {
  const TakyonPathAttributes& a = c_.attrs;
  if (failed_) {
    return reject_failed_path(api_name, buffer);
  }
  if (a.send_completion_method != TAKYON_USE_IS_SEND_FINISHED) {
    (void)TAKYON_FAIL(
        log_, Status::kInvalidArgument,
        "the path was created with send_completion_method TAKYON_BLOCKING: sends complete in takyonSend()");
    return failed(api_name, buffer, Status::kInvalidArgument);
  }
  if (check_timed_out_ret(api_name, timed_out_wanted, TAKYON_WAIT_FOREVER, a.send_finish_timeout, "(start)",
                          "send_finish_timeout") != Status::kOk ||
      check_buffer(api_name, "send", buffer, send_count()) != Status::kOk) {
    return log_.status();
  }
  if (in_flight_[buffer] == 0) {
    (void)TAKYON_FAIL(log_, Status::kInvalidArgument, "no non-blocking send was started on this buffer");
    return failed(api_name, buffer, Status::kInvalidArgument);
  }
  const Status status = backend_->is_send_finished(buffer, Deadline::after(a.send_finish_timeout));
  if (status < Status::kOk) return failed(api_name, buffer, status);
  if (status == Status::kOk) in_flight_[buffer] = 0;
  return status;
}

Status PathCore::one_sided(const char* operation, int buffer, uint64_t bytes, uint64_t remote_offset,
                           bool local, uint64_t local_offset, bool start, std::byte*& remote) {
  if (failed_) return reject_failed_path(operation, buffer);
  if (!entry_->info.one_sided) {
    (void)TAKYON_FAIL(log_, Status::kUnsupported,
                      "provider %s has no one-sided operations (its row of the provider table says one_sided "
                      "false; takyon-info lists the providers that have them)",
                      entry_->info.name);
    return failed(operation, buffer, Status::kUnsupported);
  }
  if (check_buffer(operation, "send", buffer, send_count()) != Status::kOk) return log_.status();
  const uint64_t peer_size = remote_recv_bytes_[buffer];
  if (remote_offset > peer_size || bytes > peer_size - remote_offset) {
    (void)TAKYON_FAIL(
        log_, Status::kInvalidArgument,
        "bytes (%llu) + the peer's offset (%llu) exceed the peer's receive buffer %d of %llu bytes",
        static_cast<unsigned long long>(bytes), static_cast<unsigned long long>(remote_offset), buffer,
        static_cast<unsigned long long>(peer_size));
    return failed(operation, buffer, Status::kInvalidArgument);
  }
  const uint64_t size = send_bytes_[buffer];
  if (local && (local_offset > size || bytes > size - local_offset)) {
    (void)TAKYON_FAIL(log_, Status::kInvalidArgument,
                      "bytes (%llu) + the local offset (%llu) exceed send buffer %d of %llu bytes",
                      static_cast<unsigned long long>(bytes), static_cast<unsigned long long>(local_offset),
                      buffer, static_cast<unsigned long long>(size));
    return failed(operation, buffer, Status::kInvalidArgument);
  }
  // The peer's buffer stays mapped after it leaves: ask whether it is still there (its process,
  // a system call, every 1024th operation).
  const Status peer = backend_->check_peer((one_sided_ops_++ & 1023) == 0);
  if (peer < Status::kOk) return failed(operation, buffer, peer);
  if (started_ != 0 && (!start || started_ >= kMaxStartedOneSided)) [[unlikely]] {
    if (complete_started(operation, buffer, finish_deadline(), false) != Status::kOk) return log_.status();
  }
  remote = backend_->peer_recv_memory(buffer);  // nullptr: the backend carries the operation
  return Status::kOk;
}

Status PathCore::complete_started(const char* operation, int buffer, Deadline deadline, bool may_time_out) {
  const Status status = backend_->remote_finish(deadline);
  if (status == Status::kOk) {
    started_ = 0;
    return status;
  }
  if (status == Status::kTimedOut && may_time_out) return status;
  if (status == Status::kTimedOut) {
    (void)TAKYON_FAIL(log_, Status::kTimeout,
                      "the %u one-sided operation%s started earlier did not complete within "
                      "send_finish_timeout, and this call must follow them",
                      started_, started_ == 1 ? "" : "s");
    return failed(operation, buffer, Status::kTimeout);
  }
  return failed(operation, buffer, status);
}

Status PathCore::is_one_sided_finished(bool timed_out_wanted) {
  static constexpr const char* kOp = "takyonIsOneSidedFinished";
  const TakyonPathAttributes& a = c_.attrs;
  if (failed_) return reject_failed_path(kOp, -1);
  if (!entry_->info.one_sided) {
    (void)TAKYON_FAIL(log_, Status::kUnsupported,
                      "provider %s has no one-sided operations (its row of the provider table says one_sided "
                      "false; takyon-info lists the providers that have them)",
                      entry_->info.name);
    return failed(kOp, -1, Status::kUnsupported);
  }
  if (check_timed_out_ret(kOp, timed_out_wanted, TAKYON_WAIT_FOREVER, a.send_finish_timeout, "(start)",
                          "send_finish_timeout") != Status::kOk) {
    return log_.status();
  }
  if (started_ == 0) return Status::kOk;  // none, or the provider did each one as it started
  const Status status = backend_->remote_finish(finish_deadline());
  if (status == Status::kOk) started_ = 0;
  if (status < Status::kOk) return failed(kOp, -1, status);
  return status;
}

Status PathCore::carry(const char* operation, const RemoteArgs& args) {
  const Status status = backend_->remote(args);
  if (status == Status::kOk) {
    if (args.start_only) ++started_;
    return status;
  }
  if (status == Status::kUnsupported && log_.cause().empty()) {
    (void)TAKYON_FAIL(log_, Status::kUnsupported, "the peer's receive buffer %d is not mapped here",
                      args.buffer);
  }
  return failed(operation, args.buffer, status < Status::kOk ? status : Status::kTimeout);
}

Status PathCore::write(int buffer, uint64_t bytes, uint64_t src_offset, uint64_t dest_offset, bool start) {
  const char* kOp = start ? "takyonWriteStart" : "takyonWrite";
  std::byte* remote = nullptr;
  const Status status = one_sided(kOp, buffer, bytes, dest_offset, true, src_offset, start, remote);
  if (status != Status::kOk) return status;
  if (remote == nullptr) {
    RemoteArgs args{.op = RemoteOp::kWrite,
                    .buffer = buffer,
                    .bytes = bytes,
                    .local_offset = src_offset,
                    .remote_offset = dest_offset,
                    .finish = finish_deadline(),
                    .start_only = start};
    return carry(kOp, args);
  }
  // memmove: where the provider shares buffers, both sides' buffer is one memory.
  std::memmove(remote + dest_offset, backend_->buffers().send[buffer] + src_offset, bytes);
  std::atomic_thread_fence(std::memory_order_release);
  return Status::kOk;
}

Status PathCore::read(int buffer, uint64_t bytes, uint64_t local_offset, uint64_t remote_offset, bool start) {
  const char* kOp = start ? "takyonReadStart" : "takyonRead";
  std::byte* remote = nullptr;
  const Status status = one_sided(kOp, buffer, bytes, remote_offset, true, local_offset, start, remote);
  if (status != Status::kOk) return status;
  if (remote == nullptr) {
    RemoteArgs args{.op = RemoteOp::kRead,
                    .buffer = buffer,
                    .bytes = bytes,
                    .local_offset = local_offset,
                    .remote_offset = remote_offset,
                    .finish = finish_deadline(),
                    .start_only = start};
    return carry(kOp, args);
  }
  std::atomic_thread_fence(std::memory_order_acquire);
  std::memmove(backend_->buffers().send[buffer] + local_offset, remote + remote_offset, bytes);
  return Status::kOk;
}

Status PathCore::atomic_word(const char* operation, int buffer, uint64_t offset, bool start,
                             uint64_t*& word) {
  std::byte* remote = nullptr;
  const Status status = one_sided(operation, buffer, 8, offset, false, 0, start, remote);
  if (status != Status::kOk) return status;
  // Where the peer's buffer is not mapped here, the offset must be aligned (the backend checks the
  // address itself, which only the peer may know).
  if ((reinterpret_cast<std::uintptr_t>(remote) + offset) % 8 != 0) {
    (void)TAKYON_FAIL(log_, Status::kInvalidArgument,
                      "offset %llu of the peer's receive buffer %d is not 8-byte aligned (a 64-bit atomic)",
                      static_cast<unsigned long long>(offset), buffer);
    return failed(operation, buffer, Status::kInvalidArgument);
  }
  word = remote == nullptr ? nullptr : reinterpret_cast<uint64_t*>(remote + offset);
  return Status::kOk;
}

Status PathCore::fetch_add(int buffer, uint64_t offset, uint64_t add, uint64_t* old, bool start) {
  const char* kOp = start ? "takyonAtomicFetchAddStart" : "takyonAtomicFetchAdd";
  uint64_t* word = nullptr;
  const Status status = atomic_word(kOp, buffer, offset, start, word);
  if (status != Status::kOk) return status;
  uint64_t previous = 0;
  if (word == nullptr) {
    RemoteArgs args{.op = RemoteOp::kFetchAdd,
                    .buffer = buffer,
                    .bytes = 8,
                    .remote_offset = offset,
                    .operand = add,
                    .result = start ? old : &previous,  // started: written when it completes
                    .finish = finish_deadline(),
                    .start_only = start};
    const Status carried = carry(kOp, args);
    if (carried != Status::kOk || start) return carried;
  } else {
    previous = std::atomic_ref<uint64_t>(*word).fetch_add(add, std::memory_order_seq_cst);
  }
  if (old != nullptr) *old = previous;
  return Status::kOk;
}

Status PathCore::compare_swap(int buffer, uint64_t offset, uint64_t compare, uint64_t swap, uint64_t* old,
                              bool start) {
  const char* kOp = start ? "takyonAtomicCompareSwapStart" : "takyonAtomicCompareSwap";
  uint64_t* word = nullptr;
  const Status status = atomic_word(kOp, buffer, offset, start, word);
  if (status != Status::kOk) return status;
  uint64_t expected = compare;
  if (word == nullptr) {
    RemoteArgs args{.op = RemoteOp::kCompareSwap,
                    .buffer = buffer,
                    .bytes = 8,
                    .remote_offset = offset,
                    .operand = swap,
                    .compare = compare,
                    .result = start ? old : &expected,  // started: written when it completes
                    .finish = finish_deadline(),
                    .start_only = start};
    const Status carried = carry(kOp, args);
    if (carried != Status::kOk || start) return carried;
  } else {
    std::atomic_ref<uint64_t>(*word).compare_exchange_strong(expected, swap, std::memory_order_seq_cst);
  }
  if (old != nullptr) *old = expected;  // the value found (equal to compare when it swapped)
  return Status::kOk;
}

Status PathCore::recv(int buffer, uint64_t* bytes, uint64_t* offset, bool timed_out_wanted,
                      uint32_t* piggyback, const char* kOp) {
  if (failed_ || (!timed_out_wanted && !recv_timeouts_forever_) ||
      static_cast<unsigned>(buffer) >= static_cast<unsigned>(recv_bytes_.size())) [[unlikely]] {
    const TakyonPathAttributes& a = c_.attrs;
    if (failed_) {
      return reject_failed_path(kOp, buffer);
    }
    if (check_timed_out_ret(kOp, timed_out_wanted, a.recv_start_timeout, a.recv_finish_timeout,
                            "recv_start_timeout", "recv_finish_timeout") != Status::kOk) {
      return log_.status();
    }
    return check_buffer(kOp, "receive", buffer, recv_count());
  }
  const TakyonPathAttributes& a = c_.attrs;
  RecvResult result;
  const Status status =
      backend_->recv(buffer, Deadline::after(a.recv_start_timeout), a.recv_finish_timeout, result);
  if (status < Status::kOk) [[unlikely]]
    return failed(kOp, buffer, status);
  if (status == Status::kOk) {
    if (bytes != nullptr) *bytes = result.bytes;
    if (offset != nullptr) *offset = result.offset;
    if (piggyback != nullptr) *piggyback = result.piggyback;
  }
  if (trace_send_recv_) [[unlikely]] {
    if (status == Status::kOk) {
      std::printf("Takyon: '%s' endpoint %c: recv buffer %d: %llu bytes at offset %llu\n", a.interconnect,
                  a.is_endpointA ? 'A' : 'B', buffer, static_cast<unsigned long long>(result.bytes),
                  static_cast<unsigned long long>(result.offset));
    } else {
      std::printf("Takyon: '%s' endpoint %c: recv buffer %d: timed out\n", a.interconnect,
                  a.is_endpointA ? 'A' : 'B', buffer);
    }
    std::fflush(stdout);
  }
  return status;
}

void PathCore::capabilities(TakyonPathCapabilities& out) const {
  const TakyonProviderInfo& row = entry_->info;
  uint64_t largest = 0;  // the largest transfer any buffer pair allows
  for (size_t i = 0; i < send_bytes_.size(); ++i)
    largest = std::max(largest, std::min(send_bytes_[i], remote_recv_bytes_[i]));
  out = TakyonPathCapabilities{};
  out.sends = row.sends && !send_bytes_.empty();
  out.receives = row.receives && !recv_bytes_.empty();
  out.write = row.one_sided && out.sends;
  out.read = row.one_sided && out.sends;
  out.piggyback = row.piggyback && out.sends;
  out.atomics = row.one_sided && out.sends;
  out.unreliable = !row.reliable;
  out.zero_byte = row.zero_byte;
  out.one_sided_needs_peer_call = out.write && backend_ != nullptr && backend_->remote_needs_peer_call();
  out.max_message_bytes =
      row.max_message_bytes == 0 ? largest : std::min<uint64_t>(largest, row.max_message_bytes);
  out.max_one_sided_bytes = out.write ? largest : 0;
}

std::string PathCore::destroy() {
  // Started one-sided operations complete first; if they cannot, the destroy is forced.
  const bool started_failed =
      !failed_ && started_ != 0 &&
      complete_started("takyonDestroy", -1, Deadline::after(c_.attrs.path_destroy_timeout), false) !=
          Status::kOk;
  const bool graceful = !failed_;
  const Status status = backend_->destroy(graceful, Deadline::after(c_.attrs.path_destroy_timeout));
  if ((c_.attrs.verbosity & (TAKYON_VERBOSITY_CREATE_DESTROY | TAKYON_VERBOSITY_CREATE_DESTROY_MORE)) != 0) {
    std::printf("Takyon: destroyed endpoint %c of '%s' (%s)\n", c_.attrs.is_endpointA ? 'A' : 'B',
                c_.attrs.interconnect, graceful ? "graceful" : "forced after an error");
    std::fflush(stdout);
  }
  backend_.reset();
  if (started_failed) return last_error_;
  if (status < Status::kOk) {
    (void)failed("takyonDestroy", -1, status);
    return last_error_;
  }
  return {};
}

}  // namespace takyon::detail
