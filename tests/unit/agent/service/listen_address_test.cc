#include "agent/service/listen_address.h"

#include <gtest/gtest.h>

namespace iofleet::agent {
namespace {

TEST(ListenAddress, LoopbackAndUnixOnly) {
  EXPECT_TRUE(IsLoopbackOrUnix("127.0.0.1:7070"));
  EXPECT_TRUE(IsLoopbackOrUnix("127.9.9.9:7070"));
  EXPECT_TRUE(IsLoopbackOrUnix("localhost:7070"));
  EXPECT_TRUE(IsLoopbackOrUnix("[::1]:7070"));
  EXPECT_TRUE(IsLoopbackOrUnix("unix:/run/iofleet.sock"));
  EXPECT_FALSE(IsLoopbackOrUnix("0.0.0.0:7070"));
  EXPECT_FALSE(IsLoopbackOrUnix("[::]:7070"));
  EXPECT_FALSE(IsLoopbackOrUnix("10.0.0.1:7070"));
  EXPECT_FALSE(IsLoopbackOrUnix("node1:7070"));
  EXPECT_FALSE(IsLoopbackOrUnix("unix:"));
  EXPECT_FALSE(IsLoopbackOrUnix("127.0.0.1"));
}

}  // namespace
}  // namespace iofleet::agent
