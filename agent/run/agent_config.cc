#include "agent/run/agent_config.h"

#include <yaml-cpp/yaml.h>

namespace iofleet::agent {

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
  if (!root.IsMap()) return InvalidArgument(path + ":1:1: an agent config is a YAML map (allow_drop_caches)");
  for (auto it = root.begin(); it != root.end(); ++it) {
    auto where = [&](const YAML::Node& n) {
      return path + ":" + std::to_string(n.Mark().line + 1) + ":" + std::to_string(n.Mark().column + 1) + ": ";
    };
    std::string key = it->first.as<std::string>("");
    if (key == "allow_drop_caches") {
      std::string v = it->second.IsScalar() ? it->second.Scalar() : "";
      if (v != "true" && v != "false") return InvalidArgument(where(it->second) + key + ": \"" + v + "\" is not true or false");
      config.allow_drop_caches = v == "true";
    } else {
      return InvalidArgument(where(it->first) + key + ": unknown key (this agent knows: allow_drop_caches)");
    }
  }
  return config;
}

}  // namespace iofleet::agent
