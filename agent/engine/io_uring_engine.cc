#include "agent/engine/io_uring_engine.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

namespace iofleet::agent {

IoUringEngine::~IoUringEngine() {
  if (open_) io_uring_queue_exit(&ring_);  // waits for requests still in flight
}

Status IoUringEngine::Open(const EngineSetup& setup) {
  // One thread drives the ring, so the kernel may skip the IPIs and locking that a shared ring
  // needs: completions are posted when that thread asks for them (as fio sets its rings up).
  // The ring starts disabled so that the worker thread, not this one, becomes its issuer on
  // its first Submit. Older kernels refuse the flags: then a plain ring.
  io_uring_params params{};
  params.flags = IORING_SETUP_COOP_TASKRUN | IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_R_DISABLED;
  int rc = io_uring_queue_init_params(setup.queue_depth, &ring_, &params);
  disabled_ = rc == 0;
  if (rc == -EINVAL) rc = io_uring_queue_init(setup.queue_depth, &ring_, 0);
  if (rc < 0) return PosixError("io_uring_queue_init(" + std::to_string(setup.queue_depth) + ")", -rc);
  open_ = true;
  if (setup.fixed_buffers) {
    rc = io_uring_register_buffers(&ring_, setup.buffers.data(), static_cast<unsigned>(setup.buffers.size()));
    if (rc < 0) return PosixError("io_uring_register_buffers (RLIMIT_MEMLOCK may be too low)", -rc);
    fixed_buffers_ = true;
  }
  if (setup.registered_files) {
    files_.assign(setup.files.begin(), setup.files.end());
    rc = io_uring_register_files(&ring_, files_.data(), static_cast<unsigned>(files_.size()));
    if (rc < 0) return PosixError("io_uring_register_files", -rc);
    registered_files_ = true;
  }
  return Status::Ok();
}

int IoUringEngine::Enqueue(IoRequest& r) noexcept {
  io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
  if (!sqe) return -EAGAIN;
  void* buffer = r.buffer + r.done;
  unsigned length = r.length - r.done;
  uint64_t offset = r.offset + r.done;
  int fd = r.fd;
  if (registered_files_) {
    int index = 0;
    while (index < static_cast<int>(files_.size()) && files_[index] != r.fd) ++index;
    fd = index;
  }
  if (fixed_buffers_) {
    if (r.dir == IoDir::kRead) io_uring_prep_read_fixed(sqe, fd, buffer, length, offset, static_cast<int>(r.slot));
    else io_uring_prep_write_fixed(sqe, fd, buffer, length, offset, static_cast<int>(r.slot));
  } else {
    if (r.dir == IoDir::kRead) io_uring_prep_read(sqe, fd, buffer, length, offset);
    else io_uring_prep_write(sqe, fd, buffer, length, offset);
  }
  if (registered_files_) sqe->flags |= IOSQE_FIXED_FILE;
  io_uring_sqe_set_data64(sqe, r.slot);
  ++queued_;
  return 0;
}

// Staged requests go to the kernel in the next Reap, in the same io_uring_enter as the wait for
// completions: one system call per turn of the worker's loop instead of two.
int IoUringEngine::Submit() noexcept {
  if (disabled_) [[unlikely]] {
    // This thread becomes the ring's only issuer. (liburing 2.3 declares io_uring_enable_rings
    // but does not export it.)
    if (syscall(__NR_io_uring_register, ring_.ring_fd, IORING_REGISTER_ENABLE_RINGS, nullptr, 0) < 0) return -errno;
    disabled_ = false;
  }
  return static_cast<int>(queued_);
}

int IoUringEngine::Reap(std::span<Completion> out, uint32_t min_done, int64_t timeout_ns) noexcept {
  io_uring_cqe* cqe = nullptr;
  const bool ready = io_uring_cq_ready(&ring_) > 0;
  if (queued_ > 0 || (min_done > 0 && !ready)) {
    const unsigned wait = ready ? 0 : min_done;
    int rc;
    do {
      if (timeout_ns >= 0 && wait > 0) {
        __kernel_timespec ts{timeout_ns / 1'000'000'000, timeout_ns % 1'000'000'000};
        rc = io_uring_submit_and_wait_timeout(&ring_, &cqe, wait, &ts, nullptr);
      } else {
        rc = io_uring_submit_and_wait(&ring_, wait);
      }
    } while (rc == -EINTR);
    if (rc >= 0 || rc == -ETIME) queued_ = 0;
    if (rc == -ETIME) return 0;
    if (rc < 0) return rc;
  } else if (!ready) {
    // A poll (min_done 0): with deferred task work, completions are posted only on entering.
    (void)io_uring_get_events(&ring_);
  }
  unsigned head;
  uint32_t n = 0;
  io_uring_for_each_cqe(&ring_, head, cqe) {
    if (n == out.size()) break;
    out[n++] = Completion{static_cast<uint32_t>(io_uring_cqe_get_data64(cqe)), cqe->res};
  }
  io_uring_cq_advance(&ring_, n);
  return static_cast<int>(n);
}

}  // namespace iofleet::agent
