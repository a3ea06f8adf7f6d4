# CMake toolchain for snail-core programs: C++20 to wasm32-wasi.
#
# Uses the wasi-sdk layout when WASI_SDK_PATH is set in the environment (or as a
# cache variable), otherwise Debian's packages: clang-19, lld-19, wasi-libc,
# libc++-19-dev-wasm32, libc++abi-19-dev-wasm32 and libclang-rt-19-dev-wasm32.
set(CMAKE_SYSTEM_NAME WASI)
set(CMAKE_SYSTEM_VERSION 1)
set(CMAKE_SYSTEM_PROCESSOR wasm32)
list(APPEND CMAKE_MODULE_PATH "${CMAKE_CURRENT_LIST_DIR}")

if(NOT WASI_SDK_PATH AND DEFINED ENV{WASI_SDK_PATH})
  set(WASI_SDK_PATH "$ENV{WASI_SDK_PATH}")
endif()

if(WASI_SDK_PATH)
  set(CMAKE_C_COMPILER "${WASI_SDK_PATH}/bin/clang")
  set(CMAKE_CXX_COMPILER "${WASI_SDK_PATH}/bin/clang++")
  set(CMAKE_AR "${WASI_SDK_PATH}/bin/llvm-ar" CACHE FILEPATH "archiver")
  set(CMAKE_RANLIB "${WASI_SDK_PATH}/bin/llvm-ranlib" CACHE FILEPATH "ranlib")
  set(CMAKE_SYSROOT "${WASI_SDK_PATH}/share/wasi-sysroot")
else()
  find_program(SNAIL_CLANG clang-19)
  find_program(SNAIL_CLANGXX clang++-19)
  find_program(SNAIL_LLVM_AR llvm-ar-19)
  find_program(SNAIL_LLVM_RANLIB llvm-ranlib-19)
  if(NOT SNAIL_CLANG OR NOT SNAIL_CLANGXX OR NOT SNAIL_LLVM_AR)
    message(FATAL_ERROR
      "snail-core needs a wasm32-wasi C++ toolchain. Either set WASI_SDK_PATH to a "
      "wasi-sdk, or install Debian's packages:\n"
      "  apt-get install clang-19 lld-19 wasi-libc libc++-19-dev-wasm32 "
      "libc++abi-19-dev-wasm32 libclang-rt-19-dev-wasm32\n"
      "(tools/bootstrap.sh does this when run as root).")
  endif()
  set(CMAKE_C_COMPILER "${SNAIL_CLANG}")
  set(CMAKE_CXX_COMPILER "${SNAIL_CLANGXX}")
  set(CMAKE_AR "${SNAIL_LLVM_AR}" CACHE FILEPATH "archiver")
  set(CMAKE_RANLIB "${SNAIL_LLVM_RANLIB}" CACHE FILEPATH "ranlib")
  # Debian installs the WASI sysroot under /usr (include/wasm32-wasi, lib/wasm32-wasi).
  set(CMAKE_SYSROOT "/usr")
endif()

set(CMAKE_C_COMPILER_TARGET wasm32-wasi)
set(CMAKE_CXX_COMPILER_TARGET wasm32-wasi)
set(CMAKE_EXECUTABLE_SUFFIX ".wasm")
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
# Packages (find_package) are searched under the sysroot and then where
# CMAKE_PREFIX_PATH says: Debian's sysroot is /usr itself, so "ONLY" would look
# for an installed SnailCore package under /usr/<prefix>.
if(NOT CMAKE_FIND_ROOT_PATH_MODE_PACKAGE)
  set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
endif()
