// A checkpoint's state between ranks (kWorkerState, kResumeState): what one rank encodes the
// other decodes whole; anything else is refused naming the sender.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <fmt/format.h>

#include "mpi/wire/message_error.h"
#include "mpi/wire/state_bytes.h"

namespace hetps::mpi {
namespace {

using ::testing::HasSubstr;

TEST(StateBytesTest, AStateComesBackWholeWithItsByteStrings) {
  const nlohmann::json state = {
      {"pushes", 12}, {"delays", {{"step", 0.25}}}, {"floats", nlohmann::json::binary({1, 2, 3})}};
  EXPECT_EQ(decode_state(encode_state(state), 4), state);
}

void expect_refused(const std::vector<char>& bytes, const std::string& expected) {
  try {
    decode_state(bytes, 4);
    FAIL() << "bytes that are not one CBOR object must be refused";
  } catch (const MessageError& error) {
    EXPECT_EQ(error.sender(), 4);
    EXPECT_THAT(error.what(), HasSubstr(expected));
  }
}

TEST(StateBytesTest, BytesThatAreNotOneCborObjectAreRefusedNamingTheSender) {
  std::vector<char> truncated = encode_state({{"pushes", 12}, {"name", "worker 3"}});
  truncated.pop_back();
  expect_refused(truncated, fmt::format("rank 4 sent a state of {} bytes", truncated.size()));
  std::vector<char> trailing = encode_state({{"pushes", 12}});
  trailing.push_back('\0');
  expect_refused(trailing, "not one CBOR object");
  expect_refused(encode_state(nlohmann::json::array({1, 2})), "not one CBOR object");
  expect_refused({}, "a state of 0 bytes");
  // An array announcing more entries than any memory holds (found by fuzz/mpi_messages.cpp).
  expect_refused({'\x9b', '\x7f', '\x7f', '\x7f', '\x7f', '\x7f', '\x7f', '\x7f', '\x7f'},
                 "a state of 9 bytes");
  // A key that is not UTF-8 (found by fuzz/mpi_messages.cpp: dump() threw on it).
  expect_refused(encode_state({{"gg\xff", 1}}), "not one CBOR object: text that is not UTF-8");
  expect_refused(encode_state({{"name", {"worker", "\xe0g"}}}), "text that is not UTF-8");
  // Arrays nested 5000 deep: a reader that descends into each overflows its stack (found by
  // fuzz/mpi_messages.cpp).
  expect_refused(std::vector<char>(5000, '\x81'), "nested deeper than");
  expect_refused(encode_state(nlohmann::json::array({1, 2})), "it holds a array");
}

}  // namespace
}  // namespace hetps::mpi
