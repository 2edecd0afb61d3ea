#include "controller/report/samples_csv.h"

#include <algorithm>

#include <fmt/format.h>

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "controller/live/live_figures.h"
#include "core/base/sparse_histogram.h"
#include "controller/report/report_units.h"

namespace iofleet::controller {
namespace {

}  // namespace

Result<std::unique_ptr<SamplesCsv>> SamplesCsv::Create(const std::filesystem::path& path) {
  std::FILE* file = std::fopen(path.c_str(), "w");
  if (!file) return PosixError(path.string(), errno);
  std::unique_ptr<SamplesCsv> csv(new SamplesCsv(file, path));
  if (std::fputs(kHeader, file) < 0) csv->error_ = errno ? errno : EIO;
  return csv;
}

SamplesCsv::~SamplesCsv() {
  if (file_) std::fclose(file_);
}

// step_index .. ops: the columns every row starts with.
std::string SamplesCsv::RowStart(const SampleStep& step, const std::string& agent, uint64_t elapsed_ns, uint64_t bytes,
                                 uint64_t ops) {
  return fmt::format("{},{},{},{},{},{},{},{:.6f},{},{},", step.index, CsvField(step.name), step.kind, step.point, step.cycle,
                     step.group_cycle >= 0 ? std::to_string(step.group_cycle) : std::string(), CsvField(agent),
                     static_cast<double>(elapsed_ns) / 1e9, bytes, ops);
}

// interval_p50_ns, interval_p99_ns: of the requests completed since the previous sample.
std::string SamplesCsv::LatencyColumns(const v1::ProgressOp& read, const v1::ProgressOp& write) {
  auto interval = std::make_unique<SparseHistogram>();
  AddDelta(read.latency_ns_delta(), *interval);
  AddDelta(write.latency_ns_delta(), *interval);
  if (!interval->count()) return ",,";
  return fmt::format("{},{},", interval->Quantile(0.5), interval->Quantile(0.99));
}

std::string SamplesCsv::Row(const SampleStep& step, const std::string& agent, const v1::Progress& now, const v1::Progress* before) {
  std::string row = RowStart(step, agent, now.elapsed_ns(), now.bytes(), now.ops());
  // A ramp sample rates the ramp's I/O; the window's rates count from the ramp's end.
  const bool ramp = step.ramp_ns > 0 && now.elapsed_ns() <= step.ramp_ns;
  const uint64_t before_ns = before ? before->elapsed_ns() : 0;
  const uint64_t from_ns = ramp ? before_ns : std::max(before_ns, step.ramp_ns);
  const uint64_t bytes = ramp ? now.ramp_bytes() : now.bytes(), ops = ramp ? now.ramp_ops() : now.ops();
  const uint64_t from_bytes = !before ? 0 : ramp ? before->ramp_bytes() : before->bytes();
  const uint64_t from_ops = !before ? 0 : ramp ? before->ramp_ops() : before->ops();
  if (now.elapsed_ns() > from_ns && bytes >= from_bytes && ops >= from_ops) {
    const double seconds = static_cast<double>(now.elapsed_ns() - from_ns) / 1e9;
    row += fmt::format("{:.3f},{:.3f},", static_cast<double>(bytes - from_bytes) / seconds, static_cast<double>(ops - from_ops) / seconds);
  } else {
    row += ",,";
  }
  // During the ramp no latency is recorded (the window's histograms only).
  row += LatencyColumns(now.read(), now.write());
  row += ramp ? "1,\n" : "0,\n";
  for (int k = 0; k < now.streams_size() && static_cast<size_t>(k) < step.streams.size(); ++k) {
    const v1::StreamProgress* was = before && k < before->streams_size() ? &before->streams(k) : nullptr;
    row += StreamRow(step, agent, now, before, k, was);
  }
  return row;
}

// One stream's row of an agent's sample: its counters (the window's only: a ramp sample's
// rates are empty) and the latency of its requests completed since the agent's previous row.
std::string SamplesCsv::StreamRow(const SampleStep& step, const std::string& agent, const v1::Progress& now,
                                  const v1::Progress* before, int k, const v1::StreamProgress* was) {
  const v1::StreamProgress& s = now.streams(k);
  std::string row = RowStart(step, agent, now.elapsed_ns(), s.bytes(), s.ops());
  const bool ramp = step.ramp_ns > 0 && now.elapsed_ns() <= step.ramp_ns;
  const uint64_t from_ns = std::max(before ? before->elapsed_ns() : 0, step.ramp_ns);
  const uint64_t from_bytes = was ? was->bytes() : 0, from_ops = was ? was->ops() : 0;
  if (!ramp && now.elapsed_ns() > from_ns && s.bytes() >= from_bytes && s.ops() >= from_ops) {
    const double seconds = static_cast<double>(now.elapsed_ns() - from_ns) / 1e9;
    row += fmt::format("{:.3f},{:.3f},", static_cast<double>(s.bytes() - from_bytes) / seconds,
                       static_cast<double>(s.ops() - from_ops) / seconds);
  } else {
    row += ",,";
  }
  row += LatencyColumns(s.read(), s.write());
  return row + (ramp ? "1," : "0,") + CsvField(step.streams[static_cast<size_t>(k)]) + "\n";
}

void SamplesCsv::Add(const SampleStep& step, const std::string& agent, const v1::Progress& now, const v1::Progress* before) {
  const std::string row = Row(step, agent, now, before);
  std::lock_guard lock(mu_);
  if (!file_ || error_) return;
  if (std::fwrite(row.data(), 1, row.size(), file_) != row.size()) error_ = errno ? errno : EIO;
}

Status SamplesCsv::Close() {
  std::lock_guard lock(mu_);
  if (file_) {
    if ((std::fflush(file_) != 0 || fsync(fileno(file_)) != 0) && !error_) error_ = errno ? errno : EIO;
    if (std::fclose(file_) != 0 && !error_) error_ = errno ? errno : EIO;
    file_ = nullptr;
  }
  if (error_) return PosixError(path_.string(), error_);
  return Status();
}

Result<std::string> SamplesCsv::Text() const {
  std::ifstream in(path_);
  if (!in) return PosixError(path_.string(), errno ? errno : ENOENT);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace iofleet::controller
