#!/bin/sh
# Makes sure system commands a part of dicode needs are installed; `make` calls it through
# ensure-bubblewrap.sh and ensure-chromium.sh. It installs the Debian packages when a command is
# missing, this is a Debian-like machine and we are root; otherwise it stops with the exact
# command to run on this distribution.
#   ensure-packages.sh NEED COMMANDS APT DNF PACMAN [ELSEWHERE]
# NEED: who needs them ("the level sandbox"); COMMANDS: the commands that must exist; APT, DNF,
# PACMAN: the packages per package manager; ELSEWHERE: what to say without any of them.
set -eu
need=$1 commands=$2 apt=$3 dnf=$4 pacman=$5
elsewhere=${6:-"install $apt from your distribution"}
missing=""
for command in $commands; do
  command -v "$command" >/dev/null 2>&1 || missing="$missing $command"
done
if [ -z "$missing" ]; then
  exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "missing:$missing; $need needs it: running 'apt-get install -y $apt'"
  apt-get update -qq
  # shellcheck disable=SC2086  # one word per package
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $apt >/dev/null
  echo "installed: $apt"
  exit 0
fi
echo "error: $need needs$missing, which is not installed." >&2
if command -v apt-get >/dev/null 2>&1; then
  echo "run: sudo apt-get install $apt" >&2
elif command -v dnf >/dev/null 2>&1; then
  echo "run: sudo dnf install $dnf" >&2
elif command -v pacman >/dev/null 2>&1; then
  echo "run: sudo pacman -S $pacman" >&2
else
  echo "$elsewhere" >&2
fi
exit 1
