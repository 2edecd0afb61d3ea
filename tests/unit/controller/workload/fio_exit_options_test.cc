// fio's exitall, exit_what and new_group as job_end (controller/workload/fio_exit_options.cc): on
// the shape of fio's examples/exitwhat.fio, and where iofleet cannot end what fio would.
#include <gtest/gtest.h>

#include "controller/workload/fio_import.h"

namespace iofleet::controller {
namespace {

std::string ExitLines(const std::vector<std::string>& list) {
  std::string out;
  for (const auto& e : list) out += e + "\n";
  return out;
}

// examples/exitwhat.fio's shape: slow1 (exit_what=stonewall) ends fast1 with it; fast1's group is
// its own clones (new_group); slow2's exit_what=all, in the last step, ends that step; fast2 is in
// slow2's group, which is its whole step.
const char* const kExitWhat = R"([global]
filesize=1m
blocksize=4096
group_reporting
exitall=1

[slow1]
rw=read
new_group=1
number_ios=100
exit_what=stonewall

[fast1]
new_group=1
rw=randrw
numjobs=3

[slow2]
stonewall
rw=write
new_group=1
number_ios=100
exit_what=all

[fast2]
rw=randrw
numjobs=3
)";

TEST(FioExitOptions, ExitWhatBecomesWhatEachJobsEndEnds) {
  FioImport imp = ImportFioJobText(kExitWhat, "exitwhat.fio", false);
  ASSERT_TRUE(imp.errors.empty()) << ExitLines(imp.errors);
  ASSERT_EQ(imp.workload.steps_size(), 2);
  const v1::IoSpec& first = imp.workload.steps(0).io();
  const v1::IoSpec& second = imp.workload.steps(1).io();
  ASSERT_EQ(first.streams_size(), 2);
  ASSERT_EQ(second.streams_size(), 2);
  EXPECT_EQ(first.streams(0).job_end(), v1::JOB_END_STEP);    // slow1: stonewall
  EXPECT_EQ(first.streams(1).job_end(), v1::JOB_END_STREAM);  // fast1: its own group
  EXPECT_EQ(second.streams(0).job_end(), v1::JOB_END_STEP);   // slow2: all, in the last step
  EXPECT_EQ(second.streams(1).job_end(), v1::JOB_END_STEP);   // fast2: its group is its step
}

TEST(FioExitOptions, WithoutExitallNothingEndsOthers) {
  FioImport imp = ImportFioJobText("[a]\nsize=1m\nexit_what=stonewall\n[b]\nsize=1m\n", "n.fio", false);
  ASSERT_TRUE(imp.errors.empty()) << ExitLines(imp.errors);
  EXPECT_FALSE(imp.workload.steps(0).io().streams(0).has_job_end());
  EXPECT_NE(ExitLines(imp.warnings).find("n.fio:3:1: exit_what: has no effect without exitall=1"), std::string::npos)
      << ExitLines(imp.warnings);
  // exitall in any job is fio's one flag for the run: [b]'s ends [a]'s group (the step) too.
  imp = ImportFioJobText("[a]\nsize=1m\n[b]\nsize=1m\nexitall\n", "any.fio", false);
  ASSERT_TRUE(imp.errors.empty()) << ExitLines(imp.errors);
  EXPECT_EQ(imp.workload.steps(0).io().streams(0).job_end(), v1::JOB_END_STEP);
  EXPECT_EQ(imp.workload.steps(0).io().streams(1).job_end(), v1::JOB_END_STEP);
}

TEST(FioExitOptions, WhatIofleetCannotEndIsRefusedAtItsPlace) {
  // all before the last step: fio would never run the later steps.
  FioImport imp = ImportFioJobText("[global]\nexitall\n[a]\nsize=1m\nexit_what=all\n[b]\nstonewall\nsize=1m\n", "a.fio", false);
  EXPECT_NE(ExitLines(imp.errors).find("a.fio:5:1: exit_what: exit_what=all (job [a]): fio ends the jobs of the later steps too"),
            std::string::npos)
      << ExitLines(imp.errors);
  // A group that is part of its step: [a] and [b] in one group, [c] in another.
  imp = ImportFioJobText("[global]\nexitall\nsize=1m\n[a]\n[b]\n[c]\nnew_group\n", "g.fio", false);
  EXPECT_NE(ExitLines(imp.errors).find("g.fio:2:1: exitall: exit_what=group (job [a]): fio ends its reporting group ([a], [b]), "
                                       "part of its step"),
            std::string::npos)
      << ExitLines(imp.errors);
  imp = ImportFioJobText("[global]\nexitall\nsize=1m\n[a]\nexit_what=stone\n", "v.fio", false);
  EXPECT_NE(ExitLines(imp.errors).find("v.fio:5:11: exit_what: \"stone\" is not group, stonewall or all"), std::string::npos)
      << ExitLines(imp.errors);
  // With --allow-unsupported it is left out with a warning: the job ends only itself.
  imp = ImportFioJobText("[global]\nexitall\nsize=1m\n[a]\n[b]\n[c]\nnew_group\n", "g.fio", true);
  ASSERT_TRUE(imp.errors.empty()) << ExitLines(imp.errors);
  EXPECT_FALSE(imp.workload.steps(0).io().streams(0).has_job_end());
  EXPECT_EQ(imp.workload.steps(0).io().streams(2).job_end(), v1::JOB_END_STREAM);
}

TEST(FioExitOptions, ATimeBasedJobEndsNothingItsStepWouldNot) {
  FioImport imp = ImportFioJobText("[global]\nexitall\nsize=1m\ntime_based\nruntime=2\n[a]\nexit_what=stonewall\n[b]\n", "t.fio", false);
  ASSERT_TRUE(imp.errors.empty()) << ExitLines(imp.errors);
  EXPECT_FALSE(imp.workload.steps(0).io().streams(0).has_job_end());
  EXPECT_FALSE(imp.workload.steps(0).io().streams(1).has_job_end());
  // Unless a job of the step starts later: fio would end it before its runtime.
  imp = ImportFioJobText("[global]\nexitall\nsize=1m\ntime_based\nruntime=2\n[a]\n[b]\nstartdelay=1\n", "d.fio", false);
  EXPECT_NE(ExitLines(imp.errors).find("d.fio:2:1: exitall: in a time-based job (job [a]) beside jobs of another startdelay"),
            std::string::npos)
      << ExitLines(imp.errors);
}

}  // namespace
}  // namespace iofleet::controller
