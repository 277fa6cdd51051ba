"""Compile RAW operators and primitive programs into the weights of real transformer layers.

Akyürek et al., ICLR 2023, appendix (Lemma 3: one layer realises one RAW; Lemma 7: independent
RAWs run in parallel in one layer; division via LayerNorm). The layer is
:func:`numerics.raw.transformer.layer_forward` (softmax attention, GeLU MLP, parameter-free LayerNorm).

Hidden state of the compiled transformer (rows = timesteps, see ``numerics.raw.primitives``):
position 0 is a prepended **sink** (all data zero), position t + 1 holds the program's timestep t.
Units, in order: the program's D data units, a pool of temporary units, a one-hot positional
code over the T + 1 positions, two anchors (+N_a, −N_a) and a **balance** unit equal to minus the
sum of all other units, so every timestep has mean 0 (Akyürek et al. 2023, appendix: z = [x, N, −N, −Σx]).
Every layer keeps the balance exact by giving W^F and W_2 a row of minus their column sums.

Mechanisms (scales in :class:`Scales`):
  * hard attention: query_i = β Σ_{j∈K(i)} e_j + (β/2) e_sink, key_j = e_j, so the logit is β on
    K(i), β/2 on the sink, 0 elsewhere — an empty K(i) attends the sink (reads 0); off-target
    weight ≈ e^{−β/2};
  * a "self-if-written" head cancels the old value h_i[w] and reads W h_i[s] (and the bias);
  * ⊙ via GeLU (Lemma 3): √(π/2)·M²·(GeLU((u+v)/M) − GeLU(u/M) − GeLU(v/M)) ≈ uv, the MLP reading
    u, v from temporaries written by the attention, through LayerNorm: N_a √(2/L) λ(z) ≈ z;
  * div via LayerNorm: the attention writes ±N_d·c, so N_d √(2/L) λ(z)_y ≈ y/|c|; the value
    leaves the MLP through the exact odd pair GeLU(x) − GeLU(−x) = x;
  * temporaries are cleared by the next layer's attention (exactly, before its LayerNorm).

Range: ⊙ and div are approximations whose error grows with the hidden state (:func:`product_error`,
:func:`division_error`). A compiled network records the relative error per product/division it was
built for (``rtol``) and :meth:`Compiled.run` refuses, with a ``ValueError`` naming ``H`` and the
range, an input whose hidden state at some product or division exceeds it. The hard-attention
leak (≈ e^{−β/2} of the other positions' values) is not part of the check.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial

import numpy as np

from icl_verify.errors import InvalidArgument
from icl_verify.numerics.raw.primitives import Div, Mul, Op, Program, Raw, hidden_state
from icl_verify.numerics.raw.transformer import Head, Layer, layer_forward
from icl_verify.numerics.shared.checks import finite_scalar
from icl_verify.numerics.shared.fuzz import Fuzz

SQRT_PI_2 = float(np.sqrt(np.pi / 2))
DEFAULT_RTOL = 1e-3
"""Relative error per product or division a compiled network is built for (:attr:`Compiled.rtol`)."""


@dataclass(frozen=True)
class Scales:
    """The construction's large constants (Akyürek et al. 2023, appendix; the paper leaves them unquantified).

    ``attention`` β (inverse temperature), ``gelu`` M (input 1/M, output M²), ``anchor`` N_a
    (LayerNorm bypass), ``divide`` N_d (division via LayerNorm). The defaults sit where the
    O(1/N²) construction error meets float64 round-off.
    """

    attention: float = 100.0
    gelu: float = 1e5
    anchor: float = 1e5
    divide: float = 1e10

    def __post_init__(self) -> None:
        for name in ("attention", "gelu", "anchor", "divide"):
            object.__setattr__(self, name, finite_scalar(name, getattr(self, name), positive=True))

    @classmethod
    def uniform(cls, n: float, *, attention: float | None = None) -> Scales:
        """One scale N: β = N (or ``attention``), M = N_a = N, N_d = N²."""
        n = finite_scalar("n", n, positive=True)
        return cls(attention=n if attention is None else attention, gelu=n, anchor=n, divide=n * n)


# ---------------------------------------------------------------------------------------------
# Geometry of the compiled hidden state


@dataclass(frozen=True)
class Geometry:
    """Unit layout of the compiled hidden state for a program with T timesteps and D data units."""

    T: int
    D: int
    temps: int

    @property
    def positions(self) -> int:
        return self.T + 1

    @property
    def pos0(self) -> int:
        return self.D + self.temps

    @property
    def anchor(self) -> int:
        return self.pos0 + self.positions

    @property
    def balance(self) -> int:
        return self.anchor + 2

    @property
    def width(self) -> int:
        return self.balance + 1

    def temp(self, k: int) -> int:
        return self.D + k


def encode(H: object, geometry: Geometry, scales: Scales) -> np.ndarray:
    """The compiled hidden state (T + 1, width) for a program state ``H`` (T, D): sink first."""
    H = hidden_state("H", H)
    g = geometry
    if H.shape != (g.T, g.D):
        raise InvalidArgument(f"H must have shape (T, D) = {(g.T, g.D)}, got {H.shape}")
    h = np.zeros((g.positions, g.width))
    h[1:, : g.D] = H
    h[np.arange(g.positions), g.pos0 + np.arange(g.positions)] = 1.0
    h[:, g.anchor], h[:, g.anchor + 1] = scales.anchor, -scales.anchor
    h[:, g.balance] = -h[:, : g.balance].sum(axis=1)
    return h


def decode(h: np.ndarray, geometry: Geometry) -> np.ndarray:
    """The program state (T, D) held by a compiled hidden state (drops the sink and the scaffolding)."""
    return h[1:, : geometry.D]


# ---------------------------------------------------------------------------------------------
# Building one layer


Pattern = tuple[tuple[int, ...], ...]  # read positions for each compiled position 0..T


def _read_pattern(K: Sequence[Sequence[int]]) -> Pattern:
    return ((),) + tuple(tuple(j + 1 for j in Ki) for Ki in K)


def _self_pattern(K: Sequence[Sequence[int]]) -> Pattern:
    return ((),) + tuple((i + 1,) if Ki else () for i, Ki in enumerate(K))


@dataclass
class _Builder:
    """Accumulates heads (one per read pattern), W^F entries and MLP units for one layer."""

    geometry: Geometry
    scales: Scales
    values: dict[Pattern, list[np.ndarray]] = field(default_factory=dict)
    writes: list[tuple[int, Pattern, int, float]] = field(default_factory=list)
    w1: list[np.ndarray] = field(default_factory=list)
    w2: list[dict[int, float]] = field(default_factory=list)
    next_temp: int = 0

    def unit(self, u: int, coef: float = 1.0) -> np.ndarray:
        v = np.zeros(self.geometry.width)
        v[u] = coef
        return v

    def value(self, pattern: Pattern, functional: np.ndarray) -> tuple[Pattern, int]:
        rows = self.values.setdefault(pattern, [])
        rows.append(functional)
        return pattern, len(rows) - 1

    def write(self, unit: int, ref: tuple[Pattern, int], coef: float) -> None:
        if coef != 0.0:
            self.writes.append((unit, ref[0], ref[1], float(coef)))

    def temp(self) -> int:
        self.next_temp += 1
        if self.next_temp > self.geometry.temps:
            raise ValueError("temporary pool too small for this layer")
        return self.geometry.temp(self.next_temp - 1)

    def constant(self) -> np.ndarray:
        """Functional equal to exactly 1 at data positions and 0 at the sink: Σ_{t ≥ 1} e_pos(t)."""
        g = self.geometry
        v = np.zeros(g.width)
        v[g.pos0 + 1 : g.pos0 + g.positions] = 1.0
        return v

    def mlp_unit(self, reads: dict[int, float], outputs: dict[int, float]) -> None:
        row = np.zeros(self.geometry.width)
        for u, c in reads.items():
            row[u] += c
        self.w1.append(row)
        self.w2.append(outputs)

    def ln_gain(self, scale: float) -> float:
        """Weight that turns a LayerNorm output back into the hidden value: scale·√(2/L)."""
        return scale * np.sqrt(2.0 / self.geometry.width)


def _add_sum(b: _Builder, raw_op: Raw, out_units: Sequence[int]) -> None:
    """⊛ = +: h[w] ← W_o(avg W_a h_k[r] + W h_i[s]) + b, entirely in the attention.

    When K(i) ⊆ {i} (aff) the read and the self head coincide and share one value row per q."""
    read, self_ = _read_pattern(raw_op.K), _self_pattern(raw_op.K)
    for q in range(raw_op.p):
        ref_a = _functional(b, raw_op.r, raw_op.W_a[q])
        ref_s = None if raw_op.W is None else _functional(b, raw_op.s, raw_op.W[q])
        if read == self_ and ref_s is not None:
            refs = [b.value(read, ref_a + ref_s)]
        else:
            refs = [b.value(read, ref_a)] + ([] if ref_s is None else [b.value(self_, ref_s)])
        for o, unit in enumerate(out_units):
            for ref in refs:
                b.write(unit, ref, raw_op.W_o[o, q])
    _cancel_and_bias(b, raw_op, self_, out_units)


def _cancel_and_bias(b: _Builder, raw_op: Raw, self_: Pattern, out_units: Sequence[int]) -> None:
    """Subtract the old h_i[w] where K(i) ≠ ∅ and add the bias there (one shared constant row)."""
    for unit in out_units:
        b.write(unit, b.value(self_, b.unit(unit)), -1.0)
    if raw_op.bias is not None and np.any(raw_op.bias != 0):
        ref = b.value(self_, b.constant())
        for o, unit in enumerate(out_units):
            b.write(unit, ref, raw_op.bias[o])


def _functional(b: _Builder, units: Sequence[int], coefs: np.ndarray) -> np.ndarray:
    v = np.zeros(b.geometry.width)
    for u, c in zip(units, coefs):
        v[u] += c
    return v


def _add_product(b: _Builder, raw_op: Raw) -> None:
    """⊛ = ⊙: the attention writes u = avg W_a h_k[r] and v = W h_i[s] to temporaries, the MLP
    adds W_o(u ⊙ v) through √(π/2)M²(GeLU((u+v)/M) − GeLU(u/M) − GeLU(v/M)) (Lemma 3)."""
    read, self_ = _read_pattern(raw_op.K), _self_pattern(raw_op.K)
    M = b.scales.gelu
    gain = b.ln_gain(b.scales.anchor) / M
    for q in range(raw_op.p):
        tu, tv = b.temp(), b.temp()
        b.write(tu, b.value(read, _functional(b, raw_op.r, raw_op.W_a[q])), 1.0)
        b.write(tv, b.value(self_, _functional(b, raw_op.s, raw_op.W[q])), 1.0)
        out = {unit: raw_op.W_o[o, q] * SQRT_PI_2 * M * M for o, unit in enumerate(raw_op.w)}
        b.mlp_unit({tu: gain, tv: gain}, out)
        b.mlp_unit({tu: gain}, {u: -c for u, c in out.items()})
        b.mlp_unit({tv: gain}, {u: -c for u, c in out.items()})
    _cancel_and_bias(b, raw_op, self_, raw_op.w)


def _add_div(b: _Builder, op: Div) -> None:
    """div via LayerNorm: write y and ±N_d·c to temporaries; N_d √(2/L) λ(z)_y ≈ y/|c|,
    passed out exactly by GeLU(x) − GeLU(−x) = x."""
    T = b.geometry.T
    cols = set(range(T)) if op.columns is None else set(op.columns)
    K = tuple((i,) if i in cols else () for i in range(T))
    self_ = _self_pattern(K)
    n_d = b.scales.divide
    c_ref = b.value(self_, b.unit(op.denom))
    plus, minus = b.temp(), b.temp()
    b.write(plus, c_ref, n_d)
    b.write(minus, c_ref, -n_d)
    gain = b.ln_gain(n_d)
    for y_unit, out_unit in zip(range(*op.rows), range(*op.rows_out)):
        ty = b.temp()
        b.write(ty, b.value(self_, b.unit(y_unit)), 1.0)
        b.write(out_unit, b.value(self_, b.unit(out_unit)), -1.0)
        b.mlp_unit({ty: gain}, {out_unit: 1.0})
        b.mlp_unit({ty: -gain}, {out_unit: -1.0})


def _clear_temps(b: _Builder, temps: int, positions: frozenset[int]) -> None:
    """Subtract the first ``temps`` temporaries at the compiled ``positions`` (self-attention there).

    The compiler passes the positions where the previous or the current layer writes temporaries,
    so a temporary is exactly reset before the MLP reads it; elsewhere temporaries only collect
    the e^{−β/2}-weighted leak of hard attention."""
    g = b.geometry
    if temps == 0 or not positions:
        return
    pattern: Pattern = ((),) + tuple((i,) if i in positions else () for i in range(1, g.positions))
    for k in range(temps):
        b.write(g.temp(k), b.value(pattern, b.unit(g.temp(k))), -1.0)


def _head(pattern: Pattern, rows: list[np.ndarray], g: Geometry, scales: Scales) -> Head:
    """Query/key space: the sink plus every position some K(i) reads (one dimension each)."""
    beta = scales.attention
    keys = [0] + sorted({j for reads in pattern for j in reads})
    slot = {j: k for k, j in enumerate(keys)}
    W_Q = np.zeros((len(keys), g.width))
    for i, reads in enumerate(pattern):
        for j in reads:
            W_Q[slot[j], g.pos0 + i] = beta
    W_Q[0, g.anchor] = beta / (2.0 * scales.anchor)  # logit β/2 on the sink from every position
    W_K = np.zeros((len(keys), g.width))
    W_K[np.arange(len(keys)), g.pos0 + np.array(keys)] = 1.0
    return Head(W_Q, W_K, np.array(rows))


def _balanced(M: np.ndarray, balance: int) -> np.ndarray:
    M[balance] = 0.0
    M[balance] = -M.sum(axis=0)
    return M


def _assemble(b: _Builder) -> Layer:
    g = b.geometry
    patterns = list(b.values)
    offsets = np.cumsum([0] + [len(b.values[p]) for p in patterns])
    heads = tuple(_head(p, b.values[p], g, b.scales) for p in patterns)
    start = {p: int(offsets[k]) for k, p in enumerate(patterns)}
    W_F = np.zeros((g.width, int(offsets[-1])))
    for unit, pattern, idx, coef in b.writes:
        W_F[unit, start[pattern] + idx] += coef
    W_1 = np.array(b.w1).reshape(len(b.w1), g.width)
    W_2 = np.zeros((g.width, len(b.w2)))
    for k, outputs in enumerate(b.w2):
        for u, c in outputs.items():
            W_2[u, k] += c
    return Layer(heads, _balanced(W_F, g.balance), W_1, _balanced(W_2, g.balance))


# ---------------------------------------------------------------------------------------------
# Items, packing and the compiled program


Item = Raw | Div


def _items(op: Op, T: int) -> list[Item]:
    return [op] if isinstance(op, Div) else op.raws(T)


def _temps_needed(items: Sequence[Item]) -> int:
    total = 0
    for it in items:
        if isinstance(it, Div):
            total += 2 + (it.rows[1] - it.rows[0])
        elif it.op == "*":
            total += 2 * it.p
    return total


def _uses_mlp(items: Sequence[Item]) -> str | None:
    kinds = {"div" if isinstance(it, Div) else "mul" for it in items if isinstance(it, Div) or it.op == "*"}
    return "div" if "div" in kinds else ("mul" if kinds else None)


def _compatible(group: list[Op], op: Op, T: int) -> bool:
    """Lemma 7: ``op`` may join the layer if it reads and writes no unit the layer writes,
    and the MLP is free for it (a division needs the LayerNorm to itself)."""
    written = frozenset().union(*(g.writes() for g in group))
    if op.reads() & written or op.writes() & written:
        return False
    mine = _uses_mlp(_items(op, T))
    theirs = _uses_mlp([it for g in group for it in _items(g, T)])
    return mine is None or theirs is None or (mine == theirs == "mul")


def pack(program: Program, *, parallel: bool = True) -> list[list[Op]]:
    """Group consecutive independent primitives into layers (greedy, in program order)."""
    groups: list[list[Op]] = []
    for op in program.ops:
        if parallel and groups and _compatible(groups[-1], op, program.T):
            groups[-1].append(op)
        else:
            groups.append([op])
    return groups


def _support(item: Item, T: int) -> frozenset[tuple[int, int]]:
    """The (timestep, unit) pairs an item writes."""
    if isinstance(item, Div):
        cols = range(T) if item.columns is None else item.columns
        return frozenset((t, u) for t in cols for u in range(*item.rows_out))
    return frozenset((t, u) for t, Kt in enumerate(item.K) if Kt for u in item.w)


def check_parallel(items: Sequence[Item], T: int) -> None:
    """``ValueError`` if two items write the same unit at the same timestep, or if a division
    shares the layer's MLP with another division or product."""
    seen: dict[tuple[int, int], int] = {}
    for n, it in enumerate(items):
        for key in _support(it, T):
            if key in seen:
                raise InvalidArgument(
                    f"items {seen[key]} and {n} both write unit {key[1]} at timestep {key[0]} (overlapping write rows)"
                )
            seen[key] = n
    n_div = sum(isinstance(it, Div) for it in items)
    n_mul = sum(isinstance(it, Raw) and it.op == "*" for it in items)
    if n_div > 1 or (n_div and n_mul):
        raise InvalidArgument("a division needs the layer's MLP to itself (no other ⊙ or division in the layer)")


def _temp_positions(items: Sequence[Item], T: int) -> frozenset[int]:
    """Compiled positions (t + 1) where products or divisions write temporaries."""
    return frozenset(t + 1 for it in items if isinstance(it, Div) or it.op == "*" for t, _ in _support(it, T))


def build_layer(
    items: Sequence[Item], geometry: Geometry, scales: Scales, *, clear: tuple[int, frozenset[int]] | None = None
) -> Layer:
    """One transformer layer running the independent ``items`` in parallel (Lemmas 3 and 7; division via LayerNorm).

    ``clear = (k, positions)`` resets temporaries 0..k−1 at those positions first (default: the
    whole pool wherever this layer writes temporaries).
    """
    check_parallel(items, geometry.T)
    b = _Builder(geometry, scales)
    temps, positions = clear if clear is not None else (geometry.temps, _temp_positions(items, geometry.T))
    _clear_temps(b, temps, positions)
    for it in items:
        if isinstance(it, Div):
            _add_div(b, it)
        elif it.op == "+":
            _add_sum(b, it, it.w)
        else:
            _add_product(b, it)
    return _assemble(b)


# ---------------------------------------------------------------------------------------------
# The range of the approximations


@dataclass(frozen=True)
class Checkpoint:
    """Where a layer's MLP approximates: ``kind`` "mul" or "div" at the compiled ``positions``
    (timestep + 1); for a division, the ``denominator`` unit."""

    kind: str
    positions: tuple[int, ...]
    denominator: int | None = None


def _checkpoint(items: Sequence[Item], T: int) -> Checkpoint | None:
    kind = _uses_mlp(items)
    if kind is None:
        return None
    denominator = next((it.denom for it in items if isinstance(it, Div)), None)
    return Checkpoint(kind, tuple(sorted(_temp_positions(items, T))), denominator)


def _rest(z: np.ndarray, geometry: Geometry) -> np.ndarray:
    """S = Σ z² over every unit but the two anchors, per timestep."""
    return np.sum(np.delete(z, [geometry.anchor, geometry.anchor + 1], axis=-1) ** 2, axis=-1)


def product_error(z: np.ndarray, geometry: Geometry, scales: Scales) -> np.ndarray:
    """Bound on the relative error of u ⊙ v through LayerNorm and GeLU, per timestep of z = a + h.

    z has mean 0 (the balance unit), so Σz² = 2N_a² + S and the LayerNorm hands each factor on scaled
    by √f, f = 2N_a²/(2N_a² + S): the product loses 1 − f = S/(2N_a² + S). The GeLU product of Lemma 3,
    √(π/2) M² (GeLU((u+v)/M) − GeLU(u/M) − GeLU(v/M)) = uv (1 − (2u² + 3uv + 2v²)/(6M²) + O(M⁻⁴))
    (from GeLU(x) = x/2 + x²/√(2π) − x⁴/(6√(2π)) + O(x⁶)), applied to √f u, √f v with u², v² ≤ S,
    adds at most 7 f S/(12 M²).
    """
    s = _rest(z, geometry)
    q = 2 * scales.anchor**2 + s
    return s / q + 7 * (2 * scales.anchor**2 / q) * s / (12 * scales.gelu**2)


def division_error(z: np.ndarray, denominator: int, scales: Scales) -> np.ndarray:
    """Relative error of y/|c| through LayerNorm, per timestep of z = a + h (c = z[denominator]).

    The attention writes ±N_d c, so N_d √(2/L) λ(z)_y = y/|c| · (1 + R/(2N_d²c²))^{−1/2} with
    R = Σz² − 2N_d²c² (the rest of the hidden state, anchors included); the error is 1 minus that factor.
    """
    c2 = 2 * scales.divide**2 * z[..., denominator] ** 2
    with np.errstate(divide="ignore", invalid="ignore"):
        x = np.where(c2 > 0, np.maximum(np.sum(z**2, axis=-1) - c2, 0.0) / c2, np.inf)
    return -np.expm1(-0.5 * np.log1p(x))


@dataclass(frozen=True)
class Compiled:
    """A compiled program: layers plus the geometry to encode/decode program states.

    ``checkpoints`` (one per layer, None where the MLP is exact) and ``rtol`` define the range the
    network is accurate on: every product and division within ``rtol`` relative error (module docstring).
    """

    layers: tuple[Layer, ...]
    geometry: Geometry
    scales: Scales
    groups: tuple[tuple[Op, ...], ...]
    checkpoints: tuple[Checkpoint | None, ...] = ()
    rtol: float = DEFAULT_RTOL

    def __post_init__(self) -> None:
        rtol = finite_scalar("rtol", self.rtol, positive=True)
        if rtol >= 1:
            raise InvalidArgument(f"rtol must be below 1, got {self.rtol!r}")
        object.__setattr__(self, "rtol", rtol)
        if self.checkpoints and len(self.checkpoints) != len(self.layers):
            raise InvalidArgument(
                f"checkpoints must have one entry per layer ({len(self.layers)}), got {len(self.checkpoints)}"
            )

    @property
    def max_norm(self) -> float:
        """The products' range: the hidden-state norm √S (all units but the anchors) at which
        :func:`product_error` reaches ``rtol``, to first order S (1/(2N_a²) + 7/(12M²)) = rtol."""
        return float(np.sqrt(self.rtol / (1 / (2 * self.scales.anchor**2) + 7 / (12 * self.scales.gelu**2))))

    def _check(self, k: int, checkpoint: Checkpoint, z: np.ndarray) -> None:
        """``ValueError`` naming H if layer ``k``'s approximation at ``checkpoint`` exceeds ``rtol`` on z."""
        at = np.array(checkpoint.positions, dtype=int)
        if checkpoint.kind == "mul":
            err = product_error(z[at], self.geometry, self.scales)
        else:
            err = division_error(z[at], checkpoint.denominator, self.scales)
        if np.all(err <= self.rtol):
            return
        j = int(np.argmax(err))
        t, where = int(at[j]) - 1, f"layer {k} ({'product' if checkpoint.kind == 'mul' else 'division'})"
        if checkpoint.kind == "mul":
            norm = float(np.sqrt(_rest(z[at[j]], self.geometry)))
            detail = f"the hidden state has norm {norm:.3g} > {self.max_norm:.3g}"
        else:
            detail = f"the denominator {z[at[j], checkpoint.denominator]:.3g} is too small for the hidden state"
        raise InvalidArgument(
            f"H is outside the range this network was compiled for: at timestep {t}, {where}, {detail} "
            f"(estimated relative error {err[j]:.2g} > rtol = {self.rtol:.2g} at gelu = {self.scales.gelu:g}, "
            f"anchor = {self.scales.anchor:g}, divide = {self.scales.divide:g}); scale H down or compile with larger Scales"
        )

    @property
    def depth(self) -> int:
        return len(self.layers)

    @property
    def width(self) -> int:
        return self.geometry.width

    @property
    def mlp_width(self) -> int:
        """Largest number of GeLU units in a layer."""
        return max(layer.mlp_units for layer in self.layers)

    def run(self, H: object, *, check_range: bool = True) -> np.ndarray:
        """Encode ``H``, run the layers (numerics.raw.transformer.layer_forward), decode the program state.

        Raises ``ValueError`` if ``H`` is outside the compiled range (:meth:`_check`); ``check_range=False``
        skips the check, for experiments that measure the approximation error itself.
        """
        h = encode(H, self.geometry, self.scales)
        checkpoints = self.checkpoints if check_range and self.checkpoints else (None,) * len(self.layers)
        for k, (layer, checkpoint) in enumerate(zip(self.layers, checkpoints)):
            inspect = None if checkpoint is None else partial(self._check, k, checkpoint)
            h = layer_forward(h, layer, inspect=inspect)
        return decode(h, self.geometry)


def compile_items(
    groups: Sequence[Sequence[Item]], T: int, D: int, scales: Scales | None = None
) -> tuple[tuple[Layer, ...], Geometry]:
    """Compile layers of parallel items (RAWs / divisions) for T timesteps and D data units."""
    scales = scales or Scales()
    geometry = Geometry(T, D, max(_temps_needed(g) for g in groups))
    layers, previous = [], (0, frozenset())
    for g in groups:
        current = (_temps_needed(g), _temp_positions(g, T))
        clear = (max(previous[0], current[0]), previous[1] | current[1])
        layers.append(build_layer(g, geometry, scales, clear=clear))
        previous = current
    return tuple(layers), geometry


def compile_raws(raws: Sequence[Raw], D: int, scales: Scales | None = None, *, rtol: float = DEFAULT_RTOL) -> Compiled:
    """One layer running the independent RAWs ``raws`` (all on the same T) in parallel, accurate to ``rtol``."""
    if not raws:
        raise InvalidArgument("raws must contain at least one Raw")
    T = raws[0].T
    for n, it in enumerate(raws):
        if it.T != T:
            raise InvalidArgument(f"raws[{n}] is defined on T = {it.T} timesteps, expected {T}")
        it.check_width(D)
    scales = scales or Scales()
    layers, geometry = compile_items([list(raws)], T, D, scales)
    return Compiled(layers, geometry, scales, (), (_checkpoint(raws, T),), rtol)


def compile_program(
    program: Program, scales: Scales | None = None, *, parallel: bool = True, rtol: float = DEFAULT_RTOL
) -> Compiled:
    """A program → a stack of layers: independent consecutive primitives share a layer (Lemma 7).

    ``rtol``: the relative error per product/division the network guarantees; :meth:`Compiled.run`
    refuses inputs outside that range."""
    if not isinstance(program, Program):
        raise InvalidArgument(f"program must be a numerics.raw.primitives.Program, got {type(program).__name__}")
    scales = scales or Scales()
    groups = pack(program, parallel=parallel)
    items = [[it for op in g for it in _items(op, program.T)] for g in groups]
    layers, geometry = compile_items(items, program.T, program.D, scales)
    checkpoints = tuple(_checkpoint(g, program.T) for g in items)
    return Compiled(layers, geometry, scales, tuple(tuple(g) for g in groups), checkpoints, rtol)


# ---------------------------------------------------------------------------------------------
# Examples for the bad-input fuzzer (numerics.shared.fuzz)

FUZZ = {
    "compile_program": Fuzz(
        lambda: {"program": Program(1, 3, (Mul(1, 1, 1, (0, 1), (1, 2), (2, 3)),)), "rtol": 1e-4}, fixed=("program",)
    ),
}
FUZZ_EXEMPT = {
    **{
        name: "compiler internals on validated Program/Geometry/Scales objects"
        for name in ("encode", "decode", "pack", "check_parallel", "build_layer", "compile_items", "compile_raws")
    },
    "product_error": "error bound on a compiled hidden state",
    "division_error": "error bound on a compiled hidden state",
}
