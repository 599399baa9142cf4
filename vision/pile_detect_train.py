"""Trains the pile corner detector (vision/models/pile_corners.onnx) on rendered piles of the training
designs (:mod:`vision.pile_detect_data`).

    PYTHONPATH=. python -m vision.pile_detect_data --piles 3200 --out build/pile_detect.npz
    PYTHONPATH=. python -m vision.pile_detect_train --data build/pile_detect.npz [--minutes 35]

The network is small and fully convolutional (:func:`make_detector`): the picture at 320 px down to a
sixteenth, and back up to a quarter with the finer layers added in, as in CenterNet. Its maps, a
quarter of the picture's size: the heat of an index centre (trained with CenterNet's focal loss), and
at each centre the index's "up", height, width, the way to its card's centre and the cell-to-centre
offset (L1). Training cuts random 192 px windows and turns them by quarter turns (a pile has no
"up"); an index is never mirrored. Torch is needed here only; the reader runs the exported ONNX.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "vision" / "models" / "pile_corners.onnx"
WINDOW = 192  # training windows (input pixels; a multiple of 16)


def make_detector(width: int = 16):
    """The detector (BGR 0..255, N x 3 x H x W, H and W multiples of 16) -> N x 9 x H/4 x W/4: heat
    logit, up (2), log height, log width, to the centre (2), offset (2) -- the targets' channels
    without the ignore mask."""
    import torch
    from torch import nn

    def block(i: int, o: int, stride: int = 1) -> nn.Sequential:
        return nn.Sequential(nn.Conv2d(i, o, 3, stride, 1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True))

    def squeeze(i: int, o: int) -> nn.Sequential:
        return nn.Sequential(nn.Conv2d(i, o, 1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True))

    w = width

    class Detector(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.stem = block(3, w, 2)  # /2
            self.d1 = nn.Sequential(block(w, 2 * w, 2), block(2 * w, 2 * w))  # /4
            self.d2 = nn.Sequential(block(2 * w, 4 * w, 2), block(4 * w, 4 * w))  # /8
            self.d3 = nn.Sequential(block(4 * w, 6 * w, 2), block(6 * w, 6 * w), block(6 * w, 6 * w))  # /16
            self.u2 = nn.Sequential(squeeze(10 * w, 4 * w), block(4 * w, 4 * w))
            self.u1 = nn.Sequential(squeeze(6 * w, 2 * w), block(2 * w, 2 * w))
            self.head = nn.Conv2d(2 * w, 9, 1)
            self.head.bias.data[0] = -4.0  # most cells hold no index (CenterNet's prior)

        def forward(self, x):
            mean = x.mean(dim=(1, 2, 3), keepdim=True)
            std = x.std(dim=(1, 2, 3), keepdim=True)
            x = (x - mean) / (std + 8.0)
            f1 = self.d1(self.stem(x))
            f2 = self.d2(f1)
            f3 = self.d3(f2)
            up = nn.functional.interpolate
            g2 = self.u2(torch.cat([up(f3, scale_factor=2.0, mode="nearest"), f2], 1))
            g1 = self.u1(torch.cat([up(g2, scale_factor=2.0, mode="nearest"), f1], 1))
            return self.head(g1)

    return Detector()


def losses(out, t):
    """CenterNet's focal loss on the heat (ignored cells left out) and L1 on the geometry at the cells
    around each visible centre."""
    import torch
    import torch.nn.functional as F

    heat = t[:, 0]
    peak = (heat >= 0.3) & (heat == F.max_pool2d(heat[:, None], 3, 1, 1)[:, 0])
    keep = (t[:, 1] < 0.5).float()
    p = torch.sigmoid(out[:, 0]).clamp(1e-4, 1 - 1e-4)
    pos = peak.float()
    n = pos.sum().clamp(min=1.0)
    focal = -(pos * (1 - p) ** 2 * torch.log(p) + (1 - pos) * keep * (1 - heat) ** 4 * p ** 2 * torch.log(1 - p)).sum() / n
    near = ((t[:, 2] ** 2 + t[:, 3] ** 2) > 0.5).float()[:, None]
    m = near.sum().clamp(min=1.0)
    geo = out[:, 1:9]
    want = t[:, 2:10]
    w = torch.tensor([1, 1, 1, 1, 0.5, 0.5, 1, 1], dtype=out.dtype).view(1, 8, 1, 1)
    l1 = (near * w * (geo - want).abs()).sum() / m
    return focal, l1


def _window(x: np.ndarray, t: np.ndarray, rng: np.random.Generator, stride: int) -> tuple[np.ndarray, np.ndarray]:
    """A random WINDOW x WINDOW window (on the cell grid) turned by a random number of quarter turns."""
    H, W = x.shape[:2]
    cy = int(rng.integers(0, (H - WINDOW) // stride + 1))
    cx = int(rng.integers(0, (W - WINDOW) // stride + 1))
    g = WINDOW // stride
    xi = x[cy * stride:cy * stride + WINDOW, cx * stride:cx * stride + WINDOW]
    return turn(xi, t[:, cy:cy + g, cx:cx + g], int(rng.integers(4)))


def turn(x: np.ndarray, t: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """A picture and its targets turned ``k`` quarter turns counter-clockwise (as ``np.rot90``): the
    maps move, and the vectors in the picture's frame ("up", the offset) turn, (vx, vy) -> (vy, -vx);
    the way to the card's centre is in the index's own frame and stays."""
    t = t.copy()
    for _ in range(k):
        x = np.rot90(x)
        t = np.rot90(t, axes=(1, 2)).copy()
        t[2], t[3] = t[3].copy(), -t[2]
        t[8], t[9] = t[9].copy(), -t[8]
    return np.ascontiguousarray(x), t


def _photo(xb: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A little more light and colour variety than the renderer's."""
    out = xb.astype(np.float32)
    for i in range(len(out)):
        if rng.random() < 0.5:
            out[i] = out[i] * rng.uniform(0.7, 1.25, 3) + rng.uniform(-25, 25)
    return np.clip(out, 0, 255)


def export(net, path: Path) -> int:
    import torch

    from vision.model_store import store_weights

    net.eval()
    path.parent.mkdir(parents=True, exist_ok=True)
    dummy = torch.zeros(1, 3, 240, 320)
    torch.onnx.export(net, (dummy,), str(path), input_names=["image"], output_names=["maps"],
                      dynamic_axes={"image": {0: "n", 2: "h", 3: "w"}, "maps": {0: "n", 2: "h4", 3: "w4"}},
                      opset_version=17, dynamo=False)
    return store_weights(path, "float16")


def main(argv: list[str] | None = None) -> None:
    import torch

    from vision.pile_detect import STRIDE

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, required=True, help="vision.pile_detect_data's .npz")
    ap.add_argument("--minutes", type=float, default=35.0)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--width", type=int, default=16)
    ap.add_argument("--seed", type=int, default=3131)
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    start = time.time()
    data = np.load(args.data)
    x, t = data["x"], data["t"]
    say = lambda *a: print(f"[{(time.time() - start) / 60:5.1f} min]", *a, flush=True)  # noqa: E731
    say(f"{len(x)} piles, pictures {x.shape[1:3]}")
    net = make_detector(args.width)
    opt = torch.optim.AdamW(net.parameters(), lr=2e-3, weight_decay=1e-4)
    rng = np.random.default_rng(args.seed)
    budget = args.minutes * 60 - (time.time() - start) - 60
    batch, step, t0 = 32, 0, time.time()
    run = np.zeros(2)
    while time.time() - t0 < budget:
        elapsed = time.time() - t0
        for g in opt.param_groups:  # a short warm-up, then cosine over the time budget
            g["lr"] = 2e-3 * min(1.0, (step + 1) / 200) * 0.5 * (1 + np.cos(np.pi * min(1.0, elapsed / budget)))
        idx = rng.integers(0, len(x), batch)
        pairs = [_window(x[i], t[i], rng, STRIDE) for i in idx]
        xb = torch.from_numpy(_photo(np.stack([p[0] for p in pairs]), rng)).permute(0, 3, 1, 2).float()
        tb = torch.from_numpy(np.stack([p[1] for p in pairs]))
        focal, l1 = losses(net(xb), tb)
        loss = focal + l1
        opt.zero_grad()
        loss.backward()
        opt.step()
        run = 0.98 * run + 0.02 * np.array([focal.item(), l1.item()])
        step += 1
        if step % 100 == 0:
            say(f"step {step} ({step * batch / len(x):.1f} epochs) focal {run[0]:.3f} geometry {run[1]:.3f}")
    size = export(net, args.out)
    say(f"{step} steps; {args.out} {size / 1024:.0f} KiB")


if __name__ == "__main__":
    main()
