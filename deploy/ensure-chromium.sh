#!/bin/sh
# The archive browser's tests (tests/web) drive headless Chromium through chromedriver.
# `make test` and CI call this first: it installs Debian's chromium and chromium-driver when
# they are missing and this is a Debian-like machine and we are root; otherwise it stops with
# the exact command to run (locally the browser tests then skip; in CI they fail).
set -eu
if command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "chromium or chromedriver is missing; the browser tests need both: running 'apt-get install -y chromium chromium-driver'"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null
  echo "installed: $(chromedriver --version)"
  exit 0
fi
echo "error: the browser tests need chromium and chromedriver, which are not installed." >&2
if command -v apt-get >/dev/null 2>&1; then
  echo "run: sudo apt-get install chromium chromium-driver" >&2
elif command -v dnf >/dev/null 2>&1; then
  echo "run: sudo dnf install chromium chromedriver" >&2
elif command -v pacman >/dev/null 2>&1; then
  echo "run: sudo pacman -S chromium" >&2
else
  echo "install chromium and its chromedriver from your distribution" >&2
fi
exit 1
