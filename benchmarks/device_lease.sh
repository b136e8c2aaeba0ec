#!/usr/bin/env bash
# One lease on a lent GPU for the literature's budget (issue 40): what a 15-minute lease can
# measure of `maze_jaxued_250m`, which it cannot run (≈ 7 GPU-hours, docs/maze.md).
#
#  1. the cost of each arm of the 250M command: its 5 seeds as one program (DR as the arm
#     trains it, `dr_target`; robust PLR; ACCEL), timed after warm-up, as hours for 5 × 250M;
#  2. item 4 on the GPU: DR (one level per env) and robust PLR, 5 seeds in one program
#     against 5 lone programs at once (--jobs 5), and a lone program;
#  3. with the time left, a slice of the real command (robust PLR, 5 seeds in one program, a
#     short budget) to show the experiment's records come out of the device.
# Cases run in that order, the figures file is rewritten after each, and none starts past the
# deadline, so a lease cut short still brings back what it measured.
#
# Here, first:   bash benchmarks/device_wheels.sh      (the wheels the image lacks, the commit)
# The call:      run(command="bash benchmarks/device_lease.sh", carry=[".whl"], timeout_s=590)
# Back in $OUT:  seeds_throughput_gpu.json, maze_jaxued_250m_slice.json, lease.log
# A dry run here (CPU, tiny): OUT=/tmp/lease LEASE_ALLOW_CPU=1 LEASE_ITERATIONS=2 \
#     LEASE_WARMUP=2 LEASE_SLICE_STEPS=16384 bash benchmarks/device_lease.sh
set -uo pipefail
cd "$(dirname "$0")/.."
: "${OUT:?OUT names the folder whose files come back from the device}"

BUDGET_S=${LEASE_BUDGET_S:-560}       # the call's timeout_s less a margin
CASES_DEADLINE_S=${LEASE_CASES_DEADLINE_S:-380}
SLICE_MIN_S=150                       # the slice's compile and evaluations need this
ITERATIONS=${LEASE_ITERATIONS:-20}
SLICE_STEPS=${LEASE_SLICE_STEPS:-2000000}
CASES=dr_target:5:program,robust_plr:5:program,accel:5:program
CASES+=,dr:1:program,dr:5:separate,dr:5:program,robust_plr:5:separate,robust_plr:1:program
exec > >(tee "$OUT/lease.log") 2>&1
begun=$SECONDS
left() { echo $((BUDGET_S - (SECONDS - begun))); }

python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl || { echo "lease: the carried wheels did not install"; exit 3; }
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1
export DICODE_COMMIT=${DICODE_COMMIT:-$(cat .whl/commit)}
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv || true
python3 - <<'EOF' || exit 4
import os, jax, flax, optax
print("jax", jax.__version__, "flax", flax.__version__, "optax", optax.__version__)
print("devices", jax.devices())
if jax.devices()[0].platform != "gpu" and not os.environ.get("LEASE_ALLOW_CPU"):
    raise SystemExit("lease: JAX sees no GPU")
import benchmarks.experiment, services.seed_runs  # the experiment path imports here
EOF

warmup=()
[ -n "${LEASE_WARMUP:-}" ] && warmup=(--warmup "$LEASE_WARMUP")
timeout "$(left)" python3 benchmarks/seeds_throughput.py --cases "$CASES" --jobs 5 \
    --iterations "$ITERATIONS" "${warmup[@]}" --compile-cache /tmp/jax-cache \
    --deadline-s "$CASES_DEADLINE_S" --out "$OUT/seeds_throughput_gpu.json"
echo "lease: cases ended with $? after $((SECONDS - begun)) s"

if [ "$(left)" -gt "$SLICE_MIN_S" ]; then
    timeout "$(left)" python3 benchmarks/experiment.py maze_jaxued_250m --variants robust_plr \
        --steps "$SLICE_STEPS" --jobs 1 --seeds-per-program 5 --no-tensorboard \
        --out /tmp/lease-runs --figures "$OUT/maze_jaxued_250m_slice.json"
    echo "lease: slice ended with $? after $((SECONDS - begun)) s"
else
    echo "lease: no slice, $(left) s left"
fi
