# The hot path (agent/engine, agent/worker, agent/stats) never sees Prometheus, gRPC or
# protobuf: its headers sit in /usr/include like any other, so linking alone cannot keep them
# out. Run as `cmake -DSOURCE_DIR=... -P tests/hot_path_includes.cmake`.
file(GLOB_RECURSE files ${SOURCE_DIR}/agent/engine/* ${SOURCE_DIR}/agent/worker/* ${SOURCE_DIR}/agent/stats/*)
set(bad "")
foreach(f IN LISTS files)
  file(STRINGS ${f} lines REGEX "^#include [<\"](prometheus|grpc|grpcpp|google/protobuf|iofleet/v1)/")
  foreach(line IN LISTS lines)
    file(RELATIVE_PATH rel ${SOURCE_DIR} ${f})
    string(APPEND bad "${rel}: ${line}\n")
  endforeach()
endforeach()
if(bad)
  message(FATAL_ERROR "the hot path includes what it must not:\n${bad}")
endif()
