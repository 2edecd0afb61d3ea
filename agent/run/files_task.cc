#include "agent/run/files_task.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <system_error>
#include <thread>

#include "agent/run/tree_names.h"
#include "agent/stats/job_stats.h"
#include "agent/worker/data_generator.h"
#include "core/base/clock.h"
#include "core/base/random.h"
#include "core/spec/host_steps.h"

namespace iofleet::agent {
namespace {

constexpr size_t kAlign = 4096;

struct JobFailure {
  int err = 0;
  std::string path;
};

class FilesTask : public StepTask {
 public:
  FilesTask(FilesPlan plan, int base_fd) : plan_(std::move(plan)), base_fd_(base_fd) {
    const uint32_t jobs = std::max(1u, plan_.files.jobs());
    for (uint32_t j = 0; j < jobs; ++j) counters_.push_back(std::make_unique<TaskCounters>());
    failures_.resize(jobs);
  }
  ~FilesTask() override { close(base_fd_); }

  Status Run(const std::atomic<bool>& stop) override {
    const uint32_t jobs = static_cast<uint32_t>(counters_.size());
    const bool per_dir = plan_.op == v1::FILES_OP_MKDIR || plan_.op == v1::FILES_OP_RMDIR;
    const uint64_t units = per_dir ? plan_.files.dirs() : uint64_t{plan_.files.dirs()} * plan_.files.files_per_dir();
    std::vector<std::thread> threads;
    for (uint32_t j = 0; j < jobs; ++j) {
      uint64_t begin = units * j / jobs, end = units * (j + 1) / jobs;
      try {
        threads.emplace_back([=, this, &stop] { RunJob(j, begin, end, stop); });
      } catch (const std::system_error& e) {
        failures_[j] = {e.code().value(), plan_.workspace->PathOf(plan_.relative) + " (starting job " + std::to_string(j) + ")"};
        failed_.store(true);
        break;
      }
    }
    for (auto& t : threads) t.join();
    for (const auto& f : failures_) {
      if (f.err) {
        return PosixError("agent " + plan_.agent_name + ": " + f.path + ": " + spec::FilesOpName(plan_.op), f.err);
      }
    }
    return Status::Ok();
  }

  void Report(v1::StepResult& result) const override { ReportCounters(counters_, result); }
  uint64_t ops() const override { return SumOps(counters_); }
  uint64_t bytes() const override { return SumBytes(counters_); }
  std::optional<JobsCpuTime> JobsCpu() const override { return SumCpu(counters_); }

 private:
  std::string PathOf(uint32_t d, const char* file) const {
    std::string p = plan_.workspace->PathOf(plan_.relative) + "/" + TreeDirName(d).text;
    return file ? p + "/" + file : p;
  }

  void RunJob(uint32_t j, uint64_t begin, uint64_t end, const std::atomic<bool>& stop) {
    TaskCounters& c = *counters_[j];
    ThreadCpuRecorder cpu(c);
    JobFailure& failure = failures_[j];
    auto fail = [&](int err, std::string path) {
      failure = {err, std::move(path)};
      failed_.store(true, std::memory_order_relaxed);
    };
    auto stopped = [&] { return stop.load(std::memory_order_relaxed) || failed_.load(std::memory_order_relaxed); };

    // What this job made, recorded when it returns however it returns: cleanup removes
    // exactly these names (a directory or file that was there before is never ours).
    uint64_t made_end = begin;
    struct RecordMade {
      const FilesPlan& plan;
      uint64_t begin;
      const uint64_t& end;
      ~RecordMade() {
        if (plan.op == v1::FILES_OP_MKDIR || plan.op == v1::FILES_OP_CREATE) {
          plan.workspace->RecordTreeMade(plan.relative, plan.op == v1::FILES_OP_MKDIR, begin, end, plan.files.files_per_dir());
        }
      }
    } record{plan_, begin, made_end};

    if (plan_.op == v1::FILES_OP_MKDIR || plan_.op == v1::FILES_OP_RMDIR) {
      for (uint64_t d = begin; d < end && !stopped(); ++d) {
        TreeName name = TreeDirName(static_cast<uint32_t>(d));
        uint64_t t0 = MonotonicNs();
        int rc = plan_.op == v1::FILES_OP_MKDIR ? mkdirat(base_fd_, name.text, 0755) : unlinkat(base_fd_, name.text, AT_REMOVEDIR);
        if (rc < 0) return fail(errno, PathOf(static_cast<uint32_t>(d), nullptr));
        made_end = d + 1;
        c.latency.Record(MonotonicNs() - t0);
        Bump(c.ops, 1);
      }
      return;
    }

    // Files: each job keeps its current directory open while it walks its slice.
    const uint64_t block = plan_.files.block_size();
    const size_t buffer_size = (block + kAlign - 1) / kAlign * kAlign;
    std::byte* buffer = nullptr;
    DataGenerator data;
    if (plan_.op == v1::FILES_OP_CREATE || plan_.op == v1::FILES_OP_READ) {
      buffer = static_cast<std::byte*>(std::aligned_alloc(kAlign, buffer_size));
      if (!buffer) return fail(ENOMEM, plan_.workspace->PathOf(plan_.relative));
      if (plan_.op == v1::FILES_OP_CREATE) {
        DataOptions options;
        options.stream = plan_.seed ^ (uint64_t{j} << 40) ^ 0x5bd1e995ull;
        data.Prepare(options, buffer, buffer_size, 1);
      }
    }
    const uint32_t per_dir = plan_.files.files_per_dir();
    int dir_fd = -1;
    uint32_t open_dir = UINT32_MAX;
    for (uint64_t i = begin; i < end && !stopped(); ++i) {
      uint32_t d = static_cast<uint32_t>(i / per_dir);
      TreeName file = TreeFileName(static_cast<uint32_t>(i % per_dir));
      if (d != open_dir) {
        if (dir_fd >= 0) close(dir_fd);
        dir_fd = openat(base_fd_, TreeDirName(d).text, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (dir_fd < 0) {
          fail(errno, PathOf(d, nullptr));
          break;
        }
        open_dir = d;
      }
      uint64_t t0 = MonotonicNs();
      uint64_t moved = 0;
      bool created = false;
      int err = OneFile(dir_fd, file.text, TreeFileSize(plan_.files, plan_.seed, i), buffer, block, data, moved, created, stopped);
      if (created) made_end = i + 1;
      if (err) {
        fail(err, PathOf(d, file.text));
        break;
      }
      c.latency.Record(MonotonicNs() - t0);
      Bump(c.bytes, moved);
      Bump(c.ops, 1);
    }
    if (dir_fd >= 0) close(dir_fd);
    std::free(buffer);
  }

  // One file's operation; 0 or errno. `moved`: bytes written or read; `created`: the file
  // is this run's (made by its O_EXCL create), whatever happened after.
  template <typename Stopped>
  int OneFile(int dir_fd, const char* name, uint64_t size, std::byte* buffer, uint64_t block, DataGenerator& data,
              uint64_t& moved, bool& created, const Stopped& stopped) {
    switch (plan_.op) {
      case v1::FILES_OP_CREATE: {
        int fd = openat(dir_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0) return errno;
        created = true;
        while (moved < size && !stopped()) {  // a large file does not hold up a Stop
          size_t n = static_cast<size_t>(std::min(block, size - moved));
          data.Stamp(buffer, static_cast<uint32_t>(n));
          ssize_t w = write(fd, buffer, n);
          if (w < 0 && errno == EINTR) continue;
          if (w <= 0) {
            int err = w < 0 ? errno : EIO;
            close(fd);
            return err;
          }
          moved += static_cast<uint64_t>(w);
        }
        return close(fd) < 0 ? errno : 0;
      }
      case v1::FILES_OP_READ: {
        int fd = openat(dir_fd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) return errno;
        while (!stopped()) {
          ssize_t r = read(fd, buffer, static_cast<size_t>(block));
          if (r < 0 && errno == EINTR) continue;
          if (r < 0) {
            int err = errno;
            close(fd);
            return err;
          }
          if (r == 0) break;
          moved += static_cast<uint64_t>(r);
        }
        close(fd);
        return 0;
      }
      case v1::FILES_OP_STAT: {
        struct stat st;
        return fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 ? errno : 0;
      }
      case v1::FILES_OP_DELETE:
        return unlinkat(dir_fd, name, 0) < 0 ? errno : 0;
      default:
        return EINVAL;
    }
  }

  const FilesPlan plan_;
  const int base_fd_;
  std::vector<std::unique_ptr<TaskCounters>> counters_;
  std::vector<JobFailure> failures_;
  std::atomic<bool> failed_{false};
};

}  // namespace

uint64_t TreeFileSize(const v1::FilesStep& files, uint64_t seed, uint64_t index) {
  if (files.sizes_size() == 0) return files.file_size();
  uint64_t total = 0;
  for (const auto& s : files.sizes()) total += s.weight();
  SplitMix64 random(seed ^ (index * 0x9E3779B97F4A7C15ull));
  uint64_t pick = random.Below(total);
  for (const auto& s : files.sizes()) {
    if (pick < s.weight()) return s.size();
    pick -= s.weight();
  }
  return files.sizes(files.sizes_size() - 1).size();
}

Result<std::unique_ptr<StepTask>> MakeFilesTask(FilesPlan plan) {
  const bool makes = plan.op == v1::FILES_OP_MKDIR;
  auto base = plan.workspace->OpenDirectory(plan.relative, makes);
  if (!base.ok()) {
    std::string hint = makes ? "" : " (a files step with mkdir, in this or an earlier step, makes the tree)";
    return Status(base.status().code(), "agent " + plan.agent_name + ": " + base.status().message() + hint);
  }
  return std::unique_ptr<StepTask>(new FilesTask(std::move(plan), *base));
}

}  // namespace iofleet::agent
