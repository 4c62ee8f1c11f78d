"""The latex-ocr-junia formula model (ViT encoder, 4-layer decoder) with a cached greedy decoder.

The wheel declares no license, so it is optional: folio runs without it and an
operator can point FOLIO_FORMULA_MODEL at another checkpoint.
"""

import json
from pathlib import Path

import cv2
import numpy as np

from engine.formula.decoding import RepetitionGuard

MAX_TOKENS = 256


def torch_device(device: str):
    """auto|cpu|cuda as a torch device: auto takes CUDA when PyTorch sees a GPU."""
    import torch

    if device == "cuda" and not torch.cuda.is_available():
        raise RuntimeError("FOLIO_DEVICE=cuda but PyTorch sees no CUDA device")
    return torch.device("cuda" if device != "cpu" and torch.cuda.is_available() else "cpu")


class JuniaFormulaModel:
    """Reads formula crops (dark on light, RGB or grey) into LaTeX, a batch at a time."""

    def __init__(self, assets: Path | None = None, device: str = "auto", max_tokens: int = MAX_TOKENS):
        import torch
        from latex_ocr_junia.model import build_model, load_checkpoint
        from latex_ocr_junia.utils import load_model_config

        if assets is None:
            import latex_ocr_junia

            assets = Path(latex_ocr_junia.__file__).parent / "assets"
        self.torch = torch
        self.device = torch_device(device)
        self.config = load_model_config(assets / "model_config.json")
        self.model = build_model(self.config).to(self.device).eval()
        load_checkpoint(self.model, str(assets / "best.pt"), device=self.device)
        vocabulary = json.loads((assets / "tokenizer.json").read_text())["token_to_id"]
        self.tokens = {index: token for token, index in vocabulary.items()}
        self.bos, self.eos = vocabulary["<bos>"], vocabulary["<eos>"]
        self.max_tokens = min(max_tokens, self.config.max_length - 1)
        self.path = assets / "best.pt"
        self.runtime, self.providers = f"PyTorch {torch.__version__}", [str(self.device)]
        self.why = f"FOLIO_DEVICE={device}" + ("" if self.device.type == "cuda" else ", no CUDA device in use")

    def preprocess(self, crop: np.ndarray) -> np.ndarray:
        """Grey in [0, 1], scaled to fit the model's input and centred on black, as in training."""
        grey = cv2.cvtColor(crop, cv2.COLOR_RGB2GRAY) if crop.ndim == 3 else crop
        height, width = self.config.image_height, self.config.image_width
        scale = min(width / grey.shape[1], height / grey.shape[0])
        new_w, new_h = max(1, round(grey.shape[1] * scale)), max(1, round(grey.shape[0] * scale))
        resized = cv2.resize(grey, (new_w, new_h), interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
        canvas = np.zeros((height, width), dtype=np.float32)
        top, left = (height - new_h) // 2, (width - new_w) // 2
        canvas[top:top + new_h, left:left + new_w] = resized.astype(np.float32) / 255.0
        return canvas

    def __call__(self, crops: list[np.ndarray]) -> list[tuple[str, float]]:
        if not crops:
            return []
        torch = self.torch
        images = torch.from_numpy(np.stack([self.preprocess(c) for c in crops]))[:, None].to(self.device)
        with torch.inference_mode():
            memory = self.model.encode(images)
            token_ids, confidences = self._greedy(memory)
        return [(self._text(ids), conf) for ids, conf in zip(token_ids, confidences)]

    def _text(self, ids: list[int]) -> str:
        return "".join(self.tokens.get(i, "") for i in ids).strip()

    def _greedy(self, memory) -> tuple[list[list[int]], list[float]]:
        """Greedy decoding with cached keys and values, a length cap and a repetition guard.

        Rows that finish leave the batch, so long formulas do not keep short ones computing.
        """
        torch = self.torch
        attend = torch.nn.functional.scaled_dot_product_attention
        blocks = self.model.decoder_blocks
        heads = blocks[0].self_attn.num_heads
        cross = [self._project_kv(block.cross_attn, memory, heads) for block in blocks]
        cache: list[tuple | None] = [None] * len(blocks)
        active = torch.arange(memory.shape[0], device=memory.device)
        token = torch.full((memory.shape[0],), self.bos, dtype=torch.long, device=memory.device)
        outputs: list[list[int]] = [[] for _ in range(memory.shape[0])]
        scores: list[list[float]] = [[] for _ in range(memory.shape[0])]
        guards = [RepetitionGuard() for _ in range(memory.shape[0])]
        embed = self.model.decoder_embed
        for step in range(self.max_tokens):
            x = embed.norm(embed.token_emb(token)[:, None] + embed.pos_emb.weight[step][None, None])
            for index, block in enumerate(blocks):
                q, k, v = self._project_qkv(block.self_attn, block.self_norm(x), heads)
                if cache[index] is not None:
                    k = torch.cat([cache[index][0], k], dim=2)
                    v = torch.cat([cache[index][1], v], dim=2)
                cache[index] = (k, v)
                x = x + self._out(block.self_attn, attend(q, k, v))
                q = self._project_q(block.cross_attn, block.cross_norm(x), heads)
                x = x + self._out(block.cross_attn, attend(q, *cross[index]))
                x = x + block.ffn(block.ffn_norm(x))
            probabilities = torch.softmax(self.model.lm_head(self.model.decoder_norm(x))[:, 0].float(), dim=-1)
            best, token = probabilities.max(dim=-1)
            keep = []
            for position, (row, value, score) in enumerate(zip(active.tolist(), token.tolist(), best.tolist())):
                if value == self.eos or guards[row].looping(value):
                    continue
                outputs[row].append(value)
                scores[row].append(score)
                keep.append(position)
            if not keep:
                break
            if len(keep) < len(active):
                rows = torch.tensor(keep, device=memory.device)
                active, token = active[rows], token[rows]
                cache = [(k[rows], v[rows]) for k, v in cache]
                cross = [(k[rows], v[rows]) for k, v in cross]
        confidences = [float(np.exp(np.mean(np.log(np.maximum(s, 1e-9))))) if s else 0.0 for s in scores]
        return [guard.trimmed(out) for guard, out in zip(guards, outputs)], confidences

    @staticmethod
    def _split_heads(x, heads: int):
        batch, length, width = x.shape
        return x.view(batch, length, heads, width // heads).transpose(1, 2)

    def _project_qkv(self, attention, x, heads: int):
        q, k, v = self.torch.nn.functional.linear(x, attention.in_proj_weight, attention.in_proj_bias).chunk(3, dim=-1)
        return self._split_heads(q, heads), self._split_heads(k, heads), self._split_heads(v, heads)

    def _project_q(self, attention, x, heads: int):
        width = x.shape[-1]
        q = self.torch.nn.functional.linear(x, attention.in_proj_weight[:width], attention.in_proj_bias[:width])
        return self._split_heads(q, heads)

    def _project_kv(self, attention, memory, heads: int):
        width = memory.shape[-1]
        kv = self.torch.nn.functional.linear(memory, attention.in_proj_weight[width:], attention.in_proj_bias[width:])
        k, v = kv.chunk(2, dim=-1)
        return self._split_heads(k, heads), self._split_heads(v, heads)

    @staticmethod
    def _out(attention, context):
        batch, heads, length, size = context.shape
        merged = context.transpose(1, 2).reshape(batch, length, heads * size)
        return attention.out_proj(merged)
