// Real child processes for integration tests: iofleet and iofleet-agent binaries, with their
// output captured in files so a test can read it while they run.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace iofleet::testing {

std::string BinPath(const std::string& name);  // build/bin/<name>
std::string SourcePath(const std::string& relative);

class Process {
 public:
  // Starts argv[0] with `argv` and this environment plus `env` ("NAME=VALUE"); stdout and
  // stderr go to files in `log_dir`.
  Process(const std::vector<std::string>& argv, const std::filesystem::path& log_dir,
          const std::vector<std::string>& env = {});
  ~Process();

  // The exit code, 128+signal, or -1 after killing it when `timeout` passed first.
  int Wait(std::chrono::milliseconds timeout);
  bool Running();
  void Signal(int sig) { if (pid_ > 0) kill(pid_, sig); }
  pid_t pid() const { return pid_; }
  std::string Stdout() const;
  std::string Stderr() const;
  // Waits until stdout contains `needle`; false on timeout or exit.
  bool WaitForStdout(const std::string& needle, std::chrono::milliseconds timeout);
  // Likewise for stderr (where iofleet's progress and errors go).
  bool WaitForStderr(const std::string& needle, std::chrono::milliseconds timeout);

 private:
  pid_t pid_ = -1;
  int status_ = 0;
  std::filesystem::path out_, err_;
};

struct CommandResult {
  int code = -1;
  std::string out;
  std::string err;
  double seconds = 0;
};

// Runs a command to completion (killed after `timeout`).
CommandResult RunCommand(const std::vector<std::string>& argv, const std::filesystem::path& log_dir,
                         std::chrono::milliseconds timeout = std::chrono::seconds(120));

// An iofleet-agent on 127.0.0.1 with a kernel-chosen port.
class AgentProcess {
 public:
  // `extra_args`: more flags, e.g. {"--root", "local=DIR", "--config", "agent.yaml"}.
  AgentProcess(const std::filesystem::path& root, const std::string& name,
               const std::filesystem::path& log_dir, std::vector<std::string> extra_roots = {},
               const std::vector<std::string>& env = {}, const std::vector<std::string>& extra_args = {});
  const std::string& address() const { return address_; }
  Process& process() { return *process_; }

 private:
  std::unique_ptr<Process> process_;
  std::string address_;
};

}  // namespace iofleet::testing
