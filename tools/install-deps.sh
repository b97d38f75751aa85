#!/usr/bin/env bash
# Installs the Debian packages utilsim needs, only those missing. Safe to run
# repeatedly; does nothing (and needs no network) when everything is present.
#
#   tools/install-deps.sh build   what building and running the utilsim binary
#                                 needs (`make demo`)
#   tools/install-deps.sh test    that plus what the tests, fuzzers and
#                                 benchmarks need (`make test`, `make bench`;
#                                 the default)
#   tools/install-deps.sh --list build|test   print the set, install nothing
set -euo pipefail

# Compiler, CMake and the libraries the binary links. npm (below) is a build
# dependency too: the HTML report's charting libraries are fetched by `npm ci`
# at build time and compiled into the binary (docs/report.md).
BUILD_PKGS=(
  g++ cmake make
  libboost-graph-dev libyaml-cpp-dev libsqlite3-dev libeigen3-dev
  libcli11-dev nlohmann-json3-dev zlib1g-dev
  libcpp-httplib-dev libssl-dev pkg-config
  nodejs
)
# clang-format (make test checks the formatting), pkg-config (the install test), GoogleTest (unit tests), clang's libFuzzer (tests/fuzz), Chromium and a font
# (the report's browser test), python3 and the sqlite3 shell (the docs test,
# tests/docs), GNU time (tests/bench), pybind11 and the Python headers (the
# Python module, tools/python; skipped without them) with numpy and pandas
# (its DataFrames and tests, tests/python), and Prometheus (the live-mode tests
# scrape `utilsim exporter` with a real one, tests/live) and the openssl command (the
# TLS tests make their certificates with it), and a real Slurm for the Slurm
# live mode's tests (tests/live/slurm: munge, MariaDB, slurmdbd, slurmctld,
# slurmd, the client commands, slurmrestd with the JWT plugin; none of them
# is started as a service: the tests start their own on 127.0.0.1).
TEST_PKGS=(
  libgtest-dev libgmock-dev
  clang libclang-rt-14-dev
  chromium fonts-dejavu-core
  python3 sqlite3 time pkg-config clang-format
  pybind11-dev python3-pybind11 python3-dev python3-numpy python3-pandas
  prometheus openssl
  munge mariadb-server slurmdbd slurmctld slurmd slurm-client slurmrestd slurm-wlm-jwt-plugin
)

list=0
if [ "${1:-}" = "--list" ]; then list=1; shift; fi
case "${1:-test}" in
  build) PKGS=("${BUILD_PKGS[@]}") ;;
  test) PKGS=("${BUILD_PKGS[@]}" "${TEST_PKGS[@]}") ;;
  *) echo "usage: $0 [--list] [build|test]" >&2; exit 2 ;;
esac
if [ $list -eq 1 ]; then echo "${PKGS[*]} npm"; exit 0; fi

missing=()
for p in "${PKGS[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
# Debian ships npm as the package npm; a Node.js from elsewhere (e.g. NodeSource)
# bundles it and conflicts with that package, so install it only when absent.
if ! command -v npm >/dev/null; then missing+=(npm); fi
[ ${#missing[@]} -eq 0 ] && exit 0

echo "install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null; then SUDO="sudo"; else
    echo "install-deps: need root (or sudo) to install: ${missing[*]}" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
