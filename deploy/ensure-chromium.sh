#!/bin/sh
# The archive browser's tests (tests/web) drive headless Chromium through chromedriver. `make
# test` and CI call this first (installs both as root on Debian, else prints the command to run;
# locally the browser tests then skip, in CI they fail).
exec sh "$(dirname "$0")/ensure-packages.sh" "the browser tests" "chromium chromedriver" \
  "chromium chromium-driver" "chromium chromedriver" chromium
