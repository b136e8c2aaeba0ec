#!/bin/sh
# The level sandbox refuses to run level code without bubblewrap. `make run` and `make test`
# call this first: it installs bubblewrap when it is missing and this is a Debian-like machine
# and we are root; otherwise it stops with the exact command to run.
set -eu
if command -v bwrap >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "bubblewrap (bwrap) is missing; the level sandbox needs it: running 'apt-get install -y bubblewrap'"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null
  echo "installed: $(bwrap --version)"
  exit 0
fi
echo "error: the level sandbox needs bubblewrap (bwrap), which is not installed." >&2
if command -v apt-get >/dev/null 2>&1; then
  echo "run: sudo apt-get install bubblewrap" >&2
elif command -v dnf >/dev/null 2>&1; then
  echo "run: sudo dnf install bubblewrap" >&2
elif command -v pacman >/dev/null 2>&1; then
  echo "run: sudo pacman -S bubblewrap" >&2
else
  echo "install bubblewrap from your distribution (Linux only; elsewhere use 'docker compose up')" >&2
fi
exit 1
