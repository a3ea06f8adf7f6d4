# snail_add_emscripten_program(<name> SOURCES <file>... [LIBRARIES <lib>...]
#                              [ES6] [EXPORT_NAME <js-name>] [STACK_SIZE <bytes>]
#                              [JS_LIBRARIES <file.js>...] [LINK_OPTIONS <option>...]
#                              [OUTPUT_DIRECTORY <dir>])
#
# Builds C++ sources with Emscripten (configure with emcmake) into a snail-core
# program that keeps Emscripten's generated JavaScript: the module factory
# (-sMODULARIZE) that Runtime.load adopts through its `emscripten` option
# (docs/emscripten.md). The results are, in OUTPUT_DIRECTORY (default
# SNAIL_PROGRAM_OUTPUT_DIRECTORY, itself ${CMAKE_BINARY_DIR}/programs):
#
#   <name>.wasm   the program, post-linked by tools/wasm/postlink-emscripten.mjs
#   <name>.mjs    with ES6: an ES module whose default export is the factory,
#                 for browsers (-sENVIRONMENT=web,worker); Emscripten 3.1.6
#                 cannot make an ES module for Node, but this one also runs
#                 in Node under snail-core when linked without assertions
#                 (-O1 or -O2), because snail-core hands it the Wasm module
#   <name>.cjs    without ES6: a CommonJS script (browsers: a <script> that
#                 defines the global EXPORT_NAME; Node: require())
#
# The core (core/src, compiled once per project with SNAIL_EMSCRIPTEN_JS) is
# linked in. STACK_SIZE is Emscripten's stack (-sTOTAL_STACK), the one the
# constructors and the host's calls between tasks run on: each task gets its own
# segment at run time. JS_LIBRARIES are Emscripten JavaScript libraries
# (--js-library): Emscripten 3.1.6 needs one that names every function the
# program imports from a module of its own (see tests/programs/emscripten/);
# the imports of module "snail" are named by tools/emscripten/snail-imports.js,
# which is always passed. The memory grows (-sALLOW_MEMORY_GROWTH=1) and malloc
# returns null when it cannot (-sABORTING_MALLOC=0). The link is at most -O2,
# because at -O3, -Os and -Oz emcc renames the imports and exports, module
# "snail" included: when the build's flags end at -O3 (a Release build) the
# link gets -O2, and the compile keeps -O3; a build whose flags have -Os or
# -Oz (MinSizeRel) is refused when configured, since emcc keeps their shrink
# level whatever -O follows. LINK_OPTIONS come after these settings and may
# say otherwise.
#
# Needs Node with the npm package `binaryen` for the post-link step: SNAIL_NODE
# (default: node_modules/.bin/node of the source tree, else `node`).
include_guard(GLOBAL)

if(NOT EMSCRIPTEN)
  message(FATAL_ERROR "SnailEmscripten.cmake builds with Emscripten: configure with emcmake cmake ...")
endif()

set(SNAIL_EMSCRIPTEN_ROOT "${CMAKE_CURRENT_LIST_DIR}/../.." CACHE PATH
    "the snail-core tree (its core/ and tools/) that snail_add_emscripten_program() builds from")
set(SNAIL_PROGRAM_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/programs" CACHE PATH
    "where snail_add_emscripten_program() puts programs by default")
if(NOT SNAIL_NODE)
  find_program(SNAIL_NODE node HINTS "${SNAIL_EMSCRIPTEN_ROOT}/node_modules/.bin" NO_DEFAULT_PATH)
  find_program(SNAIL_NODE node)
endif()

# The core, compiled for Emscripten's JavaScript once per project.
function(snail_emscripten_core)
  if(TARGET snail_core_emscripten)
    return()
  endif()
  set(core "${SNAIL_EMSCRIPTEN_ROOT}/core")
  add_library(snail_core_emscripten STATIC
    "${core}/src/runtime.cpp" "${core}/src/stack_pool.cpp")
  target_include_directories(snail_core_emscripten PUBLIC "${core}/include")
  target_compile_features(snail_core_emscripten PUBLIC cxx_std_20)
  # Export names without dots (core/include/snail/abi.h); handler globals are
  # exported mutable globals; the core has no exceptions or RTTI.
  target_compile_definitions(snail_core_emscripten PUBLIC SNAIL_EMSCRIPTEN_JS)
  target_compile_options(snail_core_emscripten PUBLIC -mmutable-globals -fno-exceptions -fno-rtti)
  target_compile_options(snail_core_emscripten PRIVATE -Wall -Wextra)
endfunction()

# Into <out>: what keeps the link of program <name> at -O2 or lower. Above -O2
# emcc renames the imports and exports, which the post-link step and the
# runtime find by name (and its meta-DCE drops exports its JavaScript does not
# use). The link command has the build's compile flags first, then its linker
# flags, then the target's link options: when those flags end at -O3 (a Release
# build), a later -O2 caps the link. No later -O undoes an -Os or -Oz (emcc
# keeps their shrink level), so a build whose flags have one is refused here
# (with a multi-config generator, its post-link step fails and says so).
function(snail_detail_emscripten_link_level name out)
  set(above "")
  if(CMAKE_CONFIGURATION_TYPES)
    set(configs ${CMAKE_CONFIGURATION_TYPES})
  elseif(CMAKE_BUILD_TYPE)
    set(configs ${CMAKE_BUILD_TYPE})
  else()
    set(configs NONE)  # no build type: CMAKE_CXX_FLAGS alone
  endif()
  foreach(config IN LISTS configs)
    string(TOUPPER "${config}" upper)
    set(flags " ${CMAKE_CXX_FLAGS} ${CMAKE_CXX_FLAGS_${upper}} ${CMAKE_EXE_LINKER_FLAGS} ${CMAKE_EXE_LINKER_FLAGS_${upper}}")
    string(REGEX MATCHALL "[ \t]-O[0-9A-Za-z]*" levels "${flags}")
    string(REGEX MATCH "-O[sz](;|$)" shrink "${levels}")
    list(POP_BACK levels level)
    if(shrink AND NOT CMAKE_CONFIGURATION_TYPES)
      string(REPLACE ";" "" shrink "${shrink}")
      if(config STREQUAL "NONE")
        set(where "CMAKE_CXX_FLAGS or CMAKE_EXE_LINKER_FLAGS")
      else()
        set(where "CMAKE_CXX_FLAGS, CMAKE_CXX_FLAGS_${upper} or the linker flags")
      endif()
      message(FATAL_ERROR "snail_add_emscripten_program(${name}): this build's flags have ${shrink} "
        "(${where}), and emcc gets them at the link too: a link at -Os or -Oz renames the "
        "program's imports and exports, and no later -O undoes it. Leave -Os and -Oz out of "
        "those flags (a Release build compiles at -O3 and links at -O2); to compile for size, "
        "give -Os with add_compile_options() or target_compile_options(), which the link does "
        "not see.")
    elseif(level MATCHES "-O([3-9]|fast)$")
      list(APPEND above "${config}")
    endif()
  endforeach()
  if(NOT above)
    set(${out} "" PARENT_SCOPE)
  elseif(CMAKE_CONFIGURATION_TYPES)
    list(JOIN above "," above)
    set(${out} "$<$<CONFIG:${above}>:-O2>" PARENT_SCOPE)
  else()
    set(${out} -O2 PARENT_SCOPE)
  endif()
endfunction()

function(snail_add_emscripten_program name)
  cmake_parse_arguments(ARG "ES6" "EXPORT_NAME;STACK_SIZE;OUTPUT_DIRECTORY"
                        "SOURCES;LIBRARIES;JS_LIBRARIES;LINK_OPTIONS" ${ARGN})
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "snail_add_emscripten_program(${name}): SOURCES is required")
  endif()
  if(NOT SNAIL_NODE)
    message(FATAL_ERROR "snail_add_emscripten_program(${name}): the post-link step needs Node; set SNAIL_NODE")
  endif()
  if(NOT ARG_EXPORT_NAME)
    set(ARG_EXPORT_NAME createModule)
  endif()
  if(NOT ARG_STACK_SIZE)
    set(ARG_STACK_SIZE 5242880)
  endif()
  if(NOT ARG_OUTPUT_DIRECTORY)
    set(ARG_OUTPUT_DIRECTORY "${SNAIL_PROGRAM_OUTPUT_DIRECTORY}")
  endif()
  snail_emscripten_core()

  set(linked ${name}.emcc)
  add_executable(${linked} ${ARG_SOURCES})
  target_link_libraries(${linked} PRIVATE snail_core_emscripten ${ARG_LIBRARIES})
  target_compile_options(${linked} PRIVATE -Wall -Wextra)
  set(js_libraries "${SNAIL_EMSCRIPTEN_ROOT}/tools/emscripten/snail-imports.js" ${ARG_JS_LIBRARIES})
  snail_detail_emscripten_link_level(${name} link_level)
  set(link_options
    ${link_level}
    -sMODULARIZE
    "-sEXPORT_NAME=${ARG_EXPORT_NAME}"
    "-sTOTAL_STACK=${ARG_STACK_SIZE}"
    # Every task that has started holds a stack segment (32 KiB by default):
    # let the memory grow, as a WASI program's does. A task whose segment
    # cannot be allocated fails alone: malloc must return null, not abort the
    # program (Emscripten's default without memory growth).
    -sALLOW_MEMORY_GROWTH=1
    -sABORTING_MALLOC=0
    -mmutable-globals
    "SHELL:-Wl,--export=__stack_pointer"
    # The core's exports live in a static library: keep them.
    "SHELL:-Wl,--undefined=snail_stack_acquire"
    "SHELL:-Wl,--undefined=snail_stack_release"
    "SHELL:-Wl,--undefined=snail_alloc"
    "SHELL:-Wl,--undefined=snail_free")
  foreach(library IN LISTS js_libraries)
    get_filename_component(library "${library}" ABSOLUTE)
    list(APPEND link_options "SHELL:--js-library \"${library}\"")
    set_property(TARGET ${linked} APPEND PROPERTY LINK_DEPENDS "${library}")
  endforeach()
  # emcc writes <name>.emcc.mjs (or .js) and <name>.emcc.wasm next to each other.
  if(ARG_ES6)
    list(APPEND link_options -sEXPORT_ES6 -sENVIRONMENT=web,worker)
    set(js_suffix .mjs)
    set_target_properties(${linked} PROPERTIES SUFFIX .mjs)
  else()
    set(js_suffix .cjs)
    set_target_properties(${linked} PROPERTIES SUFFIX .js)
  endif()
  target_link_options(${linked} PRIVATE ${link_options} ${ARG_LINK_OPTIONS})

  set(postlink "${SNAIL_EMSCRIPTEN_ROOT}/tools/wasm/postlink-emscripten.mjs")
  set(out_wasm "${ARG_OUTPUT_DIRECTORY}/${name}.wasm")
  set(out_js "${ARG_OUTPUT_DIRECTORY}/${name}${js_suffix}")
  add_custom_command(
    OUTPUT "${out_wasm}" "${out_js}"
    COMMAND "${CMAKE_COMMAND}" -E make_directory "${ARG_OUTPUT_DIRECTORY}"
    COMMAND "${SNAIL_NODE}" "${postlink}" "$<TARGET_FILE_DIR:${linked}>/${linked}.wasm" "${out_wasm}"
            --stack-size ${ARG_STACK_SIZE}
    COMMAND "${CMAKE_COMMAND}" -E copy "$<TARGET_FILE:${linked}>" "${out_js}"
    DEPENDS ${linked} "${postlink}"
    COMMENT "Post-linking snail-core Emscripten program ${name}"
    VERBATIM)
  add_custom_target(${name} ALL DEPENDS "${out_wasm}" "${out_js}")
endfunction()
