"""The two networks of the card model, sized for a 2-core CPU (training and inference).

``LocNet``: a light fully-convolutional localiser (plain 3×3 convolutions, a small
feature pyramid) that turns a downscaled frame into the 14 channels ``vision.detect``
decodes, at 1/4 resolution. ``ClsNet``: a small classifier of 40×28 index-corner crops.
``CardModel`` joins them into the one two-input graph exported to ONNX.
"""

from __future__ import annotations

import math
from pathlib import Path

import torch
from torch import nn

from vision.detect import (
    CH_BACK_ANG2,
    CH_BACK_HEAT,
    CH_IDX_DOWN,
    CH_IDX_HEAT,
    CLASSES,
    CROP_H,
    CROP_W,
    LOC_CHANNELS,
)

#: Classifier input sizes (w, h) a checkpoint can be read back at: v1-v2's, and v3's.
KNOWN_CROPS: tuple[tuple[int, int], ...] = ((28, 40), (32, 48), (36, 52))


def feature_cells(crop: tuple[int, int]) -> tuple[int, int]:
    """(h, w) of the classifier's last feature map for a crop (three stride-2 layers)."""
    w, h = crop
    for _ in range(3):
        w, h = (w + 1) // 2, (h + 1) // 2
    return h, w


def _cbr(cin: int, cout: int, k: int = 3, s: int = 1) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(cin, cout, k, s, k // 2, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)
    )


class LocNet(nn.Module):
    """Frame (B×3×H×W, BGR 0..255) → B×14×H/4×W/4 (heats as probabilities).

    Plain 3×3 convolutions: on a CPU they train several times faster per useful FLOP than
    depthwise-separable blocks, and the graph stays about 0.2 GMAC at 512×288."""

    def __init__(self, w: int = 24) -> None:
        super().__init__()
        self.stem = nn.Sequential(_cbr(3, 16, 3, 2), _cbr(16, w, 3, 2), _cbr(w, w))  # /4
        self.s8 = nn.Sequential(_cbr(w, 32, 3, 2), _cbr(32, 32))
        self.s16 = nn.Sequential(_cbr(32, 48, 3, 2), _cbr(48, 48))
        self.s32 = nn.Sequential(_cbr(48, 64, 3, 2), _cbr(64, 64))
        self.l8 = nn.Conv2d(32, w, 1)
        self.l16 = nn.Conv2d(48, w, 1)
        self.l32 = nn.Conv2d(64, w, 1)
        self.head = nn.Sequential(_cbr(w, w), nn.Conv2d(w, LOC_CHANNELS, 1))
        self.up = nn.Upsample(scale_factor=2, mode="nearest")
        with torch.no_grad():
            last = self.head[-1]
            assert isinstance(last, nn.Conv2d) and last.bias is not None
            last.bias[CH_IDX_HEAT] = -4.0
            last.bias[CH_BACK_HEAT] = -4.0

    def raw(self, x: torch.Tensor) -> torch.Tensor:
        x = (x - 128.0) / 64.0
        f4 = self.stem(x)
        f8 = self.s8(f4)
        f16 = self.s16(f8)
        f32 = self.s32(f16)
        p = self.l32(f32)
        p = self.up(p) + self.l16(f16)
        p = self.up(p) + self.l8(f8)
        p = self.up(p) + f4
        out: torch.Tensor = self.head(p)
        return out

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return finish_loc(self.raw(x))


def finish_loc(raw: torch.Tensor) -> torch.Tensor:
    """Raw head → decoded channels: sigmoid heats, unit direction vectors."""
    heat_i = torch.sigmoid(raw[:, CH_IDX_HEAT : CH_IDX_HEAT + 1])
    heat_b = torch.sigmoid(raw[:, CH_BACK_HEAT : CH_BACK_HEAT + 1])
    d = raw[:, CH_IDX_DOWN : CH_IDX_DOWN + 2]
    d = d / (d.pow(2).sum(1, keepdim=True).sqrt() + 1e-6)
    a = raw[:, CH_BACK_ANG2 : CH_BACK_ANG2 + 2]
    a = a / (a.pow(2).sum(1, keepdim=True).sqrt() + 1e-6)
    return torch.cat(
        [
            heat_i,
            raw[:, CH_IDX_HEAT + 1 : CH_IDX_DOWN],
            d,
            raw[:, CH_IDX_DOWN + 2 : CH_BACK_HEAT],
            heat_b,
            raw[:, CH_BACK_HEAT + 1 : CH_BACK_ANG2],
            a,
            raw[:, CH_BACK_ANG2 + 2 :],
        ],
        1,
    )


class ClsNet(nn.Module):
    """Index crops (N×3×H×W, BGR 0..255; 40×28 up to v2) → logits over ``CLASSES``.

    ``width`` multiplies every layer's channels (1 is the v2 network): reading a 7-pixel
    rank wants more features than the first CPU budget allowed."""

    def __init__(self, width: float = 1.0, crop: tuple[int, int] = (CROP_W, CROP_H)) -> None:
        super().__init__()
        self.crop = crop  # (w, h) of the input crops
        self.cells = feature_cells(crop)
        c1, c2, c3, c4 = (max(8, round(c * width)) for c in (16, 24, 48, 64))
        self.body = nn.Sequential(
            _cbr(3, c1),
            _cbr(c1, c2, s=2),  # 20×14
            _cbr(c2, c2),
            _cbr(c2, c3, s=2),  # 10×7
            _cbr(c3, c3),
            _cbr(c3, c4, s=2),  # 5×4
        )
        fc = max(64, round(128 * width))
        self.fc = nn.Sequential(
            nn.Flatten(),
            nn.Dropout(0.2),
            nn.Linear(c4 * self.cells[0] * self.cells[1], fc),
            nn.ReLU(inplace=True),
        )
        self.out = nn.Linear(fc, len(CLASSES))

    @classmethod
    def load(cls, path: str | Path) -> ClsNet:
        """A checkpoint of any width (read back from its first layer) and any crop size
        (read back from its first linear layer: 40×28 and 48×32 are told apart)."""
        state = torch.load(path)
        return cls.from_state(state)

    @classmethod
    def from_state(cls, state: dict[str, torch.Tensor]) -> ClsNet:
        width = state["body.0.0.weight"].shape[0] / 16
        c4 = state["body.5.0.weight"].shape[0]
        cells = state["fc.2.weight"].shape[1] // c4
        crop = next((c for c in KNOWN_CROPS if math.prod(feature_cells(c)) == cells), None)
        if crop is None:
            raise ValueError(f"classifier state: {cells} feature cells match no known crop size")
        net = cls(width, crop)
        net.load_state_dict(state)
        return net

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = (x - 128.0) / 64.0
        out: torch.Tensor = self.out(self.fc(self.body(x)))
        return out


class CardModel(nn.Module):
    """The shipped graph: ``(image, crops) -> (loc, cls probabilities)``."""

    def __init__(self, loc: LocNet, cls: ClsNet) -> None:
        super().__init__()
        self.loc, self.cls = loc, cls

    def forward(
        self, image: torch.Tensor, crops: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        return self.loc(image), torch.softmax(self.cls(crops), 1)
