"""The (w, β) learning-kinetics ODE of Nguyen & Reddy (ICLR 2025, arXiv 2412.00104, §3.4–3.7).

The attention path of the reduced model z = φ(x_t) + w Σ_j softmax_j(β x_t·x_j) ℓ_j follows,
in the regime e^β ≪ N, the gradient flow of L ≈ L_IWL − (c₁/N)(w e^β − (c₂/2) w²) (paper eq. 3–4):

    dw/dt = (c₁/N)(e^β − c₂ w) − λ_w w,        dβ/dt = (c₁/N) w e^β − λ_β β,

with c₁(t), c₂(t) set by the MLP's residual error and λ_w, λ_β the weight-decay rates on the
attention path (transience, §3.7; decay λ on a parameter θ adds −λθ; the reduced model decays w
and β directly, λ_w = λ_β = λ, while in the transformer β is a product of W_Q and W_K, so
λ_β ≈ 2λ). β blows up in finite time: ICL is acquired at that time t_ICL (I_K(t_ICL) = N τ*).

The blow-up is made regular by integrating in an arc variable s with dt/ds = 1/(1 + r e^β),
r = max c₁ / N: every initial condition then runs at a bounded speed and a whole batch of
(w₀, β₀) is solved in one :func:`scipy.integrate.solve_ivp` call. An initial condition has
acquired ICL once β ≥ ``beta_cap`` (default 40: the time left from there to blow-up is
≈ e^{−40}/w in clock units, far below the integration tolerance).

Closed forms (derived in ``theory/kinetics.py`` with SymPy, re-stated here without SymPy):
τ* = e^{−β₀ + w₀²/2} √(π/2) erfc(w₀/√2) for c₂ = 0, and τ* ≈ (c₂/2) e^{−2β₀} for β₀ ≪ 0.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.integrate import RK45, cumulative_trapezoid, solve_ivp
from scipy.special import erfcx, expit

from icl_verify.errors import InvalidArgument
from icl_verify.numerics.shared.checks import finite_array, finite_result, finite_scalar, positive_int, time_series
from icl_verify.numerics.shared.fuzz import Fuzz, logged_series
from icl_verify.numerics.shared.stats import scipy_stats

Schedule = Callable[[np.ndarray], np.ndarray]
"""A coefficient as a function of time, vectorised: c(t) for an array of times."""

BETA_CAP = 40.0
"""β at which an initial condition counts as having blown up (ICL acquired)."""


# ---------------------------------------------------------------------------------------------
# Coefficients c₁(t), c₂(t)


def constant(value: float, *, name: str = "c") -> Schedule:
    """A constant non-negative coefficient, e.g. c₁ = ½ for K → ∞ (paper §3.5)."""
    v = finite_scalar(f"{name} value", value, nonnegative=True)
    return lambda t: np.full(np.shape(t), v)


def table(times: object, values: object, *, name: str = "c") -> Schedule:
    """A coefficient measured in a simulation: linear interpolation, end values held outside.

    ``times`` must be strictly increasing; ``values`` non-negative (c₁ and c₂ are averages of
    non-negative quantities, paper §3.4).
    """
    t, v = time_series(f"{name} times", times, f"{name} values", values, strict=True)
    if np.any(v < 0):
        raise InvalidArgument(f"{name} values must be non-negative, got minimum {v.min()!r}")
    return lambda s: np.interp(s, t, v)


def _schedule(name: str, c: float | Schedule) -> float | Schedule:
    """A schedule as given, or a constant coefficient as its validated value (it is not re-evaluated per step)."""
    if callable(c):
        return c
    return finite_scalar(f"{name} value", c, nonnegative=True)


def _peak(name: str, c: float | Schedule, t_max: float) -> float:
    """Largest value of a schedule on [0, t_max] (sampled), checking it is non-negative."""
    if not callable(c):
        return c
    sample = np.asarray(c(np.linspace(0.0, t_max, 257)), dtype=float)
    if not np.all(np.isfinite(sample)):
        raise InvalidArgument(f"{name} must be finite on [0, t_max]")
    if np.any(sample < 0):
        raise InvalidArgument(f"{name} must be non-negative, got {sample.min()!r}")
    return float(sample.max())


# ---------------------------------------------------------------------------------------------
# The ODE


class _ArcFlow:
    """d(t, w, β)/ds in the arc variable s (dt/ds = 1/(1 + r e^β)), vectorised over initial conditions.

    e^β/(1 + r e^β) = σ(g)/r and 1/(1 + r e^β) = σ(−g) with g = β + ln r, so nothing overflows.
    ``offset`` = 1 turns the w-drive e^β into e^β − 1 (equalised contexts). Everything that does not
    change along the solution (1/r; with constant c₁ and c₂ also c₁/N and c₁c₂/N + λ_w) is formed once:
    the solver evaluates the flow ~10⁴ times per solution on a few initial conditions, where the cost
    is the number of NumPy calls, not their size. Each value is the one the per-step expression gives.
    """

    def __init__(
        self,
        n: np.ndarray,
        log_r: np.ndarray,
        c1: float | Schedule,
        c2: float | Schedule,
        decay_w: float,
        decay_beta: float,
        offset: float,
        *,
        inv_r: np.ndarray | None = None,
        rates: tuple[np.ndarray, np.ndarray] | None = None,
    ) -> None:
        self.n, self.log_r, self.c1, self.c2 = n, log_r, c1, c2
        self.decay_w, self.decay_beta, self.offset = decay_w, decay_beta, offset
        self.inv_r = np.exp(-log_r) if inv_r is None else inv_r
        if rates is None and not (callable(c1) or callable(c2)):
            rates = (c1 / n, c1 * c2 / n + decay_w)
        self.rates = rates

    def lanes(self, keep: np.ndarray) -> _ArcFlow:
        """The flow of the initial conditions selected by ``keep`` (a boolean mask)."""
        rates = None if self.rates is None else (self.rates[0][keep], self.rates[1][keep])
        return _ArcFlow(
            self.n[keep],
            self.log_r[keep],
            self.c1,
            self.c2,
            self.decay_w,
            self.decay_beta,
            self.offset,
            inv_r=self.inv_r[keep],
            rates=rates,
        )

    def __call__(self, t: np.ndarray, w: np.ndarray, beta: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(dt/ds, dw/ds, dβ/ds) at clock times ``t``: (σ(−g), (c₁/N)(σ(g)/r − offset·σ(−g)) −
        (c₁c₂/N + λ_w) w σ(−g), (c₁/N) w σ(g)/r − λ_β β σ(−g))."""
        if self.rates is None:
            a1 = self.c1(t) if callable(self.c1) else self.c1
            a2 = self.c2(t) if callable(self.c2) else self.c2
            drive, damp = a1 / self.n, a1 * a2 / self.n + self.decay_w
        else:
            drive, damp = self.rates
        g = beta + self.log_r
        slow = expit(-g)
        fast = expit(g) * self.inv_r
        push = fast - self.offset * slow if self.offset else fast  # fast − 0·slow is fast exactly (slow ≥ 0)
        dw = drive * push - damp * w * slow
        db = drive * w * fast - self.decay_beta * beta * slow
        return slow, dw, db

    def stacked(self, _s: float, y: np.ndarray) -> np.ndarray:
        """The flow on the state y = (t, w, β) stacked into one vector, as ``solve_ivp`` calls it."""
        return np.concatenate(self(*y.reshape(3, -1)))


@dataclass(frozen=True)
class KineticsSolution:
    """Solution of the (w, β) ODE for a batch of initial conditions.

    ``t_icl[i]``: time at which β_i blew up (reached ``beta_cap``), NaN if not before ``t_max``.
    ``t``, ``w``, ``beta``: trajectories on the requested time grid, shape (M, len(t));
    NaN after the blow-up. ``n_steps``: accepted solver steps.
    """

    w0: np.ndarray
    beta0: np.ndarray
    t_icl: np.ndarray
    t: np.ndarray
    w: np.ndarray
    beta: np.ndarray
    n_steps: int


def _initial(w0: object, beta0: object, n: object) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """w₀, β₀ and N ≥ 1 broadcast to M initial conditions (each a scalar or of one common length M).

    N may differ between initial conditions (real values allowed for the continuous scaling checks).
    """
    named = (("w0", w0), ("beta0", beta0), ("n", n))
    arrays = [finite_array(name, np.atleast_1d(v), ndim=1, nonempty=True) for name, v in named]
    sizes = {a.size for a in arrays} - {1}
    if len(sizes) > 1:
        raise InvalidArgument(
            f"w0, beta0 and n must have the same length (or length 1), got {[a.size for a in arrays]}"
        )
    if np.any(arrays[2] < 1):
        raise InvalidArgument(f"n must be at least 1, got {n!r}")
    w, b, length = (a.astype(float) for a in np.broadcast_arrays(*arrays))
    return w, b, length


def _problem(w0, beta0, n, c1, c2, t_max, decay_w, decay_beta, beta_cap, equalised):
    """Validate the arguments shared by :func:`integrate` and :func:`blowup_times`; build d(t, w, β)/ds."""
    w_init, b_init, n = _initial(w0, beta0, n)
    t_max = finite_scalar("t_max", t_max, positive=True)
    decay_w = finite_scalar("decay_w", decay_w, nonnegative=True)
    decay_beta = finite_scalar("decay_beta", decay_beta, nonnegative=True)
    beta_cap = finite_scalar("beta_cap", beta_cap)
    if np.any(b_init >= beta_cap):
        raise InvalidArgument(f"beta0 must be below beta_cap = {beta_cap}")
    c1s, c2s = _schedule("c1", c1), _schedule("c2", c2)
    peak = _peak("c1", c1s, t_max)
    _peak("c2", c2s, t_max)
    log_r = np.log(max(peak, 1e-300) / n)
    return w_init, b_init, t_max, beta_cap, _ArcFlow(n, log_r, c1s, c2s, decay_w, decay_beta, float(equalised))


def integrate(
    w0: object,
    beta0: object,
    *,
    n: float | np.ndarray,
    c1: float | Schedule = 0.5,
    c2: float | Schedule = 0.5,
    t_max: float,
    decay_w: float = 0.0,
    decay_beta: float = 0.0,
    t_eval: object | None = None,
    beta_cap: float = BETA_CAP,
    rtol: float = 1e-10,
    atol: float = 1e-12,
    method: str = "DOP853",
    equalised: bool = False,
) -> KineticsSolution:
    """Integrate dw/dt = (c₁/N)(e^β − c₂ w) − λ_w w, dβ/dt = (c₁/N) w e^β − λ_β β (paper eq. 4).

    ``w0``/``beta0``/``n`` broadcast to M initial conditions (each its own context length N when ``n``
    is an array), all solved in one call. ``c1``/``c2`` are
    constants or schedules (:func:`constant`, :func:`table`). Returns blow-up times and, when
    ``t_eval`` is given, the trajectories on that grid (from the solver's dense output).
    ``equalised=True`` uses the equalised-context drive dw/dt = (c₁/N)(e^β − 1) (§3.7; pass c2=0,
    the equalised loss has no c₂ term at O(1/N)).
    """
    w_init, b_init, t_max, beta_cap, flow = _problem(
        w0, beta0, n, c1, c2, t_max, decay_w, decay_beta, beta_cap, equalised
    )
    m = w_init.size

    def done(_s: float, y: np.ndarray) -> float:
        t, _, beta = y.reshape(3, -1)
        return float(np.min(np.maximum(beta - beta_cap, t - t_max)))

    done.terminal = True
    y0 = np.concatenate([np.zeros(m), w_init, b_init])
    sol = solve_ivp(
        flow.stacked,
        (0.0, np.inf),
        y0,
        method=method,
        events=done,
        rtol=rtol,
        atol=atol,
        dense_output=t_eval is not None,
    )
    if sol.status < 0:
        raise InvalidArgument(f"the ODE for these w0, beta0, n, c1, c2, t_max cannot be integrated: {sol.message}")
    t_end, _, b_end = np.split(sol.y[:, -1], 3)
    reached = (b_end >= beta_cap - 1e-9) & (t_end <= t_max)
    t_icl = np.where(reached, t_end, np.nan)
    grid, w_traj, b_traj = _trajectories(sol, t_eval, m, beta_cap, flow.log_r)
    return KineticsSolution(w_init, b_init, t_icl, grid, w_traj, b_traj, int(sol.t.size - 1))


# Dormand–Prince 5(4) (Dormand & Prince 1980; Hairer, Nørsett & Wanner, Table II.5.2), SciPy's RK45 tableau.
# Seven stages: RK45's six, then the FSAL stage at the 5th-order solution (its row of A is B). The
# nodes RK45.C are not needed: the arc-variable system is autonomous. SciPy's error weights RK45.E are
# b̂ − b (4th- minus 5th-order weights, over the seven stages); _DP_E = b − b̂.
_DP_A = tuple(tuple(RK45.A[i, :i]) for i in range(RK45.n_stages)) + (tuple(RK45.B),)
_DP_B = np.append(RK45.B, 0.0)
_DP_E = -RK45.E


def _dp_step(derivs, y: np.ndarray, h: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One Dormand–Prince step of size h (per lane) for y of shape (3, M): (5th-order y_new, error)."""
    k = np.empty((len(_DP_A), *y.shape))  # the stages' derivatives, written in place
    for i, row in enumerate(_DP_A):
        total = np.zeros_like(y)
        for a, k_j in zip(row, k):
            if a:
                total += a * k_j
        k[i, 0], k[i, 1], k[i, 2] = derivs(*(y + h * total))
    return y + h * np.tensordot(_DP_B, k, axes=1), h * np.tensordot(_DP_E, k, axes=1)


def blowup_times(
    w0: object,
    beta0: object,
    *,
    n: float | np.ndarray,
    c1: float | Schedule = 0.5,
    c2: float | Schedule = 0.5,
    t_max: float,
    decay_w: float = 0.0,
    decay_beta: float = 0.0,
    beta_cap: float = BETA_CAP,
    rtol: float = 1e-9,
    atol: float = 1e-12,
    equalised: bool = False,
    max_iterations: int = 100_000,
) -> np.ndarray:
    """t_ICL for a large batch of initial conditions: the ODE of :func:`integrate`, each IC with its own step.

    :func:`integrate` hands the whole batch to one ``solve_ivp`` call, which shares one step size
    between all ICs and so must resolve every IC's blow-up in turn; here an explicit Dormand–Prince
    5(4) pair runs all ICs in lock-step, each with its own adaptive step in the arc variable, and
    an IC stops once β ≥ ``beta_cap`` (ICL) or t ≥ ``t_max`` (NaN). Agrees with :func:`integrate`
    to the tolerance (tested); use it for throughput, :func:`integrate` for trajectories.
    """
    w_init, b_init, t_max, beta_cap, flow = _problem(
        w0, beta0, n, c1, c2, t_max, decay_w, decay_beta, beta_cap, equalised
    )
    y = np.stack([np.zeros_like(w_init), w_init, b_init])
    h = np.full(w_init.size, 1e-2)
    active = np.ones(w_init.size, dtype=bool)
    for _ in range(max_iterations):
        if not active.any():
            break
        ya, ha = y[:, active], h[active]
        y_new, err = _dp_step(flow.lanes(active), ya, ha)
        scale = atol + rtol * np.maximum(np.abs(ya), np.abs(y_new))
        norm = np.sqrt(np.mean((err / scale) ** 2, axis=0))
        ok = norm <= 1
        ya[:, ok] = y_new[:, ok]
        y[:, active] = ya
        h[active] = ha * np.clip(0.9 * np.maximum(norm, 1e-10) ** -0.2, 0.2, 5.0)
        active[active] = (ya[2] < beta_cap) & (ya[0] < t_max)
    else:
        raise InvalidArgument(
            f"blowup_times did not finish within max_iterations = {max_iterations} for these w0, beta0, n, t_max"
        )
    return np.where((y[2] >= beta_cap) & (y[0] <= t_max), y[0], np.nan)


def _trajectories(sol, t_eval: object | None, m: int, beta_cap: float, log_r: np.ndarray):
    """Evaluate the dense output (in s) at the s where each IC's clock t_i(s) hits the grid times.

    s is found by interpolation on the solver's steps, then refined by Newton steps on
    t_i(s) − t (dt/ds = σ(−β − ln r)); grid times after the IC's blow-up give NaN.
    """
    if t_eval is None:
        empty = np.empty((m, 0))
        return np.empty(0), empty, empty
    grid = finite_array("t_eval", t_eval, ndim=1)
    s_fine = np.unique(np.concatenate([np.linspace(a, b, 9) for a, b in zip(sol.t[:-1], sol.t[1:])] + [sol.t]))
    t_fine, _, b_fine = np.split(sol.sol(s_fine), 3)
    w_out, b_out = np.full((m, grid.size), np.nan), np.full((m, grid.size), np.nan)
    for i in range(m):
        below = b_fine[i] < beta_cap
        inside = grid <= t_fine[i, below].max()
        s_i = np.interp(grid[inside], t_fine[i, below], s_fine[below])
        for _ in range(3):
            state = sol.sol(s_i)
            s_i = s_i - (state[i] - grid[inside]) / expit(-(state[2 * m + i] + log_r[i]))
        state = sol.sol(s_i)
        w_out[i, inside], b_out[i, inside] = state[m + i], state[2 * m + i]
    return grid, w_out, b_out


def exact_attention_loss(u: float, w: float, beta: float, n: int) -> float:
    """Exact mean change of the BCE log(1 + e^{−u−δ}) caused by the attention term, for margin u = ℓφ.

    In the paper's idealisation (D → ∞: x_t·x_j = δ_tj, the query once in its context, §3.4) the
    attention term is δ = w (e^β + S)/(e^β + N − 1), S = ℓ_t Σ_{j≠t} ℓ_j a sum of N − 1 independent
    ±1 labels; the mean over S ~ 2·Binomial(N − 1, ½) − (N − 1) is computed exactly, without the
    Taylor expansion or the 1/N expansion behind the simplified loss.
    """
    n = positive_int("n", n)
    u, w, beta = (finite_scalar(name, v) for name, v in (("u", u), ("w", w), ("beta", beta)))
    k = np.arange(n)
    s = 2 * k - (n - 1)
    e = np.exp(-abs(beta))  # δ in the form that cannot overflow: divide by e^β when β > 0
    delta = w * (1 + s * e) / (1 + (n - 1) * e) if beta > 0 else w * (e + s) / (e + n - 1)
    return float(np.sum(scipy_stats().binom.pmf(k, n - 1, 0.5) * np.logaddexp(0.0, -u - delta)) - np.logaddexp(0.0, -u))


# ---------------------------------------------------------------------------------------------
# Closed forms and the clock


def tau_star(w0: object, beta0: object) -> np.ndarray:
    """Blow-up clock time for c₂ = 0: τ* = e^{−β₀ + w₀²/2} √(π/2) erfc(w₀/√2) (paper §3.5).

    Evaluated as e^{−β₀} √(π/2) erfcx(w₀/√2), which does not overflow for large w₀.
    """
    w, b, _ = _initial(w0, beta0, 1.0)
    with np.errstate(over="ignore"):
        tau = np.exp(-b) * np.sqrt(np.pi / 2) * erfcx(w / np.sqrt(2))
    return finite_result(
        tau, "w0 and beta0 give a blow-up time τ* beyond float64 (beta0 too negative or w0 too negative)"
    )


def tau_star_slaved(c2: object, beta0: object) -> np.ndarray:
    """Blow-up clock time for β₀ ≪ 0 and c₂ > 0: τ* ≈ (c₂/2) e^{−2β₀} (paper §3.5, asymptotic)."""
    c = finite_array("c2", np.atleast_1d(c2), nonempty=True)
    if np.any(c <= 0):
        raise InvalidArgument("c2 must be positive")
    with np.errstate(over="ignore"):
        tau = c / 2 * np.exp(-2 * finite_array("beta0", np.atleast_1d(beta0), nonempty=True))
    return finite_result(tau, "c2 and beta0 give a blow-up time τ* beyond float64 (beta0 too negative or c2 too large)")


def t_icl_infinite_k(n: object, beta0: object) -> np.ndarray:
    """K → ∞ law t_ICL ≈ √(2π) N e^{−β₀} (c₁ = ½, w₀ = 0, c₂ w ≪ e^β; paper §3.5)."""
    nn = finite_array("n", np.atleast_1d(n), nonempty=True)
    if np.any(nn < 1):
        raise InvalidArgument("n must be at least 1")
    with np.errstate(over="ignore"):
        t = np.sqrt(2 * np.pi) * nn * np.exp(-finite_array("beta0", np.atleast_1d(beta0), nonempty=True))
    return finite_result(t, "n and beta0 give t_ICL beyond float64 (beta0 too negative or n too large)")


def clock(times: object, c1: object, n: float) -> np.ndarray:
    """τ(t) = ∫₀ᵗ c₁ dt' / N by the trapezoidal rule on the given samples (paper §3.4), at every sample time.

    ``times`` must be non-decreasing and ``c1`` (non-negative) hold one value per time.
    """
    t, c = time_series("times", times, "c1", c1)
    if np.any(c < 0):
        raise InvalidArgument("c1 must be non-negative")
    n = finite_scalar("n", n, positive=True)
    with np.errstate(over="ignore", invalid="ignore"):
        tau = cumulative_trapezoid(c, t, initial=0.0) / n
    return finite_result(tau, "times and c1 overflow float64 in the clock integral (entries too large)")


# ---------------------------------------------------------------------------------------------
# Examples for the bad-input fuzzer (numerics.shared.fuzz)


def _example_solution() -> dict[str, object]:
    return {"w0": np.array([0.0, 0.5]), "beta0": np.array([0.0, -1.0]), "n": 10.0, "t_max": 3.0}


TAU_TABLE_BETA0 = (-3.0, -2.0, -1.0, 0.0, 1.0, 2.0)
TAU_TABLE_C2 = (0.0, 1.0)


def tau_star_table(
    beta0: tuple[float, ...] = TAU_TABLE_BETA0, c2: tuple[float, ...] = TAU_TABLE_C2, *, w0: float = 0.0
) -> np.ndarray:
    """τ*(β₀, c₂) at constant c₂: the blow-up clock time of the ODE (eq. 4) integrated with N = 1, c₁ = 1
    (so that the clock τ = ∫c₁dt/N is t), one row per β₀ and one column per c₂ (paper §3.5).

    With c₂ = 0 it is the closed form :func:`tau_star`; with c₂ > 0 the drift c₂w of w delays the blow-up
    (κ = c₂e^{−β₀}: τ* ≈ √(π/2)e^{−β₀}(1 + 0.171κ) for κ ≪ 1, ≈ (c₂/2)e^{−2β₀} for κ ≫ 1).
    """
    rows, cols = finite_array("beta0", beta0, ndim=1, nonempty=True), finite_array("c2", c2, ndim=1, nonempty=True)
    if np.any(rows < -5) or np.any(rows >= BETA_CAP) or np.any(cols < 0) or np.any(cols > 10):
        raise InvalidArgument(f"beta0 must lie in [-5, {BETA_CAP:g}) and c2 in [0, 10] (τ* finite within t = 10⁷)")
    w0 = finite_scalar("w0", w0)
    if abs(w0) > 3:
        raise InvalidArgument(f"w0 must lie in [-3, 3], got {w0}")
    out = [blowup_times(w0, b, n=1.0, c1=1.0, c2=c, t_max=1e7)[0] for b in rows for c in cols]
    return np.array(out).reshape(rows.size, cols.size)


FUZZ = {
    "constant": Fuzz(lambda: {"value": 0.5}),
    "table": Fuzz(lambda: {"times": logged_series()["times"], "values": logged_series()["c1"]}),
    "integrate": Fuzz(_example_solution, nan_result=True),
    "blowup_times": Fuzz(_example_solution, nan_result=True),
    "exact_attention_loss": Fuzz(lambda: {"u": 1.0, "w": 0.5, "beta": 1.0, "n": 4}),
    "tau_star": Fuzz(lambda: {"w0": np.array([0.0, 1.0]), "beta0": np.array([0.0, -2.0])}),
    "tau_star_table": Fuzz(lambda: {"beta0": (0.0, 1.0), "c2": (0.0, 1.0)}),
    "tau_star_slaved": Fuzz(lambda: {"c2": np.array([0.5]), "beta0": np.array([-3.0])}),
    "t_icl_infinite_k": Fuzz(lambda: {"n": np.array([10.0, 20.0]), "beta0": np.array([0.0])}),
    "clock": Fuzz(lambda: logged_series() | {"n": 10.0}),
}
