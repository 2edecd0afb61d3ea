#include "tests/support/process.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <thread>
#include "tests/support/test_paths.h"

namespace iofleet::testing {
namespace {

std::string ReadAll(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

int Counter() {
  static int n = 0;
  return ++n;
}

}  // namespace

std::string BinPath(const std::string& name) { return std::string(IOFLEET_BIN_DIR) + "/" + name; }
std::string SourcePath(const std::string& relative) { return std::string(IOFLEET_SOURCE_DIR) + "/" + relative; }

Process::Process(const std::vector<std::string>& argv, const std::filesystem::path& log_dir,
                 const std::vector<std::string>& env) {
  std::filesystem::create_directories(log_dir);
  std::string stem = std::filesystem::path(argv[0]).filename().string() + "-" + std::to_string(getpid()) + "-" + std::to_string(Counter());
  out_ = log_dir / (stem + ".out");
  err_ = log_dir / (stem + ".err");
  std::vector<std::string> args = argv;
  std::vector<char*> cargv;
  for (auto& a : args) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  pid_ = fork();
  if (pid_ == 0) {
    int out = open(out_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int err = open(err_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(out, STDOUT_FILENO);
    dup2(err, STDERR_FILENO);
    setpgid(0, 0);
    for (const auto& e : env) putenv(const_cast<char*>(e.c_str()));
    execv(cargv[0], cargv.data());
    _exit(127);
  }
}

Process::~Process() {
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, &status_, 0);
  }
}

bool Process::Running() {
  if (pid_ <= 0) return false;
  if (waitpid(pid_, &status_, WNOHANG) == pid_) {
    pid_ = -1;
    return false;
  }
  return true;
}

int Process::Wait(std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (Running()) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid_, SIGKILL);
      waitpid(pid_, &status_, 0);
      pid_ = -1;
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return WIFEXITED(status_) ? WEXITSTATUS(status_) : 128 + WTERMSIG(status_);
}

std::string Process::Stdout() const { return ReadAll(out_); }
std::string Process::Stderr() const { return ReadAll(err_); }

namespace {
bool WaitForOutput(Process& p, std::string (Process::*output)() const, const std::string& needle,
                   std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if ((p.*output)().find(needle) != std::string::npos) return true;
    if (!p.Running()) return (p.*output)().find(needle) != std::string::npos;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}
}  // namespace

bool Process::WaitForStdout(const std::string& needle, std::chrono::milliseconds timeout) {
  return WaitForOutput(*this, &Process::Stdout, needle, timeout);
}

bool Process::WaitForStderr(const std::string& needle, std::chrono::milliseconds timeout) {
  return WaitForOutput(*this, &Process::Stderr, needle, timeout);
}

CommandResult RunCommand(const std::vector<std::string>& argv, const std::filesystem::path& log_dir,
                         std::chrono::milliseconds timeout) {
  auto start = std::chrono::steady_clock::now();
  Process p(argv, log_dir);
  CommandResult r;
  r.code = p.Wait(timeout);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.out = p.Stdout();
  r.err = p.Stderr();
  return r;
}

AgentProcess::AgentProcess(const std::filesystem::path& root, const std::string& name,
                           const std::filesystem::path& log_dir, std::vector<std::string> extra_roots,
                           const std::vector<std::string>& env, const std::vector<std::string>& extra_args) {
  std::filesystem::create_directories(root);
  std::vector<std::string> argv = {BinPath("iofleet-agent"), "--listen", "127.0.0.1:0", "--insecure",
                                   "--name", name, "--root", root.string()};
  for (auto& r : extra_roots) {
    argv.push_back("--root");
    argv.push_back(r);
  }
  argv.insert(argv.end(), extra_args.begin(), extra_args.end());
  process_ = std::make_unique<Process>(argv, log_dir, env);
  const std::string marker = "listening on ";
  if (!process_->WaitForStdout(marker, std::chrono::seconds(10))) {
    ADD_FAILURE() << "agent " << name << " did not start: " << process_->Stderr();
    return;
  }
  std::string out = process_->Stdout();
  size_t at = out.find(marker) + marker.size();
  address_ = out.substr(at, out.find('\n', at) - at);
}

}  // namespace iofleet::testing
