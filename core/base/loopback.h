// Whether a host names this machine's loopback: where a server may speak without TLS.
#pragma once

#include <string>

namespace iofleet {

// "localhost", 127.0.0.0/8 or ::1 (without brackets). A host name other than localhost is not:
// what it resolves to may change.
bool IsLoopbackHost(const std::string& host);

}  // namespace iofleet
