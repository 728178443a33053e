#!/usr/bin/env bash
# Installs what building and testing Copydesk needs on a fresh Debian 12
# machine, and nothing that is already there. Safe to run again.
set -euo pipefail

packages=(build-essential pkg-config ca-certificates curl python3)

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  if [ "$(id -u)" -eq 0 ]; then
    sudo_cmd=()
  elif command -v sudo >/dev/null 2>&1; then
    sudo_cmd=(sudo)
  else
    echo "setup: need root (or sudo) to install: ${missing[*]}" >&2
    exit 1
  fi
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if ! command -v cargo >/dev/null 2>&1; then
  echo "setup: cargo is missing. Install the Rust toolchain (1.88 or newer) with rustup, then run this again." >&2
  exit 1
fi
