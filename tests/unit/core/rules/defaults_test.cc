// When a field of a resolved io spec has no effect: the one table (core/rules/defaults.cc) that
// validation, the planner, the agent's re-check and the fio import read, keyed by field number.
#include "core/rules/defaults.h"

#include <gtest/gtest.h>

namespace iofleet::rules {
namespace {

v1::IoSpec Resolved(v1::Op op, v1::Engine engine) {
  v1::IoSpec io = BuiltinIoDefaults();
  io.set_op(op);
  io.set_engine(engine);
  return io;
}

TEST(Inapplicable, EachRuleNamesItsFieldAndHoldsOnlyWhereItShould) {
  v1::IoSpec read = Resolved(v1::OP_READ, v1::ENGINE_LIBAIO);
  EXPECT_EQ(Inapplicable(read, v1::IoSpec::kReadPctFieldNumber), "read_pct applies to readwrite and randrw");
  EXPECT_EQ(Inapplicable(Resolved(v1::OP_RANDRW, v1::ENGINE_LIBAIO), v1::IoSpec::kReadPctFieldNumber), "");
  EXPECT_EQ(Inapplicable(read, v1::IoSpec::kFsyncFieldNumber), "fsync applies to steps that write");
  EXPECT_EQ(Inapplicable(Resolved(v1::OP_WRITE, v1::ENGINE_LIBAIO), v1::IoSpec::kFsyncFieldNumber), "");
  EXPECT_EQ(Inapplicable(read, v1::IoSpec::kUringFieldNumber), "uring options apply to engine: io_uring");
  EXPECT_EQ(Inapplicable(Resolved(v1::OP_READ, v1::ENGINE_IO_URING), v1::IoSpec::kUringFieldNumber), "");

  v1::IoSpec size_based = read;
  size_based.set_runtime(0);
  EXPECT_NE(Inapplicable(size_based, v1::IoSpec::kRampFieldNumber), "");
  EXPECT_EQ(Inapplicable(size_based, v1::IoSpec::kDeadlineFieldNumber), "");
  EXPECT_EQ(Inapplicable(size_based, v1::IoSpec::kStonewallFieldNumber), "");
  v1::IoSpec time_based = read;
  time_based.set_runtime(1'000'000'000);
  EXPECT_EQ(Inapplicable(time_based, v1::IoSpec::kRampFieldNumber), "");
  EXPECT_EQ(Inapplicable(time_based, v1::IoSpec::kDeadlineFieldNumber), "deadline applies to size-based steps (runtime 0)");
  EXPECT_EQ(Inapplicable(time_based, v1::IoSpec::kStonewallFieldNumber), "stonewall applies to size-based steps (runtime 0)");

  v1::IoSpec split = read;
  split.add_block_size_split()->set_size(4096);
  EXPECT_EQ(Inapplicable(split, v1::IoSpec::kBlockSizeFieldNumber), "block_size_split replaces block_size");
  EXPECT_EQ(Inapplicable(read, v1::IoSpec::kBlockSizeFieldNumber), "");
  EXPECT_EQ(Inapplicable(read, v1::IoSpec::kSharedModeFieldNumber), "shared_mode applies to file_layout: shared and shared_global");
}

// Two rules on one field: the first that holds gives the reason.
TEST(Inapplicable, BatchesApplyToAsynchronousEnginesUpToTheQueueDepth) {
  v1::IoSpec uring = Resolved(v1::OP_READ, v1::ENGINE_IO_URING);
  EXPECT_EQ(Inapplicable(uring, v1::IoSpec::kSubmitBatchFieldNumber),
            "io_uring hands staged requests to the kernel in the same system call as each wait");
  EXPECT_EQ(Inapplicable(uring, v1::IoSpec::kCompleteBatchFieldNumber), "");
  v1::IoSpec psync = Resolved(v1::OP_READ, v1::ENGINE_PSYNC);
  EXPECT_EQ(Inapplicable(psync, v1::IoSpec::kSubmitBatchFieldNumber), "submit_batch applies to asynchronous engines, up to queue_depth");
  EXPECT_EQ(Inapplicable(psync, v1::IoSpec::kCompleteBatchFieldNumber),
            "complete_batch applies to asynchronous engines, up to queue_depth");
  v1::IoSpec aio = Resolved(v1::OP_READ, v1::ENGINE_LIBAIO);
  aio.set_queue_depth(4);
  aio.set_submit_batch(4);
  EXPECT_EQ(Inapplicable(aio, v1::IoSpec::kSubmitBatchFieldNumber), "");
  aio.set_complete_batch(8);
  EXPECT_NE(Inapplicable(aio, v1::IoSpec::kSubmitBatchFieldNumber), "");
  psync.set_queue_depth(2);
  EXPECT_EQ(Inapplicable(psync, v1::IoSpec::kQueueDepthFieldNumber),
            "psync is synchronous: queue_depth above 1 needs libaio, io_uring or null");
  psync.set_queue_depth(1);
  EXPECT_EQ(Inapplicable(psync, v1::IoSpec::kQueueDepthFieldNumber), "");
  // A field no rule names always applies.
  EXPECT_EQ(Inapplicable(psync, v1::IoSpec::kFileSizeFieldNumber), "");
}

// A field that has no effect is set to its built-in default for the plan; one without a default
// (io_size) is left unset, never set to 0, which its bound would refuse at the agent.
TEST(Defaults, NeutralizingLeavesAFieldWithoutADefaultUnset) {
  v1::IoSpec io = BuiltinIoDefaults();
  io.set_op(v1::OP_READ);
  io.set_runtime(1'000'000'000);
  io.set_io_size(1 << 20);
  io.set_loops(4);
  NeutralizeInapplicable(io);
  EXPECT_FALSE(io.has_io_size());
  EXPECT_EQ(io.loops(), 1u);
}

}  // namespace
}  // namespace iofleet::rules
