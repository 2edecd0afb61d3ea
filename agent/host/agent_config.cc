#include "agent/host/agent_config.h"

#include <yaml-cpp/yaml.h>

#include <set>

#include "core/base/units.h"

namespace iofleet::agent {
namespace {

constexpr const char* kKnown = "allow_drop_caches, allow_readahead, state_dir, hooks";

class ConfigReader {
 public:
  explicit ConfigReader(std::string path) : path_(std::move(path)) {}

  std::string Where(const YAML::Node& n) const {
    return path_ + ":" + std::to_string(n.Mark().line + 1) + ":" + std::to_string(n.Mark().column + 1) + ": ";
  }

  Status Bool(const YAML::Node& n, const std::string& key, bool& out) const {
    std::string v = n.IsScalar() ? n.Scalar() : "";
    if (v != "true" && v != "false") return InvalidArgument(Where(n) + key + ": \"" + v + "\" is not true or false");
    out = v == "true";
    return Status::Ok();
  }

  Status Hook(const std::string& name, const YAML::Node& n, HookCommand& out) const {
    const std::string key = "hooks." + name;
    if (name.empty() || name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != std::string::npos) {
      return InvalidArgument(Where(n) + key + ": a hook name is [A-Za-z0-9_-]+");
    }
    if (!n.IsMap()) return InvalidArgument(Where(n) + key + ": write { command: [program, arg, ...], timeout: 1h }");
    std::set<std::string> seen;
    for (auto it = n.begin(); it != n.end(); ++it) {
      std::string field = it->first.as<std::string>("");
      // A copy, not a reference: yaml-cpp's `it->second` is a member of a temporary proxy.
      const YAML::Node v = it->second;
      if (!seen.insert(field).second) return InvalidArgument(Where(it->first) + key + "." + field + ": given twice");
      if (field == "command") {
        if (!v.IsSequence() || v.size() == 0) return InvalidArgument(Where(v) + key + ".command: a list: [program, arg, ...]");
        for (const auto& arg : v) {
          if (!arg.IsScalar()) return InvalidArgument(Where(arg) + key + ".command: every element is a string");
          out.argv.push_back(arg.Scalar());
        }
        if (out.argv[0].empty() || out.argv[0][0] != '/') {
          return InvalidArgument(Where(v) + key + ".command: the program must be an absolute path (no PATH lookup): \"" + out.argv[0] + "\"");
        }
      } else if (field == "timeout") {
        auto d = v.IsScalar() ? ParseDuration(v.Scalar()) : Result<uint64_t>(InvalidArgument("not a duration"));
        if (!d.ok() || *d == 0) return InvalidArgument(Where(v) + key + ".timeout: \"" + (v.IsScalar() ? v.Scalar() : "") + "\" is not a duration (e.g. 30m)");
        out.timeout_ns = *d;
      } else {
        return InvalidArgument(Where(it->first) + key + "." + field + ": unknown key (a hook has command, timeout)");
      }
    }
    if (out.argv.empty()) return InvalidArgument(Where(n) + key + ": needs command: [program, arg, ...]");
    return Status::Ok();
  }

 private:
  std::string path_;
};

}  // namespace

Result<AgentConfig> LoadAgentConfig(const std::string& path) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::BadFile&) {
    return InvalidArgument("--config " + path + ": cannot read the file");
  } catch (const YAML::Exception& e) {
    return InvalidArgument(path + ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1) + ": " + e.msg);
  }
  AgentConfig config;
  if (root.IsNull()) return config;
  if (!root.IsMap()) return InvalidArgument(path + ":1:1: an agent config is a YAML map (" + std::string(kKnown) + ")");
  ConfigReader reader(path);
  std::set<std::string> seen;
  for (auto it = root.begin(); it != root.end(); ++it) {
    std::string key = it->first.as<std::string>("");
    // A copy, not a reference: yaml-cpp's `it->second` is a member of a temporary proxy.
    const YAML::Node value = it->second;
    if (!seen.insert(key).second) return InvalidArgument(reader.Where(it->first) + key + ": given twice");
    if (key == "allow_drop_caches") {
      IOFLEET_RETURN_IF_ERROR(reader.Bool(value, key, config.allow_drop_caches));
    } else if (key == "allow_readahead") {
      IOFLEET_RETURN_IF_ERROR(reader.Bool(value, key, config.allow_readahead));
    } else if (key == "state_dir") {
      if (!value.IsScalar() || value.Scalar().empty() || value.Scalar()[0] != '/') {
        return InvalidArgument(reader.Where(value) + "state_dir: an absolute directory");
      }
      config.state_dir = value.Scalar();
    } else if (key == "hooks") {
      if (!value.IsMap()) return InvalidArgument(reader.Where(value) + "hooks: a map of name: { command: [...], timeout: ... }");
      for (auto h = value.begin(); h != value.end(); ++h) {
        std::string name = h->first.as<std::string>("");
        if (config.hooks.count(name)) return InvalidArgument(reader.Where(h->first) + "hooks." + name + ": defined twice");
        HookCommand command;
        IOFLEET_RETURN_IF_ERROR(reader.Hook(name, h->second, command));
        config.hooks[name] = std::move(command);
      }
    } else {
      return InvalidArgument(reader.Where(it->first) + key + ": unknown key (this agent knows: " + kKnown + ")");
    }
  }
  return config;
}

}  // namespace iofleet::agent
