"""The recognizer's graph as ONNX Runtime runs it on CPU: only each step's best class and its probability handed back.

Lines are read at the height the recognizer was trained at (48 pixels). Read at 36 (a 150-dpi scan's line crop is
about 29 pixels high) a line costs 40% less CPU and dev scans' prose reads as well, but math lines read worse: two of
dev-004's four scanned formulas were no longer found as formulas (dev scanned formula NED 0.213 -> 0.271; 0.268 at 40).

Greedy CTC needs only the best of the 18,710 classes at each step and that class's probability: a TopK over the
softmax in the graph saves handing back (and copying) every class's probability, and the softmax is kept in float by
the int8 variant (FLOAT_NODES), faster than its quantized form.
"""

import os
import tempfile
from pathlib import Path

import numpy as np

from engine.runtime.hashes import engine_cache, file_sha256

GRAPH_VERSION = 2  # bump when the recipe below changes: cached graphs are then made again
SOFTMAX, BEST = "line_softmax", "line_best"
FLOAT_NODES = (SOFTMAX, BEST)  # nodes an int8 variant keeps in float


def reading_graph(path: Path, cache_dir: Path | None) -> Path:
    """The recognizer at `path` with (where its one output is a softmax over the classes) the outputs (best
    probability, best class) of each step, each N x T x 1."""
    folder = engine_cache(cache_dir) / "reading"
    target = folder / f"{path.stem}-{file_sha256(path, cache_dir)[:16]}-v{GRAPH_VERSION}.onnx"
    if target.is_file():
        return target
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=folder, prefix=".making-") as work:
        made = Path(work) / "graph.onnx"
        _make(path, made)
        os.replace(made, target)  # atomic: a process making the same graph at once finds a whole file
    return target


def _make(path: Path, target: Path) -> None:
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    model = onnx.load(str(path))
    graph = model.graph
    last = next((node for node in graph.node if graph.output[0].name in node.output), None)
    if len(graph.output) == 1 and last is not None and last.op_type == "Softmax":
        last.name = SOFTMAX
        probs = graph.output[0].name
        graph.initializer.append(numpy_helper.from_array(np.array([1], dtype=np.int64), "line_k"))
        graph.node.append(helper.make_node("TopK", [probs, "line_k"], ["best_prob", "best"], name=BEST, axis=-1))
        del graph.output[:]
        graph.output.extend([helper.make_tensor_value_info("best_prob", TensorProto.FLOAT, None),
                             helper.make_tensor_value_info("best", TensorProto.INT64, None)])
    onnx.save(model, str(target))

