#include "controller/workload/field_reference.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include "tests/support/test_paths.h"

namespace iofleet::controller {
namespace {

std::string ReadAll(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

google::protobuf::FileDescriptorSet WorkloadDescriptors() {
  google::protobuf::FileDescriptorSet set;
  std::ifstream in(std::filesystem::path(IOFLEET_BIN_DIR).parent_path() / "proto" / "workload.desc", std::ios::binary);
  EXPECT_TRUE(in && set.ParseFromIstream(&in)) << "build/proto/workload.desc (made by the build)";
  return set;
}

// docs/workloads.md's field reference is what tools/ generates from the .proto: a field added,
// renamed or commented in the schema without the docs following fails here.
TEST(FieldReference, TheDocsSectionIsTheGeneratedOne) {
  const std::string generated = FieldReference(WorkloadDescriptors());
  ASSERT_FALSE(generated.empty());
  const std::string docs = ReadAll(std::filesystem::path(IOFLEET_SOURCE_DIR) / "docs" / "workloads.md");
  const std::string begin = "<!-- field-reference:begin -->\n", end = "<!-- field-reference:end -->";
  const size_t from = docs.find(begin), to = docs.find(end);
  ASSERT_NE(from, std::string::npos);
  ASSERT_NE(to, std::string::npos);
  EXPECT_EQ(docs.substr(from + begin.size(), to - from - begin.size()), generated)
      << "docs/workloads.md's field reference is out of date: regenerate it with\n"
         "  build/bin/iofleet-field-reference build/proto/workload.desc\n"
         "and paste the output between the field-reference markers";
}

TEST(FieldReference, ShowsYamlSpellingsUnitsBoundsAndComments) {
  const std::string generated = FieldReference(WorkloadDescriptors());
  EXPECT_NE(generated.find("| `block_size` | uint64 | size (KiB, MiB, ...), min 1, max 67108864 |"), std::string::npos);
  EXPECT_NE(generated.find("| `engine` | psync, libaio, io_uring, null |"), std::string::npos);
  EXPECT_NE(generated.find("| `io` | [IoSpec](#IoSpec) |  |"), std::string::npos);
  EXPECT_NE(generated.find("(one of kind)"), std::string::npos);
  EXPECT_NE(generated.find("### Engine"), std::string::npos);
  EXPECT_NE(generated.find("| `null` | no I/O: measures iofleet's own cost per I/O |"), std::string::npos);
  EXPECT_EQ(FieldReference(google::protobuf::FileDescriptorSet()), "");
}

}  // namespace
}  // namespace iofleet::controller
