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
# directory, no system service) to run the central server on it; locales:
# one test makes its database in en_US.UTF-8, as managed services do.
packages=(build-essential pkg-config ca-certificates curl python3 chromium fonts-dejavu-core
          postgresql locales)
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

# Runs a command as root: directly, or through sudo.
as_root() {
  if [ "$(id -u)" -eq 0 ]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1; then
    sudo "$@"
  else
    echo "setup: need root (or sudo) to run: $*" >&2
    exit 1
  fi
}

if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if ! locale -a | grep -qix 'en_US.utf8'; then
  echo "setup: generating the en_US.UTF-8 locale"
  if grep -q '^# *en_US.UTF-8 UTF-8' /etc/locale.gen; then
    as_root sed -i 's/^# *en_US.UTF-8 UTF-8/en_US.UTF-8 UTF-8/' /etc/locale.gen
  else
    echo 'en_US.UTF-8 UTF-8' | as_root tee -a /etc/locale.gen >/dev/null
  fi
  as_root locale-gen >/dev/null
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
