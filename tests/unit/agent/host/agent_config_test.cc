#include "agent/host/agent_config.h"

#include <gtest/gtest.h>

#include <fstream>

#include "tests/support/temp_dir.h"

namespace iofleet::agent {
namespace {

constexpr uint64_t kSecond = 1'000'000'000;

class AgentConfigTest : public ::testing::Test {
 protected:
  // Writes `text` to a fresh config file and returns its path.
  std::string Write(const std::string& text) {
    std::string path = (tmp_ / ("agent-" + std::to_string(++n_) + ".yaml")).string();
    std::ofstream(path) << text;
    return path;
  }
  // Loads `text`, expecting an error; returns its message.
  std::string Error(const std::string& text, std::string* path_out = nullptr) {
    std::string path = Write(text);
    if (path_out) *path_out = path;
    auto config = LoadAgentConfig(path);
    EXPECT_FALSE(config.ok()) << text;
    if (config.ok()) return "";
    EXPECT_EQ(config.status().code(), Code::kInvalidArgument);
    return config.status().message();
  }

  testing::TempDir tmp_;
  int n_ = 0;
};

#define EXPECT_CONTAINS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << "in: " << (haystack)

TEST_F(AgentConfigTest, EmptyFileGivesDefaults) {
  auto config = LoadAgentConfig(Write(""));
  ASSERT_TRUE(config.ok()) << config.status().message();
  EXPECT_FALSE(config->allow_drop_caches);
  EXPECT_FALSE(config->allow_readahead);
  EXPECT_EQ(config->state_dir, "/var/lib/iofleet-agent");
  EXPECT_TRUE(config->hooks.empty());
}

TEST_F(AgentConfigTest, ReadsEveryKey) {
  auto config = LoadAgentConfig(Write(
      "allow_drop_caches: true\n"
      "allow_readahead: true\n"
      "state_dir: /srv/iofleet-state\n"
      "hooks:\n"
      "  mkfs:\n"
      "    command: [/sbin/mkfs.ext4, -F, -q, /dev/loop0]\n"
      "    timeout: 30m\n"
      "  fsck_full-1:\n"
      "    command:\n"
      "      - /bin/sh\n"
      "      - -c\n"
      "      - \"fsck -f /dev/loop0 && echo done\"\n"
      "    timeout: 1500ms\n"));
  ASSERT_TRUE(config.ok()) << config.status().message();
  EXPECT_TRUE(config->allow_drop_caches);
  EXPECT_TRUE(config->allow_readahead);
  EXPECT_EQ(config->state_dir, "/srv/iofleet-state");
  ASSERT_EQ(config->hooks.size(), 2u);
  const HookCommand& mkfs = config->hooks.at("mkfs");
  EXPECT_EQ(mkfs.argv, (std::vector<std::string>{"/sbin/mkfs.ext4", "-F", "-q", "/dev/loop0"}));
  EXPECT_EQ(mkfs.timeout_ns, 30 * 60 * kSecond);
  const HookCommand& fsck = config->hooks.at("fsck_full-1");
  EXPECT_EQ(fsck.argv, (std::vector<std::string>{"/bin/sh", "-c", "fsck -f /dev/loop0 && echo done"}));
  EXPECT_EQ(fsck.timeout_ns, 1500'000'000u);
}

TEST_F(AgentConfigTest, AllowFalseAndHookTimeoutDefault) {
  auto config = LoadAgentConfig(Write(
      "allow_readahead: false\n"
      "hooks:\n"
      "  sync-all: { command: [/bin/sync] }\n"));
  ASSERT_TRUE(config.ok()) << config.status().message();
  EXPECT_FALSE(config->allow_readahead);
  EXPECT_EQ(config->state_dir, "/var/lib/iofleet-agent");
  ASSERT_EQ(config->hooks.count("sync-all"), 1u);
  EXPECT_EQ(config->hooks.at("sync-all").argv, std::vector<std::string>{"/bin/sync"});
  EXPECT_EQ(config->hooks.at("sync-all").timeout_ns, 3600 * kSecond);  // 1h
}

TEST_F(AgentConfigTest, MissingFile) {
  auto config = LoadAgentConfig((tmp_ / "missing.yaml").string());
  ASSERT_FALSE(config.ok());
  EXPECT_CONTAINS(config.status().message(), "missing.yaml");
  EXPECT_CONTAINS(config.status().message(), "cannot read");
}

TEST_F(AgentConfigTest, YamlSyntaxErrorNamesFileLineColumn) {
  std::string path;
  std::string m = Error("allow_readahead: true\nhooks: [unclosed\n", &path);
  EXPECT_CONTAINS(m, path + ":");
}

TEST_F(AgentConfigTest, NotAMap) {
  std::string path;
  std::string m = Error("- allow_readahead\n", &path);
  EXPECT_CONTAINS(m, path + ":1:1:");
  EXPECT_CONTAINS(m, "YAML map");
}

TEST_F(AgentConfigTest, BadBool) {
  std::string path;
  std::string m = Error("allow_readahead: yes please\n", &path);
  EXPECT_CONTAINS(m, path + ":1:18: allow_readahead:");
  EXPECT_CONTAINS(m, "is not true or false");
}

TEST_F(AgentConfigTest, RelativeProgramPath) {
  std::string path;
  std::string m = Error(
      "hooks:\n"
      "  mkfs:\n"
      "    command: [sbin/mkfs, -F]\n",
      &path);
  EXPECT_CONTAINS(m, path + ":3:14: hooks.mkfs.command:");
  EXPECT_CONTAINS(m, "absolute path");
  EXPECT_CONTAINS(m, "\"sbin/mkfs\"");
  m = Error("hooks:\n  mkfs:\n    command: [mkfs]\n");
  EXPECT_CONTAINS(m, "absolute path");
}

TEST_F(AgentConfigTest, EmptyCommand) {
  std::string path;
  std::string m = Error(
      "hooks:\n"
      "  mkfs:\n"
      "    command: []\n",
      &path);
  EXPECT_CONTAINS(m, path + ":3:14: hooks.mkfs.command:");
  EXPECT_CONTAINS(m, "a list");
  // A string instead of a list is refused the same way (no shell splitting).
  m = Error("hooks:\n  mkfs:\n    command: /sbin/mkfs -F\n");
  EXPECT_CONTAINS(m, "hooks.mkfs.command: a list");
  // An element that is not a string.
  m = Error("hooks:\n  mkfs:\n    command: [/sbin/mkfs, [a, b]]\n");
  EXPECT_CONTAINS(m, "every element is a string");
}

TEST_F(AgentConfigTest, HookWithoutCommand) {
  std::string path;
  std::string m = Error(
      "hooks:\n"
      "  mkfs:\n"
      "    timeout: 1m\n",
      &path);
  EXPECT_CONTAINS(m, path + ":3:5: hooks.mkfs:");
  EXPECT_CONTAINS(m, "needs command");
  m = Error("hooks:\n  mkfs: /sbin/mkfs\n");
  EXPECT_CONTAINS(m, "hooks.mkfs: write { command:");
}

TEST_F(AgentConfigTest, UnknownHookKey) {
  std::string path;
  std::string m = Error(
      "hooks:\n"
      "  mkfs:\n"
      "    command: [/sbin/mkfs]\n"
      "    shell: true\n",
      &path);
  EXPECT_CONTAINS(m, path + ":4:5: hooks.mkfs.shell: unknown key");
  EXPECT_CONTAINS(m, "command, timeout");
}

TEST_F(AgentConfigTest, BadTimeout) {
  for (const char* bad : {"soon", "0", "10", "-5s", "[1, 2]"}) {
    std::string path;
    std::string m = Error(std::string("hooks:\n  mkfs:\n    command: [/sbin/mkfs]\n    timeout: ") + bad + "\n", &path);
    EXPECT_CONTAINS(m, path + ":4:14: hooks.mkfs.timeout:");
    EXPECT_CONTAINS(m, "is not a duration");
  }
}

TEST_F(AgentConfigTest, BadHookName) {
  for (const char* bad : {"\"mk fs\"", "\"../x\"", "\"a/b\"", "\"\""}) {
    std::string path;
    std::string m = Error(std::string("hooks:\n  ") + bad + ":\n    command: [/sbin/mkfs]\n", &path);
    EXPECT_CONTAINS(m, path + ":");
    EXPECT_CONTAINS(m, "a hook name is [A-Za-z0-9_-]+");
  }
  std::string m = Error("hooks: [/sbin/mkfs]\n");
  EXPECT_CONTAINS(m, "hooks: a map");
}

TEST_F(AgentConfigTest, UnknownTopLevelKeyListsKnownKeys) {
  std::string path;
  std::string m = Error(
      "allow_readahead: true\n"
      "allow_everything: true\n",
      &path);
  EXPECT_CONTAINS(m, path + ":2:1: allow_everything: unknown key");
  EXPECT_CONTAINS(m, "allow_drop_caches, allow_readahead, state_dir, hooks");
}

TEST_F(AgentConfigTest, StateDirMustBeAbsolute) {
  std::string path;
  std::string m = Error("state_dir: var/lib/iofleet\n", &path);
  EXPECT_CONTAINS(m, path + ":1:12: state_dir:");
  EXPECT_CONTAINS(m, "absolute");
  m = Error("state_dir: \"\"\n");
  EXPECT_CONTAINS(m, "state_dir: an absolute directory");
  m = Error("state_dir: [/a]\n");
  EXPECT_CONTAINS(m, "state_dir: an absolute directory");
}

TEST_F(AgentConfigTest, KeysGivenTwiceAreErrors) {
  std::string path;
  EXPECT_CONTAINS(Error("allow_readahead: true\nallow_readahead: false\n", &path), path + ":2:1: allow_readahead: given twice");
  EXPECT_CONTAINS(Error("hooks:\n  a:\n    command: [/bin/true]\n  a:\n    command: [/bin/false]\n", &path),
                  path + ":4:3: hooks.a: defined twice");
  EXPECT_CONTAINS(Error("hooks:\n  a:\n    command: [/bin/true]\n    command: [/bin/false]\n", &path),
                  path + ":4:5: hooks.a.command: given twice");
}

}  // namespace
}  // namespace iofleet::agent
