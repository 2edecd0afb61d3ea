// samples.csv: the progress streams as they came, one row per agent per sample interval per
// step, written as the samples arrive (while a run goes, none of them is kept in memory; the
// history reads the file back once at the end, up to 256 MiB).
// Columns: step_index, step, kind, point, cycle, group_cycle, agent, elapsed_sec (since the
// step's start instant, ramp included), bytes and ops (cumulative in the step), then over the
// interval since the agent's previous row: interval_bytes_per_sec, interval_iops, and the
// latency p50 and p99 of the requests completed in it (interval_p50_ns, interval_p99_ns; empty
// when none completed, or for steps whose streams carry no latency: files, copy), and `ramp`: 1 for
// a sample taken during the step's ramp, whose interval rates are the ramp's I/O (the progress
// stream's ramp_bytes and ramp_ops: bytes and ops count the measurement window only, so they
// stay 0 there), else 0. A sample that spans the ramp's end rates the window's I/O over the part
// of its interval after the ramp. A step of streams has, after each agent's row (whose `stream` is
// empty), a row per stream with its own bytes, ops, rates and latency and its name in `stream`
// (the rows at an fio job file's log_avg_msec); a stream's ramp rows leave the rates empty, as its
// progress counts the window only.
//
// Thread-safety: Add from any thread (the agents' stream callbacks); Close once, after the last.
#pragma once

#include <cstdio>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/base/status.h"
#include "iofleet/v1/result.pb.h"

namespace iofleet::controller {

struct SampleStep {
  int index = 0;
  std::string name, kind;
  int point = 0, cycle = 0, group_cycle = -1;
  uint64_t ramp_ns = 0;  // the step's ramp: samples at or before it are ramp samples
  std::vector<std::string> streams;  // a step of streams: their names, in the progress's order
};

class SamplesCsv {
 public:
  static constexpr const char* kHeader =
      "step_index,step,kind,point,cycle,group_cycle,agent,elapsed_sec,bytes,ops,interval_bytes_per_sec,interval_iops,"
      "interval_p50_ns,interval_p99_ns,ramp,stream\n";

  // Creates `path` with the header.
  static Result<std::unique_ptr<SamplesCsv>> Create(const std::filesystem::path& path);
  ~SamplesCsv();

  // One accepted progress message of `agent`; `before`: its previous one in the step, if any.
  void Add(const SampleStep& step, const std::string& agent, const v1::Progress& now, const v1::Progress* before);
  // Flushes and closes: an error names the file (a row that could not be written).
  Status Close();
  // The text written, read back (for the history database).
  Result<std::string> Text() const;

  // One row, for tests.
  static std::string Row(const SampleStep& step, const std::string& agent, const v1::Progress& now, const v1::Progress* before);
  static std::string RowStart(const SampleStep& step, const std::string& agent, uint64_t elapsed_ns, uint64_t bytes, uint64_t ops);
  static std::string LatencyColumns(const v1::ProgressOp& read, const v1::ProgressOp& write);
  static std::string StreamRow(const SampleStep& step, const std::string& agent, const v1::Progress& now,
                               const v1::Progress* before, int k, const v1::StreamProgress* was);

 private:
  SamplesCsv(std::FILE* file, std::filesystem::path path) : file_(file), path_(std::move(path)) {}
  std::mutex mu_;
  std::FILE* file_;
  std::filesystem::path path_;
  int error_ = 0;
};

}  // namespace iofleet::controller
