# snail_add_program(<name> SOURCES <file>... [LIBRARIES <lib>...]
#                   [STACK_SIZE <bytes>] [OUTPUT_DIRECTORY <dir>])
#
# Builds C++ sources into a snail-core program: a wasm32-wasi reactor linked with
# the core, exporting its stack pointer and function table, then post-linked
# (tools/wasm/postlink.mjs: Binaryen's stack-check pass, the stack registers'
# exports, the `snail.abi` section, optimisation). The result is
# <OUTPUT_DIRECTORY>/<name>.wasm (default: SNAIL_PROGRAM_OUTPUT_DIRECTORY,
# itself ${CMAKE_BINARY_DIR}/programs unless set).
#
# STACK_SIZE is the neutral stack: the one the program's initialisation and the
# host's calls between tasks run on. Each task gets its own segment at run time.

set(SNAIL_PROGRAM_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/programs" CACHE PATH
    "where snail_add_program() puts programs by default")
set(SNAIL_POSTLINK "${CMAKE_CURRENT_LIST_DIR}/../wasm/postlink.mjs" CACHE FILEPATH
    "snail-core post-link step")
if(NOT SNAIL_NODE)
  find_program(SNAIL_NODE node HINTS "${CMAKE_CURRENT_LIST_DIR}/../../node_modules/.bin"
               NO_DEFAULT_PATH)
  find_program(SNAIL_NODE node)
endif()

function(snail_add_program name)
  cmake_parse_arguments(ARG "" "STACK_SIZE;OUTPUT_DIRECTORY" "SOURCES;LIBRARIES" ${ARGN})
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "snail_add_program(${name}): SOURCES is required")
  endif()
  if(NOT ARG_STACK_SIZE)
    set(ARG_STACK_SIZE 65536)
  endif()
  if(NOT ARG_OUTPUT_DIRECTORY)
    set(ARG_OUTPUT_DIRECTORY "${SNAIL_PROGRAM_OUTPUT_DIRECTORY}")
  endif()

  set(linked ${name}.linked)
  add_executable(${linked} ${ARG_SOURCES})
  target_link_libraries(${linked} PRIVATE SnailCore::core ${ARG_LIBRARIES})
  target_compile_options(${linked} PRIVATE -Wall -Wextra)
  target_link_options(${linked} PRIVATE
    -mexec-model=reactor
    "LINKER:--export=__stack_pointer"
    "LINKER:--export-table"
    "LINKER:-z,stack-size=${ARG_STACK_SIZE}"
    "LINKER:--undefined=snail_stack_acquire"
    "LINKER:--undefined=snail_stack_release"
    "LINKER:--undefined=snail_alloc"
    "LINKER:--undefined=snail_free")

  set(output "${ARG_OUTPUT_DIRECTORY}/${name}.wasm")
  add_custom_command(
    OUTPUT "${output}"
    COMMAND "${CMAKE_COMMAND}" -E make_directory "${ARG_OUTPUT_DIRECTORY}"
    COMMAND "${SNAIL_NODE}" "${SNAIL_POSTLINK}" "$<TARGET_FILE:${linked}>" "${output}"
            --stack-size ${ARG_STACK_SIZE}
    DEPENDS ${linked} "${SNAIL_POSTLINK}"
    COMMENT "Post-linking snail-core program ${name}.wasm"
    VERBATIM)
  add_custom_target(${name} ALL DEPENDS "${output}")
endfunction()

# snail_add_wat_program(<name> <file.wat> [OUTPUT_DIRECTORY <dir>])
# Assembles a program written in WebAssembly text (with the npm package wabt).
function(snail_add_wat_program name source)
  cmake_parse_arguments(ARG "" "OUTPUT_DIRECTORY" "" ${ARGN})
  if(NOT ARG_OUTPUT_DIRECTORY)
    set(ARG_OUTPUT_DIRECTORY "${SNAIL_PROGRAM_OUTPUT_DIRECTORY}")
  endif()
  get_filename_component(source "${source}" ABSOLUTE)
  set(output "${ARG_OUTPUT_DIRECTORY}/${name}.wasm")
  set(wat2wasm "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/../wasm/wat2wasm.mjs")
  add_custom_command(
    OUTPUT "${output}"
    COMMAND "${CMAKE_COMMAND}" -E make_directory "${ARG_OUTPUT_DIRECTORY}"
    COMMAND "${SNAIL_NODE}" "${wat2wasm}" "${source}" "${output}"
    DEPENDS "${source}" "${wat2wasm}"
    COMMENT "Assembling ${name}.wasm"
    VERBATIM)
  add_custom_target(${name} ALL DEPENDS "${output}")
endfunction()
