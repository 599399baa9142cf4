"""The committed models store their weights narrow (float16 or int8), widened back by the graph."""

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from vision.model_store import store_weights, weight_storage
from vision.reader import COMMITTEE_PATHS, MODEL_PATH


def _small_net(path, rng):
    w = numpy_helper.from_array(rng.normal(0, 0.5, (16, 3, 3, 3)).astype(np.float32), "w")
    b = numpy_helper.from_array(rng.normal(0, 0.1, (16,)).astype(np.float32), "b")
    fc = numpy_helper.from_array(rng.normal(0, 0.5, (16, 5)).astype(np.float32), "fc")
    nodes = [helper.make_node("Conv", ["image", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c"], ["r"]),
             helper.make_node("GlobalAveragePool", ["r"], ["g"]),
             helper.make_node("Flatten", ["g"], ["f"]),
             helper.make_node("MatMul", ["f", "fc"], ["logits"]),
             helper.make_node("Softmax", ["logits"], ["card"], axis=1)]
    graph = helper.make_graph(nodes, "small", [helper.make_tensor_value_info("image", TensorProto.FLOAT, ["n", 3, 8, 8])],
                              [helper.make_tensor_value_info("card", TensorProto.FLOAT, ["n", 5])], [w, b, fc])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, str(path))


def _run(path, x):
    return ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(None, {"image": x})[0]


def _stored(path):
    return {i.name: i.data_type for i in onnx.load(str(path)).graph.initializer}


def test_halving_the_weights_keeps_the_outputs(tmp_path):
    rng = np.random.default_rng(0)
    path = tmp_path / "m.onnx"
    _small_net(path, rng)
    x = rng.uniform(-1, 1, (4, 3, 8, 8)).astype(np.float32)
    before, size = _run(path, x), path.stat().st_size
    assert store_weights(path, "float16") < size
    after = _run(path, x)
    assert after.dtype == np.float32 and np.abs(after - before).max() < 1e-3
    assert _stored(path) == {"w_f16": TensorProto.FLOAT16, "fc_f16": TensorProto.FLOAT16, "b_f16": TensorProto.FLOAT16}
    assert weight_storage(path) == {"float16"}


@pytest.mark.parametrize("first", ["float32", "float16"])
def test_int8_weights_keep_the_outputs_close(tmp_path, first):
    rng = np.random.default_rng(1)
    path = tmp_path / "m.onnx"
    _small_net(path, rng)
    x = rng.uniform(-1, 1, (4, 3, 8, 8)).astype(np.float32)
    before = _run(path, x)
    if first == "float16":
        store_weights(path, "float16")
    half = path.stat().st_size
    assert store_weights(path, "int8") < half
    after = _run(path, x)
    assert after.dtype == np.float32 and np.abs(after - before).max() < 2e-2
    assert np.array_equal(after.argmax(1), before.argmax(1))
    stored = _stored(path)
    assert stored["w_i8"] == TensorProto.INT8 and stored["w_scale"] == TensorProto.FLOAT  # the conv: int8
    assert stored["fc_f16"] == stored["b_f16"] == TensorProto.FLOAT16  # too small to be worth int8
    with pytest.raises(ValueError, match="already stored as int8"):
        store_weights(path, "int8")
    with pytest.raises(ValueError, match="unknown weight storage"):
        store_weights(path, "int4")


def test_the_committed_models_store_narrow_weights():
    """The first member, which alone reads the dealer camera, keeps float16; the others are int8."""
    assert weight_storage(MODEL_PATH) == {"float16"}
    for path in COMMITTEE_PATHS[1:]:
        assert weight_storage(path) == {"int8"}, path.name
    assert sum(p.stat().st_size for p in COMMITTEE_PATHS) <= 2_000_000  # 2 MB, however counted
