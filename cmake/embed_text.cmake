# Writes OUTPUT, a C++ file defining `const char NAME[]` with the text of INPUT: the page serve
# ships is edited as .html, .js and .css and compiled into the binary (nothing to install).
# cmake -DINPUT=file -DOUTPUT=file.cc -DNAME=symbol -P cmake/embed_text.cmake
file(READ "${INPUT}" content)
string(FIND "${content}" ")iofleet_embed\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${INPUT} holds the raw string delimiter )iofleet_embed\"")
endif()
get_filename_component(name "${INPUT}" NAME)
file(WRITE "${OUTPUT}.tmp"
  "// Generated from ${name} by cmake/embed_text.cmake: edit that file.\n"
  "extern const char ${NAME}[];\n"
  "const char ${NAME}[] = R\"iofleet_embed(${content})iofleet_embed\";\n")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT}.tmp")
