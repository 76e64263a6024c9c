#!/usr/bin/env bash
# Install Debian packages when missing, for the scripts that need a system program or data:
#   bash scripts/apt_install.sh WHO PACKAGE WITHOUT
# WHO names the caller in messages, PACKAGE the Debian package (or several, space-separated), WITHOUT says
# what happens without it.
# Without apt-get, or without root or password-less sudo, it installs nothing and says so. It never
# fails the caller: a missing package shows up where it is used, with its reason.
set -u
who=$1 package=$2 without=$3

if ! command -v apt-get >/dev/null 2>&1; then
    echo "$who: apt-get not available; install $package yourself ($without)" >&2
    exit 0
fi
if [ "$(id -u)" -eq 0 ]; then
    SUDO=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    SUDO="sudo -n"
else
    echo "$who: not root, so $package is not installed ($without); run: sudo apt-get install $package" >&2
    exit 0
fi
echo "$who: installing $package (Debian package)" >&2
export DEBIAN_FRONTEND=noninteractive
log="/tmp/$who.log"
# $package unquoted on purpose: several packages are split into words.
if ! { $SUDO apt-get update -qq && $SUDO apt-get install -y -qq --no-install-recommends $package; } >"$log" 2>&1; then
    echo "$who: installing $package failed (see $log; $without)" >&2
    tail -5 "$log" >&2 || true
fi
exit 0
