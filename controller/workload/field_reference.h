// The workload field reference of docs/workloads.md, generated from the .proto files' own
// comments (the single schema): every message a workload can reach from Workload, each field with
// its YAML spelling, type, unit and bounds, and every enum's values as YAML writes them.
#pragma once

#include <string>

#include <google/protobuf/descriptor.pb.h>

namespace iofleet::controller {

// `descriptors`: a FileDescriptorSet made with --include_imports --include_source_info, holding
// iofleet/v1/workload.proto. Markdown, or "" when the set lacks it.
std::string FieldReference(const google::protobuf::FileDescriptorSet& descriptors);

}  // namespace iofleet::controller
