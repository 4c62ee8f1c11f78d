"""The latex-ocr-junia checkpoint exported as two ONNX graphs that a greedy decoder drives step by step.

The encoder graph reads the images, projects the cross-attention keys and values once for all
steps (keys pre-transposed and pre-scaled, so a step only reads them: ONNX Runtime made a step's
product and scale one FusedMatMul, 3x slower than the plain product) and takes the first step
from <bos>; the step graph takes one token and the self-attention cache and returns the next
distribution and the cache one position longer. Every layer's keys and values are a tensor of their
own (batch first): a step reads them where they lie, where one stacked tensor was split (copied) on
every step, which took 40% of a step's time. Needs PyTorch and the latex-ocr-junia package; nothing else does.
"""

import json
import os
import warnings
from pathlib import Path

EXPORT_VERSION = 3  # bump when the graphs below change, so cached exports are made again
OPSET = 17


def _graphs(assets: Path):
    import torch
    from latex_ocr_junia.model import build_model, load_checkpoint
    from latex_ocr_junia.utils import load_model_config
    from torch import nn

    config = load_model_config(assets / "model_config.json")
    model = build_model(config).eval()
    load_checkpoint(model, str(assets / "best.pt"), device=torch.device("cpu"))
    model.requires_grad_(False)
    model_bos = json.loads((assets / "tokenizer.json").read_text())["token_to_id"]["<bos>"]
    width = config.d_model
    heads = model.decoder_blocks[0].self_attn.num_heads
    size = width // heads

    def split(x):
        batch, length, _ = x.shape
        return x.view(batch, length, heads, size).transpose(1, 2)

    def merge(x):
        batch, _, length, _ = x.shape
        return x.transpose(1, 2).reshape(batch, length, width)

    def attend(q, k_transposed, v, keys_scaled=False):
        scores = q @ k_transposed
        return torch.softmax(scores if keys_scaled else scores / size**0.5, dim=-1) @ v

    def step(token, position, past, cross_k, cross_v):
        """The next distribution, and each layer's keys and values one position longer ([k0, v0, k1, v1...])."""
        embed = model.decoder_embed
        x = embed.norm(embed.token_emb(token)[:, None] + embed.pos_emb(position)[None])
        present = []
        for index, block in enumerate(model.decoder_blocks):
            own = block.self_attn
            q, k, v = (split(t) for t in nn.functional.linear(block.self_norm(x), own.in_proj_weight,
                                                               own.in_proj_bias).chunk(3, dim=-1))
            if past is not None:
                k, v = torch.cat([past[2 * index], k], dim=2), torch.cat([past[2 * index + 1], v], dim=2)
            present += [k, v]
            x = x + own.out_proj(merge(attend(q, k.transpose(-1, -2), v)))
            cross = block.cross_attn
            q = split(nn.functional.linear(block.cross_norm(x), cross.in_proj_weight[:width],
                                           cross.in_proj_bias[:width]))
            x = x + cross.out_proj(merge(attend(q, cross_k[index], cross_v[index], keys_scaled=True)))
            x = x + block.ffn(block.ffn_norm(x))
        probabilities = torch.softmax(model.lm_head(model.decoder_norm(x))[:, 0], dim=-1)
        return probabilities, present

    class Encoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.model = model

        def forward(self, images):
            x = model.patch_embed(images)
            for block in model.encoder_blocks:
                attention = block.attn
                q, k, v = (split(t) for t in nn.functional.linear(block.norm1(x), attention.in_proj_weight,
                                                                   attention.in_proj_bias).chunk(3, dim=-1))
                x = x + attention.out_proj(merge(attend(q, k.transpose(-1, -2), v)))
                x = x + block.mlp(block.norm2(x))
            memory = model.encoder_norm(x)
            keys, values = [], []
            for block in model.decoder_blocks:
                cross = block.cross_attn
                k, v = nn.functional.linear(memory, cross.in_proj_weight[width:],
                                            cross.in_proj_bias[width:]).chunk(2, dim=-1)
                keys.append(split(k).transpose(-1, -2) / size**0.5)
                values.append(split(v))
            bos = torch.full_like(images[:, 0, 0, 0], model_bos, dtype=torch.long)
            probabilities, present = step(bos, torch.zeros(1, dtype=torch.long), None, keys, values)
            return (probabilities, *keys, *values, *present)

    class Step(nn.Module):
        def __init__(self):
            super().__init__()
            self.model = model

        def forward(self, token, position, *state):
            """`state`: the layers' cross keys, their cross values, then their cached keys and values."""
            layers = len(model.decoder_blocks)
            probabilities, present = step(token, position, state[2 * layers:], state[:layers],
                                          state[layers:2 * layers])
            return (probabilities, *present)

    return config, Encoder().eval(), Step().eval()


def state_names(layers: int) -> tuple[list[str], list[str]]:
    """Names of the decoder's state tensors: the cross keys and values (made once by the encoder) and the cached
    keys and values (k0, v0, k1, v1...) a step reads; the encoder gives both under these names, a step returns
    the cache under these names with "past" made "present"."""
    cross = [f"cross_{kind}{index}" for kind in "kv" for index in range(layers)]
    past = [f"past_{kind}{index}" for index in range(layers) for kind in "kv"]
    return cross, past


def export_junia(assets: Path, encoder_path: Path, step_path: Path) -> None:
    """Write the two graphs; each file appears whole (written aside, then renamed) or not at all."""
    import torch

    config, encoder, step = _graphs(assets)
    images = torch.zeros(2, 1, config.image_height, config.image_width)
    with torch.inference_mode():
        first = encoder(images)
    cross, past = state_names(config.num_decoder_layers)
    present = [name.replace("past", "present") for name in past]
    batch = {0: "batch"}
    jobs = [
        (encoder, (images,), encoder_path, ["images"], ["probs", *cross, *past],
         {"images": batch, "probs": batch, **{name: batch for name in cross + past}}),
        (step, (torch.tensor([5, 6]), torch.tensor([1]), *first[1:]), step_path,
         ["token", "position", *cross, *past], ["probs", *present],
         {"token": batch, "probs": batch, **{name: batch for name in cross},
          **{name: {0: "batch", 2: "length"} for name in past},
          **{name: {0: "batch", 2: "length_plus_one"} for name in present}}),
    ]
    for module, args, path, inputs, outputs, axes in jobs:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f".{path.name}.{os.getpid()}")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(module, args, str(partial), input_names=inputs, output_names=outputs,
                              dynamic_axes=axes, opset_version=OPSET, dynamo=False)
        os.replace(partial, path)
