# find_package(SnailCore) for C and C++ programs that run on the snail-core
# runtime.
#
# Provides:
#   SnailCore::core        the core (headers <snail/snail.h> for C,
#                          <snail/snail.hpp> for C++, the library)
#   snail_add_program()    C and C++ sources -> a post-linked program .wasm
#                          (SnailProgram.cmake documents its arguments)
#   snail_add_side_module() C and C++ sources -> a module loaded at run time
#
# The core is C++: a project of C alone (project(x LANGUAGES C)) gets the C++
# language enabled here, with the C++ compiler of its toolchain (the toolchain
# file names both), to compile or link the core. Call find_package(SnailCore)
# at the top level of the project, where enable_language() may be called.
#   SnailCore_VERSION, SNAIL_CORE_INCLUDE_DIR, SNAIL_NODE, SNAIL_NODE_MODULES
#
# The program must be compiled for WebAssembly: configure the project with the
# toolchain file next to this file (wasm32-wasi, clang and wasi-libc),
#   cmake -DCMAKE_TOOLCHAIN_FILE=<this directory>/wasm32-wasi.cmake ...
# or with Emscripten (emcmake cmake ...), which builds a standalone module;
# docs/guide.md says what works there.
#
# The same file serves two layouts:
#   installed   <prefix>/lib/cmake/SnailCore (cmake --install of snail-core):
#               the prebuilt wasm32-wasi core, imported from SnailCoreTargets.cmake
#   npm         node_modules/snail-core/tools/cmake (npm install snail-core;
#               find it with -DCMAKE_PREFIX_PATH=node_modules/snail-core/tools):
#               the core is compiled from its sources with the project
#
# The post-link step runs in Node with the npm package binaryen (132):
#   SNAIL_NODE          node executable, 20.6 or newer. Default: the one recorded
#                       when the package was installed, else `node` on PATH.
#   SNAIL_NODE_MODULES  the node_modules directory holding binaryen. Default:
#                       recorded when the package was installed; for the npm
#                       layout, Node finds binaryen next to snail-core (npm
#                       install binaryen@132 in the same project).
# Both may be given as cache variables or environment variables.
set(_snail_dir "${CMAKE_CURRENT_LIST_DIR}")
if(EXISTS "${_snail_dir}/SnailCoreTargets.cmake")
  get_filename_component(_snail_prefix "${_snail_dir}/../../.." ABSOLUTE)
  set(_snail_layout installed)
  set(_snail_share "${_snail_prefix}/share/snail-core")
  set(SNAIL_CORE_INCLUDE_DIR "${_snail_prefix}/include")
  set(_snail_sources "${_snail_share}/core/src")
  set(_snail_postlink "${_snail_share}/tools/wasm/postlink.mjs")
  include("${_snail_dir}/SnailCoreInstallInfo.cmake")
else()
  get_filename_component(_snail_root "${_snail_dir}/../.." ABSOLUTE)
  set(_snail_layout npm)
  set(SNAIL_CORE_INCLUDE_DIR "${_snail_root}/core/include")
  set(_snail_sources "${_snail_root}/core/src")
  set(_snail_postlink "${_snail_root}/tools/wasm/postlink.mjs")
  set(_SNAIL_RECORDED_NODE "")
  set(_SNAIL_RECORDED_NODE_MODULES "")
endif()

# Gives up: find_package() reports _snail_message.
macro(_snail_not_found)
  set(SnailCore_FOUND FALSE)
  set(SnailCore_NOT_FOUND_MESSAGE "${_snail_message}")
  return()
endmacro()

if(NOT WASI AND NOT EMSCRIPTEN)
  string(CONCAT _snail_message "snail-core programs are WebAssembly, but this project is configured for "
    "${CMAKE_SYSTEM_NAME}. Configure it with the toolchain file of the package:\n"
    "  cmake -DCMAKE_TOOLCHAIN_FILE=${_snail_dir}/wasm32-wasi.cmake ...\n"
    "or with Emscripten: emcmake cmake ... (see docs/guide.md).")
  _snail_not_found()
endif()

# Node and binaryen for the post-link step.
if(NOT SNAIL_NODE AND DEFINED ENV{SNAIL_NODE})
  set(SNAIL_NODE "$ENV{SNAIL_NODE}" CACHE FILEPATH "node for snail-core's post-link step")
endif()
if(NOT SNAIL_NODE AND _SNAIL_RECORDED_NODE AND EXISTS "${_SNAIL_RECORDED_NODE}")
  set(SNAIL_NODE "${_SNAIL_RECORDED_NODE}" CACHE FILEPATH "node for snail-core's post-link step")
endif()
if(NOT SNAIL_NODE AND _snail_layout STREQUAL "npm")
  # npm puts the binaries of a project's packages in node_modules/.bin.
  find_program(SNAIL_NODE node HINTS "${_snail_root}/../.bin" "${_snail_root}/node_modules/.bin" NO_DEFAULT_PATH)
endif()
if(NOT SNAIL_NODE)
  find_program(SNAIL_NODE NAMES node nodejs DOC "node for snail-core's post-link step")
endif()
if(NOT SNAIL_NODE)
  string(CONCAT _snail_message "snail-core's post-link step needs Node (20.6 or newer), which was not found; "
    "install it or set SNAIL_NODE to a node executable.")
  _snail_not_found()
endif()

if(NOT DEFINED SNAIL_NODE_MODULES AND DEFINED ENV{SNAIL_NODE_MODULES})
  set(SNAIL_NODE_MODULES "$ENV{SNAIL_NODE_MODULES}" CACHE PATH "node_modules directory with the npm package binaryen")
endif()
if(NOT DEFINED SNAIL_NODE_MODULES)
  set(SNAIL_NODE_MODULES "${_SNAIL_RECORDED_NODE_MODULES}" CACHE PATH "node_modules directory with the npm package binaryen")
endif()

# Report a Node that cannot run, or a missing binaryen, now rather than in the
# middle of the build.
# Gives up on a SNAIL_NODE that cannot serve, saying why and how to give another.
macro(_snail_bad_node why)
  string(CONCAT _snail_message "snail-core's post-link step needs Node, but SNAIL_NODE is "
    "${SNAIL_NODE}, which ${why}. Configure again with -DSNAIL_NODE=<a node executable, "
    "20.6 or newer>, or with -USNAIL_NODE to look for one again (the environment variable "
    "SNAIL_NODE, else node on PATH).")
  _snail_not_found()
endmacro()

if(IS_DIRECTORY "${SNAIL_NODE}")
  _snail_bad_node("is a directory, not a node executable")
elseif(IS_ABSOLUTE "${SNAIL_NODE}" AND NOT EXISTS "${SNAIL_NODE}")
  _snail_bad_node("does not exist")
endif()
set(_snail_check "${SNAIL_NODE}" "${_snail_dir}/snail-postlink.mjs" --check)
if(SNAIL_NODE_MODULES)
  list(APPEND _snail_check --node-modules "${SNAIL_NODE_MODULES}")
endif()
execute_process(COMMAND ${_snail_check} "${_snail_postlink}"
  RESULT_VARIABLE _snail_result OUTPUT_VARIABLE _snail_out ERROR_VARIABLE _snail_err
  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_STRIP_TRAILING_WHITESPACE)
if(NOT _snail_result MATCHES "^[0-9]+$")
  # The process did not start: the result is the reason ("Permission denied").
  _snail_bad_node("cannot be run (${_snail_result})")
elseif(NOT _snail_result EQUAL 0 AND _snail_err STREQUAL "")
  _snail_bad_node("exited with ${_snail_result} and said nothing, so it may not be Node")
elseif(NOT _snail_result EQUAL 0)
  string(CONCAT _snail_message "snail-core's post-link step cannot run with ${SNAIL_NODE}: ${_snail_err}")
  _snail_not_found()
endif()

set(SNAIL_POSTLINK "${_snail_postlink}")
include("${_snail_dir}/SnailProgram.cmake")

get_property(_snail_languages GLOBAL PROPERTY ENABLED_LANGUAGES)
if(NOT "CXX" IN_LIST _snail_languages)
  enable_language(CXX)
endif()

# The core.
if(NOT TARGET SnailCore::core)
  if(WASI AND _snail_layout STREQUAL "installed")
    include("${_snail_dir}/SnailCoreTargets.cmake")
  else()
    # Compiled with the project's own toolchain: the npm layout ships sources,
    # and Emscripten cannot link a library built for wasm32-wasi.
    file(GLOB _snail_core_sources CONFIGURE_DEPENDS "${_snail_sources}/*.cpp")
    add_library(snail_core_from_source STATIC ${_snail_core_sources})
    target_include_directories(snail_core_from_source PUBLIC "${SNAIL_CORE_INCLUDE_DIR}")
    target_compile_features(snail_core_from_source PUBLIC cxx_std_20)
    target_compile_options(snail_core_from_source PUBLIC $<$<COMPILE_LANGUAGE:CXX>:-fno-exceptions -fno-rtti>)
    if(EMSCRIPTEN)
      target_compile_options(snail_core_from_source PUBLIC -mmutable-globals)
    endif()
    add_library(SnailCore::core ALIAS snail_core_from_source)
  endif()
endif()

set(SnailCore_FOUND TRUE)
