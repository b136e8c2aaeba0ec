#!/usr/bin/env bash
# Prepares, on this machine, what a lease on a lent GPU carries (benchmarks/device_lease.sh):
# the wheels of the packages the experiment path imports that the device's image lacks, for its
# Python 3.12 (the image has JAX, flax, optax, networkx, rich...; not SQLAlchemy, Alembic, Mako
# or tensorboardX), at this project's locked versions, and the commit the lease's figures name
# (the device gets a copy of the tree without git). Writes .whl/ (ignored by git).
#
#   bash benchmarks/device_wheels.sh
# (WHEELS_PYTHON=3.11 fetches this machine's instead: device_lease.sh's dry run here.)
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(SQLAlchemy alembic Mako tensorboardX)
PYTHON=${PYTHON:-python3}
VERSION=${WHEELS_PYTHON:-3.12}
rm -rf .whl
mkdir -p .whl
for name in "${PACKAGES[@]}"; do
    pin=$(grep -i "^${name}==" requirements.lock) || { echo "no pin for $name" >&2; exit 1; }
    "$PYTHON" -m pip download -q --no-deps --only-binary=:all: --python-version "$VERSION" \
        --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
        --platform manylinux2014_x86_64 -d .whl "$pin"
done
git rev-parse HEAD >.whl/commit
if [ -n "$(git status --porcelain --untracked-files=no -- ':!docs')" ]; then
    echo "warning: the tree has uncommitted changes; the lease's figures will name $(cat .whl/commit)" >&2
fi
ls .whl
du -sh .whl
