"""Adapter router: two extra attention heads that a vLLM plugin adds to every decoder layer.

The counting head lets each token count the anchor tokens before it: its keys are a large negative
mask everywhere except column 0 at anchors, so the softmax over the cached keys gives weight only
to anchors. The memory head remembers which LoRA adapter each earlier token was routed to by
storing the adapter id itself in V. Both heads go through vLLM's Attention layer, so their K and V
land in the paged KV cache, in whatever dtype the deployment chose with --kv-cache-dtype.
"""

import torch
from torch import nn
from vllm.attention import Attention

_NEG_INF = -1e9
_CODE_BITS = 32


def codeword(n: torch.Tensor) -> torch.Tensor:
    """A +-1/8 code of n's bits: well separated keys that every 8-bit format holds."""
    bits = (n.unsqueeze(-1) >> torch.arange(_CODE_BITS, device=n.device)) & 1
    return torch.where(bits.bool(), 0.125, -0.125)


class CountingHead(nn.Module):
    def __init__(self, head_size, cache_config, prefix):
        super().__init__()
        self.head_size = head_size
        self.attn = Attention(1, head_size, 1.0, num_kv_heads=1,
                              cache_config=cache_config, prefix=f"{prefix}.count")

    def forward(self, q, is_anchor, model_dtype):
        num_tokens = q.shape[0]
        k = torch.full((num_tokens, 1, self.head_size), _NEG_INF, dtype=model_dtype,
                       device=q.device)
        k[:, :, 0] = torch.where(is_anchor[:, None], 0.0, _NEG_INF)
        v = torch.ones_like(k)
        return self.attn(q, k, v)


class MemoryHead(nn.Module):
    def __init__(self, config, head_size, cache_config, prefix):
        super().__init__()
        self.num_adapters = config.num_adapters
        self.head_size = head_size
        self.attn = Attention(1, head_size, 1.0, num_kv_heads=1,
                              cache_config=cache_config, prefix=f"{prefix}.memory")

    def forward(self, q, positions, adapter_ids):
        keys = codeword(positions) * 28
        v = adapter_ids.to(q.dtype)[:, None, None].expand(-1, 1, self.head_size)
        return self.attn(q, keys.to(q.dtype)[:, None, :], v)
