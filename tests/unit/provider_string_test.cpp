// SPDX-License-Identifier: MIT
// Provider-string parser: accepted forms and the exact complaint for each malformed one.
#include <gtest/gtest.h>

#include "provider_string.hpp"

namespace takyon::detail {
namespace {

constexpr std::string_view kFlags[] = {"server", "client", "reuse"};
constexpr KeySpec kKeys[] = {
    {"ID", ValueKind::kUint32, true}, {"port", ValueKind::kUint16, false}, {"IP", ValueKind::kText, false}};
constexpr ProviderSpec kSpec{kFlags, kKeys};

// Parses and validates; returns "" on success or the cause text.
std::string complaint(std::string_view text) {
  ErrorLog log;
  ProviderArgs args;
  if (ProviderArgs::parse(text, args, log) != Status::kOk || args.validate(kSpec, log) != Status::kOk) {
    EXPECT_EQ(log.status(), Status::kInvalidArgument);
    return log.format("parse");
  }
  return "";
}

TEST(ProviderString, AcceptsFlagsKeysAndExtraSpaces) {
  ErrorLog log;
  ProviderArgs args;
  ASSERT_EQ(ProviderArgs::parse("  Socket   -server -IP=127.0.0.1  -port=12345 -ID=7 -reuse ", args, log),
            Status::kOk);
  ASSERT_EQ(args.validate(kSpec, log), Status::kOk);
  EXPECT_EQ(args.name(), "Socket");
  EXPECT_TRUE(args.has_flag("server"));
  EXPECT_TRUE(args.has_flag("reuse"));
  EXPECT_FALSE(args.has_flag("client"));
  EXPECT_EQ(args.value("IP"), "127.0.0.1");
  EXPECT_EQ(args.number("port"), 12345u);
  EXPECT_EQ(args.number("ID"), 7u);
  EXPECT_EQ(args.number("ID"), 7u);
}

TEST(ProviderString, NamesEachSyntaxError) {
  EXPECT_NE(complaint("").find("empty"), std::string::npos);
  EXPECT_NE(complaint("   ").find("empty"), std::string::npos);
  EXPECT_NE(complaint("-ID=3 Socket").find("provider name comes first"), std::string::npos);
  EXPECT_NE(complaint("Socket ID=3").find("unexpected token 'ID=3'"), std::string::npos);
  EXPECT_NE(complaint("Socket -").find("unexpected token '-'"), std::string::npos);
  EXPECT_NE(complaint("Socket -=4").find("no name before '='"), std::string::npos);
  EXPECT_NE(complaint("Socket -ID=").find("'-ID=' has no value"), std::string::npos);
  EXPECT_NE(complaint("Socket -ID=1 -ID=2").find("'-ID' is given twice"), std::string::npos);
  EXPECT_NE(complaint("Socket -ID=1 -reuse -reuse").find("'-reuse' is given twice"), std::string::npos);
}

TEST(ProviderString, NamesEachValidationError) {
  EXPECT_NE(complaint("Socket -server").find("needs -ID=<number>"), std::string::npos);
  EXPECT_NE(complaint("Socket -ID=1 -bogus").find("unknown option '-bogus'"), std::string::npos);
  EXPECT_NE(complaint("Socket -ID=1 -color=red").find("unknown option '-color'"), std::string::npos);
  EXPECT_NE(complaint("Socket -ID").find("'-ID' needs a value"), std::string::npos);
  EXPECT_NE(complaint("Socket -ID=1 -reuse=yes").find("flag '-reuse' takes no value"), std::string::npos);
  EXPECT_NE(complaint("Socket -ID=abc").find("-ID=abc is not a non-negative integer"), std::string::npos);
  EXPECT_NE(complaint("Socket -ID=-1").find("-ID=-1 is not a non-negative integer"), std::string::npos);
  EXPECT_NE(complaint("Socket -ID=12x").find("-ID=12x is not a non-negative integer"), std::string::npos);
  EXPECT_NE(complaint("Socket -ID=4294967296").find("out of range (0 to 4294967295)"), std::string::npos);
  EXPECT_NE(complaint("Socket -ID=99999999999999999999999").find("out of range"), std::string::npos);
  EXPECT_NE(complaint("Socket -ID=1 -port=65536").find("-port=65536 is out of range (0 to 65535)"),
            std::string::npos);
  EXPECT_EQ(complaint("Socket -ID=4294967295 -port=65535"), "");
}

TEST(ProviderString, UnknownOptionMessageListsWhatIsAccepted) {
  const std::string text = complaint("Socket -ID=1 -servr");
  EXPECT_NE(text.find("-server, -client, -reuse"), std::string::npos) << text;
  EXPECT_NE(text.find("-ID=<number>"), std::string::npos) << text;
}

}  // namespace
}  // namespace takyon::detail
