// An agent attacked with a raw gRPC client: whatever a Prepare
// holds, the agent answers INVALID_ARGUMENT without crashing, hanging or leaving files, and stays
// ready for the next run; commands without the run's session token change nothing.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <functional>

#include "core/rules/defaults.h"
#include "iofleet/v1/agent.grpc.pb.h"
#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

namespace iofleet::testing {
namespace {

namespace fs = std::filesystem;

v1::PrepareRequest ValidRequest(const std::string& run) {
  v1::PrepareRequest request;
  request.set_run_id(run);
  request.set_agent_name("node01");
  v1::PlannedStep* step = request.add_steps();
  step->set_name("read");
  v1::IoSpec io = rules::BuiltinIoDefaults();
  io.set_op(v1::OP_RANDREAD);
  io.set_engine(v1::ENGINE_NULL);
  io.set_block_size(4096);
  io.set_file_size(1 << 20);
  io.set_runtime(1'000'000'000);
  *step->mutable_io() = io;
  return request;
}

grpc::Status Prepare(v1::Agent::Stub& stub, const v1::PrepareRequest& request, v1::PrepareResponse* response = nullptr) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  v1::PrepareResponse ignored;
  return stub.Prepare(&context, request, response ? response : &ignored);
}

TEST(WireAttack, MalformedPlansAreRefusedAndTheAgentStaysReady) {
  TempDir tmp;
  AgentProcess agent(tmp / "root", "node01", tmp / "logs");
  auto stub = v1::Agent::NewStub(grpc::CreateChannel(agent.address(), grpc::InsecureChannelCredentials()));
  std::vector<std::pair<std::string, std::function<void(v1::PrepareRequest&)>>> attacks = {
      {"block_size 0", [](auto& r) { r.mutable_steps(0)->mutable_io()->set_block_size(0); }},
      {"queue_depth 0", [](auto& r) { r.mutable_steps(0)->mutable_io()->set_queue_depth(0); }},
      {"psync queue_depth 4294967295", [](auto& r) {
         r.mutable_steps(0)->mutable_io()->set_engine(v1::ENGINE_PSYNC);
         r.mutable_steps(0)->mutable_io()->set_queue_depth(4294967295u);
       }},
      {"100000 jobs", [](auto& r) { r.mutable_steps(0)->mutable_io()->set_jobs(100000); }},
      {"read_pct 255", [](auto& r) {
         r.mutable_steps(0)->mutable_io()->set_op(v1::OP_RANDRW);
         r.mutable_steps(0)->mutable_io()->set_read_pct(255);
       }},
      {"op 77", [](auto& r) { r.mutable_steps(0)->mutable_io()->set_op(static_cast<v1::Op>(77)); }},
      {"no steps", [](auto& r) { r.clear_steps(); }},
      {"NUL in target.dir", [](auto& r) { r.mutable_target()->set_dir(std::string("a\0b", 3)); }},
      {"run id with a slash", [](auto& r) { r.set_run_id("../x"); }},
      {"job range without a block", [](auto& r) {
         r.mutable_steps(0)->mutable_io()->set_file_layout(v1::FILE_LAYOUT_SHARED);
         r.mutable_steps(0)->mutable_io()->set_jobs(2);
         r.mutable_steps(0)->mutable_io()->set_block_size(1 << 20);
         r.mutable_steps(0)->mutable_io()->set_file_size(64 << 10);
       }},
      {"2 jobs x 8388608 TiB", [](auto& r) {
         r.mutable_steps(0)->mutable_io()->set_jobs(2);
         r.mutable_steps(0)->mutable_io()->set_file_size(8388608ull << 40);
       }},
  };
  for (const auto& [what, mutate] : attacks) {
    v1::PrepareRequest request = ValidRequest("r1");
    mutate(request);
    grpc::Status status = Prepare(*stub, request);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << what << ": " << status.error_message();
    EXPECT_TRUE(agent.process().Running()) << what;
  }
  EXPECT_EQ(CountEntries(tmp / "root"), 0u);  // nothing was made for a refused plan
  v1::PrepareResponse prepared;
  ASSERT_TRUE(Prepare(*stub, ValidRequest("r2"), &prepared).ok());  // ready, not busy

  // Without the session token, nobody else can end or steer the run.
  grpc::ClientContext context;
  v1::StopRequest stop;
  stop.set_run_id("r2");
  v1::StopResponse stopped;
  grpc::Status refused = stub->Stop(&context, stop, &stopped);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::UNAVAILABLE) << refused.error_message();
  EXPECT_EQ(refused.error_message().find("r2"), std::string::npos) << refused.error_message();
  grpc::ClientContext owner;
  stop.set_session_token(prepared.session_token());
  EXPECT_TRUE(stub->Stop(&owner, stop, &stopped).ok());
  EXPECT_EQ(CountEntries(tmp / "root"), 0u);
}

}  // namespace
}  // namespace iofleet::testing
