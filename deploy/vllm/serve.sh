#!/usr/bin/env bash
# Serve a Qwen coder model for the dicode LLM teacher with vLLM's OpenAI-compatible server.
#
#   deploy/vllm/serve.sh                 # Qwen2.5-Coder-7B-Instruct, one GPU with >= 24 GB
#   PROFILE=qwen3-coder-30b deploy/vllm/serve.sh   # Qwen3-Coder-30B-A3B-Instruct, >= 80 GB
#
# Then point dicode at it:
#   export DICODE_LLM_URL=http://HOST:8000/v1 DICODE_LLM_MODEL=<served model name>
set -euo pipefail
cd "$(dirname "$0")"
PROFILE="${PROFILE:-qwen2.5-coder-7b}"
# shellcheck source=/dev/null
source "profiles/${PROFILE}.env"

PORT="${PORT:-8000}"
HOST="${HOST:-0.0.0.0}"
API_KEY_ARGS=()
if [[ -n "${DICODE_LLM_API_KEY:-}" ]]; then
  API_KEY_ARGS=(--api-key "${DICODE_LLM_API_KEY}")
fi

# The sampling defaults (temperature 0.6, top_p 0.95, as in the paper) are also sent by the
# dicode client on every request; setting them here serves other clients the same way.
exec vllm serve "${MODEL}" \
  --host "${HOST}" --port "${PORT}" \
  --served-model-name "${MODEL}" \
  --max-model-len "${MAX_MODEL_LEN}" \
  --gpu-memory-utilization "${GPU_MEMORY_UTILIZATION}" \
  --max-num-seqs "${MAX_NUM_SEQS}" \
  --enable-prefix-caching \
  --generation-config vllm \
  --override-generation-config '{"temperature": 0.6, "top_p": 0.95}' \
  "${API_KEY_ARGS[@]}" \
  ${EXTRA_ARGS:-}
