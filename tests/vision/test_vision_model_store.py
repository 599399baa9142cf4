"""The committed models store their weights as float16 (half the bytes), cast back by the graph."""

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

from vision.reader import COMMITTEE_PATHS
from vision.train import halve_weights


def _small_net(path, rng):
    w = numpy_helper.from_array(rng.normal(0, 0.5, (8, 3, 3, 3)).astype(np.float32), "w")
    b = numpy_helper.from_array(rng.normal(0, 0.1, (8,)).astype(np.float32), "b")
    fc = numpy_helper.from_array(rng.normal(0, 0.5, (8, 5)).astype(np.float32), "fc")
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


def test_halving_the_weights_keeps_the_outputs(tmp_path):
    rng = np.random.default_rng(0)
    path = tmp_path / "m.onnx"
    _small_net(path, rng)
    x = rng.uniform(-1, 1, (4, 3, 8, 8)).astype(np.float32)
    before, size = _run(path, x), path.stat().st_size
    assert halve_weights(path) < size
    after = _run(path, x)
    assert after.dtype == np.float32 and np.abs(after - before).max() < 1e-3
    kinds = {i.name: i.data_type for i in onnx.load(str(path)).graph.initializer}
    assert kinds == {"w_f16": TensorProto.FLOAT16, "fc_f16": TensorProto.FLOAT16, "b": TensorProto.FLOAT}  # b: tiny


def test_the_committed_models_store_half_floats():
    for path in COMMITTEE_PATHS:
        weights = onnx.load(str(path)).graph.initializer
        big = [i for i in weights if int(np.prod(i.dims)) >= 16]
        assert big and all(i.data_type == TensorProto.FLOAT16 for i in big), path.name
