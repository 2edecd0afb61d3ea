// The agent's states, one list for code, logs, docs and metrics (DESIGN.md section 5):
//   idle -> preparing -> prepared -> setting_up -> running -> prepared ... -> ending -> idle
// `ending` stops the run's I/O and removes what it made; the agent is idle only after that.
#pragma once

#include <string_view>

namespace iofleet::agent {

enum class AgentState { kIdle, kPreparing, kPrepared, kSettingUp, kRunning, kEnding };

inline constexpr AgentState kAllAgentStates[] = {AgentState::kIdle,      AgentState::kPreparing, AgentState::kPrepared,
                                                 AgentState::kSettingUp, AgentState::kRunning,   AgentState::kEnding};

constexpr std::string_view AgentStateName(AgentState s) {
  switch (s) {
    case AgentState::kIdle: return "idle";
    case AgentState::kPreparing: return "preparing";
    case AgentState::kPrepared: return "prepared";
    case AgentState::kSettingUp: return "setting_up";
    case AgentState::kRunning: return "running";
    case AgentState::kEnding: return "ending";
  }
  return "unknown";
}

}  // namespace iofleet::agent
