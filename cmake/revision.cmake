# Writes OUT (a header defining IOFLEET_REVISION, the git revision of SOURCE_DIR) when the
# revision changed: run at every build, it recompiles only what includes the header.
execute_process(COMMAND git -C "${SOURCE_DIR}" describe --always --dirty --abbrev=12
                OUTPUT_VARIABLE revision OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE failed)
if(failed OR revision STREQUAL "")
  # Outside a git checkout (a source tarball, a container build without .git): given, or unknown.
  if(DEFINED ENV{IOFLEET_REVISION})
    set(revision "$ENV{IOFLEET_REVISION}")
  else()
    set(revision "unknown")
  endif()
endif()
set(text "#pragma once\n#define IOFLEET_REVISION \"${revision}\"\n")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUT}" "${text}")
endif()
