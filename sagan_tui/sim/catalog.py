"""What the simulated RunPod rents out: GPU types with prices, and data centers."""

from __future__ import annotations

# display name -> (VRAM GB, $/h on secure cloud)
GPU_TYPES: dict[str, tuple[int, float]] = {
    "NVIDIA A100 80GB PCIe": (80, 1.49),
    "NVIDIA A100-SXM4-80GB": (80, 1.49),
    "NVIDIA H100 80GB HBM3": (80, 2.99),
    "NVIDIA H200": (141, 3.99),
    "NVIDIA RTX A6000": (48, 0.49),
}
# Sagan's pod specs say "A100"/"H100"; RunPod wants the display name.
SHORT_GPU = {"A100": "NVIDIA A100 80GB PCIe", "H100": "NVIDIA H100 80GB HBM3", "H200": "NVIDIA H200"}
DATACENTERS = ("US-KS-2", "US-TX-3", "EU-RO-1", "EU-SE-1", "CA-MTL-1")


def gpu_name(gpu: str | None) -> str:
    """A RunPod GPU display name from a short or display name (A100 when unknown)."""
    if not gpu:
        return SHORT_GPU["A100"]
    return SHORT_GPU.get(gpu.upper(), gpu)


def gpu_price(gpu: str) -> float:
    return GPU_TYPES.get(gpu, (80, 1.49))[1]
