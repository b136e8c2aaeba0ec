#!/usr/bin/env bash
# Exit 0 once the vLLM server is up and serves the expected model (use in compose/k8s probes).
set -euo pipefail
ROOT="${1:-http://127.0.0.1:8000}"
MODEL="${DICODE_LLM_MODEL:-}"
curl -fsS --max-time 5 "${ROOT}/health" >/dev/null
models="$(curl -fsS --max-time 5 "${ROOT}/v1/models")"
if [[ -n "${MODEL}" && "${models}" != *"\"${MODEL}\""* ]]; then
  echo "server is up but does not serve ${MODEL}: ${models}" >&2
  exit 1
fi
echo "ok: ${ROOT}"
