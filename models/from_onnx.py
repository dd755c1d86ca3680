"""Torch networks back from a shipped ONNX graph, so training continues from the weights
that ship (``models/cards.onnx``) when no checkpoint (``artifacts/train*/``) is at hand.

The exporter folds each BatchNorm into the convolution before it; the folded weights come
back into the convolution and the BatchNorm is set to the identity (mean 0, variance
1 − eps, scale 1, shift = the folded bias), so the networks compute what the graph does.
Folded convolutions have generated names; they are matched to the layers in the order the
graph runs them, each checked by shape.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
from torch import nn

from models.nets import KNOWN_CROPS, ClsNet, LocNet, feature_cells


def _cbrs(net: nn.Module, names: list[str]) -> list[nn.Sequential]:
    mods = dict(net.named_modules())
    return [mods[n] for n in names]


LOC_ORDER = [
    "stem.0", "stem.1", "stem.2", "s8.0", "s8.1", "s16.0", "s16.1", "s32.0", "s32.1", "head.0",
]  # fmt: skip
CLS_ORDER = [f"body.{i}" for i in range(6)]


def nets_from_onnx(path: str | Path) -> tuple[LocNet, ClsNet]:
    """(localiser, classifier) with the graph's weights; raises ValueError when the graph is
    not this project's card model."""
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(str(path)).graph
    init = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    folded: list[tuple[np.ndarray, np.ndarray]] = []
    for node in graph.node:
        if node.op_type != "Conv" or len(node.input) < 3:
            continue
        w, b = node.input[1], node.input[2]
        if w.startswith("onnx::") and w in init and b in init:
            folded.append((init[w], init[b]))
    fc = init.get("cls.fc.2.weight")
    if fc is None or len(folded) != len(LOC_ORDER) + len(CLS_ORDER):
        raise ValueError(f"model {path}: not a card model this code can read back")
    loc = LocNet()
    c1 = folded[len(LOC_ORDER)][0].shape[0]
    c4 = folded[-1][0].shape[0]
    cells = fc.shape[1] // c4
    crop = next((c for c in KNOWN_CROPS if np.prod(feature_cells(c)) == cells), None)
    if crop is None:
        raise ValueError(f"model {path}: classifier of {cells} feature cells, unknown crop")
    cls = ClsNet(c1 / 16, crop)
    with torch.no_grad():
        pairs = zip(_cbrs(loc, LOC_ORDER) + _cbrs(cls, CLS_ORDER), folded, strict=True)
        for seq, (w, b) in pairs:
            conv, bn = seq[0], seq[1]
            assert isinstance(conv, nn.Conv2d) and isinstance(bn, nn.BatchNorm2d)
            if tuple(conv.weight.shape) != w.shape:
                raise ValueError(
                    f"model {path}: layer shape {w.shape} != {tuple(conv.weight.shape)}"
                )
            conv.weight.copy_(torch.from_numpy(np.array(w)))
            bn.weight.fill_(1.0)
            bn.bias.copy_(torch.from_numpy(np.array(b)))
            bn.running_mean.zero_()  # type: ignore[union-attr]
            bn.running_var.fill_(1.0 - bn.eps)  # type: ignore[union-attr]
        for name, net, prefix in (("loc", loc, "loc."), ("cls", cls, "cls.")):
            for k, v in net.state_dict().items():
                if prefix + k in init:
                    src = torch.from_numpy(np.array(init[prefix + k]))
                    if src.shape != v.shape:
                        raise ValueError(f"model {path}: {name} {k} shape {tuple(src.shape)}")
                    v.copy_(src)
    return loc.eval(), cls.eval()


@torch.no_grad()
def resize_cls(net: ClsNet, crop: tuple[int, int]) -> ClsNet:
    """The classifier made for another crop size (w, h): its convolutions as they are, its
    first linear layer's weights resampled over the larger feature grid (and scaled so
    its sums stay the same), so a larger input starts from the trained reads."""
    big = ClsNet(net.body[0][0].out_channels / 16, crop)  # type: ignore[index]
    big.body.load_state_dict(net.body.state_dict())
    big.out.load_state_dict(net.out.state_dict())
    old, new = net.fc[2], big.fc[2]
    assert isinstance(old, nn.Linear) and isinstance(new, nn.Linear)
    (oh, ow), (nh, nw) = net.cells, big.cells
    c4 = old.in_features // (oh * ow)
    w = old.weight.reshape(old.out_features, c4, oh, ow)
    w = torch.nn.functional.interpolate(w, size=(nh, nw), mode="bilinear", align_corners=True)
    new.weight.copy_(w.reshape(old.out_features, -1) * (oh * ow) / (nh * nw))
    new.bias.copy_(old.bias)
    return big
