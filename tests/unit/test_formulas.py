import re
from pathlib import Path

import numpy as np
import pymupdf
import pytest

from engine.formula import find_formula_model, load_formula_model
from engine.formula.decoding import RepetitionGuard
from engine.formula.junia import ENCODE_BATCH, JuniaFormulaModel
from engine.render import render_page
from engine.stages.formulas import balance_groups, flatten_paper, strip_math_wrapper
from validation.gate import braces_balanced, environments_balanced


def feed(guard: RepetitionGuard, tokens: list[int]) -> int | None:
    """Index at which the guard stops the sequence, or None."""
    for index, token in enumerate(tokens):
        if guard.looping(token):
            return index
    return None


def test_repetition_guard_stops_loops_but_not_nested_groups():
    assert feed(RepetitionGuard(), [5, 6, 7] * 3 + [8]) is None
    assert feed(RepetitionGuard(), [9] * 7) is None  # "}}}}}}}" closes nested groups
    assert feed(RepetitionGuard(), [1, 2] + [3, 4, 5] * 4) == 13
    guard = RepetitionGuard()
    looped = [1, 2] + [3, 4, 5] * 4
    stop = feed(guard, looped)
    assert guard.trimmed(looped[:stop]) == [1, 2, 3, 4, 5]


def test_math_wrappers_are_stripped():
    assert strip_math_wrapper(r"\begin{equation*}E=mc^2\end{equation*}") == "E=mc^2"
    assert strip_math_wrapper(r"\[ a+b \]") == "a+b"
    assert strip_math_wrapper(r"$$x$$") == "x"
    assert strip_math_wrapper(r"\frac{a}{b}") == r"\frac{a}{b}"


def test_model_choice():
    assert find_formula_model("none") is None
    assert load_formula_model(None) is None
    with pytest.raises(FileNotFoundError, match="lacks best.pt"):
        find_formula_model("/nonexistent/formula-model")


@pytest.fixture(scope="module")
def model() -> JuniaFormulaModel:
    return JuniaFormulaModel(device="cpu")


@pytest.fixture(scope="module")
def equation() -> np.ndarray:
    document = pymupdf.open()
    page = document.new_page(width=126.4, height=40)
    page.insert_text((20, 25.6), "a + b = c", fontname="Times-Italic", fontsize=16)
    return render_page(page, 200 / 72)


def test_decoder_length_cap(equation: np.ndarray):
    capped = JuniaFormulaModel(device="cpu", max_tokens=5)
    [(latex, confidence)] = capped([equation])
    assert 0 < len(latex) <= 5
    assert 0.0 <= confidence <= 1.0


def test_reads_a_rendered_equation(model: JuniaFormulaModel, equation: np.ndarray):
    [(latex, confidence)] = model([equation])
    assert re.search(r"a\s*\+\s*b.*=.*c", strip_math_wrapper(latex)), latex
    assert 0.0 < confidence <= 1.0


def test_batches_give_the_same_answers_as_single_crops(model: JuniaFormulaModel, equation: np.ndarray):
    wide = np.pad(equation, ((10, 10), (40, 40), (0, 0)), constant_values=255)
    single = [model([crop])[0][0] for crop in (equation, wide)]
    assert [latex for latex, _ in model([equation, wide])] == single
    pairs = ENCODE_BATCH // 2 + 1  # a batch the encoder takes in parts
    assert [latex for latex, _ in model([equation, wide] * pairs)] == single * pairs


def test_scanned_crops_get_white_paper_and_black_ink():
    rng = np.random.default_rng(0)
    crop = np.clip(rng.normal(200, 6, (40, 120)), 0, 255)  # grey, noisy paper
    crop[15:25, 20:100] = 60  # a stroke of ink
    flat = flatten_paper(np.repeat(crop.astype(np.uint8)[:, :, None], 3, axis=2))
    assert flat.shape == (40, 120, 3)
    assert (flat[:10] == 255).all() and (flat[30:] == 255).all()
    assert flat[15:25, 20:100].max() < 30


@pytest.fixture(scope="module")
def vision_encoder_decoder(tmp_path_factory) -> Path:
    """A tiny VisionEncoderDecoderModel saved like an operator's checkpoint, made to always say "a"."""
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import (
        GPT2Config,
        PreTrainedTokenizerFast,
        VisionEncoderDecoderConfig,
        VisionEncoderDecoderModel,
        ViTConfig,
        ViTImageProcessor,
    )

    folder = tmp_path_factory.mktemp("ved")
    vocabulary = {t: i for i, t in enumerate(["<pad>", "<s>", "</s>", "<unk>", "a", "b", "+", "="])}
    tokenizer = Tokenizer(models.WordLevel(vocabulary, unk_token="<unk>"))
    tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    PreTrainedTokenizerFast(tokenizer_object=tokenizer, bos_token="<s>", eos_token="</s>", pad_token="<pad>",
                            unk_token="<unk>").save_pretrained(folder)
    ViTImageProcessor(size={"height": 32, "width": 32}).save_pretrained(folder)
    encoder = ViTConfig(image_size=32, patch_size=8, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=64)
    decoder = GPT2Config(vocab_size=len(vocabulary), n_embd=32, n_layer=1, n_head=2, n_positions=64,
                         add_cross_attention=True, is_decoder=True, bos_token_id=1, eos_token_id=2, pad_token_id=0)
    config = VisionEncoderDecoderConfig.from_encoder_decoder_configs(encoder, decoder)
    config.decoder_start_token_id, config.pad_token_id, config.eos_token_id = 1, 0, 2
    model = VisionEncoderDecoderModel(config=config)
    with torch.no_grad():  # the final norm emits one direction, which only "a"'s (tied) embedding shares
        model.decoder.transformer.ln_f.weight.zero_()
        model.decoder.transformer.ln_f.bias.zero_()
        model.decoder.transformer.ln_f.bias[0] = 10.0
        model.decoder.transformer.wte.weight[:, 0] = 0.0
        model.decoder.transformer.wte.weight[vocabulary["a"], 0] = 1.0
    model.save_pretrained(folder)
    return folder


def test_a_vision_encoder_decoder_folder_is_loaded_with_the_guard_and_the_cap(vision_encoder_decoder: Path,
                                                                             equation: np.ndarray):
    from engine.formula.vision_encoder_decoder import VisionEncoderDecoderFormulaModel

    model = load_formula_model(find_formula_model(str(vision_encoder_decoder)), device="cpu")
    assert isinstance(model, VisionEncoderDecoderFormulaModel)
    [(latex, confidence), _] = model([equation, equation[:, :, 0]])
    assert latex == "a"  # "a a a a ..." loops: the guard stops it and keeps one unit
    assert confidence > 0.9
    model.max_tokens = 5
    assert model([equation])[0][0] == "a a a a a"  # the cap comes before the guard sees a loop


@pytest.mark.parametrize(("latex", "balanced"), [
    (r"\frac{a}{b", r"\frac{a}{b}"),
    (r"a}{b", r"a{b}"),
    (r"\begin{matrix} a_{1", r"\begin{matrix} a_{1}\end{matrix}"),
    (r"\begin{matrix} a \end{array}", r"\begin{matrix} a \end{matrix}"),
    (r"\left\{ x \right\}", r"\left\{ x \right\}"),
    (r"\begin{array}{cc} a & b \end{array}", r"\begin{array}{cc} a & b \end{array}"),
])
def test_decoding_cut_short_leaves_closed_groups(latex: str, balanced: str):
    assert balance_groups(latex) == balanced
    assert braces_balanced(balance_groups(latex)) and environments_balanced(balance_groups(latex))
