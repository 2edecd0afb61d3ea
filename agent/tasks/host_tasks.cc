#include "agent/tasks/host_tasks.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "core/base/clock.h"

namespace iofleet::agent {
namespace {

constexpr size_t kOutputTail = 2048;

class SyncTask : public StepTask {
 public:
  SyncTask(bool drop_caches, std::string agent, std::string path)
      : drop_caches_(drop_caches), agent_(std::move(agent)), path_(std::move(path)) {}
  Status Run(const std::atomic<bool>&) override {
    sync();
    if (!drop_caches_) return Status::Ok();
    int fd = open(path_.c_str(), O_WRONLY | O_CLOEXEC);
    int err = fd < 0 ? errno : 0;
    if (fd >= 0 && write(fd, "3", 1) != 1) err = errno ? errno : EIO;
    if (fd >= 0) close(fd);
    if (err) return PosixError("agent " + agent_ + ": " + path_, err);
    return Status::Ok();
  }
  void Report(v1::StepResult&) const override {}

 private:
  const bool drop_caches_;
  const std::string agent_;
  const std::string path_;
};

class ReadaheadTask : public StepTask {
 public:
  ReadaheadTask(ReadaheadKeeper& keeper, std::string file, uint32_t kib, std::string agent)
      : keeper_(keeper), file_(std::move(file)), kib_(kib), agent_(std::move(agent)) {}
  Status Run(const std::atomic<bool>&) override {
    auto previous = keeper_.Set(file_, kib_);
    if (!previous.ok()) return Status(previous.status().code(), "agent " + agent_ + ": read-ahead: " + previous.status().message());
    note_ = file_ + ": " + std::to_string(*previous) + " -> " + std::to_string(kib_) + " KiB";
    return Status::Ok();
  }
  void Report(v1::StepResult& result) const override { result.set_note(note_); }

 private:
  ReadaheadKeeper& keeper_;
  const std::string file_;
  const uint32_t kib_;
  const std::string agent_;
  std::string note_;
};

class HookTask : public StepTask {
 public:
  explicit HookTask(HookRun hook) : hook_(std::move(hook)) {}

  Status Run(const std::atomic<bool>& stop) override {
    if (hook_.measure_fill) fill_at_start_ = hook_.measure_fill();
    Status st = RunCommand(stop);
    if (hook_.measure_fill) fill_at_end_ = hook_.measure_fill();
    return st;
  }

  void Report(v1::StepResult& result) const override {
    result.set_note(note_);
    if (fill_at_start_) *result.mutable_fill_at_start() = *fill_at_start_;
    if (fill_at_end_) *result.mutable_fill_at_end() = *fill_at_end_;
  }

 private:
  Status RunCommand(const std::atomic<bool>& stop) {
    const std::string who = "agent " + hook_.agent_name + ": hook " + hook_.name;
    // Everything the child needs is built before fork: after it, only async-signal-safe calls.
    std::vector<std::string> env_text = {"IOFLEET_RUN_ID=" + hook_.run_id, "IOFLEET_RUN_DIR=" + hook_.run_dir,
                                         "IOFLEET_AGENT=" + hook_.agent_name, "IOFLEET_HOOK=" + hook_.name,
                                         "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"};
    std::vector<char*> argv, envp;
    for (auto& a : hook_.command.argv) argv.push_back(a.data());
    argv.push_back(nullptr);
    for (auto& e : env_text) envp.push_back(e.data());
    envp.push_back(nullptr);
    int pipe_fds[2];
    if (pipe2(pipe_fds, O_CLOEXEC) < 0) return PosixError(who + ": pipe", errno);
    pid_t pid = fork();
    if (pid < 0) {
      int err = errno;
      close(pipe_fds[0]);
      close(pipe_fds[1]);
      return PosixError(who + ": fork", err);
    }
    if (pid == 0) {
      setpgid(0, 0);
      int devnull = open("/dev/null", O_RDONLY);
      if (devnull >= 0) dup2(devnull, 0);
      if (devnull > 0) close(devnull);
      dup2(pipe_fds[1], 1);
      dup2(pipe_fds[1], 2);
      if (chdir(hook_.run_dir.c_str()) < 0) _exit(126);
      sigset_t none;
      sigemptyset(&none);
      sigprocmask(SIG_SETMASK, &none, nullptr);  // the agent blocks SIGINT/SIGTERM; the hook must not
      execve(argv[0], argv.data(), envp.data());
      _exit(127);
    }
    // Also from this side: a kill of the group right after fork must not miss it.
    setpgid(pid, pid);
    close(pipe_fds[1]);
    const uint64_t deadline = MonotonicNs() + hook_.command.timeout_ns;
    bool timed_out = false, stopped = false, output_open = true, exited = false;
    int status = 0;
    useconds_t exit_poll_us = 100;
    char chunk[4096];
    while (true) {
      int ready = 0;
      if (output_open) {
        pollfd p{pipe_fds[0], POLLIN, 0};
        ready = poll(&p, 1, 100);
        if (ready > 0) {
          ssize_t n = read(pipe_fds[0], chunk, sizeof(chunk));
          if (n > 0) {
            output_.append(chunk, static_cast<size_t>(n));
            if (output_.size() > 2 * kOutputTail) output_.erase(0, output_.size() - kOutputTail);
          } else if (n == 0 || errno != EINTR) {
            output_open = false;  // EOF: the command (and its children) closed output
          }
        }
      }
      if (!output_open || ready == 0) {
        // Output closed (at exit, or by the command itself: exec >log) or quiet for a while: has
        // it exited? A background child of the hook may hold the output open after it did.
        pid_t done = waitpid(pid, &status, WNOHANG);
        if (done == pid || (done < 0 && errno != EINTR)) {
          exited = done == pid;
          break;
        }
        if (!output_open) {
          usleep(exit_poll_us);
          exit_poll_us = std::min<useconds_t>(exit_poll_us * 2, 50000);
        }
      }
      // Checked after every read too: a hook that never stops writing is still stopped and timed out.
      if (!stopped && stop.load()) stopped = true;
      if (!timed_out && MonotonicNs() > deadline) timed_out = true;
      if (stopped || timed_out) {
        kill(-pid, SIGTERM);
        usleep(200000);
        kill(-pid, SIGKILL);
        break;
      }
    }
    close(pipe_fds[0]);
    while (!exited && waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (output_.size() > kOutputTail) output_.erase(0, output_.size() - kOutputTail);
    if (stopped) return Status::Ok();
    if (timed_out) return Status(Code::kDeadlineExceeded, who + ": still running after its timeout; killed" + Tail());
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
      note_ = "hook " + hook_.name + ": exit 0";
      return Status::Ok();
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
      return Status(Code::kFailedPrecondition, who + ": cannot run " + hook_.command.argv[0] + " (exit 127)" + Tail());
    }
    std::string how = WIFEXITED(status) ? "exited with status " + std::to_string(WEXITSTATUS(status))
                                        : "was killed by signal " + std::to_string(WTERMSIG(status));
    return Status(Code::kAborted, who + " (" + hook_.command.argv[0] + ") " + how + Tail());
  }

  std::string Tail() const {
    if (output_.empty()) return "";
    std::string tail = output_;
    while (!tail.empty() && (tail.back() == '\n' || tail.back() == ' ')) tail.pop_back();
    return ": output: " + tail;
  }

  HookRun hook_;
  std::string output_;
  std::string note_;
  std::optional<v1::FileSystemFill> fill_at_start_, fill_at_end_;
};

}  // namespace

Status ProbeWritable(const std::string& path) {
  // No O_TRUNC, no O_CREAT: the probe must change nothing, not even make a missing file.
  int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return PosixError(path + " cannot be opened for writing", errno);
  close(fd);
  return Status::Ok();
}

std::unique_ptr<StepTask> MakeSyncTask(bool drop_caches, std::string agent_name, std::string drop_caches_path) {
  return std::make_unique<SyncTask>(drop_caches, std::move(agent_name), std::move(drop_caches_path));
}

std::unique_ptr<StepTask> MakeReadaheadTask(ReadaheadKeeper& keeper, std::string file, uint32_t kib, std::string agent_name) {
  return std::make_unique<ReadaheadTask>(keeper, std::move(file), kib, std::move(agent_name));
}

std::unique_ptr<StepTask> MakeHookTask(HookRun hook) { return std::make_unique<HookTask>(std::move(hook)); }

std::optional<v1::FileSystemFill> FillOf(int dir_fd) {
  struct statvfs fs {};
  if (fstatvfs(dir_fd, &fs) < 0) return std::nullopt;
  const uint64_t unit = fs.f_frsize ? fs.f_frsize : fs.f_bsize;
  v1::FileSystemFill fill;
  fill.set_size_bytes(uint64_t{fs.f_blocks} * unit);
  const uint64_t used = uint64_t{fs.f_blocks - std::min(fs.f_bfree, fs.f_blocks)};
  fill.set_used_bytes(used * unit);
  fill.set_available_bytes(uint64_t{fs.f_bavail} * unit);
  // df: Use% = used / (used + available), rounded up; the root-reserved blocks count as neither.
  const uint64_t usable = used + fs.f_bavail;
  fill.set_use_pct(usable ? static_cast<uint32_t>((used * 100 + usable - 1) / usable) : 0);
  fill.set_inodes(fs.f_files);
  fill.set_inodes_used(fs.f_files - std::min(fs.f_ffree, fs.f_files));
  return fill;
}

}  // namespace iofleet::agent
