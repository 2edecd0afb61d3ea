// How every iofleet command ends (DESIGN.md section 2): the one list the controller, the agent
// and the tools return, and the README's table describes.
#pragma once

namespace iofleet {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;      // the run or the command failed (a step, an agent, a file)
inline constexpr int kExitRejected = 2;    // bad input: nothing was started
inline constexpr int kExitRegression = 3;  // the run succeeded, and a figure regressed

}  // namespace iofleet
