"""How an exported model's weights are stored on disk: float16 or int8, widened back by the graph.

The network is trained and exported in float32. To keep the committed committee small (the models
ship in the package), its weights are stored narrower and the graph itself widens them back to
float32 with nodes of constant input, which onnxruntime folds once when it loads the model: the
arithmetic at run time stays float32, at the same speed.

Usage::

    from vision.model_store import store_weights
    store_weights(Path("m.onnx"), "float16")   # 1,340 -> 675 KiB, probabilities within ~1e-4
    store_weights(Path("m.onnx"), "int8")      # -> 345 KiB, probabilities within ~3e-2

``int8`` keeps one scale per output channel (symmetric, 127 steps each side) for the convolution and
linear weights; small tensors (biases, norms) stay float16. Either may be applied to a float32 model
or to one already stored as float16 (the float16 weights are the starting point then).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

STORAGES = ("float16", "int8")
_SMALL = 16  # tensors smaller than this stay float32
_INT8_MIN = 256  # int8 only for tensors at least this big with 2+ dimensions (weights, not biases)


def store_weights(path: Path, storage: str) -> int:
    """Rewrite the ONNX model at ``path`` in place with its weights stored as ``storage`` (one of
    :data:`STORAGES`); returns the new file size in bytes."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    if storage not in STORAGES:
        raise ValueError(f"unknown weight storage {storage!r}; one of {STORAGES}")
    model = onnx.load(str(path))
    graph = model.graph
    floats, kept = _float_weights(graph)
    widen, inits = [], list(kept)
    for name, a in floats.items():
        if a.size < _SMALL:
            inits.append(numpy_helper.from_array(a, name))
        elif storage == "int8" and a.ndim >= 2 and a.size >= _INT8_MIN:
            scale = np.abs(a).reshape(len(a), -1).max(axis=1) / 127.0
            scale = np.where(scale > 0, scale, 1.0).astype(np.float32).reshape((-1,) + (1,) * (a.ndim - 1))
            q = np.clip(np.rint(a / scale), -127, 127).astype(np.int8)
            inits += [numpy_helper.from_array(q, name + "_i8"), numpy_helper.from_array(scale, name + "_scale")]
            widen += [helper.make_node("Cast", [name + "_i8"], [name + "_i8f"], to=TensorProto.FLOAT,
                                       name=name + "_i8_to_float"),
                      helper.make_node("Mul", [name + "_i8f", name + "_scale"], [name], name=name + "_scaled")]
        else:
            inits.append(numpy_helper.from_array(a.astype(np.float16), name + "_f16"))
            widen.append(helper.make_node("Cast", [name + "_f16"], [name], to=TensorProto.FLOAT,
                                          name=name + "_to_float"))
    types = _stored_types(graph)
    nodes = widen + [n for n in graph.node if not _is_widening(n, types)]
    del graph.initializer[:]
    graph.initializer.extend(inits)
    del graph.node[:]
    graph.node.extend(nodes)
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    return path.stat().st_size


def weight_storage(path: Path) -> set[str]:
    """How the model's big weights are stored: a set of ``float32``, ``float16``, ``int8``."""
    import onnx
    from onnx import TensorProto

    names = {TensorProto.FLOAT: "float32", TensorProto.FLOAT16: "float16", TensorProto.INT8: "int8"}
    return {names.get(i.data_type, str(i.data_type)) for i in onnx.load(str(path)).graph.initializer
            if int(np.prod(i.dims)) >= _INT8_MIN}


def _stored_types(graph) -> dict[str, int]:
    return {i.name: i.data_type for i in graph.initializer}


def _is_widening(node, types: dict[str, int]) -> bool:
    """A Cast of a stored float16 weight back to float32 (what an earlier ``float16`` storage added);
    ``types``: the initializers' data types by name."""
    from onnx import TensorProto

    return node.op_type == "Cast" and len(node.input) == 1 and types.get(node.input[0]) == TensorProto.FLOAT16


def _float_weights(graph) -> tuple[dict[str, np.ndarray], list]:
    """The model's float weights by the names its nodes use (float16-stored ones widened), and the
    initializers that are not float weights (kept as they are)."""
    from onnx import TensorProto, numpy_helper

    stored = {i.name: i for i in graph.initializer}
    if any(i.data_type == TensorProto.INT8 for i in graph.initializer):
        raise ValueError("the model's weights are already stored as int8; store from the float model")
    floats, used, types = {}, set(), _stored_types(graph)
    for node in graph.node:
        if _is_widening(node, types):
            floats[node.output[0]] = numpy_helper.to_array(stored[node.input[0]]).astype(np.float32)
            used.add(node.input[0])
    kept = []
    for name, init in stored.items():
        if name in used:
            continue
        if init.data_type == TensorProto.FLOAT:
            floats[name] = numpy_helper.to_array(init)
        else:
            kept.append(init)
    return floats, kept
