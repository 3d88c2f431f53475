"""The JSON of GET /api/memory, field by field, for /openapi.json. GB is 10^9 bytes; bytes are rounded up."""

from __future__ import annotations

from pydantic import BaseModel, Field


class BytesByPart(BaseModel):
    """Bytes of each part of the training state, and their total."""

    weights: int = Field(description="the weights, in the recipe's weight format")
    weight_copies: int = Field(description="low-precision copies of the weights that the matrix products read, kept "
                                           "beside them (FP8: Transformer Engine adds them to BF16 parameters); 0 "
                                           "for recipes without")
    master_weights: int = Field(description="the FP32 master copy of the weights (0 for recipes without one)")
    gradients: int = Field(description="the gradients, in the recipe's gradient format")
    optimizer_states: int = Field(description="the optimizer's state (Adam: two moments; SGD: momentum)")
    total: int = Field(description="all of them")


class WeightsMemory(BaseModel):
    """The weights alone in one format: what inference needs."""

    format: str = Field(description="the weight format's id")
    bits_per_value: str = Field(description="bits stored per weight, a block's shared scales included (exact)")
    bytes: int = Field(description="bytes of all the weights")
    gb: float = Field(description="the same in GB")


class TrainingMemory(BaseModel):
    """The training state of one recipe."""

    recipe: str = Field(description="the training recipe's id")
    optimizer: str = Field(description="the optimizer's id")
    bytes_per_param: BytesByPart = Field(description="bytes each parameter costs, part by part")
    gb: float = Field(description="the whole training state in GB, on one device")


class ShardedMemory(BaseModel):
    """The chosen recipe's training state on each of N data-parallel devices, sharded by ZeRO."""

    recipe: str = Field(description="the training recipe's id")
    devices: int = Field(description="data-parallel devices the state is sharded over")
    stage: int = Field(description="the ZeRO stage: 0 (nothing sharded) to 3 (everything)")
    bytes_per_device: BytesByPart = Field(description="bytes on each device, part by part")
    gb_per_device: float = Field(description="the total on each device in GB")


class AcceleratorFit(BaseModel):
    """Whether the model fits one kind of accelerator."""

    name: str = Field(description="the accelerator")
    memory_gb: int = Field(description="its memory in GB, as its maker names it")
    devices_for_weights: int = Field(description="how many of it hold the weights between them, for inference")
    training_fits: bool = Field(description="whether each device's share of the training state fits, as chosen")
    training_min_devices: int | None = Field(
        description="the fewest devices that would hold the training state at the chosen stage; null: none would")


class MemoryAnswer(BaseModel):
    """Memory for a model's weights and training state; activations and the KV cache are not included."""

    params: int = Field(description="the number of parameters")
    weights: WeightsMemory = Field(description="the weights in the chosen format")
    inference: list[WeightsMemory] = Field(description="the weights in every weight format")
    training: list[TrainingMemory] = Field(description="the training state of every recipe, with the optimizer")
    sharded: ShardedMemory = Field(description="the chosen recipe's state per device")
    accelerators: list[AcceleratorFit] = Field(description="how the model fits common accelerators")
    not_included: str = Field(description="what the figures leave out, and why")
    units: str = Field(description="what GB and GiB mean here")
