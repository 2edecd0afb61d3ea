// Where the agent listens, and whether that is private to this host.
#pragma once

#include <string>

namespace iofleet::agent {

// True for unix:PATH, localhost, 127.0.0.0/8 and [::1] addresses (with a port).
bool IsLoopbackOrUnix(const std::string& address);

}  // namespace iofleet::agent
