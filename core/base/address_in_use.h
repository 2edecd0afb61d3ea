// Whether a listen address is already taken, checked before a server binds it. gRPC sets
// SO_REUSEPORT by default (a second agent on one port would start and take half the connections)
// and unlinks an existing unix socket before binding (a second agent would take the path over):
// every iofleet listener asks this first and refuses what is in use.
#pragma once

#include <string>

#include "core/base/status.h"

namespace iofleet {

// host:port, [v6]:port or unix:PATH. Ok when it can be bound (port 0 always can); else why, with
// the errno (EADDRINUSE for a port with a listener or a unix socket that answers, ENOTSOCK for a
// path that is something else): the caller names the flag and the address.
Status CheckListenAddressFree(const std::string& address);

}  // namespace iofleet
