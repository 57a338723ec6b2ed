"""The batched torch engine of the sbibm MLP: many networks trained as one.

See :mod:`modelcompare._foundation.mlp.recipe` for the recipe and the design; this module holds the
sklearn-form Adam update in torch, the device buffers, the hand-written forward/backward pass, the
per-epoch gather and loss, and compaction. :func:`modelcompare._foundation.mlp.trainer.train_mlp`
calls :func:`run_batched`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from modelcompare._foundation.mlp import recipe
from modelcompare._foundation.mlp.recipe import (
    ALPHA,
    EPS32,
    Entry,
    FoldData,
    ParamLayout,
    StoppingRule,
    ValidationRule,
)

__all__ = ["adam_update_", "fused_adam_update_", "fused_adam_works", "run_batched"]

# Use torch's fused Adam kernel (one call per step) when it is available; the hand-written update is
# the fallback and the reference the tests compare it with.
USE_FUSED_ADAM = True

# Keep every step's L2 term for the epoch loss while that costs at most this many floats (8 MB,
# cache-friendly); beyond it (large d, or many entries as in c2st_many) one buffer is reused and the
# squared norms are reduced step by step instead (three small bmm calls per step).
KEEP_L2_FLOATS = 2_000_000


def adam_update_(theta: Any, grad: Any, m: Any, v: Any, t: int, torch: Any) -> None:
    """One sklearn-form Adam step in place: ε is added to the *uncorrected* √v."""
    m.lerp_(grad, 1.0 - recipe.BETA1)
    v.mul_(recipe.BETA2).addcmul_(grad, grad, value=1.0 - recipe.BETA2)
    theta.addcdiv_(m, torch.sqrt(v).add_(recipe.ADAM_EPS), value=-recipe.adam_step_size(t))


def fused_adam_update_(
    thetas: list[Any], grads: list[Any], ms: list[Any], vs: list[Any], step: Any, t: int, torch: Any
) -> None:
    """The same step with torch's fused kernel.

    torch divides √v by √(1−β₂ᵗ) before adding its ε, so passing ε/√(1−β₂ᵗ) reproduces
    scikit-learn's update exactly (up to float rounding): lr/(1−β₁ᵗ) · m / ((√v + ε)/√(1−β₂ᵗ)).
    """
    step.fill_(float(t))
    torch._fused_adam_(
        thetas,
        grads,
        ms,
        vs,
        [],
        [step] * len(thetas),
        lr=recipe.LEARNING_RATE,
        beta1=recipe.BETA1,
        beta2=recipe.BETA2,
        weight_decay=0.0,
        eps=recipe.ADAM_EPS / math.sqrt(1.0 - recipe.BETA2**t),
        amsgrad=False,
        maximize=False,
    )


def fused_adam_works(torch: Any, device: Any) -> bool:
    """True when torch's fused Adam kernel exists on ``device`` and gives scikit-learn's step."""
    if not USE_FUSED_ADAM or not hasattr(torch, "_fused_adam_"):
        return False
    try:
        p = torch.ones(4, device=device)
        g = torch.full((4,), 0.5, device=device)
        m = torch.zeros(4, device=device)
        v = torch.zeros(4, device=device)
        step = torch.zeros((), device=device)
        fused_adam_update_([p], [g], [m], [v], step, 1, torch)
        lr, beta1, beta2 = recipe.LEARNING_RATE, recipe.BETA1, recipe.BETA2
        expected = 1.0 - lr * 0.05 / (math.sqrt(0.00025) + recipe.ADAM_EPS) * math.sqrt(
            1 - beta2
        ) / (1 - beta1)
        return bool(abs(float(p[0]) - expected) < 1e-6)
    except (RuntimeError, NotImplementedError, TypeError):
        return False


# Elementwise kernels (sigmoid, addcmul, fused Adam) treat the last, partial vector chunk of a
# tensor differently from the full chunks, and which elements fall into it depends on the tensor's
# length, i.e. on how many entries share the batch. Every buffer such a kernel runs over is therefore
# padded to a multiple of ALIGN_FLOATS, so no element is ever in a tail and an entry's arithmetic
# does not depend on its neighbours (c2st_many gives exactly what c2st gives).
ALIGN_FLOATS = 64
ENTRY_ALIGN = 16  # floats: 64 bytes


def _align(n: int) -> int:
    """Round a float count up to a multiple of ``ALIGN_FLOATS``."""
    return -(-n // ALIGN_FLOATS) * ALIGN_FLOATS


def _padded_rows(torch: Any, n_steps: int, e_n: int, b_pad: int, dev: Any) -> tuple[Any, Any]:
    """Zeroed ``(S, L)`` storage with L = align(E·Bp), and its ``(S, E, 1, Bp)`` view."""
    n = e_n * b_pad
    store = torch.zeros((n_steps, _align(n)), dtype=torch.float32, device=dev)
    return store, store[:, :n].view(n_steps, e_n, 1, b_pad)


class _Segments:
    """Layer-major layout of the parameters of E entries in one flat buffer.

    Segment 0 is layer 0 as ``(E, d + 1, h)`` (bias in the last row, so the input's ones column
    gives its gradient); every later layer is ``W (E, fan_in, fan_out)`` then ``b (E, 1,
    fan_out)``. Every segment is contiguous, which keeps torch's batched GEMMs on MKL's batched
    path (views with a foreign batch stride fall back to one GEMM per entry).
    """

    def __init__(self, layout: ParamLayout, e_n: int) -> None:
        self.layout = layout
        self.e_n = e_n
        self.shapes: list[tuple[int, int, int]] = []
        for i, (_, fan_in, fan_out) in enumerate(layout.blocks):
            if i == 0:
                self.shapes.append((e_n, fan_in + 1, fan_out))
            else:
                self.shapes.append((e_n, fan_in, fan_out))
                self.shapes.append((e_n, 1, fan_out))
        # Segments start on aligned offsets and the buffer is padded (see ALIGN_FLOATS); inside a
        # segment every entry's block is padded to 64 bytes, because the CPU GEMM kernels' rounding
        # depends on their operands' alignment and an entry's position must not matter.
        self.blocks = [shape[1] * shape[2] for shape in self.shapes]
        self.strides = [-(-b // ENTRY_ALIGN) * ENTRY_ALIGN for b in self.blocks]
        self.offsets: list[int] = []
        off = 0
        for stride in self.strides:
            self.offsets.append(off)
            off = _align(off + e_n * stride)
        self.size = off

    def views(self, flat: Any) -> list[Any]:
        out = []
        for shape, off, block, stride in zip(self.shapes, self.offsets, self.blocks, self.strides):
            rows = flat[off : off + self.e_n * stride].view(self.e_n, stride)
            out.append(rows[:, :block].view(shape))
        return out

    def views_steps(self, flat_steps: Any) -> list[Any]:
        """Segment views ``(S, E, n)`` of an ``(S, size)`` stack of flat buffers."""
        out = []
        n_steps = flat_steps.shape[0]
        for off, stride in zip(self.offsets, self.strides):
            out.append(flat_steps[:, off : off + self.e_n * stride].view(n_steps, self.e_n, stride))
        return out

    def to_flat(self, rows: Any, torch: Any) -> Any:
        """(E, P) entry-major rows (ParamLayout order) -> flat layer-major buffer."""
        pieces = []
        for i, (off, fan_in, fan_out) in enumerate(self.layout.blocks):
            block = rows[:, off : off + (fan_in + 1) * fan_out]
            if i == 0:
                pieces.append(block.reshape(-1))
            else:
                pieces.append(block[:, : fan_in * fan_out].reshape(-1))
                pieces.append(block[:, fan_in * fan_out :].reshape(-1))
        flat = torch.zeros(self.size, dtype=rows.dtype, device=rows.device)
        for piece, off, block, stride in zip(pieces, self.offsets, self.blocks, self.strides):
            dest = flat[off : off + self.e_n * stride].view(self.e_n, stride)
            dest[:, :block] = piece.view(self.e_n, block)
        return flat

    def to_rows(self, flat: Any, torch: Any) -> Any:
        """Inverse of :meth:`to_flat`."""
        return torch.cat([v.reshape(self.e_n, -1) for v in self.views(flat)], dim=1)


class _Batch:
    """Device buffers and per-step views for the current set of active entries."""

    def __init__(self, engine: _Engine, entries: list[Entry], data_x: Any, data_y: Any) -> None:
        torch = engine.torch
        dev = engine.device
        layout = engine.layout
        e_n = len(entries)
        d = layout.sizes[0]
        self.entries = entries
        self.data_x, self.data_y = (
            data_x,
            data_y,
        )  # (E, n_max, d + 1) with a ones column; (E, n_max)
        n_max = data_x.shape[1]
        self.n_max = n_max
        n_steps = max(e.n_batches for e in entries)
        b_pad = max(e.batch for e in entries)
        self.n_steps, self.b_pad = n_steps, b_pad
        self.segments = _Segments(layout, e_n)

        # batch sizes per (step, entry) and the slots each permutation position lands in
        bs = np.zeros((n_steps, e_n), dtype=np.int64)
        self.slots = []
        pad = np.empty((n_steps, e_n, b_pad), dtype=np.int64)
        for j, e in enumerate(entries):
            pos = np.arange(e.n)
            k, r = pos // e.batch, pos % e.batch
            self.slots.append((k * e_n + j) * b_pad + r)
            bs[:, j] = np.clip(e.n - np.arange(n_steps) * e.batch, 0, e.batch)
            pad[:, j, :] = j * n_max  # padding rows read a valid row and get weight 0
        self.bs = bs
        self.pad = pad.reshape(-1)
        self.active = bs > 0
        self.uniform = bool(self.active.all()) and len({e.n_batches for e in entries}) == 1
        real = np.arange(b_pad)[None, None, :] < bs[:, :, None]
        rw = np.where(real, 1.0 / np.maximum(bs, 1)[:, :, None], 0.0).astype(np.float32)
        f32 = torch.float32
        # per-row tensors are laid out (S, E, 1, Bp): the output layer works on row vectors
        self.row_w_store, self.row_w = _padded_rows(torch, n_steps, e_n, b_pad, dev)
        self.row_w.copy_(torch.as_tensor(rw, device=dev).unsqueeze(2))
        self.neg_row_w = -self.row_w
        self.real = torch.as_tensor(real, device=dev).unsqueeze(2)
        self.n_train = torch.as_tensor(
            [float(e.n) for e in entries], dtype=engine.loss_dtype, device=dev
        )

        # epoch buffers
        self.gathered_x = torch.empty((n_steps, e_n, b_pad, d + 1), dtype=f32, device=dev)
        self.gathered_y = torch.empty((n_steps, e_n, b_pad), dtype=f32, device=dev)
        self.labels = self.gathered_y.unsqueeze(2)
        self.neg_yw_store, self.neg_yw = _padded_rows(torch, n_steps, e_n, b_pad, dev)
        self.logits_store, self.logits = _padded_rows(torch, n_steps, e_n, b_pad, dev)
        self.probs_store, self.probs = _padded_rows(torch, n_steps, e_n, b_pad, dev)
        # the L2 term of every step, (α/|b|)·W (0 on biases), kept for the epoch loss:
        # (α/2)‖W‖² = |b|²/(2α)·Σ ((α/|b|)·W)²
        # (kept only while that fits KEEP_L2_FLOATS; otherwise one buffer is reused and the
        # squared norms are reduced every step into `sq`, at the cost of a few more calls)
        self.l2_scale = torch.as_tensor(
            bs.astype(np.float64) ** 2 / (2.0 * ALPHA), dtype=engine.loss_dtype, device=dev
        )
        self.keep_l2 = n_steps * self.segments.size <= KEEP_L2_FLOATS
        n_kept = n_steps if self.keep_l2 else 1
        self.l2_terms = torch.empty((n_kept, self.segments.size), dtype=f32, device=dev)
        self.l2_k = [self.segments.views(self.l2_terms[min(k, n_kept - 1)]) for k in range(n_steps)]
        n_seg = len(self.segments.shapes)
        self.sq = torch.zeros((n_steps, n_seg, e_n, 1, 1), dtype=f32, device=dev)
        self.sq_k = [[self.sq[k, i] for i in range(n_seg)] for k in range(n_steps)]
        self.adam_t = torch.zeros(n_steps, dtype=f32, device=dev)  # Adam's t for each step
        self.adam_t_k = [self.adam_t[k] for k in range(n_steps)]

        # L2 coefficient α/|b| on weights (0 on biases), one flat tensor per distinct batch pattern
        mask = torch.as_tensor(layout.weight_mask, device=dev)
        patterns: dict[tuple[int, ...], Any] = {}
        self.coef = []
        for k in range(n_steps):
            key = tuple(bs[k].tolist())
            if key not in patterns:
                c = np.where(bs[k] > 0, ALPHA / np.maximum(bs[k], 1), 0.0).astype(np.float32)
                rows = torch.as_tensor(c, device=dev)[:, None] * mask[None, :]
                patterns[key] = self.segments.to_flat(rows, torch)
            self.coef.append(patterns[key])

        # per-step views
        self.x = [self.gathered_x[k] for k in range(n_steps)]
        self.x_t = [self.gathered_x[k].transpose(1, 2) for k in range(n_steps)]
        self.z = [self.logits[k] for k in range(n_steps)]
        self.p = [self.probs[k] for k in range(n_steps)]
        self.nyw = [self.neg_yw[k] for k in range(n_steps)]
        self.w = [self.row_w[k] for k in range(n_steps)]
        # whole padded rows, for the elementwise kernels of the output layer
        self.z_flat = [self.logits_store[k] for k in range(n_steps)]
        self.p_flat = [self.probs_store[k] for k in range(n_steps)]
        self.nyw_flat = [self.neg_yw_store[k] for k in range(n_steps)]
        self.w_flat = [self.row_w_store[k] for k in range(n_steps)]

        # activations and deltas
        hidden = layout.sizes[1:-1]
        self.acts = [torch.empty((e_n, b_pad, h), dtype=f32, device=dev) for h in hidden]
        self.acts_t = [a.transpose(1, 2) for a in self.acts]
        self.deltas = [torch.empty((e_n, b_pad, h), dtype=f32, device=dev) for h in hidden]
        self.delta_out_flat = torch.zeros(_align(e_n * b_pad), dtype=f32, device=dev)
        self.delta_out = self.delta_out_flat[: e_n * b_pad].view(e_n, 1, b_pad)


class _Engine:
    def __init__(self, torch: Any, device: Any, layout: ParamLayout) -> None:
        self.torch = torch
        self.device = device
        self.layout = layout
        self.loss_dtype = torch.float32 if device.type == "mps" else torch.float64
        self.fused = fused_adam_works(torch, device)
        self.step_t = torch.zeros((), dtype=torch.float32, device=device)

    def bind(self, batch: _Batch, theta: Any, m: Any, v: Any) -> None:
        """Attach the flat parameter and Adam buffers of the active entries."""
        torch = self.torch
        self.batch = batch
        self.theta, self.m, self.v = theta, m, v
        self.grad = torch.zeros_like(theta)  # padding must stay 0 (it enters the L2 sums)
        seg = batch.segments
        self.th_s, self.g_s = seg.views(theta), seg.views(self.grad)
        self.m_s, self.v_s = seg.views(m), seg.views(v)

    def epoch(self, entries: list[Entry]) -> None:
        """Run every minibatch step of one epoch (forward, backward, L2, Adam) for all entries."""
        torch = self.torch
        bt = self.batch
        bmm, baddbmm, tsum, mul = torch.bmm, torch.baddbmm, torch.sum, torch.mul
        sigmoid, addcmul = torch.sigmoid, torch.addcmul
        relu_grad = torch.ops.aten.threshold_backward.grad_input
        acts, acts_t, deltas = bt.acts, bt.acts_t, bt.deltas
        th, gr = self.th_s, self.g_s
        e_n = bt.segments.e_n
        n_hidden = len(acts)
        a0, a_last, a_last_t = acts[0], acts[-1], acts_t[-1]
        w0_aug, g0_aug = th[0], gr[0]
        h_last = a_last.shape[2]
        # segment index of layer i >= 1: W at 2i - 1, b at 2i; the output layer's W (E, h, 1) is
        # contiguous, i.e. a row vector (E, 1, h)
        o = 2 * n_hidden - 1
        fwd = [(th[2 * i], acts[i - 1], th[2 * i - 1], acts[i]) for i in range(1, n_hidden)]
        bwd = [
            (
                2 * i - 1,
                acts_t[i - 1],
                gr[2 * i - 1],
                gr[2 * i],
                deltas[i - 1],
                th[2 * i - 1].transpose(1, 2),
                acts[i - 1],
            )
            for i in range(n_hidden - 1, 0, -1)
        ]
        ow, og = th[o].view(e_n, 1, h_last), gr[o].view(e_n, 1, h_last)
        ob, ogb = th[o + 1], gr[o + 1]
        l2_k = [(seg[0], seg[o].view(e_n, 1, h_last), seg) for seg in bt.l2_k]
        theta, coef, l2_terms = self.theta, bt.coef, bt.l2_terms
        keep_l2 = bt.keep_l2
        # Σ ((α/|b|)·W)² per segment and entry, for the step-wise reduction (biases are 0)
        sq_pairs = [(t.view(e_n, 1, -1), t.view(e_n, -1, 1)) for t in bt.l2_k[0]]
        sqs = bt.sq_k
        delta_out, d_last = bt.delta_out, deltas[-1]
        delta_out_t = delta_out.transpose(1, 2)
        xs, xts, zs = bt.x, bt.x_t, bt.z
        z_flat, p_flat, nyw_flat, w_flat = bt.z_flat, bt.p_flat, bt.nyw_flat, bt.w_flat
        delta_flat = bt.delta_out_flat
        uniform, t0 = bt.uniform, entries[0].t
        use_fused = self.fused and uniform
        grad, m, v = self.grad, self.m, self.v
        if use_fused:
            fused_adam = torch._fused_adam_
            params, grads, ms, vs = [theta], [grad], [m], [v]
            torch.arange(t0 + 1, t0 + 1 + bt.n_steps, out=bt.adam_t)
            steps = [[t] for t in bt.adam_t_k]
            # Adam constants read at call time (the recipe module is the one place they live)
            lr, beta1, beta2 = recipe.LEARNING_RATE, recipe.BETA1, recipe.BETA2
            eps = [
                recipe.ADAM_EPS / math.sqrt(1.0 - beta2 ** (t0 + k + 1)) for k in range(bt.n_steps)
            ]
        for k in range(bt.n_steps):
            # forward; the output layer works on row vectors: z = w (E,1,h) @ A^T (E,h,Bp) + b
            bmm(xs[k], w0_aug, out=a0)
            a0.clamp_min_(0.0)
            for bias, a_in, w, a_out in fwd:
                baddbmm(bias, a_in, w, out=a_out)
                a_out.clamp_min_(0.0)
            baddbmm(ob, ow, a_last_t, out=zs[k])
            sigmoid(z_flat[k], out=p_flat[k])
            addcmul(nyw_flat[k], p_flat[k], w_flat[k], out=delta_flat)  # (p - y)/|b|, 0 on padding
            # L2 gradient term (α/|b|)·W, 0 on biases; kept per step for the epoch loss
            if keep_l2:
                mul(theta, coef[k], out=l2_terms[k])
            else:
                mul(theta, coef[k], out=l2_terms[0])
                for (row, col), out in zip(sq_pairs, sqs[k]):
                    bmm(row, col, out=out)
            tmp0, tmp_out, tmp = l2_k[k]
            # backward
            baddbmm(tmp_out, delta_out, a_last, out=og)
            tsum(delta_out, dim=2, keepdim=True, out=ogb)
            mul(delta_out_t, ow, out=d_last)
            relu_grad(d_last, a_last, 0.0, grad_input=d_last)
            delta = d_last
            for i_w, a_prev_t, g_w, g_b, nxt, w_t, a_prev in bwd:
                baddbmm(tmp[i_w], a_prev_t, delta, out=g_w)
                tsum(delta, dim=1, keepdim=True, out=g_b)
                bmm(delta, w_t, out=nxt)
                relu_grad(nxt, a_prev, 0.0, grad_input=nxt)
                delta = nxt
            baddbmm(tmp0, xts[k], delta, out=g0_aug)
            # Adam (sklearn form; see fused_adam_update_ for the ε conversion)
            if use_fused:
                fused_adam(
                    params,
                    grads,
                    ms,
                    vs,
                    [],
                    steps[k],
                    lr=lr,
                    beta1=beta1,
                    beta2=beta2,
                    weight_decay=0.0,
                    eps=eps[k],
                    amsgrad=False,
                    maximize=False,
                )
            elif uniform:
                adam_update_(theta, grad, m, v, t0 + k + 1, torch)
            else:
                self._ragged_adam(k, entries)

    def _ragged_adam(self, k: int, entries: list[Entry]) -> None:
        # entries on their own clocks (different batch counts): update the active ones one by one,
        # with the same fused kernel as the uniform path (it is elementwise and tail-invariant, so
        # an entry's update does not depend on whether its batch is ragged)
        bt = self.batch
        torch = self.torch
        for j, e in enumerate(entries):
            if bt.active[k, j]:
                t = e.t + k + 1
                if self.fused:
                    self.step_t.fill_(float(t))
                    beta2 = recipe.BETA2
                    torch._fused_adam_(
                        [th[j] for th in self.th_s],
                        [g[j] for g in self.g_s],
                        [m[j] for m in self.m_s],
                        [v[j] for v in self.v_s],
                        [],
                        [self.step_t] * len(self.th_s),
                        lr=recipe.LEARNING_RATE,
                        beta1=recipe.BETA1,
                        beta2=beta2,
                        weight_decay=0.0,
                        eps=recipe.ADAM_EPS / math.sqrt(1.0 - beta2**t),
                        amsgrad=False,
                        maximize=False,
                    )
                    continue
                for th, g, m, v in zip(self.th_s, self.g_s, self.m_s, self.v_s):
                    adam_update_(th[j], g[j], m[j], v[j], t, torch)


def _stack_rows(
    torch: Any, device: Any, xs: Sequence[np.ndarray], ys: Sequence[np.ndarray], d: int
) -> tuple[Any, Any]:
    """Rows of every entry as ``(E, n_max, d + 1)`` with a ones column, labels as ``(E, n_max)``."""
    n_max = max(x.shape[0] for x in xs)
    data_x = np.zeros((len(xs), n_max, d + 1), dtype=np.float32)
    data_y = np.zeros((len(xs), n_max), dtype=np.float32)
    data_x[:, :, d] = 1.0
    for j, (x, y) in enumerate(zip(xs, ys)):
        n = x.shape[0]
        data_x[j, :n, :d] = x
        data_y[j, :n] = y
    return torch.as_tensor(data_x, device=device), torch.as_tensor(data_y, device=device)


def _stack_data(torch: Any, device: Any, folds: Sequence[FoldData], d: int) -> tuple[Any, Any]:
    return _stack_rows(torch, device, [f.x_train for f in folds], [f.y_train for f in folds], d)


class _Validation:
    """Validation rows of the active entries and their best-validation weights (early stopping)."""

    def __init__(
        self,
        engine: _Engine,
        validation: Sequence[tuple[np.ndarray, np.ndarray]],
        entries: Sequence[Entry],
    ) -> None:
        torch, dev = engine.torch, engine.device
        pairs = [validation[e.index] for e in entries]
        d = engine.layout.sizes[0]
        self.x, self.y = _stack_rows(torch, dev, [p[0] for p in pairs], [p[1] for p in pairs], d)
        n_val = np.array([len(p[1]) for p in pairs])
        real = np.arange(self.x.shape[1])[None, :] < n_val[:, None]
        self.real = torch.as_tensor(real, device=dev)
        self.n_val = torch.as_tensor(n_val, dtype=engine.loss_dtype, device=dev)
        self.best: Any = None

    def keep(self, rows: Any) -> None:
        """Keep the entries ``rows`` (a device index tensor) of the validation rows."""
        self.x = self.x.index_select(0, rows)
        self.y = self.y.index_select(0, rows)
        self.real = self.real.index_select(0, rows)
        self.n_val = self.n_val.index_select(0, rows)

    def accuracy(self, engine: _Engine) -> Any:
        """Validation accuracy of every active entry (class 1 iff the sigmoid is > 0.5)."""
        torch = engine.torch
        th = engine.th_s
        n_hidden = len(engine.layout.sizes) - 2
        a = torch.bmm(self.x, th[0]).clamp_min_(0.0)
        for i in range(1, n_hidden):
            a = torch.baddbmm(th[2 * i], a, th[2 * i - 1]).clamp_min_(0.0)
        o = 2 * n_hidden - 1
        z = torch.baddbmm(th[o + 1], a, th[o])[:, :, 0]
        hit = (torch.sigmoid(z) > 0.5) == (self.y > 0.5)
        return (hit & self.real).sum(dim=1).to(engine.loss_dtype) / self.n_val

    def save_best(self, engine: _Engine, improved: np.ndarray) -> None:
        """Copy the current weights of the ``improved`` entries into the best-validation buffer."""
        if not improved.any():
            return
        torch = engine.torch
        if improved.all():
            self.best.copy_(engine.theta)
            return
        rows = torch.as_tensor(np.flatnonzero(improved), device=engine.device)
        for dst, src in zip(engine.batch.segments.views(self.best), engine.th_s):
            dst.index_copy_(0, rows, src.index_select(0, rows))


def run_batched(
    torch: Any,
    dev: Any,
    layout: ParamLayout,
    folds: Sequence[FoldData],
    entries: list[Entry],
    init: np.ndarray,
    max_epochs: int,
    update: Callable[[int], None] | None,
    final_theta: dict[int, np.ndarray],
    final_loss: dict[int, float],
    hit_max: dict[int, bool],
    *,
    rule: StoppingRule | ValidationRule | None = None,
    validation: Sequence[tuple[np.ndarray, np.ndarray]] | None = None,
    scores: dict[int, float] | None = None,
) -> None:
    """Train every entry to its stopping rule as one batched network; fill the result dicts.

    ``rule`` is the stopping rule (default: the recipe's training-loss :class:`StoppingRule`).
    With ``validation`` (one ``(x_val, y_val)`` per fold) and a :class:`ValidationRule`, the rule
    watches the validation accuracy after every epoch, the best-validation weights are returned
    and ``scores`` receives each entry's best validation accuracy.
    """
    engine = _Engine(torch, dev, layout)
    data_x, data_y = _stack_data(torch, dev, folds, layout.sizes[0])
    rule = StoppingRule(len(entries)) if rule is None else rule
    active = list(entries)
    batch = _Batch(engine, active, data_x, data_y)
    theta = batch.segments.to_flat(torch.tensor(init, device=dev), torch)
    engine.bind(batch, theta, torch.zeros_like(theta), torch.zeros_like(theta))
    val = None
    if validation is not None:
        val = _Validation(engine, validation, active)
        val.best = theta.clone()
    while active:
        # gather this epoch's minibatches (one index_select each for rows and labels)
        idx = batch.pad.copy()
        for j, e in enumerate(active):
            idx[batch.slots[j]] = e.shuffle() + j * batch.n_max
        idx_t = torch.from_numpy(idx).to(dev, non_blocking=True)
        torch.index_select(
            batch.data_x.view(-1, batch.data_x.shape[2]),
            0,
            idx_t,
            out=batch.gathered_x.view(-1, batch.data_x.shape[2]),
        )
        torch.index_select(batch.data_y.view(-1), 0, idx_t, out=batch.gathered_y.view(-1))
        torch.mul(batch.labels, batch.neg_row_w, out=batch.neg_yw)
        engine.epoch(active)
        # epoch loss: Σ_rows BCE (float64, clipped at float32's eps) + (α/2)·Σ_steps ‖W‖², / n_train
        p = batch.probs.clamp(EPS32, 1.0 - EPS32)
        picked = torch.where(batch.labels > 0.5, p, 1.0 - p).to(engine.loss_dtype)
        bce = -(torch.log(picked) * batch.real).sum(dim=(0, 2, 3))
        if batch.keep_l2:
            sq = sum(seg.square().sum(-1) for seg in batch.segments.views_steps(batch.l2_terms))
        else:
            sq = batch.sq.sum(dim=1).view(batch.n_steps, -1)
        l2 = (sq.to(engine.loss_dtype) * batch.l2_scale).sum(0)
        loss_t = (bce + l2) / batch.n_train
        if val is None:
            loss = loss_t.cpu().numpy()  # the epoch's one synchronisation
            stop = rule.update(loss)
        else:
            both = torch.stack([loss_t, val.accuracy(engine)]).cpu().numpy()  # one sync
            loss = both[0]
            stop = rule.update(both[1])
            val.save_best(engine, rule.improved)
        for e in active:
            e.t += e.n_batches
            e.epochs += 1
        capped = np.array([e.epochs >= max_epochs for e in active])
        done = stop | capped
        if update is not None:
            update(len(active))
        if not done.any():
            continue
        kept = engine.theta if val is None else val.best
        theta_cpu = batch.segments.to_rows(kept, torch).cpu().numpy()
        for j, e in enumerate(active):
            if done[j]:
                final_theta[e.index] = theta_cpu[j].copy()
                final_loss[e.index] = float(loss[j])
                hit_max[e.index] = bool(capped[j] and not stop[j])
                if scores is not None and val is not None:
                    scores[e.index] = float(rule.best[j])
        keep = ~done
        if not keep.any():
            break
        # compaction: drop the finished entries from every buffer
        active = [e for e, kp in zip(active, keep) if kp]
        rule.keep(keep)
        rows = torch.as_tensor(np.flatnonzero(keep), device=dev)
        old = batch.segments
        batch = _Batch(
            engine, active, batch.data_x.index_select(0, rows), batch.data_y.index_select(0, rows)
        )
        new = batch.segments
        best = None if val is None else val.best
        theta, m, v = (
            new.to_flat(old.to_rows(buf, torch).index_select(0, rows), torch)
            for buf in (engine.theta, engine.m, engine.v)
        )
        engine.bind(batch, theta, m, v)
        if val is not None:
            val.keep(rows)
            val.best = new.to_flat(old.to_rows(best, torch).index_select(0, rows), torch)
