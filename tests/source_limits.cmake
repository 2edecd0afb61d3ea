# No function longer than 120 lines and no file longer than 700 in the sources of core/, agent/,
# controller/ and tools/ (tests/ is not held to it). The project writes small functions, each with
# one purpose: a function past the limit does several things, which helpers of their own name and
# test; a file past it holds several parts. This check keeps a long one from growing unseen.
# Run as `cmake -DSOURCE_DIR=... -P tests/source_limits.cmake`.
#
# The sources are clang-formatted Google style (namespaces not indented), so a definition is found
# by its indentation: a line at indent 0 (a free function) or 2 (a member defined in its class) that
# has a '(', no '=' before it, and begins with no keyword of a statement or declaration (if, class,
# ...), '#' or '//', begins a signature; a line ending in '{' opens its body, which the first '}' at
# the signature's indent closes; a line ending in ';' or '}', or a blank line, ends a signature that
# had no body (a declaration, a call).
# A function's length counts from its signature's first line to its closing brace, both included.
set(function_limit 120)
set(file_limit 700)

if(NOT IS_DIRECTORY "${SOURCE_DIR}")
  message(FATAL_ERROR "SOURCE_DIR '${SOURCE_DIR}' is no directory")
endif()
file(REAL_PATH "${SOURCE_DIR}" SOURCE_DIR)
file(GLOB_RECURSE files RELATIVE ${SOURCE_DIR}
     ${SOURCE_DIR}/core/*.h ${SOURCE_DIR}/core/*.cc
     ${SOURCE_DIR}/agent/*.h ${SOURCE_DIR}/agent/*.cc
     ${SOURCE_DIR}/controller/*.h ${SOURCE_DIR}/controller/*.cc
     ${SOURCE_DIR}/tools/*.h ${SOURCE_DIR}/tools/*.cc)
if(NOT files)
  message(FATAL_ERROR "no source under ${SOURCE_DIR}/{core,agent,controller,tools}: nothing checked")
endif()
list(SORT files)

# A file is split into a list of its lines at '\n'; the characters a list gives a meaning to (';'
# separates, '[' and ']' group, '\' escapes) are replaced by control characters first, which no
# source holds. A blank line stays an empty element of the list (it ends a signature).
string(ASCII 28 semicolon)
string(ASCII 29 open_bracket)
string(ASCII 30 close_bracket)
string(ASCII 31 backslash)
set(keyword "(namespace|class|struct|enum|union|extern|if|for|while|switch|else|do|try|catch|return|case|default)")

set(bad "")
foreach(f IN LISTS files)
  file(READ ${SOURCE_DIR}/${f} text)
  if(text STREQUAL "")
    continue()
  endif()
  string(REPLACE "\\" "${backslash}" text "${text}")
  string(REPLACE ";" "${semicolon}" text "${text}")
  string(REPLACE "[" "${open_bracket}" text "${text}")
  string(REPLACE "]" "${close_bracket}" text "${text}")
  string(REGEX REPLACE "\n$" "" text "${text}")  # the last line's '\n' begins no line
  string(REPLACE "\n" ";" lines "${text}")

  set(n 0)
  set(in_signature FALSE)
  set(in_body FALSE)
  foreach(line IN LISTS lines)
    math(EXPR n "${n} + 1")
    if(in_body)
      if(line MATCHES "${body_end}")
        math(EXPR length "${n} - ${start} + 1")
        if(length GREATER function_limit)
          string(APPEND bad "${f}:${start}: ${name} is ${length} lines (limit ${function_limit})\n")
        endif()
        set(in_body FALSE)
      endif()
      continue()
    endif()
    if(NOT in_signature AND line MATCHES "^(  )?([^ =(][^=(]*)?\\(" AND NOT line MATCHES "^ *(${keyword}([^A-Za-z0-9_]|$)|#|//)")
      set(in_signature TRUE)
      set(start ${n})
      if(line MATCHES "^  ")
        set(body_end "^  }")
      else()
        set(body_end "^}")
      endif()
      # The name: the word before the first '(' once template arguments are gone (a return type
      # std::function<int(int)>), `operator()` one of its own.
      string(REGEX REPLACE "<[^<>]*>" "" name "${line}")
      string(REGEX REPLACE "<[^<>]*>" "" name "${name}")
      string(REGEX MATCH "[^ *&(]* *\\(" name "${name}")
      if(name STREQUAL "")  # its only '(' was in template arguments: not a function, but counted
        string(REGEX MATCH "[^ *&(]* *\\(" name "${line}")
      endif()
      string(REGEX REPLACE " *\\($" "" name "${name}")
      if(name MATCHES "operator$")
        string(APPEND name "()")
      endif()
    endif()
    if(in_signature)
      if(line MATCHES "{ *$")
        set(in_signature FALSE)
        set(in_body TRUE)
      elseif(line MATCHES "(${semicolon}|}) *$" OR line MATCHES "^ *$")
        set(in_signature FALSE)
      endif()
    endif()
  endforeach()
  if(n GREATER file_limit)
    string(APPEND bad "${f}: ${n} lines (limit ${file_limit})\n")
  endif()
endforeach()

if(bad)
  string(REPLACE "${open_bracket}" "[" bad "${bad}")
  string(REPLACE "${close_bracket}" "]" bad "${bad}")
  string(REPLACE "${backslash}" "\\" bad "${bad}")
  # Printed as is (a FATAL_ERROR's text is re-wrapped), one offender a line.
  message("${bad}")
  message(FATAL_ERROR "a function or a file is over its limit (above): split it")
endif()
