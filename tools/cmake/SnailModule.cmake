# Modules loaded into a running program (docs/abi.md, "Dynamically loaded
# modules"). Included by SnailProgram.cmake.
#
# snail_add_side_module(<name> SOURCES <file>... [OUTPUT_DIRECTORY <dir>] [DEBUG])
#
# Builds C and C++ sources into a side module following the WebAssembly
# tool-conventions for dynamic linking: position-independent code, a
# `dylink.0` section, the program's memory, table and __stack_pointer imported,
# its own data and functions placed at the bases the loader gives it. Symbols
# it does not define are imported from the program (which must be built with
# snail_add_program(... DYNAMIC)) or from modules loaded before it. It uses the
# snail-core headers but does not link the core: the program has it. The
# post-link step guards its stack use against the program's per-task stack
# bounds. The result is <OUTPUT_DIRECTORY>/<name>.wasm; load it with
# snail::load_module("<name>") or rt.loadModule(). DEBUG (or a Debug
# configuration) keeps its names and DWARF, as for snail_add_program().
include_guard(GLOBAL)

function(snail_add_side_module name)
  cmake_parse_arguments(ARG "DEBUG" "OUTPUT_DIRECTORY" "SOURCES" ${ARGN})
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "snail_add_side_module(${name}): give SOURCES")
  endif()
  if(EMSCRIPTEN OR NOT CMAKE_SYSTEM_NAME STREQUAL "WASI")
    message(FATAL_ERROR "snail_add_side_module(${name}): side modules are built with the "
                        "wasm32-wasi toolchain (tools/cmake/wasm32-wasi.cmake)")
  endif()
  if(NOT ARG_OUTPUT_DIRECTORY)
    set(ARG_OUTPUT_DIRECTORY "${SNAIL_PROGRAM_OUTPUT_DIRECTORY}")
  endif()

  set(linked ${name}.side)
  add_executable(${linked} ${ARG_SOURCES})
  target_include_directories(${linked} PRIVATE
    $<TARGET_PROPERTY:SnailCore::core,INTERFACE_INCLUDE_DIRECTORIES>)
  target_compile_features(${linked} PRIVATE cxx_std_20)
  target_compile_options(${linked} PRIVATE
    $<TARGET_PROPERTY:SnailCore::core,INTERFACE_COMPILE_OPTIONS>
    -fPIC -fvisibility=default -Wall -Wextra
    $<$<COMPILE_LANGUAGE:CXX>:-fvisibility-inlines-hidden -fno-exceptions -fno-rtti>)
  # Default visibility exports the module's functions; inline functions stay
  # hidden (the snail-core headers hide theirs too, and <snail/snail.h>'s are
  # static): a module binds its own out-of-line copies, which an unoptimised
  # build emits, instead of importing them from a program that may not have
  # them.
  # -shared with --experimental-pic writes the dylink.0 section; undefined
  # symbols become imports the loader resolves against the program's exports.
  # -nostdlib: the C and C++ libraries are the program's. The loader calls
  # __wasm_call_ctors (constructors) after __wasm_apply_data_relocs.
  target_link_options(${linked} PRIVATE
    -shared -nostdlib
    "LINKER:--experimental-pic"
    "LINKER:--unresolved-symbols=import-dynamic"
    "LINKER:--no-entry"
    "LINKER:--export-if-defined=__wasm_call_ctors")

  snail_detail_debug(${linked} "${ARG_DEBUG}" debug)

  snail_detail_postlink_command(postlink)
  set(output "${ARG_OUTPUT_DIRECTORY}/${name}.wasm")
  add_custom_command(
    OUTPUT "${output}"
    COMMAND "${CMAKE_COMMAND}" -E make_directory "${ARG_OUTPUT_DIRECTORY}"
    COMMAND ${postlink} "$<TARGET_FILE:${linked}>" "${output}" --side ${debug}
    DEPENDS ${linked} "${SNAIL_POSTLINK}"
    COMMENT "Post-linking snail-core side module ${name}.wasm"
    VERBATIM COMMAND_EXPAND_LISTS)
  add_custom_target(${name} ALL DEPENDS "${output}")
endfunction()

# The options of snail_add_program(... DYNAMIC): every symbol the program's
# sources define is exported (side modules import them by name; clang's
# default visibility for WebAssembly is hidden, so they are compiled with
# default visibility), and its function table can grow (side modules'
# functions go into it). Libraries built with hidden symbols, such as
# wasi-libc, stay unexported under --export-dynamic; the C functions compilers
# call on their own (memcpy, memset, memmove, memcmp, strlen) and the allocator
# are exported by name.
function(snail_detail_dynamic_program name linked)
  if(EMSCRIPTEN)
    message(FATAL_ERROR "snail_add_program(${name} DYNAMIC): side modules need the "
                        "wasm32-wasi toolchain")
  endif()
  target_compile_options(${linked} PRIVATE -fvisibility=default)
  target_link_options(${linked} PRIVATE
    "LINKER:--export-dynamic"
    "LINKER:--growable-table")
  foreach(symbol memcpy memset memmove memcmp strlen malloc free calloc realloc aligned_alloc)
    target_link_options(${linked} PRIVATE "LINKER:--export-if-defined=${symbol}")
  endforeach()
endfunction()
