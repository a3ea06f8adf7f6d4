# The installable CMake package of snail-core, for find_package(SnailCore):
#
#   cmake --install build/wasm --prefix PREFIX
#
# installs
#   PREFIX/include/snail/...                    the C and C++ headers
#   PREFIX/lib/libsnail_core.a                  the core, built for wasm32-wasi
#   PREFIX/lib/cmake/SnailCore/                 SnailCoreConfig.cmake, its version
#       file, the exported target SnailCore::core, snail_add_program()
#       (SnailProgram.cmake), snail_add_side_module() (SnailModule.cmake), the toolchain file wasm32-wasi.cmake and its
#       Platform/WASI.cmake, the post-link launcher, and what was recorded
#       here: the Node and the node_modules with binaryen this build used
#   PREFIX/share/snail-core/                    the post-link step, the
#       core's sources (Emscripten projects compile them with em++) and the
#       C example project (example-c/)
#
# Included by the top-level CMakeLists.txt in the wasm32-wasi build.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(_snail_cmake_dir "${CMAKE_CURRENT_LIST_DIR}")
set(_snail_root "${PROJECT_SOURCE_DIR}")
set(_snail_package_dir "${CMAKE_INSTALL_LIBDIR}/cmake/SnailCore")
set(_snail_share_dir "${CMAKE_INSTALL_DATADIR}/snail-core")

set_target_properties(snail_core PROPERTIES EXPORT_NAME core)
install(TARGETS snail_core EXPORT SnailCoreTargets
  ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}"
  INCLUDES DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
install(DIRECTORY "${_snail_root}/core/include/" DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
install(EXPORT SnailCoreTargets NAMESPACE SnailCore:: DESTINATION "${_snail_package_dir}")

write_basic_package_version_file("${CMAKE_CURRENT_BINARY_DIR}/SnailCoreConfigVersion.cmake"
  VERSION "${PROJECT_VERSION}" COMPATIBILITY SameMinorVersion
  # Any project may find it: SnailCoreConfig.cmake itself explains that the
  # project must be configured for WebAssembly.
  ARCH_INDEPENDENT)

# Where the post-link step's dependencies are, recorded for the installed package.
if(EXISTS "${_snail_root}/node_modules/binaryen/package.json")
  set(_snail_default_node_modules "${_snail_root}/node_modules")
else()
  set(_snail_default_node_modules "")
endif()
set(SNAIL_INSTALL_NODE_MODULES "${_snail_default_node_modules}" CACHE PATH
    "the node_modules directory (with binaryen) that the installed SnailCore package records")
configure_file("${_snail_cmake_dir}/SnailCoreInstallInfo.cmake.in"
  "${CMAKE_CURRENT_BINARY_DIR}/SnailCoreInstallInfo.cmake" @ONLY)

install(FILES
    "${_snail_cmake_dir}/SnailCoreConfig.cmake"
    "${CMAKE_CURRENT_BINARY_DIR}/SnailCoreConfigVersion.cmake"
    "${CMAKE_CURRENT_BINARY_DIR}/SnailCoreInstallInfo.cmake"
    "${_snail_cmake_dir}/SnailProgram.cmake"
    "${_snail_cmake_dir}/SnailModule.cmake"
    "${_snail_cmake_dir}/snail-postlink.mjs"
    "${_snail_cmake_dir}/wasm32-wasi.cmake"
  DESTINATION "${_snail_package_dir}")
install(FILES "${_snail_cmake_dir}/Platform/WASI.cmake" DESTINATION "${_snail_package_dir}/Platform")
install(FILES "${_snail_root}/tools/wasm/postlink.mjs" "${_snail_root}/tools/wasm/postlink-cli.mjs"
  "${_snail_root}/tools/wasm/binaryen-names.mjs"
  DESTINATION "${_snail_share_dir}/tools/wasm")
install(FILES "${_snail_root}/host/browser/errors.mjs" DESTINATION "${_snail_share_dir}/host/browser")
install(FILES "${_snail_root}/host/browser/wasm/binary.mjs" "${_snail_root}/host/browser/wasm/reader.mjs"
  "${_snail_root}/host/browser/wasm/writer.mjs" DESTINATION "${_snail_share_dir}/host/browser/wasm")
install(DIRECTORY "${_snail_root}/core/src/" DESTINATION "${_snail_share_dir}/core/src")
# The C project of docs/guide.md, "The same program in C", to start from.
install(DIRECTORY "${_snail_root}/tools/cmake/example-c/" DESTINATION "${_snail_share_dir}/example-c")
