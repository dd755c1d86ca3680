#!/usr/bin/env bash
# Every runtime dependency (pyproject.toml [project] dependencies) must resolve to a wheel for
# the Raspberry Pi: linux aarch64, CPython 3.11 (Raspberry Pi OS bookworm: glibc 2.36), so a Pi
# install never falls back to compiling (numpy/opencv/onnxruntime from source would fail or
# take hours). Needs PyPI; run by .ci/run. Prints the wheels it resolved.
set -euo pipefail
cd "$(dirname "$0")/.."
py=${PYTHON:-python3}
[[ -x .venv/bin/python ]] && py=.venv/bin/python
mapfile -t deps < <("$py" -c '
import tomllib
for d in tomllib.load(open("pyproject.toml", "rb"))["project"]["dependencies"]:
    print(d)')
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
platforms=()
for p in manylinux2014_aarch64 manylinux_2_17_aarch64 manylinux_2_28_aarch64 \
         manylinux_2_31_aarch64 manylinux_2_34_aarch64 manylinux_2_36_aarch64; do
  platforms+=(--platform "$p")
done
if ! "$py" -m pip download -q --disable-pip-version-check --only-binary=:all: "${platforms[@]}" \
    --python-version 3.11 --implementation cp --abi cp311 --abi abi3 --abi none \
    -d "$tmp" "${deps[@]}"; then
  echo "check-aarch64-wheels: FAIL: a runtime dependency has no linux aarch64 / cp311 wheel" >&2
  exit 1
fi
echo "check-aarch64-wheels: ok: ${#deps[@]} dependencies, $(ls "$tmp" | wc -l) wheels for linux aarch64 / CPython 3.11:"
ls "$tmp" | sed 's/^/  /'
