#!/usr/bin/env bash
# Installs what building and testing Copydesk needs on a fresh Debian 12
# machine, and nothing that is already there. Safe to run again.
#
#   bash scripts/setup.sh           the server, the UI and its browser tests
#   bash scripts/setup.sh desktop   also the desktop app (WebKitGTK) and its tests
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/sqlite-flags.sh

# postgresql: the suites start their own PostgreSQL 15 (initdb in a temporary
# directory, no system service) to run the central server on it.
packages=(build-essential pkg-config ca-certificates curl python3 chromium fonts-dejavu-core
          postgresql)
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  packages+=(nodejs npm)
fi
if [ "${1:-}" = "desktop" ]; then
  # Tauri 2 on Debian 12, and what its end-to-end tests drive it with (a
  # session bus and a Secret Service keychain, as a desktop login has).
  packages+=(libwebkit2gtk-4.1-dev libgtk-3-dev librsvg2-dev libayatana-appindicator3-dev
             libssl-dev libxdo-dev file xvfb xauth webkit2gtk-driver
             dbus-daemon dbus-bin gnome-keyring libsecret-tools)
fi

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

# The UI's packages, exactly as the lockfile has them.
if [ ! -d ui/node_modules ] || [ ui/package-lock.json -nt ui/node_modules/.package-lock.json ]; then
  echo "setup: installing the UI's npm packages"
  (cd ui && npm ci --no-audit --no-fund)
fi
