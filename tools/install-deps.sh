#!/usr/bin/env bash
# Installs the Debian packages utilsim needs to build and test, only those
# missing. Safe to run repeatedly; does nothing (and needs no network) when
# everything is present. Called by `make demo`, `make test` and `make bench`.
set -euo pipefail

PKGS=(
  g++ cmake make pkg-config
  libboost-graph-dev libyaml-cpp-dev libsqlite3-dev libeigen3-dev
  libcli11-dev nlohmann-json3-dev zlib1g-dev
  libgtest-dev libgmock-dev
  clang libclang-rt-14-dev
  nodejs chromium fonts-dejavu-core time
)

missing=()
for p in "${PKGS[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
# npm fetches the report's charting libraries at build time (docs/report.md).
# Debian ships it as the package npm; a Node.js from elsewhere (e.g. NodeSource)
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
