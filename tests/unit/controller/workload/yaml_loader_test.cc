#include "controller/workload/yaml_loader.h"

#include <gtest/gtest.h>

#include <fstream>

#include "controller/workload/sweep.h"
#include "controller/workload/yaml_writer.h"
#include "tests/support/temp_dir.h"
#include "controller/workload/sweep.h"
#include "core/rules/defaults.h"

namespace iofleet::controller {
namespace {

std::string AllErrors(const LoadedWorkload& w) {
  std::string out;
  for (const auto& e : w.errors) out += e + "\n";
  return out;
}

bool HasError(const LoadedWorkload& w, const std::string& text) {
  return AllErrors(w).find(text) != std::string::npos;
}

TEST(YamlLoader, LoadsTheVocabulary) {
  auto w = LoadWorkloadText(R"(
name: t
description: a test
target: { root: default, dir: bench/x }
defaults:
  engine: io_uring
  direct: false
  block_size: 64KiB
  queue_depth: 8
  jobs: 3
  file_size: 4MiB
  runtime: 2s
steps:
  - name: w
    io: { op: write }
  - io: { op: read, block_size: 1MiB }
)", "t.yaml");
  ASSERT_TRUE(w.errors.empty()) << AllErrors(w);
  EXPECT_EQ(w.workload.defaults().engine(), v1::ENGINE_IO_URING);
  EXPECT_FALSE(w.workload.defaults().direct());
  EXPECT_EQ(w.workload.defaults().block_size(), 65536u);
  EXPECT_EQ(w.workload.defaults().runtime(), 2'000'000'000u);
  EXPECT_EQ(w.workload.target().dir(), "bench/x");
  EXPECT_EQ(w.workload.steps(1).io().block_size(), 1u << 20);
  EXPECT_FALSE(w.workload.steps(1).io().has_jobs());  // inherited, not copied
}

TEST(YamlLoader, UnknownKeyWithSuggestionAndPosition) {
  auto w = LoadWorkloadText("name: t\ndefaults:\n  blocksize: 4KiB\nsteps:\n  - io: { op: write }\n", "w.yaml");
  EXPECT_TRUE(HasError(w, "w.yaml:3:3: defaults.blocksize: unknown key (did you mean block_size?)")) << AllErrors(w);
}

TEST(YamlLoader, BadSizeNamesLineAndColumn) {
  auto w = LoadWorkloadText("name: t\nsteps:\n  - io: { op: write, block_size: 4kb }\n", "w.yaml");
  EXPECT_TRUE(HasError(w, "w.yaml:3:34: steps[0].io.block_size: \"4kb\" is not a size (did you mean 4KiB?)"))
      << AllErrors(w);
}

TEST(YamlLoader, NegativeCountIsRejected) {
  auto w = LoadWorkloadText("name: t\ndefaults: { jobs: -4 }\nsteps:\n  - io: { op: write }\n", "w.yaml");
  EXPECT_TRUE(HasError(w, "w.yaml:2:19: defaults.jobs: \"-4\" must not be negative")) << AllErrors(w);
}

TEST(YamlLoader, RangeTypeAndEnumErrorsAllAtOnce) {
  auto w = LoadWorkloadText(R"(name: t
defaults:
  jobs: 0
  direct: yes
  engine: libaoi
  queue_depth: many
steps:
  - io: { op: write }
)", "w.yaml");
  EXPECT_EQ(w.errors.size(), 4u) << AllErrors(w);
  EXPECT_TRUE(HasError(w, "w.yaml:3:9: defaults.jobs: 0 is below the minimum 1"));
  EXPECT_TRUE(HasError(w, "w.yaml:4:11: defaults.direct: \"yes\" is not true or false"));
  EXPECT_TRUE(HasError(w, "defaults.engine: \"libaoi\" is not one of: psync, libaio, io_uring, null (did you mean libaio?)"));
  EXPECT_TRUE(HasError(w, "defaults.queue_depth: \"many\" is not a whole number"));
}

TEST(YamlLoader, StructuralErrors) {
  EXPECT_TRUE(HasError(LoadWorkloadText("name: t\nname: u\nsteps: []\n", "w.yaml"), "w.yaml:2:1: name: given twice"));
  EXPECT_TRUE(HasError(LoadWorkloadText("name: t\nsteps: { io: {} }\n", "w.yaml"), "steps: expected a list"));
  EXPECT_TRUE(HasError(LoadWorkloadText("- a\n- b\n", "w.yaml"), "w.yaml:1:1: a workload is a YAML map"));
  EXPECT_TRUE(HasError(LoadWorkloadText("name: [t\n", "w.yaml"), "w.yaml:"));
  EXPECT_TRUE(HasError(LoadWorkloadText("name: t\nsteps:\n  - io: { op: write }\n    io: { op: read }\n", "w.yaml"), "given twice"));
  // A map's key given twice would keep one value silently: sweep and overrides' set are maps.
  EXPECT_TRUE(HasError(LoadWorkloadText("name: t\nsteps:\n  - io: { op: read }\nsweep:\n  jobs: [1, 2]\n  jobs: [4]\n", "w.yaml"),
                       "w.yaml:6:3: sweep.jobs: given twice"));
}

TEST(YamlLoader, ValidationErrorsCarryPositions) {
  auto w = LoadWorkloadText("name: t\ntarget:\n  dir: ../escape\nsteps:\n  - io: { op: write }\n", "w.yaml");
  EXPECT_TRUE(HasError(w, "w.yaml:3:3: target.dir: \"../escape\" must be a relative path")) << AllErrors(w);
  auto no_op = LoadWorkloadText("name: t\nsteps:\n  - io: { jobs: 2 }\n", "w.yaml");
  EXPECT_TRUE(HasError(no_op, "w.yaml:3:5: steps[0].io: needs an op")) << AllErrors(no_op);
}

TEST(YamlLoader, NestedMessagesListsAndTheirErrors) {
  auto w = LoadWorkloadText(R"(name: t
defaults:
  data: { compressible_pct: 50, pattern: "0xdeadbeef" }
  block_size_split: [{ size: 4KiB, weight: 60 }, { size: 64KiB, weight: 40 }]
steps:
  - io: { op: randrw, read_pct: 70, rate: { iops: 5000 } }
)", "w.yaml");
  ASSERT_TRUE(w.errors.empty()) << AllErrors(w);
  EXPECT_EQ(w.workload.defaults().data().compressible_pct(), 50u);
  EXPECT_EQ(w.workload.defaults().block_size_split(1).size(), 65536u);
  EXPECT_EQ(w.workload.steps(0).io().rate().iops(), 5000u);
  auto bad = LoadWorkloadText("name: t\ndefaults:\n  data: { compressible_pct: 150, patern: x }\nsteps:\n  - io: { op: write }\n", "w.yaml");
  EXPECT_TRUE(HasError(bad, "w.yaml:3:29: defaults.data.compressible_pct: 150 is above the maximum 100")) << AllErrors(bad);
  EXPECT_TRUE(HasError(bad, "defaults.data.patern: unknown key (did you mean pattern?)")) << AllErrors(bad);
}

TEST(YamlLoader, BareNullGetsAQuotingHint) {
  auto w = LoadWorkloadText("name: t\nsteps:\n  - io: { op: randread, engine: null }\n", "w.yaml");
  EXPECT_TRUE(HasError(w, "w.yaml:3:33: steps[0].io.engine: needs a value (YAML reads null as empty: write \"null\" in quotes)"))
      << AllErrors(w);
  auto quoted = LoadWorkloadText("name: t\nsteps:\n  - io: { op: randread, engine: \"null\" }\n", "w.yaml");
  EXPECT_TRUE(quoted.errors.empty()) << AllErrors(quoted);
}

// A 21 MB workload took 16 s and 1.9 GB before it was refused.
TEST(YamlLoader, RefusesAFileOverTheBoundBeforeParsing) {
  testing::TempDir dir;
  const std::string path = (dir / "big.yaml").string();
  {
    std::ofstream out(path);
    out << "name: big\nsteps:\n";
    while (out.tellp() < (5 << 20)) out << "  - io: { op: read }\n";
  }
  auto w = LoadWorkloadFile(path);
  ASSERT_EQ(w.errors.size(), 1u) << AllErrors(w);
  EXPECT_EQ(w.errors[0].find(path + ": "), 0u) << w.errors[0];
  EXPECT_NE(w.errors[0].find("is more than a workload file may hold (4MiB)"), std::string::npos) << w.errors[0];
  // The same bound for text handed over directly.
  auto text = LoadWorkloadText(std::string((4 << 20) + 1, '#'), "t.yaml");
  EXPECT_TRUE(HasError(text, "t.yaml: 4194305 bytes is more than a workload file may hold (4MiB)")) << AllErrors(text);
  // A file that cannot be read says so.
  EXPECT_TRUE(LoadWorkloadFile((dir / "missing.yaml").string()).errors[0].find("cannot read") != std::string::npos);
}

// target.dir: "a\0b" was accepted as "a".
TEST(YamlLoader, RefusesANulByteAnywhere) {
  auto w = LoadWorkloadText("name: t\ntarget: { dir: \"a\\0b\" }\nsteps:\n  - io: { op: read }\n", "t.yaml");
  EXPECT_TRUE(HasError(w, "t.yaml:2:16: target.dir: holds a NUL byte")) << AllErrors(w);
  // In a key, a list item, a map value kept as text (overrides, sweep), and as a raw byte.
  w = LoadWorkloadText("name: t\nsteps:\n  - name: \"x\\0y\"\n    io: { op: read }\n", "t.yaml");
  EXPECT_TRUE(HasError(w, "t.yaml:3:11: steps[0].name: holds a NUL byte")) << AllErrors(w);
  w = LoadWorkloadText("name: t\nsteps:\n  - io: { op: read }\nsweep:\n  \"target.dir\\0\": [a, b]\n", "t.yaml");
  EXPECT_TRUE(HasError(w, "t.yaml:5:3: sweep: holds a NUL byte")) << AllErrors(w);
  w = LoadWorkloadText("name: t\nsteps:\n  - io: { op: read }\nsweep:\n  target.dir: [a, \"b\\0c\"]\n", "t.yaml");
  EXPECT_TRUE(HasError(w, "t.yaml:5:19: sweep.target.dir[1]: holds a NUL byte")) << AllErrors(w);
  w = LoadWorkloadText(std::string("name: t\nsteps:\n  - io: { op: read }\ndescription: a\0b\n", 53), "t.yaml");
  EXPECT_TRUE(HasError(w, "t.yaml:4:15: a NUL byte")) << AllErrors(w);
  // And through --set.
  w = LoadWorkloadText("name: t\nsteps:\n  - io: { op: read }\n", "t.yaml");
  ASSERT_TRUE(w.errors.empty()) << AllErrors(w);
  Status set = SetWorkloadPath(w.workload, "target.dir", "\"a\\0b\"", "--set");
  EXPECT_FALSE(set.ok());
  EXPECT_NE(set.message().find("--set: target.dir: the value holds a NUL byte"), std::string::npos) << set.message();
}

TEST(SetWorkloadPath, SetsFieldsByPath) {
  auto w = LoadWorkloadText("name: t\nsteps:\n  - name: write\n    io: { op: write }\n  - name: read\n    io: { op: read }\n", "w.yaml");
  ASSERT_TRUE(w.errors.empty()) << AllErrors(w);
  v1::Workload& wl = w.workload;
  ASSERT_TRUE(SetWorkloadPath(wl, "jobs", "8", "--set").ok());  // a bare field means defaults.jobs
  EXPECT_EQ(wl.defaults().jobs(), 8u);
  ASSERT_TRUE(SetWorkloadPath(wl, "steps[read].io.block_size", "64KiB", "--set").ok());
  EXPECT_EQ(wl.steps(1).io().block_size(), 65536u);
  ASSERT_TRUE(SetWorkloadPath(wl, "steps[0].io.op", "randwrite", "--set").ok());
  EXPECT_EQ(wl.steps(0).io().op(), v1::OP_RANDWRITE);
  ASSERT_TRUE(SetWorkloadPath(wl, "defaults.data", "{ compressible_pct: 25 }", "--set").ok());
  EXPECT_EQ(wl.defaults().data().compressible_pct(), 25u);
  ASSERT_TRUE(SetWorkloadPath(wl, "block_size_split", "[{ size: 4KiB, weight: 1 }]", "--set").ok());
  ASSERT_TRUE(SetWorkloadPath(wl, "block_size_split", "[{ size: 8KiB, weight: 1 }]", "--set").ok());
  ASSERT_EQ(wl.defaults().block_size_split_size(), 1);  // replaced, not appended
  EXPECT_EQ(wl.defaults().block_size_split(0).size(), 8192u);
  ASSERT_TRUE(SetWorkloadPath(wl, "target.dir", "bench/x", "--set").ok());
  EXPECT_EQ(wl.target().dir(), "bench/x");

  Status typo = SetWorkloadPath(wl, "defaults.blocksize", "4KiB", "--set");
  EXPECT_NE(typo.message().find("no field defaults.blocksize (did you mean block_size?)"), std::string::npos) << typo.message();
  Status value = SetWorkloadPath(wl, "jobs", "-3", "--set");
  EXPECT_NE(value.message().find("--set: defaults.jobs: \"-3\" must not be negative"), std::string::npos) << value.message();
  EXPECT_FALSE(SetWorkloadPath(wl, "steps[nope].io.op", "read", "--set").ok());
  EXPECT_FALSE(SetWorkloadPath(wl, "name.x", "y", "--set").ok());
}

TEST(SetWorkloadPath, ASweptPathIsOneKeyOfTheSweepMap) {
  // --set 'sweep.total_jobs=[1,2,4,8]' means what --set 'sweep={total_jobs: [1,2,4,8]}' does;
  // the key after "sweep." is a path itself, dots and brackets included.
  auto w = LoadWorkloadText("name: t\nsweep:\n  jobs: [1, 2]\nsteps:\n  - name: w\n    io: { op: write }\n", "w.yaml");
  ASSERT_TRUE(w.errors.empty()) << AllErrors(w);
  v1::Workload& wl = w.workload;
  Status set = SetWorkloadPath(wl, "sweep.total_jobs", "[1,2,4,8]", "--set");
  ASSERT_TRUE(set.ok()) << set.message();
  ASSERT_TRUE(SetWorkloadPath(wl, "sweep.steps[w].io.block_size", "[4KiB, 64KiB]", "--set").ok());
  ASSERT_TRUE(SetWorkloadPath(wl, "sweep.jobs", "[3]", "--set").ok());  // replaces the file's axis
  ASSERT_EQ(wl.sweep().size(), 3u);
  EXPECT_EQ(wl.sweep().at("jobs"), "[3]");
  auto points = ExpandSweep(wl);
  ASSERT_TRUE(points.ok()) << points.status().message();
  EXPECT_EQ(points->size(), 1u * 4u * 2u);
  EXPECT_EQ(points->back().workload.defaults().total_jobs(), 8u);
  EXPECT_EQ(points->back().workload.steps(0).io().block_size(), 65536u);

  auto whole = LoadWorkloadText("name: t\nsteps:\n  - io: { op: write }\n", "w.yaml");
  ASSERT_TRUE(SetWorkloadPath(whole.workload, "sweep", "{total_jobs: [1,2,4,8]}", "--set").ok());
  auto whole_points = ExpandSweep(whole.workload);
  ASSERT_TRUE(whole_points.ok());
  EXPECT_EQ(whole_points->size(), 4u);
}

TEST(AgentOverrides, LoadValidateAndApplyByGlob) {
  auto w = LoadWorkloadText(R"(name: t
agents:
  overrides:
    - match: "node0[1-2]*"
      set: { defaults.jobs: 8, target.dir: fast, "steps[w].io.block_size": 64KiB }
steps:
  - name: w
    io: { op: write }
)", "w.yaml");
  ASSERT_TRUE(w.errors.empty()) << AllErrors(w);
  auto matched = ForAgent(w.workload, "node01", "10.0.0.1:7070");
  ASSERT_TRUE(matched.ok()) << matched.status().message();
  EXPECT_EQ(matched->defaults().jobs(), 8u);
  EXPECT_EQ(matched->target().dir(), "fast");
  EXPECT_EQ(matched->steps(0).io().block_size(), 65536u);
  auto other = ForAgent(w.workload, "node03", "10.0.0.3:7070");
  ASSERT_TRUE(other.ok());
  EXPECT_FALSE(other->defaults().has_jobs());
  auto by_address = ForAgent(w.workload, "x", "node02:7070");
  ASSERT_TRUE(by_address.ok());
  EXPECT_EQ(by_address->defaults().jobs(), 8u);

  auto bad = LoadWorkloadText(R"(name: t
agents:
  overrides:
    - match: "*"
      set: { defaults.jobz: 8, jobs: 0 }
steps:
  - io: { op: write }
)", "w.yaml");
  EXPECT_TRUE(HasError(bad, "w.yaml:5:14: agents.overrides[0].set.defaults.jobz: ")) << AllErrors(bad);
  EXPECT_TRUE(HasError(bad, "did you mean jobs?")) << AllErrors(bad);
  EXPECT_TRUE(HasError(bad, "0 is below the minimum 1")) << AllErrors(bad);
}

TEST(Sweep, BadAxesAndValuesAreLoadErrors) {
  auto bad_value = LoadWorkloadText("name: t\nsweep:\n  jobs: [1, 0]\nsteps:\n  - io: { op: write }\n", "w.yaml");
  EXPECT_TRUE(HasError(bad_value, "w.yaml:3:3: sweep.jobs: ")) << AllErrors(bad_value);
  EXPECT_TRUE(HasError(bad_value, "0 is below the minimum 1")) << AllErrors(bad_value);
  auto not_list = LoadWorkloadText("name: t\nsweep:\n  jobs: 4\nsteps:\n  - io: { op: write }\n", "w.yaml");
  EXPECT_TRUE(HasError(not_list, "sweep.jobs: expected a non-empty list")) << AllErrors(not_list);
  auto target = LoadWorkloadText("name: t\nsweep:\n  target.dir: [a, b]\nsteps:\n  - io: { op: write }\n", "w.yaml");
  EXPECT_TRUE(HasError(target, "only fields under defaults and steps can be swept")) << AllErrors(target);
  auto typo = LoadWorkloadText("name: t\nsweep:\n  defaults.jbos: [1, 2]\nsteps:\n  - io: { op: write }\n", "w.yaml");
  EXPECT_TRUE(HasError(typo, "did you mean jobs?")) << AllErrors(typo);
}

TEST(YamlWriter, SweepsAndOverridesRoundTrip) {
  auto w = LoadWorkloadText(R"(name: t
agents:
  overrides:
    - match: "node*"
      set: { defaults.jobs: 2, "steps[0].io.block_size": 64KiB }
sweep:
  defaults.data.compressible_pct: [0, 50]
  jobs: [1, 2]
steps:
  - io: { op: write }
)", "w.yaml");
  ASSERT_TRUE(w.errors.empty()) << AllErrors(w);
  v1::Workload effective = rules::Effective(w.workload);
  std::string yaml = ToYaml(effective);
  auto again = LoadWorkloadText(yaml, "effective.yaml");
  ASSERT_TRUE(again.errors.empty()) << AllErrors(again) << yaml;
  EXPECT_EQ(again.workload.sweep().at("jobs"), "[1, 2]") << yaml;
  EXPECT_EQ(again.workload.agents().overrides(0).set().at("defaults.jobs"), "2");
  EXPECT_EQ(again.workload.sweep_size(), 2);
}

TEST(YamlWriter, EffectiveWorkloadRoundTrips) {
  auto w = LoadWorkloadText("name: t\ndefaults: { block_size: 64KiB, runtime: 90s }\nsteps:\n  - io: { op: write }\n", "w.yaml");
  ASSERT_TRUE(w.errors.empty()) << AllErrors(w);
  v1::Workload effective = rules::Effective(w.workload);
  std::string yaml = ToYaml(effective);
  EXPECT_NE(yaml.find("block_size: 64KiB"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("runtime: 90s"), std::string::npos) << yaml;
  auto again = LoadWorkloadText(yaml, "effective.yaml");
  ASSERT_TRUE(again.errors.empty()) << AllErrors(again) << yaml;
  EXPECT_EQ(again.workload.SerializeAsString(), effective.SerializeAsString());
}

constexpr const char* kGroups = R"(name: t
steps:
  - name: make
    files: { dir: src, dirs: 1, files_per_dir: 2, file_size: 4KiB, ops: [mkdir, create] }
  - name: in
    group:
      repeat: 3
      steps:
        - drop_caches: {}
        - name: copy-in
          copy: { from: src, to: dst }
  - name: out
    group: { repeat: 2, steps: [ { io: { op: read } } ] }
)";

TEST(Groups, LoadWithTheirStepsNamedAndResolved) {
  auto w = LoadWorkloadText(kGroups, "w.yaml");
  ASSERT_TRUE(w.errors.empty()) << AllErrors(w);
  const v1::GroupStep& in = w.workload.steps(1).group();
  EXPECT_EQ(in.repeat(), 3u);
  ASSERT_EQ(in.steps_size(), 2);
  EXPECT_TRUE(in.steps(0).has_drop_caches());
  EXPECT_EQ(rules::StepKind(w.workload.steps(1)), "group");
  // Effective: default names (<group>-<kind>-<index>), io resolved from defaults, copy method.
  v1::Workload effective = rules::Effective(w.workload);
  EXPECT_EQ(effective.steps(1).group().steps(0).name(), "in-drop_caches-0");
  EXPECT_EQ(effective.steps(1).group().steps(1).copy().method(), v1::COPY_METHOD_READ_WRITE);
  EXPECT_EQ(effective.steps(2).group().steps(0).name(), "out-io-0");
  EXPECT_EQ(effective.steps(2).group().steps(0).io().block_size(), 1u << 20);
  std::string yaml = ToYaml(effective);
  auto again = LoadWorkloadText(yaml, "effective.yaml");
  ASSERT_TRUE(again.errors.empty()) << AllErrors(again) << yaml;
  EXPECT_EQ(again.workload.SerializeAsString(), effective.SerializeAsString()) << yaml;
  EXPECT_NE(yaml.find("method: read_write"), std::string::npos) << yaml;
}

TEST(Groups, StepsAreAddressedThroughTheirGroup) {
  auto w = LoadWorkloadText(kGroups, "w.yaml");
  ASSERT_TRUE(w.errors.empty()) << AllErrors(w);
  v1::Workload& wl = w.workload;
  ASSERT_TRUE(SetWorkloadPath(wl, "steps[in].group.steps[copy-in].copy.jobs", "4", "--set").ok());
  EXPECT_EQ(wl.steps(1).group().steps(1).copy().jobs(), 4u);
  ASSERT_TRUE(SetWorkloadPath(wl, "steps[in].group.repeat", "30", "--set").ok());
  EXPECT_EQ(wl.steps(1).group().repeat(), 30u);
  // By a default name, and by index.
  ASSERT_TRUE(SetWorkloadPath(wl, "steps[out].group.steps[out-io-0].io.block_size", "64KiB", "--set").ok());
  EXPECT_EQ(wl.steps(2).group().steps(0).io().block_size(), 65536u);
  ASSERT_TRUE(SetWorkloadPath(wl, "steps[1].group.steps[0]", "{ hook: { name: clear-cuno-cache } }", "--set").ok());
  EXPECT_EQ(wl.steps(1).group().steps(0).hook().name(), "clear-cuno-cache");
  ASSERT_TRUE(SetWorkloadPath(wl, "steps[in].group.steps[copy-in].copy.method", "copy_file_range", "--set").ok());
  EXPECT_EQ(wl.steps(1).group().steps(1).copy().method(), v1::COPY_METHOD_COPY_FILE_RANGE);

  Status missing = SetWorkloadPath(wl, "steps[in].group.steps[nope].copy.jobs", "4", "--set");
  EXPECT_NE(missing.message().find("steps[in].group.steps has no entry \"nope\""), std::string::npos) << missing.message();
  Status bad = SetWorkloadPath(wl, "steps[in].group.repeat", "0", "--set");
  EXPECT_NE(bad.message().find("0 is below the minimum 1"), std::string::npos) << bad.message();

  // Sweeps and overrides take the same paths.
  std::string text = std::string(kGroups) + "sweep:\n  steps[in].group.repeat: [1, 2]\n  steps[in].group.steps[copy-in].copy.jobs: [1, 2]\n";
  auto swept = LoadWorkloadText(text, "w.yaml");
  ASSERT_TRUE(swept.errors.empty()) << AllErrors(swept);
  auto points = ExpandSweep(swept.workload);
  ASSERT_TRUE(points.ok()) << points.status().message();
  ASSERT_EQ(points->size(), 4u);
  EXPECT_EQ((*points)[3].workload.steps(1).group().repeat(), 2u);
  EXPECT_EQ((*points)[3].workload.steps(1).group().steps(1).copy().jobs(), 2u);
}

TEST(Groups, ValidationRules) {
  auto nested = LoadWorkloadText(R"(name: t
steps:
  - name: g
    group:
      repeat: 2
      steps:
        - group: { repeat: 2, steps: [ { sync: {} } ] }
)", "w.yaml");
  EXPECT_TRUE(HasError(nested, "w.yaml:7:11: steps[0].group.steps[0].group: groups do not nest")) << AllErrors(nested);

  auto twice = LoadWorkloadText(R"(name: t
steps:
  - name: sync-a
    sync: {}
  - name: g
    group: { repeat: 2, steps: [ { name: sync-a, sync: {} } ] }
)", "w.yaml");
  EXPECT_TRUE(HasError(twice, "steps[1].group.steps[0].name: step name \"sync-a\" is used twice")) << AllErrors(twice);

  auto empty = LoadWorkloadText("name: t\nsteps:\n  - group: { steps: [] }\n", "w.yaml");
  EXPECT_TRUE(HasError(empty, "steps[0].group.repeat: a group needs repeat")) << AllErrors(empty);
  EXPECT_TRUE(HasError(empty, "steps[0].group.steps: a group needs at least one step")) << AllErrors(empty);

  // A group's steps are checked like top-level ones, with their own paths.
  auto inner = LoadWorkloadText(R"(name: t
steps:
  - group: { repeat: 2, steps: [ { io: { op: write, block_size: 1000 } }, { copy: { from: a } } ] }
)", "w.yaml");
  EXPECT_TRUE(HasError(inner, "steps[0].group.steps[0].io.block_size: 1KB must be a multiple of 512")) << AllErrors(inner);
  EXPECT_TRUE(HasError(inner, "steps[0].group.steps[1].copy.to: a copy step needs to")) << AllErrors(inner);
  auto bad_method = LoadWorkloadText("name: t\nsteps:\n  - copy: { from: a, to: b, method: splice }\n", "w.yaml");
  EXPECT_TRUE(HasError(bad_method, "steps[0].copy.method: \"splice\" is not one of")) << AllErrors(bad_method);
}

// Found by tests/fuzz/yaml_loader_fuzz on its first seed: the loader held `it->first` of a
// yaml-cpp map iterator by reference, a member of a proxy that dies with the statement, and then
// read the key through it (stack-use-after-scope under ASan; works by luck without it).
TEST(YamlLoader, MapKeysAreReadAfterTheIteratorStatement) {
  auto w = LoadWorkloadText("name: t\nsteps:\n  - io: { op: write, file_size: 1MiB }\n", "t.yaml");
  ASSERT_TRUE(w.errors.empty()) << AllErrors(w);
  EXPECT_EQ(w.workload.name(), "t");
  auto bad = LoadWorkloadText("nmae: t\n", "t.yaml");
  EXPECT_TRUE(HasError(bad, "did you mean name?")) << AllErrors(bad);
}

}  // namespace
}  // namespace iofleet::controller
