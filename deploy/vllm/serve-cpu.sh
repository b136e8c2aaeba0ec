#!/usr/bin/env bash
# Serve SmolLM2-135M-Instruct with vLLM on CPU (after deploy/vllm/cpu-setup.sh), the same
# OpenAI-compatible server the GPU profiles run, for trying the LLM teacher without a GPU.
#
#   deploy/vllm/serve-cpu.sh             # 127.0.0.1:8000, model name smollm2-135m-instruct
#   export DICODE_LLM_URL=http://127.0.0.1:8000/v1 DICODE_LLM_MODEL=smollm2-135m-instruct
set -euo pipefail
eval "$("$(dirname "$0")/cpu-setup.sh" --env)"
# KV cache in GiB (the CPU default takes a share of memory); the folder is complete, so nothing
# may be fetched from a model hub.
export VLLM_CPU_KVCACHE_SPACE="${VLLM_CPU_KVCACHE_SPACE:-1}" HF_HUB_OFFLINE=1
# Chunked prefill off: vLLM 0.32's CPU engine crashes when a seeded request's prompt is split
# across steps ("CPU Generator does not use offset"), and dicode seeds every call.
# `vllm serve` fails in this build (the distribution is named vllm-cpu); the module runs.
exec "${DICODE_VLLM_PYTHON}" -m vllm.entrypoints.openai.api_server \
  --model "${DICODE_VLLM_MODEL_DIR}" --served-model-name smollm2-135m-instruct \
  --host "${HOST:-127.0.0.1}" --port "${PORT:-8000}" \
  --max-model-len 8192 --enforce-eager \
  --no-enable-chunked-prefill --max-num-batched-tokens 8192 "$@"
