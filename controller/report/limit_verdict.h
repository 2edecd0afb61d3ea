// What held an agent back in a step (report.json's `limit`), from what its host did over the
// window (result.proto ResourceStats) and its own figures. The rules, first that holds wins:
//
//   rate_cap     the step's rate: the agent did at least 90% of what its jobs were asked;
//   device       a blkio throttle of the agent's cgroup: what passed it is at least 90% of its limit
//                (throttled bios wait before the disk's accounting, so the disk looks idle);
//   queue_depth  O_DIRECT with at most kSmallInFlight requests in flight: the device's own latency
//                is at least half of iofleet's and on average at least half of what the jobs keep
//                in flight is queued on it (at QD1 a virtio disk here: 0.8 queued, 76% busy, the
//                rest the job's own time between requests). The device's queue is what the jobs
//                give it, and few devices are full with so few;
//   device       O_DIRECT with more in flight: on average at least 80% of what the jobs keep in
//                flight (or more than 2 x kSmallInFlight) was queued on a device under the run
//                directory, and its own latency is at least half of iofleet's (its busy share is
//                evidence only: blk-mq's io_ticks under-count a device with many in flight);
//   client_cpu   O_DIRECT with more than kSmallInFlight in flight, less than 80% of it queued on
//                the device, and a job thread at least 85% or a core at least 90% busy: the
//                requests waited in the client, not the device;
//   client_cpu   the agent was CPU-bound (report.json's client_cpu_bound: a job thread or the
//                host over 90%), or one core was busy at least 95% of the window;
//   network      an interface whose speed the driver reports carried at least 90% of it, where the
//                run directory is on no local block device (an NFS or other network mount);
//   unknown      none of these: the evidence lists what was read.
//
// Every verdict comes with its evidence, figures a user can check against iostat or sar.
#pragma once

#include <optional>
#include <string>

#include "controller/report/report_model.h"
#include "iofleet/v1/report.pb.h"
#include "iofleet/v1/result.pb.h"

namespace iofleet::controller {

// The jobs keep this few requests in flight or fewer: a device busy with all of them could
// likely do more with more (the queue_depth verdict).
inline constexpr uint32_t kSmallInFlight = 4;

// An agent sends at most this many devices, interfaces and throttles (agent/host/resource_sample.h).
inline constexpr int kMaxResourceRows = 64;

// An agent's resources as the wire brought them are untrusted: a bounded number of devices,
// interfaces and throttles with names of at most 64 printable characters, and figures within
// the window; anything else is dropped (the report then has none, never a made-up one).
bool ResourcesAreSound(const v1::ResourceStats& r);

// The window's figures: rates, utilisation, average queue and device latency.
v1::ReportResources ResourceFigures(const v1::ResourceStats& r, const StepStats& agent);

// `shared_in_flight`: a stream's verdict, what every stream of its step keeps in flight on the
// agent (the device's queue is all of theirs; the stream's own is r.in_flight()).
v1::ReportLimit JudgeLimit(const v1::ResourceStats& r, const StepStats& agent, std::optional<uint32_t> shared_in_flight = std::nullopt);

// The device busiest in the window; ties go to the one listed first (nearest the run directory).
const v1::ReportDevice* BusiestDevice(const v1::ReportResources& f);

// Where the page cache served at least this share of an agent's buffered reads, the console and
// report.md warn: the agent it served most, and how many it served that much.
inline constexpr double kPageCacheWarnPct = 20.0;
std::optional<std::string> PageCacheWarning(const v1::ReportStep& step);

// "verdict (agent A): evidence; evidence" as the console and report.md print it.
std::string LimitText(const v1::ReportLimit& limit);

// A stream's row at `agent` shares the device with the step's other streams: what all of them
// keep in flight there (the step's row), or none for a step of one stream.
std::optional<uint32_t> SharedInFlight(const StepReport& step, const std::string& agent);

// A step's limit: that of its slowest agent (controller/report/slowest_agent.h), or of its one
// agent, with `agent` naming it; none where that agent sent no resources.
std::optional<v1::ReportLimit> StepLimit(const StepReport& step);
// The same for one of the step's streams: its row at the agent the step's limit names, judged on
// the host's figures with what the stream's own jobs asked (rate, in flight) and did, its share
// of the device's queue against what every stream's jobs kept in flight there.
std::optional<v1::ReportLimit> LimitAt(const StepReport& step, const std::vector<AgentStep>& agents);

}  // namespace iofleet::controller
