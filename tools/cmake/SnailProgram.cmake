# snail_add_program(<name> SOURCES <file>... [LIBRARIES <lib>...]
#                   [STACK_SIZE <bytes>] [OUTPUT_DIRECTORY <dir>] [DYNAMIC] [DEBUG])
#
# Builds C and C++ sources (<snail/snail.h>, <snail/snail.hpp>) into a
# snail-core program: a wasm32 reactor linked with the core (SnailCore::core),
# exporting its stack pointer and function table, then post-linked
# (tools/wasm/postlink.mjs: Binaryen's stack-check pass, the stack registers'
# exports, the `snail.abi` section, optimisation). The result
# is <OUTPUT_DIRECTORY>/<name>.wasm (default: SNAIL_PROGRAM_OUTPUT_DIRECTORY,
# itself ${CMAKE_BINARY_DIR}/programs unless set); the target <name> builds it.
#
# DYNAMIC makes a program that modules can be loaded into at run time
# (snail_add_side_module() in SnailModule.cmake, docs/abi.md "Dynamically
# loaded modules"): its symbols are exported and its table can grow.
#
# DEBUG, or a Debug configuration (CMAKE_BUILD_TYPE=Debug), keeps the
# program's function names (the name section) and its DWARF through the
# post-link step, which otherwise strips them: stack traces of failed tasks
# then name functions, and children are named after the function they run
# (docs/guide.md, "Debug builds, failures and stack sizes"). DEBUG also
# compiles the sources with -g in any configuration.
#
# STACK_SIZE is the neutral stack: the one the program's initialisation and the
# host's calls between tasks run on. Each task gets its own segment at run time.
#
# This file serves three places: the snail-core source tree (its CMakeLists.txt
# includes it), an installed CMake package and the npm package (their
# SnailCoreConfig.cmake includes it). The post-link step runs in Node with the
# npm package `binaryen`:
#   SNAIL_NODE          the node executable
#   SNAIL_POSTLINK      tools/wasm/postlink.mjs
#   SNAIL_NODE_MODULES  a node_modules directory that holds binaryen; empty when
#                       Node finds it from postlink.mjs itself (source tree, npm)
#
# Toolchains: wasm32-wasi (the toolchain file wasm32-wasi.cmake next to this
# file), or Emscripten (emcmake) for a standalone Wasm module; see docs/guide.md.
include_guard(GLOBAL)

set(SNAIL_PROGRAM_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/programs" CACHE PATH
    "where snail_add_program() puts programs by default")
if(NOT SNAIL_POSTLINK)
  set(SNAIL_POSTLINK "${CMAKE_CURRENT_LIST_DIR}/../wasm/postlink.mjs" CACHE FILEPATH
      "snail-core post-link step")
endif()
if(NOT SNAIL_NODE)
  find_program(SNAIL_NODE node HINTS "${CMAKE_CURRENT_LIST_DIR}/../../node_modules/.bin"
               NO_DEFAULT_PATH)
  find_program(SNAIL_NODE node)
endif()
set(SNAIL_POSTLINK_LAUNCHER "${CMAKE_CURRENT_LIST_DIR}/snail-postlink.mjs")

# The post-link command into <out>: Node running the post-link step, through
# the launcher when binaryen lives in another node_modules.
function(snail_detail_postlink_command out)
  if(SNAIL_NODE_MODULES)
    set(${out} "${SNAIL_NODE}" "${SNAIL_POSTLINK_LAUNCHER}" --node-modules "${SNAIL_NODE_MODULES}" "${SNAIL_POSTLINK}" PARENT_SCOPE)
  else()
    set(${out} "${SNAIL_NODE}" "${SNAIL_POSTLINK}" PARENT_SCOPE)
  endif()
endfunction()

# A debug build of <linked>: with <option> (DEBUG) its sources compile with -g,
# and <out> is the post-link step's --debug, given for DEBUG or in a Debug
# configuration; an empty list otherwise.
function(snail_detail_debug linked option out)
  set(debug "$<OR:$<BOOL:${option}>,$<CONFIG:Debug>>")
  if(option)
    target_compile_options(${linked} PRIVATE -g)
    target_link_options(${linked} PRIVATE -g)
  endif()
  # clang runs wasm-opt after a link at -O1 and above when it finds one on
  # PATH, without -g, and wasm-opt then drops the name section. The link's own
  # level decides, and the last -O wins: -O0 here links without it (the
  # sources stay compiled at the configuration's level), and the post-link
  # step optimises instead, keeping the names. (clang 19's --no-wasm-opt
  # skips the link altogether.)
  if(NOT EMSCRIPTEN)
    target_link_options(${linked} PRIVATE "$<${debug}:-O0>")
  endif()
  set(${out} "$<${debug}:--debug>" PARENT_SCOPE)
endfunction()

include("${CMAKE_CURRENT_LIST_DIR}/SnailModule.cmake")

function(snail_add_program name)
  cmake_parse_arguments(ARG "DYNAMIC;DEBUG" "STACK_SIZE;OUTPUT_DIRECTORY" "SOURCES;LIBRARIES" ${ARGN})
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "snail_add_program(${name}): SOURCES is required")
  endif()
  if(NOT ARG_STACK_SIZE)
    set(ARG_STACK_SIZE 65536)
  endif()
  if(NOT ARG_OUTPUT_DIRECTORY)
    set(ARG_OUTPUT_DIRECTORY "${SNAIL_PROGRAM_OUTPUT_DIRECTORY}")
  endif()
  if(NOT SNAIL_NODE)
    message(FATAL_ERROR "snail_add_program(${name}): the post-link step needs Node; "
                        "set SNAIL_NODE to a node executable")
  endif()

  set(linked ${name}.linked)
  add_executable(${linked} ${ARG_SOURCES})
  target_link_libraries(${linked} PRIVATE SnailCore::core ${ARG_LIBRARIES})
  target_compile_options(${linked} PRIVATE -Wall -Wextra)
  if(EMSCRIPTEN)
    # A standalone Wasm module without Emscripten's JavaScript: its imports are
    # module snail's and WASI's, which the snail-core runtime provides (and
    # env.emscripten_notify_memory_growth, which it provides too).
    set_target_properties(${linked} PROPERTIES SUFFIX ".wasm")
    target_link_options(${linked} PRIVATE
      -sSTANDALONE_WASM
      --no-entry
      # Every entered task holds a stack segment (32 KiB by default) from
      # malloc: the memory grows, as a wasm32-wasi program's does. 16 MiB that
      # cannot grow hold a few hundred. A standalone module's malloc returns
      # null when the memory cannot grow further (-sABORTING_MALLOC is a
      # setting of Emscripten's JavaScript), so a task that cannot get its
      # segment fails alone.
      -sALLOW_MEMORY_GROWTH=1
      -sERROR_ON_UNDEFINED_SYMBOLS=0
      -sWARN_ON_UNDEFINED_SYMBOLS=0
      -sTOTAL_STACK=${ARG_STACK_SIZE}
      -mmutable-globals
      "SHELL:-Wl,--export=__stack_pointer"
      "SHELL:-Wl,--export-table"
      "SHELL:-Wl,--undefined=snail_stack_acquire"
      "SHELL:-Wl,--undefined=snail_stack_release"
      "SHELL:-Wl,--undefined=snail_alloc"
      "SHELL:-Wl,--undefined=snail_free")
  else()
    target_link_options(${linked} PRIVATE
      -mexec-model=reactor
      "LINKER:--export=__stack_pointer"
      "LINKER:--export-table"
      "LINKER:-z,stack-size=${ARG_STACK_SIZE}"
      "LINKER:--undefined=snail_stack_acquire"
      "LINKER:--undefined=snail_stack_release"
      "LINKER:--undefined=snail_alloc"
      "LINKER:--undefined=snail_free")
  endif()

  if(ARG_DYNAMIC)
    snail_detail_dynamic_program(${name} ${linked})
  endif()
  snail_detail_debug(${linked} "${ARG_DEBUG}" debug)

  snail_detail_postlink_command(postlink)
  set(output "${ARG_OUTPUT_DIRECTORY}/${name}.wasm")
  add_custom_command(
    OUTPUT "${output}"
    COMMAND "${CMAKE_COMMAND}" -E make_directory "${ARG_OUTPUT_DIRECTORY}"
    COMMAND ${postlink} "$<TARGET_FILE:${linked}>" "${output}" --stack-size ${ARG_STACK_SIZE} ${debug}
    DEPENDS ${linked} "${SNAIL_POSTLINK}"
    COMMENT "Post-linking snail-core program ${name}.wasm"
    VERBATIM COMMAND_EXPAND_LISTS)
  add_custom_target(${name} ALL DEPENDS "${output}")
endfunction()

# snail_add_wat_program(<name> <file.wat> [OUTPUT_DIRECTORY <dir>])
# Assembles a program written in WebAssembly text (with the npm package wabt;
# the source tree only).
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
