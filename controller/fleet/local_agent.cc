#include "controller/fleet/local_agent.h"

#include <signal.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <climits>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "controller/fleet/agent_client.h"

namespace iofleet::controller {

std::string AgentBinaryPath() {
  if (const char* env = std::getenv("IOFLEET_AGENT"); env && *env) return env;
  char self[PATH_MAX] = {};
  ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n <= 0) return "iofleet-agent";
  return (std::filesystem::path(std::string(self, static_cast<size_t>(n))).parent_path() / "iofleet-agent").string();
}

LocalAgent::~LocalAgent() {
  if (pid_ > 0) {
    kill(pid_, SIGTERM);
    int status = 0;
    for (int i = 0; i < 100; ++i) {  // the agent cleans up its run first; give it 10 s
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, &status, 0);
    }
  }
  if (!socket_dir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(socket_dir_, ec);
  }
}

Result<std::unique_ptr<LocalAgent>> LocalAgent::Spawn(const std::vector<std::string>& roots, const std::string& config) {
  std::unique_ptr<LocalAgent> agent(new LocalAgent());
  std::string tmpl = (std::filesystem::temp_directory_path() / "iofleet-local-XXXXXX").string();
  if (!mkdtemp(tmpl.data())) return PosixError("local agent: mkdtemp " + tmpl, errno);
  agent->socket_dir_ = tmpl;
  agent->address_ = "unix:" + tmpl + "/agent.sock";

  std::string binary = AgentBinaryPath();
  std::vector<std::string> args = {binary, "--listen", agent->address_, "--insecure", "--name", "local"};
  for (const auto& root : roots) {
    args.push_back("--root");
    args.push_back(root);
  }
  if (!config.empty()) {
    args.push_back("--config");
    args.push_back(config);
  }
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) return PosixError("local agent: fork", errno);
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) _exit(1);
    int devnull = open("/dev/null", O_WRONLY);  // its "listening" banner is for humans
    if (devnull >= 0) dup2(devnull, STDOUT_FILENO);
    execv(binary.c_str(), argv.data());
    _exit(127);
  }
  agent->pid_ = pid;

  const std::string socket = tmpl + "/agent.sock";
  for (int attempt = 0; attempt < 1000; ++attempt) {
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) {
      agent->pid_ = -1;
      int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      if (code == 127) return FailedPrecondition("local agent: cannot run " + binary);
      return Status(code == 2 ? Code::kInvalidArgument : Code::kUnavailable,
                    "local agent exited with code " + std::to_string(code) + " (see its message above)");
    }
    // A channel that failed to connect backs off for seconds: only dial once the socket is there.
    if (std::filesystem::exists(socket) && AgentClient(agent->address_, std::nullopt).Hello(std::chrono::seconds(2)).ok()) {
      return agent;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return Unavailable("local agent at " + agent->address_ + " did not answer within 10 s");
}

}  // namespace iofleet::controller
