# Sanitizer and fuzzing builds (the presets asan, tsan and fuzz set these; see docs/ARCHITECTURE.md,
# "Sanitizers and fuzzing").
#   IOFLEET_SANITIZE: "" (none), "address,undefined" or "thread". The whole tree is instrumented,
#     so the binaries the integration tests start are checked too.
#   IOFLEET_FUZZ: builds the libFuzzer targets of tests/fuzz (clang only), with ASan+UBSan.
set(IOFLEET_SANITIZE "" CACHE STRING "Sanitizers to build with: empty, address,undefined, or thread")
option(IOFLEET_FUZZ "Build the libFuzzer targets in tests/fuzz (needs clang)" OFF)

if(IOFLEET_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "IOFLEET_FUZZ needs clang (libFuzzer): use the preset fuzz")
  endif()
  if(IOFLEET_SANITIZE STREQUAL "")
    set(IOFLEET_SANITIZE "address,undefined")
  endif()
  # Coverage instrumentation everywhere; only the fuzz targets link libFuzzer's main.
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()

if(NOT IOFLEET_SANITIZE STREQUAL "")
  # Frame pointers for readable stacks; a UBSan report fails the test instead of scrolling by.
  set(sanitize_flags -fsanitize=${IOFLEET_SANITIZE} -fno-omit-frame-pointer)
  if(IOFLEET_SANITIZE MATCHES "undefined")
    list(APPEND sanitize_flags -fno-sanitize-recover=undefined)
  endif()
  add_compile_options(${sanitize_flags})
  add_link_options(${sanitize_flags})
endif()
