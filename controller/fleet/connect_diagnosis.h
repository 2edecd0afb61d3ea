// Why an agent did not answer: gRPC reports a refused port, a name that does not resolve, a failed
// TLS handshake and a silent host alike (UNAVAILABLE or DEADLINE_EXCEEDED), so the controller asks
// the network itself with one plain connect and names the cause a user can act on.
#pragma once

#include <chrono>
#include <string>

namespace iofleet::controller {

enum class ConnectFailure {
  kUnresolved,   // the host name does not resolve
  kRefused,      // nothing listens there (ECONNREFUSED; for unix:, no socket or a stale one)
  kTimedOut,     // no answer to the connect within the timeout (host down, firewall, wrong network)
  kOtherError,   // connect failed with another errno (named in the reason)
  kConnects,     // a connect succeeds: the cause is above TCP (TLS or not gRPC)
};

struct ConnectDiagnosis {
  ConnectFailure failure = ConnectFailure::kOtherError;
  std::string reason;  // e.g. "nothing listens at 127.0.0.1:1 (connection refused, ECONNREFUSED)"
};

// `address` is host:port, [v6]:port or unix:PATH. Blocks for at most about `timeout`.
ConnectDiagnosis DiagnoseConnect(const std::string& address, std::chrono::milliseconds timeout);

// The message for an agent whose Hello failed with `grpc_message`: the diagnosis, and for a port
// that accepts connections, what TLS must hold (`tls`: this side speaks TLS; `server_name`: the
// name the agent's certificate must carry, "" for the host part of its address).
std::string UnreachableReason(const std::string& address, const std::string& grpc_message, bool tls,
                              const std::string& server_name, std::chrono::milliseconds timeout);

}  // namespace iofleet::controller
