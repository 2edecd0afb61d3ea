# Every room (a folder of core/, agent/ or controller/) includes only its own headers and those of
# rooms ranked below it: of its own tree, or of core/. A static library per room links downward
# only, but every target sees the whole source tree on its include path, so a header of a room
# above compiles anyway; this check is what keeps the order (docs/ARCHITECTURE.md, "Rooms").
# A folder missing from the table is refused: a new room gets its place here first.
# Run as `cmake -DSOURCE_DIR=... -P tests/room_includes.cmake`.

# Rank: a room may include any room of a lower rank in its own tree or in core.
set(rooms
  core/base 0 core/wire 1 core/rules 2 core/metrics 3
  agent/engine 10 agent/stats 11 agent/worker 12 agent/fs 13 agent/host 14 agent/tasks 15 agent/run 16
  agent/service 17 agent/metrics 18 agent/main 19
  controller/workload 20 controller/fleet 21 controller/live 22 controller/report 23 controller/history 24
  controller/push 25 controller/run 26 controller/serve 27 controller/cli 28)

set(rank_of_)
list(LENGTH rooms n)
math(EXPR last "${n} - 1")
foreach(i RANGE 0 ${last} 2)
  math(EXPR j "${i} + 1")
  list(GET rooms ${i} room)
  list(GET rooms ${j} rank)
  set(rank_of_${room} ${rank})
endforeach()

# The room of a path below core/, agent/ or controller/: its tree and first folder, or TREE/main
# for a file at the top of a tree (agent/main.cc).
function(room_of path out)
  string(REGEX MATCH "^(core|agent|controller)/([^/]+)(/.*)?$" _ "${path}")
  if(CMAKE_MATCH_3)
    set(${out} "${CMAKE_MATCH_1}/${CMAKE_MATCH_2}" PARENT_SCOPE)
  else()
    set(${out} "${CMAKE_MATCH_1}/main" PARENT_SCOPE)
  endif()
endfunction()

file(GLOB_RECURSE files RELATIVE ${SOURCE_DIR}
     ${SOURCE_DIR}/core/*.h ${SOURCE_DIR}/core/*.cc
     ${SOURCE_DIR}/agent/*.h ${SOURCE_DIR}/agent/*.cc
     ${SOURCE_DIR}/controller/*.h ${SOURCE_DIR}/controller/*.cc)
set(bad "")
foreach(f IN LISTS files)
  room_of(${f} room)
  if(NOT DEFINED rank_of_${room})
    string(APPEND bad "${f}: room ${room} has no rank in tests/room_includes.cmake\n")
    continue()
  endif()
  set(rank ${rank_of_${room}})
  string(REGEX MATCH "^[^/]+" tree "${room}")
  # Every include read once. A quoted header named from anywhere but the repository root
  # ("report_model.h", "../serve/x.h") would pass the rank check unseen: refused.
  file(STRINGS ${SOURCE_DIR}/${f} lines REGEX "^[ \t]*#[ \t]*include[ \t]*[<\"]")
  foreach(line IN LISTS lines)
    string(REGEX MATCH "([<\"])([^>\"]+)[>\"]" _ "${line}")
    set(quote "${CMAKE_MATCH_1}")
    set(target "${CMAKE_MATCH_2}")
    if(NOT target MATCHES "^(core|agent|controller)/")
      if(quote STREQUAL "\"" AND NOT target MATCHES "^iofleet/")  # iofleet/: generated headers
        string(APPEND bad "${f} (${room}): includes \"${target}\": name a header from the repository root\n")
      endif()
      continue()
    endif()
    room_of(${target} target_room)
    if(target_room STREQUAL room)
      continue()
    endif()
    if(NOT DEFINED rank_of_${target_room})
      string(APPEND bad "${f} (${room}): includes ${target}, of room ${target_room}, which has no rank\n")
      continue()
    endif()
    set(target_rank ${rank_of_${target_room}})
    string(REGEX MATCH "^[^/]+" target_tree "${target_room}")
    if(NOT target_tree STREQUAL "core" AND NOT target_tree STREQUAL tree)
      string(APPEND bad "${f} (${room}): includes ${target} of ${target_tree}/, which ${tree}/ never includes\n")
    elseif(NOT target_rank LESS rank)
      string(APPEND bad "${f} (${room}, rank ${rank}): includes ${target} of ${target_room} (rank ${target_rank}), a room above it\n")
    endif()
  endforeach()
endforeach()
if(bad)
  # Printed as is (a FATAL_ERROR's text is re-wrapped), one fault a line.
  message("${bad}")
  message(FATAL_ERROR "a room includes what is not below it (above)")
endif()
