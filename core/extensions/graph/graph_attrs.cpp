// SPDX-License-Identifier: MIT
// Parsing of the per-path attribute values ("<A value>, <B value>") into an EndpointSpec.
#include "extensions/graph/graph_attrs.hpp"

#include <charconv>
#include <cmath>
#include <string>

#include "extensions/graph/graph_text.hpp"

namespace takyon::detail::graph {

const std::array<std::string_view, kKeyCount> kKeyNames = {"IsPolling",
                                                           "AbortOnFailure",
                                                           "Verbosity",
                                                           "PathCreateTimeout",
                                                           "SendStartTimeout",
                                                           "SendFinishTimeout",
                                                           "RecvStartTimeout",
                                                           "RecvFinishTimeout",
                                                           "PathDestroyTimeout",
                                                           "SendCompletionMethod",
                                                           "RecvCompletionMethod",
                                                           "NBufsAtoB",
                                                           "NBufsBtoA",
                                                           "SenderMaxBytesList",
                                                           "RecverMaxBytesList",
                                                           "SenderAddrList",
                                                           "RecverAddrList"};

namespace {

struct VerbosityFlag {
  std::string_view name;
  uint64_t value;
};
constexpr VerbosityFlag kVerbosityFlags[] = {
    {"TAKYON_VERBOSITY_NONE", TAKYON_VERBOSITY_NONE},
    {"TAKYON_VERBOSITY_ERRORS", TAKYON_VERBOSITY_ERRORS},
    {"TAKYON_VERBOSITY_CREATE_DESTROY", TAKYON_VERBOSITY_CREATE_DESTROY},
    {"TAKYON_VERBOSITY_CREATE_DESTROY_MORE", TAKYON_VERBOSITY_CREATE_DESTROY_MORE},
    {"TAKYON_VERBOSITY_CREATE_DESTROY_DETAILS", TAKYON_VERBOSITY_CREATE_DESTROY_MORE},
    {"TAKYON_VERBOSITY_SEND_RECV", TAKYON_VERBOSITY_SEND_RECV},
    {"TAKYON_VERBOSITY_SEND_RECV_MORE", TAKYON_VERBOSITY_SEND_RECV_MORE},
    {"TAKYON_VERBOSITY_SEND_RECV_DETAILS", TAKYON_VERBOSITY_SEND_RECV_MORE},
};
constexpr uint64_t kAllVerbosity = 0x1f;

// Names the value being parsed in messages: "path 3: Verbosity for endpoint A".
struct Context {
  std::string_view who;
  Key key;
  int side;
  int line;
  [[noreturn]] void fail(const std::string& what) const {
    fail_at(line, std::string(who) + ": " + std::string(kKeyNames[static_cast<size_t>(key)]) +
                      " for endpoint " + (side == 0 ? "A" : "B") + ": " + what);
  }
};

bool parse_bool(const Context& ctx, std::string_view text) {
  if (text == "true") return true;
  if (text == "false") return false;
  ctx.fail(quote(text) + " is not a boolean (expected true or false)");
}

uint64_t parse_verbosity(const Context& ctx, std::string_view text) {
  uint64_t flags = 0;
  size_t start = 0;
  while (true) {
    const size_t bar = text.find('|', start);
    const std::string_view token =
        trim(text.substr(start, bar == std::string_view::npos ? bar : bar - start));
    if (token.empty())
      ctx.fail("empty flag in " + quote(text) + " (expected flag names joined by '|', or a number)");
    bool known = false;
    for (const VerbosityFlag& flag : kVerbosityFlags) {
      if (flag.name == token) {
        flags |= flag.value;
        known = true;
      }
    }
    if (!known) {
      const auto number = parse_uint(token, UINT64_MAX);
      if (!number) {
        ctx.fail("unknown flag " + quote(token) +
                 " (expected TAKYON_VERBOSITY_* names joined by '|', or a number)");
      }
      if ((*number & ~kAllVerbosity) != 0)
        ctx.fail(quote(token) + " has bits no TAKYON_VERBOSITY_* flag defines");
      flags |= *number;
    }
    if (bar == std::string_view::npos) break;
    start = bar + 1;
  }
  return flags;
}

double parse_timeout(const Context& ctx, std::string_view text) {
  if (text == "TAKYON_WAIT_FOREVER") return TAKYON_WAIT_FOREVER;
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  const bool plain = !text.empty() && ((text[0] >= '0' && text[0] <= '9') || text[0] == '.');
  if (!plain || ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) {
    ctx.fail(quote(text) + " is not a timeout (expected seconds >= 0 or TAKYON_WAIT_FOREVER)");
  }
  if (value > kMaxTimeoutSeconds) ctx.fail(quote(text) + " is over 1e9 seconds (use TAKYON_WAIT_FOREVER)");
  return value;
}

TakyonCompletionMethod parse_send_method(const Context& ctx, std::string_view text) {
  if (text == "TAKYON_BLOCKING") return TAKYON_BLOCKING;
  if (text == "TAKYON_USE_IS_SEND_FINISHED" || text == "TAKYON_IS_SEND_FINISHED")
    return TAKYON_USE_IS_SEND_FINISHED;
  ctx.fail(quote(text) +
           " is not a completion method (expected TAKYON_BLOCKING or TAKYON_USE_IS_SEND_FINISHED)");
}

TakyonCompletionMethod parse_recv_method(const Context& ctx, std::string_view text) {
  if (text == "TAKYON_BLOCKING") return TAKYON_BLOCKING;
  ctx.fail(quote(text) + " is not supported (receives complete with TAKYON_BLOCKING only)");
}

int parse_nbufs(const Context& ctx, std::string_view text) {
  const auto value = parse_uint(text, static_cast<uint64_t>(kMaxNBufs));
  if (!value)
    ctx.fail(quote(text) + " is not a buffer count (expected an integer 0.." + std::to_string(kMaxNBufs) +
             ")");
  return static_cast<int>(*value);
}

std::vector<std::string_view> list_words(const Context& ctx, std::string_view text) {
  if (text == "-") return {};
  std::vector<std::string_view> words = split_words(text);
  if (words.empty()) ctx.fail("empty list (write '-' for a list with no entries)");
  if (words.size() > static_cast<size_t>(kMaxNBufs)) {
    ctx.fail("more than " + std::to_string(kMaxNBufs) + " entries");
  }
  return words;
}

std::vector<uint64_t> parse_bytes_list(const Context& ctx, std::string_view text) {
  std::vector<uint64_t> out;
  for (std::string_view word : list_words(ctx, text)) {
    const auto value = parse_uint(word, kMaxBytes);
    if (!value) {
      ctx.fail(quote(word) + " is not a byte count (expected integers 0..2^40 separated by spaces, or '-')");
    }
    out.push_back(*value);
  }
  return out;
}

std::vector<AddrEntry> parse_addr_list(const Context& ctx, std::string_view text) {
  std::vector<AddrEntry> out;
  for (std::string_view word : list_words(ctx, text)) {
    AddrEntry entry;
    if (word != "NULL") {
      const size_t colon = word.rfind(':');
      const auto offset =
          colon == std::string_view::npos ? std::nullopt : parse_uint(word.substr(colon + 1), kMaxBytes);
      if (!offset || !is_name(word.substr(0, colon))) {
        ctx.fail(quote(word) + " is not an address (expected NULL or <buffer>:<offset>)");
      }
      entry.is_null = false;
      entry.buffer = std::string(word.substr(0, colon));
      entry.offset = *offset;
    }
    out.push_back(std::move(entry));
  }
  return out;
}

}  // namespace

std::optional<Key> find_key(std::string_view name) {
  for (size_t i = 0; i < kKeyCount; ++i) {
    if (kKeyNames[i] == name) return static_cast<Key>(i);
  }
  return std::nullopt;
}

void split_pair(std::string_view value, int line, std::string_view who, std::string_view key_name,
                RawSetting& raw) {
  const size_t comma = value.find(',');
  const std::string_view a = trim(value.substr(0, comma));
  const std::string_view b =
      comma == std::string_view::npos ? std::string_view() : trim(value.substr(comma + 1));
  if (comma == std::string_view::npos || value.find(',', comma + 1) != std::string_view::npos || a.empty() ||
      b.empty()) {
    fail_at(line, std::string(who) + ": " + std::string(key_name) + ": expected " +
                      "'<endpoint A value>, <endpoint B value>', found " + quote(value));
  }
  raw.given = true;
  raw.a = std::string(a);
  raw.b = std::string(b);
  raw.line = line;
}

void apply_settings(const RawSettings& raw, int side, std::string_view who, EndpointSpec& spec) {
  for (size_t i = 0; i < kKeyCount; ++i) {
    if (!raw[i].given) continue;
    const Key key = static_cast<Key>(i);
    const Context ctx{who, key, side, raw[i].line};
    const std::string_view text = side == 0 ? raw[i].a : raw[i].b;
    switch (key) {
      case Key::kIsPolling:
        spec.is_polling = parse_bool(ctx, text);
        break;
      case Key::kAbortOnFailure:
        spec.abort_on_failure = parse_bool(ctx, text);
        break;
      case Key::kVerbosity:
        spec.verbosity = parse_verbosity(ctx, text);
        break;
      case Key::kPathCreateTimeout:
      case Key::kSendStartTimeout:
      case Key::kSendFinishTimeout:
      case Key::kRecvStartTimeout:
      case Key::kRecvFinishTimeout:
      case Key::kPathDestroyTimeout:
        spec.timeouts[i - static_cast<size_t>(Key::kPathCreateTimeout)] = parse_timeout(ctx, text);
        break;
      case Key::kSendCompletionMethod:
        spec.send_completion = parse_send_method(ctx, text);
        break;
      case Key::kRecvCompletionMethod:
        spec.recv_completion = parse_recv_method(ctx, text);
        break;
      case Key::kNBufsAtoB:
        spec.nbufs_AtoB = parse_nbufs(ctx, text);
        break;
      case Key::kNBufsBtoA:
        spec.nbufs_BtoA = parse_nbufs(ctx, text);
        break;
      case Key::kSenderMaxBytesList:
        spec.sender_max_bytes = parse_bytes_list(ctx, text);
        break;
      case Key::kRecverMaxBytesList:
        spec.recver_max_bytes = parse_bytes_list(ctx, text);
        break;
      case Key::kSenderAddrList:
        spec.sender_addrs = parse_addr_list(ctx, text);
        break;
      case Key::kRecverAddrList:
        spec.recver_addrs = parse_addr_list(ctx, text);
        break;
      case Key::kCount:
        break;
    }
  }
}

}  // namespace takyon::detail::graph
