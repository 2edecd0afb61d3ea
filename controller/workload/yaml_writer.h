// Writes a proto message as workload YAML, the inverse of the loader: sizes and durations in
// exact units, enums by their YAML names. Used for workload.effective.yaml.
#pragma once

#include <google/protobuf/message.h>

#include <string>

namespace iofleet::controller {

std::string ToYaml(const google::protobuf::Message& message);

}  // namespace iofleet::controller
