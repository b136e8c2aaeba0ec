#!/bin/sh
# The level sandbox refuses to run level code without bubblewrap. `make run` and `make test`
# call this first (installs it as root on Debian, else prints the command to run).
exec sh "$(dirname "$0")/ensure-packages.sh" "the level sandbox" bwrap bubblewrap bubblewrap \
  bubblewrap "install bubblewrap from your distribution (Linux only; elsewhere use 'docker compose up')"
