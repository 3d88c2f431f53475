"""Facts the quiz teaches in prose about PyTorch's defaults and the block formats, checked against torch and the
lab's block quantiser. (The facts about the edges of scalar formats are in tests/unit/formats/test_format_edges.py.)"""

from __future__ import annotations

import numpy as np
import pytest

from app.formats import decode, get_format
from app.formats.blocks import quantize_blocks

# -- PyTorch's TF32 defaults (pytorch-tf32-defaults, pytorch-enable-tf32) -------------------------


def test_torch_uses_tf32_for_convolutions_but_not_matmuls_by_default() -> None:
    torch = pytest.importorskip("torch")
    assert torch.backends.cuda.matmul.allow_tf32 is False
    assert torch.backends.cudnn.allow_tf32 is True
    assert torch.get_float32_matmul_precision() == "highest"


# -- block formats as the lab quantises them (nvfp4-*, mxint8-element-range) ------------------------


def test_nvfp4_value_is_element_times_block_scale_times_tensor_scale() -> None:
    rng = np.random.default_rng(0)
    values = (rng.standard_normal(64) * np.repeat([0.1, 1.0, 30.0, 1e3], 16)).tolist()
    result = quantize_blocks(values, "nvfp4")
    e2m1, e4m3 = get_format("float4_e2m1fn"), get_format("float8_e4m3fn")
    assert result.block_size == 16 and result.tensor_scale is not None
    assert result.tensor_scale == np.float32(max(abs(v) for v in values) / (6 * 448))
    scales = [block.scale for block in result.blocks]
    assert max(scales) == 448 and all(0 < s <= 448 for s in scales)
    assert any(not np.log2(s).is_integer() for s in scales)  # E4M3 scales need not be powers of two
    for block in result.blocks:
        assert decode(e4m3, block.scale_bits).value.to_float() == block.scale
        for code, value in zip(block.codes, block.values, strict=True):
            assert value == decode(e2m1, code).value.to_float() * block.scale * result.tensor_scale


def test_mxfp4_scales_are_powers_of_two_over_blocks_of_32_with_no_tensor_scale() -> None:
    result = quantize_blocks([0.3 * i for i in range(64)], "mxfp4")
    assert result.block_size == 32 and result.tensor_scale is None
    assert all(np.log2(block.scale).is_integer() for block in result.blocks)


def test_the_lab_clamps_mxint8_elements_symmetrically() -> None:
    result = quantize_blocks([-1.999] + [0.5] * 31, "mxint8")
    assert result.blocks[0].scale == 1.0
    assert result.dequantized[0] == -1.984375  # never −2 (the code −128)
