// Built-in defaults and their resolution: builtin <- workload defaults <- step.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/base/status.h"
#include "iofleet/v1/workload.pb.h"

namespace iofleet::rules {

// DESIGN.md section 3: engine libaio, direct true, block_size 1MiB, queue_depth 1, jobs 1,
// file_layout per_job, file_size 1GiB, data fully random, verify false. `op` has no default.
v1::IoSpec BuiltinIoDefaults();

// Lays `over` on `base`: fields `over` sets win, a non-empty list replaces the whole list, and
// setting one of an exclusive pair (file_size/total_size, rate.bytes_per_sec/rate.iops) clears
// the other.
void Overlay(v1::IoSpec& base, const v1::IoSpec& over);
// The IoSpec fields (by number) that a level setting replaces `field` of the levels below
// with: `field` itself and its alternative (jobs and total_jobs, file_size and total_size), as
// Overlay applies them.
std::vector<int> FieldsReplacing(int field);

// Streams (IoSpec.streams): a step's runtime, ramp, deadline and stonewall are every stream's;
// a stream may not set them. Every other field is per job: a stream's own value, else the step's.
bool IsStepLevelField(int field);
// The most streams a step may hold.
constexpr int kMaxStreams = 64;
// The jobs per agent at most of a step cut into windows (target_latency, curve, steady): each
// keeps a 120 KiB snapshot of its counters.
constexpr uint32_t kMaxSearchJobs = 256;
// What runs: each stream of a resolved (or planned) spec, or the spec itself when it has none.
std::vector<const v1::IoSpec*> StreamsOf(const v1::IoSpec& io);
// The jobs of every stream of a planned spec together: 0 when this agent sits the step out.
uint64_t JobsOf(const v1::IoSpec& io);
// A step with streams as it is planned: its step-level fields and its streams, nothing else
// (its per-job fields are already in each stream).
void KeepStepLevel(v1::IoSpec& io);

// The fully resolved I/O spec of steps[index] (which must be an io step). A step with streams
// resolves to its own fields and each stream resolved: the step's fields with the stream's
// laid over them, and the step-level fields of the step.
v1::IoSpec ResolveIo(const v1::Workload& workload, int index);
// The same for any io step of the workload, a group's steps included.
v1::IoSpec ResolveStepIo(const v1::Workload& workload, const v1::Step& step);
// The steps the controller cuts into windows as they run: target_latency, curve, steady.
bool IsCutStep(const v1::IoSpec& io);
// Such a step without a runtime runs at most this long (the controller ends it sooner): every
// window it may measure with a settle and 3 s of lead each, or a steady step's timeout.
uint64_t CutStepRuntimeNs(const v1::IoSpec& io);
// The least runtime a workload may give such a step: three windows' worth, or all of a shorter
// curve's (a steady step: its window).
uint64_t CutStepLeastRuntimeNs(const v1::IoSpec& io);
// A steady step's window and sample interval, defaults filled.
uint64_t SteadyWindowNs(const v1::SteadyState& steady);
uint64_t SteadyIntervalNs(const v1::SteadyState& steady);
// A curve step's levels, defaults filled.
std::vector<uint32_t> CurveLevels(const v1::LoadCurve& curve);

// What an agent runs: the resolved spec with total_size turned into file_size, the total split
// evenly over `total_jobs` (this step's jobs on all agents together): each job's share, or for a
// shared file the agent's jobs' shares together. Fails when a share is smaller than one block.
Result<v1::IoSpec> PlanIo(const v1::IoSpec& resolved, uint64_t total_jobs);

// The step's name, or "<kind>-<index>" when it has none (a group's steps:
// core/rules/step_tree.h).
std::string StepName(const v1::Workload& workload, int index);
std::string StepKind(const v1::Step& step);

// Why a field of a resolved spec has no effect on it ("" when it has one). `field` is IoSpec's
// field number (v1::IoSpec::kQueueDepthFieldNumber, or a descriptor's number()); the validator
// turns a non-empty answer into an error where the user set it.
std::string Inapplicable(const v1::IoSpec& io, int field);
// Clears every field that has no effect on `io`.
void PruneInapplicable(v1::IoSpec& io);
// What an agent runs: every field that has no effect on `io` (inherited from defaults where it
// means nothing, e.g. ramp on a size-based step, queue_depth on psync) set to its neutral value
// (ramp 0, queue_depth 1, ...), so what runs is what the effective workload shows.
void NeutralizeInapplicable(v1::IoSpec& io);

// The workload with every default written out in its steps (what workload.effective.yaml
// shows); fields that have no effect on a step are left out.
v1::Workload Effective(const v1::Workload& workload);

// Facts about a resolved spec that several modules need.
bool Reads(v1::Op op);
bool Writes(v1::Op op);
bool IsRandom(v1::Op op);
// The largest transfer: block_size, or the largest size of block_size_split.
uint64_t MaxBlockSize(const v1::IoSpec& io);
// The file job `job` works on, by name (below the run directory, or for shared_global below
// the run's shared directory): <file_prefix>-<job>.dat per job, shared.dat or
// <file_prefix>-shared.dat shared.
constexpr std::string_view kDefaultFilePrefix = "job";
std::string JobFileName(const v1::IoSpec& io, uint32_t job);
// The bytes each job works on: its file (per_job) or its share of the shared file (of the
// global file, shared by `global_jobs` jobs).
uint64_t JobRangeBytes(const v1::IoSpec& io, uint32_t global_jobs = 1);

}  // namespace iofleet::rules
