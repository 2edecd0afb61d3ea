// What a scripted agent in an integration test (a gRPC server standing in for iofleet-agent to
// play a part: hostile, slow to renew) answers to Hello: this build's version, every engine, and
// one root named "default", so the controller takes it for a real agent.
#pragma once

#include <string>

#include "iofleet/v1/agent.pb.h"

namespace iofleet::testing {

inline void AnswerHelloAsAnAgent(const std::string& name, const std::string& root, v1::HelloResponse* r) {
  r->set_version(IOFLEET_VERSION);
  r->set_name(name);
  for (const char* e : {"psync", "libaio", "io_uring", "null"}) r->add_engines(e);
  auto* default_root = r->add_roots();
  default_root->set_name("default");
  default_root->set_path(root);
}

}  // namespace iofleet::testing
