// Mutual TLS (a client without a valid certificate is refused on every RPC) and agents on their
// own network hosts (network namespaces joined by veth pairs), including a silent link cut.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <set>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "iofleet/v1/agent.grpc.pb.h"
#include "tests/support/process.h"
#include "tests/support/report.h"
#include "tests/support/temp_dir.h"

namespace iofleet::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using namespace std::chrono_literals;

std::string ReadText(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// deploy/tls/make-certs DIR ROLE NAME SAN...: DIR/NAME holds that host's --tls-dir.
void MakeCert(const fs::path& dir, const std::string& role, const std::string& name, const std::vector<std::string>& sans = {}) {
  std::vector<std::string> argv = {SourcePath("deploy/tls/make-certs"), dir.string(), role, name};
  argv.insert(argv.end(), sans.begin(), sans.end());
  CommandResult r = RunCommand(argv, dir.parent_path() / "logs");
  ASSERT_EQ(r.code, 0) << r.err;
}

// An agent certificate for loopback and a controller certificate from one CA under `dir`.
void MakeCerts(const fs::path& dir) {
  MakeCert(dir, "agent", "agent", {"127.0.0.1"});
  MakeCert(dir, "controller", "controller");
}

class TlsAgent : public ::testing::Test {
 protected:
  void SetUp() override {
    MakeCerts(tmp_ / "tls");
    MakeCerts(tmp_ / "other");  // a different CA
    fs::create_directories(tmp_ / "root");
    agent_ = std::make_unique<Process>(std::vector<std::string>{BinPath("iofleet-agent"), "--listen", "127.0.0.1:0",
                                                                "--tls-dir", (tmp_ / "tls/agent").string(), "--root",
                                                                (tmp_ / "root").string(), "--name", "secure"},
                                       tmp_ / "logs");
    ASSERT_TRUE(agent_->WaitForStdout("listening on ", 10s)) << agent_->Stderr();
    std::string out = agent_->Stdout();
    size_t at = out.find("listening on ") + 13;
    address_ = out.substr(at, out.find('\n', at) - at);
    std::ofstream(tmp_ / "w.yaml") << "name: tls\ndefaults: { block_size: 64KiB, file_size: 1MiB }\nsteps:\n  - io: { op: write }\n";
  }
  CommandResult RunWith(const std::vector<std::string>& extra) {
    std::vector<std::string> argv = {BinPath("iofleet"), "run", (tmp_ / "w.yaml").string(), "--agents", address_,
                                     "--out", (tmp_ / "out").string()};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return RunCommand(argv, tmp_ / "logs", 60s);
  }

  TempDir tmp_;
  std::unique_ptr<Process> agent_;
  std::string address_;
};

TEST_F(TlsAgent, ControllerWithCertificateRuns) {
  CommandResult r = RunWith({"--tls-dir", (tmp_ / "tls/controller").string()});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(ReadReport(tmp_ / "out")["status"], "succeeded");
}

// Certificates have roles: an agent's key (server use only) cannot act as a controller.
TEST_F(TlsAgent, AnAgentsCertificateCannotActAsAController) {
  CommandResult r = RunWith({"--tls-dir", (tmp_ / "tls/agent").string()});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("for client use"), std::string::npos) << r.err;
  EXPECT_EQ(CountEntries(tmp_ / "root"), 0u);
}

// The CA's key stays in DIR/ca: a host's folder holds only what it is given.
TEST_F(TlsAgent, AHostsFolderHoldsNoCaKey) {
  std::set<std::string> files;
  for (const auto& e : fs::directory_iterator(tmp_ / "tls/agent")) files.insert(e.path().filename().string());
  EXPECT_EQ(files, (std::set<std::string>{"ca.pem", "cert.pem", "key.pem"}));
  EXPECT_TRUE(fs::exists(tmp_ / "tls/ca/ca.key"));
}

TEST_F(TlsAgent, ControllerWithoutOrWithForeignCertificateIsRefused) {
  CommandResult plain = RunWith({});
  EXPECT_EQ(plain.code, 1);
  EXPECT_NE(plain.err.find("unreachable"), std::string::npos) << plain.err;
  EXPECT_NE(plain.err.find("accepts connections but did not answer iofleet's gRPC in plain text"), std::string::npos) << plain.err;
  EXPECT_NE(plain.err.find("pass --tls-dir"), std::string::npos) << plain.err;
  CommandResult foreign = RunWith({"--tls-dir", (tmp_ / "other/controller").string()});
  EXPECT_EQ(foreign.code, 1);
  EXPECT_EQ(CountEntries(tmp_ / "root"), 0u);
}

TEST_F(TlsAgent, EveryRpcRefusesAClientWithoutACertificate) {
  grpc::SslCredentialsOptions no_client_cert;
  no_client_cert.pem_root_certs = ReadText(tmp_ / "tls/agent/ca.pem");  // trusts the agent, shows nothing
  grpc::SslCredentialsOptions foreign;
  foreign.pem_root_certs = ReadText(tmp_ / "tls/agent/ca.pem");
  foreign.pem_cert_chain = ReadText(tmp_ / "other/controller/cert.pem");
  foreign.pem_private_key = ReadText(tmp_ / "other/controller/key.pem");
  grpc::SslCredentialsOptions agent_as_client;  // the right CA, but a certificate for server use
  agent_as_client.pem_root_certs = ReadText(tmp_ / "tls/agent/ca.pem");
  agent_as_client.pem_cert_chain = ReadText(tmp_ / "tls/agent/cert.pem");
  agent_as_client.pem_private_key = ReadText(tmp_ / "tls/agent/key.pem");
  for (const auto& options : {no_client_cert, foreign, agent_as_client}) {
    auto stub = v1::Agent::NewStub(grpc::CreateChannel(address_, grpc::SslCredentials(options)));
    auto context = [] {
      auto c = std::make_unique<grpc::ClientContext>();
      c->set_deadline(std::chrono::system_clock::now() + 5s);
      return c;
    };
    { v1::HelloResponse r; EXPECT_FALSE(stub->Hello(context().get(), v1::HelloRequest(), &r).ok()); }
    { v1::ClockResponse r; EXPECT_FALSE(stub->Clock(context().get(), v1::ClockRequest(), &r).ok()); }
    {
      v1::PrepareRequest q;
      q.set_run_id("r1");
      q.set_agent_name("x");
      v1::PrepareResponse r;
      EXPECT_FALSE(stub->Prepare(context().get(), q, &r).ok());
    }
    { v1::SetupStepResponse r; EXPECT_FALSE(stub->SetupStep(context().get(), v1::SetupStepRequest(), &r).ok()); }
    {
      auto c = context();
      auto reader = stub->Start(c.get(), v1::StartRequest());
      v1::StartReply reply;
      while (reader->Read(&reply)) {
      }
      EXPECT_FALSE(reader->Finish().ok());
    }
    { v1::StopStepResponse r; EXPECT_FALSE(stub->StopStep(context().get(), v1::StopStepRequest(), &r).ok()); }
    { v1::RenewResponse r; EXPECT_FALSE(stub->Renew(context().get(), v1::RenewRequest(), &r).ok()); }
    { v1::StopResponse r; EXPECT_FALSE(stub->Stop(context().get(), v1::StopRequest(), &r).ok()); }
  }
  EXPECT_EQ(CountEntries(tmp_ / "root"), 0u);
}

// A DaemonSet's pods are dialled by pod IP and share one certificate for the service's name:
// the controller checks it against --tls-server-name instead of the address's host part.
TEST(TlsServerName, AgentsAreCheckedAgainstTheGivenName) {
  TempDir tmp;
  MakeCert(tmp / "tls", "agent", "iofleet-agent.bench.svc.cluster.local");  // no IP in it
  MakeCert(tmp / "tls", "controller", "controller");
  fs::create_directories(tmp / "root");
  Process agent({BinPath("iofleet-agent"), "--listen", "127.0.0.1:0", "--tls-dir",
                 (tmp / "tls/iofleet-agent.bench.svc.cluster.local").string(), "--root", (tmp / "root").string()},
                tmp / "logs");
  ASSERT_TRUE(agent.WaitForStdout("listening on ", 10s)) << agent.Stderr();
  const std::string out = agent.Stdout();
  const size_t at = out.find("listening on ") + 13;
  const std::string address = out.substr(at, out.find('\n', at) - at);
  std::ofstream(tmp / "w.yaml") << "name: tls\ndefaults: { block_size: 64KiB, file_size: 1MiB }\nsteps:\n  - io: { op: write }\n";
  auto run = [&](const std::vector<std::string>& extra) {
    std::vector<std::string> argv = {BinPath("iofleet"), "run", (tmp / "w.yaml").string(), "--agents", address,
                                     "--tls-dir", (tmp / "tls/controller").string(), "--out", (tmp / "out").string()};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return RunCommand(argv, tmp / "logs", 60s);
  };
  CommandResult by_address = run({});  // 127.0.0.1 is not in the certificate
  EXPECT_EQ(by_address.code, 1);
  EXPECT_NE(by_address.err.find("names the host part of its address"), std::string::npos) << by_address.err;
  CommandResult wrong = run({"--tls-server-name", "other.bench.svc.cluster.local"});
  EXPECT_EQ(wrong.code, 1);
  EXPECT_NE(wrong.err.find("other.bench.svc.cluster.local"), std::string::npos) << wrong.err;
  CommandResult named = run({"--tls-server-name", "iofleet-agent.bench.svc.cluster.local"});
  EXPECT_EQ(named.code, 0) << named.err;
  CommandResult without_tls = RunCommand({BinPath("iofleet"), "run", (tmp / "w.yaml").string(), "--agents", address,
                                          "--tls-server-name", "x"},
                                         tmp / "logs", 60s);
  EXPECT_EQ(without_tls.code, 2);
  EXPECT_NE(without_tls.err.find("--tls-server-name needs --tls-dir"), std::string::npos) << without_tls.err;
}

TEST(MakeCerts, RefusesAnUnknownRoleAndAPathAsName) {
  TempDir tmp;
  CommandResult role = RunCommand({SourcePath("deploy/tls/make-certs"), (tmp / "tls").string(), "both", "x"}, tmp.path());
  EXPECT_EQ(role.code, 2);
  EXPECT_NE(role.err.find("unknown role"), std::string::npos) << role.err;
  CommandResult path = RunCommand({SourcePath("deploy/tls/make-certs"), (tmp / "tls").string(), "agent", "../x"}, tmp.path());
  EXPECT_EQ(path.code, 2);
  CommandResult ca = RunCommand({SourcePath("deploy/tls/make-certs"), (tmp / "tls").string(), "agent", "ca"}, tmp.path());
  EXPECT_EQ(ca.code, 2);
}

// Two namespaces, each an agent host on its own veth link to this (the controller's) namespace.
class NetnsHosts : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tag = std::to_string(getpid() % 10000);
    for (int i = 0; i < 2; ++i) {
      Host h;
      h.ns = "iofleet-t" + tag + "-" + std::to_string(i);
      h.outer = "iof" + tag + "o" + std::to_string(i);
      h.inner = "iof" + tag + "i" + std::to_string(i);
      // A /30 of its own per host and process: `ctest -j` runs these tests side by side, and
      // subnets from pid % 200 + i collided for two processes whose pids differed by one.
      const int slot = (getpid() % 8000) * 2 + i;
      const std::string prefix = "10.213." + std::to_string(slot / 64) + ".";
      h.outer_address = prefix + std::to_string((slot % 64) * 4 + 1);
      h.address = prefix + std::to_string((slot % 64) * 4 + 2);
      hosts_.push_back(h);
    }
    for (const auto& h : hosts_) {
      if (!Ip({"netns", "add", h.ns})) GTEST_SKIP() << "network namespaces cannot be created here (ip netns add failed)";
      created_.push_back(h);
      bool ok = Ip({"link", "add", h.outer, "type", "veth", "peer", "name", h.inner}) &&
                Ip({"link", "set", h.inner, "netns", h.ns}) &&
                Ip({"addr", "add", h.outer_address + "/30", "dev", h.outer}) && Ip({"link", "set", h.outer, "up"}) &&
                Ip({"-n", h.ns, "addr", "add", h.address + "/30", "dev", h.inner}) &&
                Ip({"-n", h.ns, "link", "set", h.inner, "up"}) && Ip({"-n", h.ns, "link", "set", "lo", "up"});
      if (!ok) GTEST_SKIP() << "veth links cannot be set up here";
    }
    // One certificate per host, for the address the controller dials.
    for (size_t i = 0; i < hosts_.size(); ++i) MakeCert(tmp_ / "tls", "agent", "host" + std::to_string(i), {hosts_[i].address});
    MakeCert(tmp_ / "tls", "controller", "controller");
    for (size_t i = 0; i < hosts_.size(); ++i) {
      fs::create_directories(tmp_ / ("root" + std::to_string(i)));
      agents_.push_back(std::make_unique<Process>(
          std::vector<std::string>{"/usr/sbin/ip", "netns", "exec", hosts_[i].ns, BinPath("iofleet-agent"), "--listen",
                                   hosts_[i].address + ":7070", "--tls-dir", (tmp_ / ("tls/host" + std::to_string(i))).string(), "--root",
                                   (tmp_ / ("root" + std::to_string(i))).string(), "--name", "host" + std::to_string(i)},
          tmp_ / "logs"));
      ASSERT_TRUE(agents_.back()->WaitForStdout("listening on", 10s)) << agents_.back()->Stderr();
    }
  }
  void TearDown() override {
    agents_.clear();  // killed before their namespaces go
    for (const auto& h : created_) {
      Ip({"link", "del", h.outer});
      Ip({"netns", "del", h.ns});
    }
  }
  bool Ip(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {"/usr/sbin/ip"};
    argv.insert(argv.end(), args.begin(), args.end());
    return RunCommand(argv, tmp_ / "logs", 10s).code == 0;
  }
  std::string Agents() const { return hosts_[0].address + ":7070," + hosts_[1].address + ":7070"; }

  struct Host {
    std::string ns, outer, inner, outer_address, address;
  };
  TempDir tmp_;
  std::vector<Host> hosts_;
  std::vector<Host> created_;
  std::vector<std::unique_ptr<Process>> agents_;
};

TEST_F(NetnsHosts, RunAcrossHosts) {
  std::ofstream(tmp_ / "w.yaml") << "name: hosts\ndefaults: { block_size: 64KiB, file_size: 2MiB }\nsteps:\n  - io: { op: write }\n  - io: { op: read }\n";
  CommandResult r = RunCommand({BinPath("iofleet"), "run", (tmp_ / "w.yaml").string(), "--agents", Agents(),
                                "--tls-dir", (tmp_ / "tls/controller").string(), "--out", (tmp_ / "out").string()}, tmp_ / "logs", 60s);
  ASSERT_EQ(r.code, 0) << r.err;
  json report = ReadReport(tmp_ / "out");
  EXPECT_EQ(report["agents"].size(), 2u);
  EXPECT_EQ(report["steps"][1]["aggregate"]["bytes"].get<uint64_t>(), 2u * 2 * 1024 * 1024);
}

TEST_F(NetnsHosts, SilentLinkCutFailsTheRunAndTheAgentCleansUp) {
  std::ofstream(tmp_ / "w.yaml") << "name: cut\ndefaults: { block_size: 64KiB, file_size: 4MiB, runtime: 60s }\nsteps:\n  - io: { op: write }\n";
  // JSON progress: the step's line that counts the agent lost is when the controller noticed,
  // apart from what follows (the lost agent's Stop, given 2 s; the report), which the exit adds.
  Process run({BinPath("iofleet"), "run", (tmp_ / "w.yaml").string(), "--agents", Agents(), "--tls-dir",
               (tmp_ / "tls/controller").string(), "--out", (tmp_ / "out").string(), "--progress", "json"}, tmp_ / "logs");
  auto deadline = std::chrono::steady_clock::now() + 15s;
  while (!fs::exists(tmp_ / "root1" / "iofleet") && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(50ms);
  std::this_thread::sleep_for(1s);
  // Down on the controller's side only: no FIN, no RST; packets simply stop.
  ASSERT_TRUE(Ip({"link", "set", hosts_[1].outer, "down"}));
  auto cut = std::chrono::steady_clock::now();
  ASSERT_TRUE(run.WaitForStderr("\"agents_lost\":1", 30s)) << run.Stderr();
  double noticed = std::chrono::duration<double>(std::chrono::steady_clock::now() - cut).count();
  int code = run.Wait(30s);
  double exited = std::chrono::duration<double>(std::chrono::steady_clock::now() - cut).count();
  EXPECT_EQ(code, 1) << run.Stderr();
  // Silent for 5 s of the controller's running time, counted from the last progress (due each second).
  EXPECT_LT(noticed, 10.0);
  std::cerr << "link cut noticed after " << noticed << " s, the run ended after " << exited << " s\n";
  EXPECT_NE(run.Stderr().find("host1"), std::string::npos) << run.Stderr();
  ASSERT_TRUE(Ip({"link", "set", hosts_[1].outer, "up"}));  // the link comes back: still failed
  EXPECT_EQ(ReadReport(tmp_ / "out")["status"], "failed");
  // The cut-off agent noticed too: its I/O stopped and, at lease expiry, its files went.
  deadline = std::chrono::steady_clock::now() + 20s;
  while (CountEntries(tmp_ / "root1") > 0 && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(100ms);
  EXPECT_EQ(CountEntries(tmp_ / "root1"), 0u) << agents_[1]->Stderr();
  EXPECT_EQ(CountEntries(tmp_ / "root0"), 0u);
}

// Fault suite: a link down, and back up 15 s later. The run failed when the link went; the
// cut-off agent stopped and cleaned up on its own, and once the link is back it takes the next
// run as if nothing had happened.
TEST_F(NetnsHosts, LinkDownThenUpAfter15sLeavesTheAgentReady) {
  std::ofstream(tmp_ / "w.yaml") << "name: cut\ndefaults: { block_size: 64KiB, file_size: 4MiB, runtime: 60s }\nsteps:\n  - io: { op: write }\n";
  Process run({BinPath("iofleet"), "run", (tmp_ / "w.yaml").string(), "--agents", Agents(), "--tls-dir",
               (tmp_ / "tls/controller").string(), "--out", (tmp_ / "out").string()}, tmp_ / "logs");
  auto deadline = std::chrono::steady_clock::now() + 15s;
  while (!fs::exists(tmp_ / "root1" / "iofleet") && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(50ms);
  std::this_thread::sleep_for(1s);
  ASSERT_TRUE(Ip({"link", "set", hosts_[1].outer, "down"}));
  auto cut = std::chrono::steady_clock::now();
  EXPECT_EQ(run.Wait(30s), 1) << run.Stderr();
  EXPECT_EQ(ReadReport(tmp_ / "out")["status"], "failed");
  std::this_thread::sleep_until(cut + 15s);
  ASSERT_TRUE(Ip({"link", "set", hosts_[1].outer, "up"}));
  // The agent noticed the cut by keepalive (about 13 s: longer than a controller's stall may be),
  // stopped its I/O, and ends the run when its lease (10 s from then) runs out: with the link
  // back or not.
  auto clean = std::chrono::steady_clock::now() + 20s;
  while (CountEntries(tmp_ / "root1") > 0 && std::chrono::steady_clock::now() < clean) std::this_thread::sleep_for(100ms);
  double cleaned = std::chrono::duration<double>(std::chrono::steady_clock::now() - cut).count();
  std::printf("link down for 15 s: the run failed; the cut-off agent's files were gone %.1f s after the cut\n", cleaned);
  EXPECT_EQ(CountEntries(tmp_ / "root1"), 0u) << agents_[1]->Stderr();
  std::ofstream(tmp_ / "short.yaml") << "name: next\ndefaults: { block_size: 64KiB, file_size: 1MiB }\nsteps:\n  - io: { op: write }\n";
  CommandResult next = RunCommand({BinPath("iofleet"), "run", (tmp_ / "short.yaml").string(), "--agents", Agents(),
                                   "--tls-dir", (tmp_ / "tls/controller").string(), "--out", (tmp_ / "out2").string()}, tmp_ / "logs", 60s);
  EXPECT_EQ(next.code, 0) << next.err;
}

}  // namespace
}  // namespace iofleet::testing
