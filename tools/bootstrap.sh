#!/usr/bin/env bash
# Installs what snail-core needs to build and test, then builds it.
#
#   tools/bootstrap.sh            everything (toolchain, Chromium, Firefox, npm packages, build)
#   tools/bootstrap.sh --no-build only install
#
# As root on Debian it installs missing apt packages itself; otherwise it prints
# the exact command to run. npm packages (Node 26 from the npm package `node`,
# Deno, Bun, Binaryen, wabt, puppeteer-core, TypeScript) go to node_modules/.
set -euo pipefail
cd "$(dirname "$0")/.."

build=1
for arg in "$@"; do
  case "$arg" in
    --no-build) build=0 ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) echo "bootstrap: unknown option $arg (try --help)" >&2; exit 2 ;;
  esac
done

say() { printf 'bootstrap: %s\n' "$*"; }

# emscripten: tests/node/cmake-package.test.mjs builds a program with emcmake.
# chromium and firefox-esr: the browser suites run in both.
packages=(cmake ninja-build g++ libgtest-dev chromium firefox-esr emscripten)
if [ -z "${WASI_SDK_PATH:-}" ]; then
  packages+=(clang-19 lld-19 llvm-19 wasi-libc libc++-19-dev-wasm32 libc++abi-19-dev-wasm32 libclang-rt-19-dev-wasm32)
elif [ ! -x "$WASI_SDK_PATH/bin/clang++" ]; then
  say "WASI_SDK_PATH=$WASI_SDK_PATH has no bin/clang++; unset it to use Debian's clang-19"
  exit 1
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    say "installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    if ! apt-get install -y --no-install-recommends "${missing[@]}"; then
      apt-get update
      apt-get install -y --no-install-recommends "${missing[@]}"
    fi
  else
    say "missing packages: ${missing[*]}"
    say "install them with:  sudo apt-get install ${missing[*]}"
    exit 1
  fi
fi

if ! command -v npm >/dev/null; then
  say "npm is missing; install Node.js and npm (apt-get install nodejs npm) and run this again"
  exit 1
fi
if [ ! -x node_modules/.bin/node ] || [ package.json -nt node_modules/.package-lock.json ] || { [ -f package-lock.json ] && [ package-lock.json -nt node_modules/.package-lock.json ]; }; then
  say "installing npm packages"
  if [ -f package-lock.json ]; then npm ci --no-audit --no-fund; else npm install --no-audit --no-fund; fi
fi

node_major=$(node_modules/.bin/node -p 'process.versions.node.split(".")[0]')
if [ "$node_major" -lt 25 ]; then
  say "node_modules/.bin/node is Node $node_major; snail-core's tests need Node 25 or newer (JSPI)"
  exit 1
fi

if [ "$build" = 1 ]; then
  say "building"
  node_modules/.bin/node tools/build.mjs --quiet
fi
say "ready"
