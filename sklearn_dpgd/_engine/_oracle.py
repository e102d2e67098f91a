"""The private oracle: the only code that reads the private data.

Every answer it gives is privatised, and every call is charged to the privacy filter
*before* it touches the data: a call that would overspend raises
:class:`~sklearn_dpgd.exceptions.BudgetExhaustedError` and computes nothing.
Optimisers (``_solvers/``) see only what the oracle returns.

Where the rows live is a pluggable *data backend*: :class:`LocalRows` (NumPy or CSR in
this process) or :class:`sklearn_dpgd._engine._dask.DaskRows` (row chunks in the
memory of Dask workers). A backend only returns the clipped-gradient sum (or the clipped
objective sums along a direction) of the kernels in :mod:`sklearn_dpgd._engine._kernels`
over all rows or a Poisson sample of them; charging the filter, adding the noise and
dividing by the batch size happen here, once, for every backend.

:class:`PrivateNewtonOracle` answers the two queries of ``solver="newton"`` (a
noisy gradient and a noisy damped Newton direction of the logistic loss, binary
or multinomial) over dense rows in this process or Dask row chunks; its Hessian never
leaves it.
"""

import numpy as np

from ..accounting import GaussianSteps, NoisyMaxSteps, SnowballSteps, SparseVectorSteps
from . import _twins
from ._dask import DaskNewtonRows, DaskRows, is_dask_collection
from ._gram import gram_sensitivity
from ._newton_sums import GRADIENT_LOSSES, LocalNewtonRows
from ._rows import LocalRows, SmallRows
from ._temperature_oracle import SharedTemperatureOracle  # noqa: F401 (re-exported)
from ._threads import serial_blas


class PrivateGradientOracle:
    """Noisy clipped gradients of a linear model with K outputs (Gaussian mechanism).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features), C-contiguous, CSR matrix or \
            dask.array.Array
        Private features (float32 or float64), validated finite. A dask array
        (validated by :func:`sklearn_dpgd._engine._dask.check_fit_data`, chunked by rows
        only) selects the :class:`~sklearn_dpgd._engine._dask.DaskRows` backend;
        small in-memory data (:func:`~sklearn_dpgd._engine._twins.is_small`) the
        NumPy twins of :class:`SmallRows`; other in-memory data the compiled
        kernels of :class:`LocalRows`.
    y : ndarray or dask.array.Array of shape (n_samples,), int64
        Private labels as class indices (0/1 when ``n_outputs == 1``), with the
        row chunks of ``X`` when it is a dask array.
    n_outputs : int
        K: 1 for binary models, the number of classes otherwise.
    loss : int
        Loss code (:mod:`sklearn_dpgd._engine._losses`).
    huber_width : float
        Huber width ``h`` (ignored by the logistic loss).
    clip_norm : float
        Per-example clipping threshold ``C`` of the whole gradient (all outputs and
        intercepts, Frobenius norm).
    sensitivity : float
        L2 sensitivity ``Delta`` of the clipped sum under the neighbouring relation:
        ``C`` (add/remove one row) or ``2 C`` (replace one row).
    fit_intercept : bool
        Whether the last gradient column is the intercepts'.
    privacy_filter : GaussianPrivacyFilter, PlannedStepsRdpFilter, PldPrivacyFilter, \
            FixedOrderRenyiFilter or AmplifiedIterationFilter
        The filter charged, with the record of the mechanism, before each call reads
        data (the selection queries need a
        :class:`~sklearn_dpgd.accounting.FixedOrderRenyiFilter`).
    rng : numpy.random.Generator
        Source of the Gaussian noise and of the Poisson samples (for dask data: of
        the per-chunk seeds of the samples, drawn by the client).
    public_n_samples : int or None
        ``m``: the public size (:mod:`sklearn_dpgd._public_size`). The divisor of
        the sums is ``q m``, never the private number of rows, and ``n_samples``
        (read by the optimisers) is ``m``. None only for the selections, which
        divide by nothing (:meth:`noisy_vertex`, :meth:`noisy_argmin`).
    sampling_rate : float, default=1.0
        ``q``: each step sums each row independently with probability ``q``
        (Poisson sampling, as the accounting of Mironov, Talwar & Zhang 2019
        assumes) and divides by the public expected batch size ``q m``. 1.0 is the
        full batch (no random draw for sampling).
    sample_weight : ndarray or dask.array.Array of shape (n_samples,), float64, \
            or None, default=None
        Private per-row weights ``w_i`` (sample weights times class weights),
        with the row chunks of ``X`` for dask data; None: every weight is 1.
    max_weight : float, default=1.0
        ``w_max``: the public bound of the weights, > 0. Each row's term of the
        sum is ``w_i clip(g_i, C)``, of norm at most ``w_max C``, so the oracle
        scales the sensitivity it is given (that of the unweighted sum) by
        ``w_max``: ``Delta = w_max C`` under add/remove-one (the added or removed
        row's term, weight at most ``w_max``), ``2 w_max C`` under replace-one
        (its term before and after, each of norm at most ``w_max C``). A weight
        outside ``[0, w_max]`` raises a ValueError before any step is taken (for
        dask data the estimator checks the bound on the workers).
    """

    def __init__(
        self,
        X,
        y,
        *,
        n_outputs,
        loss,
        huber_width,
        clip_norm,
        sensitivity,
        fit_intercept,
        privacy_filter,
        rng,
        public_n_samples,
        sampling_rate=1.0,
        sample_weight=None,
        max_weight=1.0,
    ):
        max_weight = float(max_weight)
        if not (np.isfinite(max_weight) and max_weight > 0.0):
            raise ValueError(f"max_weight must be finite and > 0, got {max_weight!r}.")
        if sample_weight is not None and not is_dask_collection(sample_weight):
            sample_weight = np.ascontiguousarray(sample_weight, dtype=np.float64)
            # The bound the sensitivity is scaled by must hold for every row.
            if not np.all((sample_weight >= 0.0) & (sample_weight <= max_weight)):
                raise ValueError(
                    f"sample weights must lie in [0, {max_weight:g}] (the public "
                    "bound the sensitivity is scaled by)."
                )
        if is_dask_collection(X):
            backend = DaskRows
        else:
            backend = SmallRows if _twins.is_small(X, n_outputs) else LocalRows
        self._rows = backend(
            X, y, fit_intercept=fit_intercept, sample_weight=sample_weight
        )
        self._kernel_args = (fit_intercept, clip_norm, loss, huber_width)
        self._clip_norm = clip_norm
        self._loss, self._h = loss, huber_width
        # The sum of w_i clip(g_i, C) moves by at most w_max times the unweighted
        # sum's sensitivity when a row is added, removed or replaced.
        self._sensitivity = sensitivity * max_weight
        self._fit_intercept = fit_intercept
        self.privacy_filter = privacy_filter
        self._rng = rng
        # Only the public size leaves the oracle: the private number of rows stays
        # inside the data backend (it draws the Poisson samples).
        self.n_samples = None if public_n_samples is None else int(public_n_samples)
        self.n_features = self._rows.n_features
        self.n_outputs = n_outputs
        self.sampling_rate = float(sampling_rate)

    @property
    def runs_twins(self):
        """Whether the sums run on the NumPy twins (small data: no Numba)."""
        return isinstance(self._rows, SmallRows)

    def noisy_gradient(self, W, b, noise_multiplier, clip_norm=None):
        """Private mean gradient ``(sum_{i in S} clip(g_i, C) + N(0, (z D)^2 I)) / B``.

        ``D`` is the sensitivity ``Delta``. ``S`` is all rows and ``B = m`` (the
        public size) for full-batch steps; for minibatch steps ``S`` is a fresh
        Poisson sample with rate ``q`` and ``B = q m``.

        Parameters
        ----------
        W : ndarray of shape (n_outputs, n_features), float64
        b : ndarray of shape (n_outputs,), float64
        noise_multiplier : float
            ``z``: noise std in units of the sensitivity ``Delta``.
        clip_norm : float, optional
            Clipping norm of this call (default: the oracle's). The sensitivity, and
            with it the noise std, scale with it; the privacy cost, a function of
            ``z`` only, does not (the clipping decay of Chen & Lee, eq. 9).

        Returns
        -------
        grad : ndarray of shape (n_outputs, n_features + 1)
            The last column is the intercepts' (exactly 0 without an intercept: that
            column is then neither computed nor noised).

        Raises
        ------
        BudgetExhaustedError
            If the step would overspend; nothing is computed then.

        Notes
        -----
        The private gradient of Hong, Wang &
        Zhou (FAccT 2022), Algorithm 1, line 4, without the L2 term (which is public
        and added by the solver), with the public size ``m`` in place of ``n``
        (under add/remove-one neighbouring ``n`` is private).
        """
        self.privacy_filter.charge(GaussianSteps(noise_multiplier, self.sampling_rate))
        clip = self._clip_norm if clip_norm is None else float(clip_norm)
        kernel_args = (self._fit_intercept, clip, self._loss, self._h)
        grad = self._rows.clipped_sum(W, b, kernel_args, self.sampling_rate, self._rng)
        self._add_noise(grad, noise_multiplier * (clip / self._clip_norm))
        grad /= self.sampling_rate * self.n_samples
        return grad

    def noisy_batch_gradient(self, W, b, rows, noise_multiplier, learning_rate):
        """Private mean gradient over given rows: ``(sum_{i in rows} clip(g_i, C) +
        N(0, (z D)^2 I)) / len(rows)``.

        The query of Snowball-SGD (:mod:`sklearn_dpgd._solvers.snowball`): the batch
        is a block of a random permutation drawn by the caller before any data is
        read, and the filter (an
        :class:`~sklearn_dpgd.accounting.AmplifiedIterationFilter` holding the
        approved plan) is charged first with the one-step
        :class:`~sklearn_dpgd.accounting.SnowballSteps` ``((len(rows),), (z,),
        (eta,))``.

        Parameters
        ----------
        W : ndarray of shape (n_outputs, n_features), float64
        b : ndarray of shape (n_outputs,), float64
        rows : ndarray of shape (batch_size,), int64
            Distinct row indices of the batch.
        noise_multiplier : float
            ``z``: noise std on the sum in units of the sensitivity ``Delta``.
        learning_rate : float
            ``eta``: the step size the caller moves by. Not used here; it is part
            of the record charged, which must be the next step of the plan (the
            guarantee of amplification by iteration depends on it).

        Returns
        -------
        grad : ndarray of shape (n_outputs, n_features + 1)
            As :meth:`noisy_gradient`.

        Raises
        ------
        BudgetExhaustedError
            If the approved plan has no step left; nothing is computed then.
        ValueError
            If the step is not the next one of the approved plan; nothing is
            computed then.
        TypeError
            If the data backend cannot address rows (Dask).
        """
        rows = np.asarray(rows, dtype=np.int64)
        if not isinstance(self._rows, LocalRows):
            raise TypeError("solver='snowball' needs in-memory (NumPy or CSR) data.")
        step = SnowballSteps(
            (rows.shape[0],), (float(noise_multiplier),), (float(learning_rate),)
        )
        self.privacy_filter.charge(step)
        grad = self._rows.clipped_sum_rows(W, b, self._kernel_args, rows)
        self._add_noise(grad, noise_multiplier)
        grad /= rows.shape[0]
        return grad

    def _add_noise(self, grad, noise_multiplier):
        # The one place Gaussian noise is drawn: std z * Delta on every computed
        # coordinate (the intercept column only when it is fitted).
        width = self.n_features + 1 if self._fit_intercept else self.n_features
        sigma = noise_multiplier * self._sensitivity
        grad[:, :width] += sigma * self._rng.standard_normal((self.n_outputs, width))

    def _objective_along(self, W, b, D, db, etas, sampling_rate, objective_clip):
        # Weighted rows add w_i min(l_i, C_obj) <= w_max C_obj each: the
        # sensitivity below scales by w_max as the gradient's does.
        objective_args = (
            self._fit_intercept,
            float(objective_clip),
            self._loss,
            self._h,
        )
        etas = np.ascontiguousarray(etas, dtype=float)
        return self._rows.objective_along(
            W, b, D, db, etas, objective_args, sampling_rate, self._rng
        )

    def _objective_sensitivity(self, objective_clip):
        # A row moves each clipped-objective sum by at most w_max C_obj when added
        # or removed, 2 w_max C_obj when replaced (the ratio sensitivity /
        # clip_norm, w_max included).
        return (self._sensitivity / self._clip_norm) * float(objective_clip)

    def noisy_argmin(
        self,
        W,
        b,
        D,
        db,
        etas,
        public_scores,
        objective_clip,
        epsilon,
        noise="exponential",
    ):
        """Report-noisy-min over the candidates ``theta - eta_j D`` (pure DP).

        The score of candidate ``j`` is ``sum_i min(l_i(theta - eta_j D), C_obj) +
        public_scores[j]`` over all rows; the candidate with the largest
        ``-score + E_j`` is returned, ``E_j`` exponential or Gumbel noise of scale
        ``Delta_obj / epsilon``. Only its index leaves the oracle.

        Parameters
        ----------
        W, D : ndarray of shape (n_outputs, n_features)
            Current coefficients and the direction.
        b, db : ndarray of shape (n_outputs,)
        etas : ndarray of shape (n_candidates,)
            Candidate step sizes.
        public_scores : ndarray of shape (n_candidates,)
            Data-independent terms of the scores (the L2 penalty times ``n``).
        objective_clip : float
            ``C_obj`` > 0.
        epsilon : float
            Pure-DP parameter of the selection.
        noise : {"exponential", "gumbel"}, default="exponential"
            "exponential": permute-and-flip, charged as ``epsilon``-DP.
            "gumbel": the exponential mechanism, charged as ``epsilon``-bounded
            range (a quarter of the zCDP cost).

        Returns
        -------
        index : int
            The selected candidate.

        Raises
        ------
        BudgetExhaustedError
            If the selection would overspend; nothing is computed then.

        Notes
        -----
        Lee & Kifer (KDD 2018), Algorithm 1 (NoisyMax over the clipped objective).
        Report-noisy-max with exponential noise is the permute-and-flip mechanism
        (Ding et al. 2021; McKenna & Sheldon 2020), ``epsilon``-DP with scale
        ``Delta_obj / epsilon`` when the scores move monotonically between
        neighbours, as sums of non-negative clipped losses do under add/remove;
        under replace-one ``Delta_obj = 2 C_obj`` (a replaced row moves two scores'
        terms in opposite directions).

        With Gumbel noise of the same scale the selection is the exponential
        mechanism ``P(j) ~ exp(-epsilon score_j / Delta_obj)`` (McSherry & Talwar
        2007, sampled by the Gumbel-max trick; Durfee & Rogers 2019). Its
        privacy loss lies in an interval of width ``epsilon``: under add/remove
        every score moves the same way by at most ``C_obj``; under replace-one
        by at most ``C_obj`` either way, and the scale uses ``2 C_obj``. So it
        is ``epsilon``-bounded range, ``epsilon^2 / 8``-zCDP (Cesar & Rogers,
        ALT 2021), where permute-and-flip is charged ``epsilon^2 / 2``.
        """
        record = NoisyMaxSteps(float(epsilon), noise=noise)  # validates ``noise``
        self.privacy_filter.charge(record)
        sums = self._objective_along(W, b, D, db, etas, 1.0, objective_clip)
        scale = self._objective_sensitivity(objective_clip) / epsilon
        if noise == "gumbel":
            draws = self._rng.gumbel(0.0, scale, size=sums.size)
        else:
            draws = self._rng.exponential(scale, size=sums.size)
        return int(np.argmax(-(sums + public_scores) + draws))

    def vertex_noise_scale(self, radius, epsilon):
        """Gumbel scale ``2 r Delta / epsilon`` of :meth:`noisy_vertex` (``Delta``:
        the clipped sum's L2 sensitivity, ``C`` or ``2 C`` times ``w_max``)."""
        return 2.0 * float(radius) * self._sensitivity / float(epsilon)

    def noisy_vertex(self, W, b, radius, epsilon):
        """The exponential mechanism's vertex of the L1 ball (Frank-Wolfe).

        The candidates are the ``2 K p`` vertices ``v = +-r e_(k, j)`` of the L1
        ball of radius ``r`` over the coefficients and (if fitted) the
        intercepts; vertex ``v`` scores ``u_v = -<S, v>``, ``S`` the sum of the
        per-example gradients clipped to ``C`` (L2, all outputs together). The
        vertex maximising ``u_v + G_v`` is returned, ``G_v`` Gumbel noise of
        scale :meth:`vertex_noise_scale`. Only its position leaves the oracle.

        Parameters
        ----------
        W : ndarray of shape (n_outputs, n_features), float64
        b : ndarray of shape (n_outputs,), float64
        radius : float
            ``r`` > 0, public.
        epsilon : float
            Bounded-range parameter of the selection, > 0.

        Returns
        -------
        output, coordinate, sign : int
            The vertex ``sign * r e_(output, coordinate)``; ``coordinate ==
            n_features`` is the intercept.

        Raises
        ------
        BudgetExhaustedError
            If the selection would overspend; nothing is computed then.

        Notes
        -----
        Talwar, Thakurta & Zhang (NeurIPS 2015), Algorithm 1, with the sum for
        the mean (same argmax, no divisor). A row moves ``S`` by ``g``
        (add/remove) or ``g - g'`` (replace), of L2 norm at most ``Delta``: each
        score moves by at most ``r ||g||_inf <= r Delta``.
        The scores move in both directions (``+r e_j`` and ``-r e_j`` move
        opposite ways), so the exponential mechanism ``P(v) ~ exp(epsilon u_v /
        (2 r Delta))`` (McSherry & Talwar 2007), sampled by the Gumbel-max trick,
        has its privacy loss in an interval of width ``epsilon``: it is
        ``epsilon``-bounded range (Durfee & Rogers, NeurIPS 2019), charged
        ``epsilon^2 / 8``-zCDP (Cesar & Rogers, ALT 2021).
        """
        self.privacy_filter.charge(NoisyMaxSteps(float(epsilon), noise="gumbel"))
        grad = self._rows.clipped_sum(W, b, self._kernel_args, 1.0, self._rng)
        width = self.n_features + 1 if self._fit_intercept else self.n_features
        scores = float(radius) * grad[:, :width].ravel()
        # Vertex -r e_j scores r S_j, vertex +r e_j scores -r S_j.
        scores = np.concatenate((scores, -scores))
        scale = self.vertex_noise_scale(radius, epsilon)
        scores += self._rng.gumbel(0.0, scale, size=scores.size)
        index = int(np.argmax(scores))
        sign = -1 if index < scores.size // 2 else 1
        output, coordinate = divmod(index % (scores.size // 2), width)
        return output, coordinate, sign

    def sparse_vector_armijo(
        self, W, b, D, db, etas, public_offsets, objective_clip, budget, noise
    ):
        """Noisy backtracking line search: the first candidate passing Armijo's test.

        Query ``i`` is ``q_i = f(theta) - f(theta - eta_i D) + public_offsets[i]``
        with ``f = sum_i min(l_i, C_obj)`` over a fresh Poisson sample (rate
        :attr:`sampling_rate`); AboveThreshold answers whether ``q_i + nu_i >=
        T^`` with a noisy threshold ``T^`` around 0, in order, and stops at the
        first yes.

        Parameters
        ----------
        W, D : ndarray of shape (n_outputs, n_features)
        b, db : ndarray of shape (n_outputs,)
        etas : ndarray of shape (max_it,)
            Candidate step sizes in the order they are tried (decreasing).
        public_offsets : ndarray of shape (max_it,)
            Data-independent terms of the queries (minus Armijo's sufficient
            decrease ``alpha eta ||g||^2``, and the change of the L2 penalty, both
            in units of the sum).
        objective_clip : float
            ``C_obj`` > 0.
        budget : float
            ``epsilon_BT`` (Laplace) or ``rho_BT`` (Gaussian).
        noise : {"laplace", "gaussian"}

        Returns
        -------
        index : int
            Index of the accepted step size, or -1 if none passed.

        Raises
        ------
        BudgetExhaustedError
            If the search would overspend; nothing is computed then.

        Notes
        -----
        Chen & Lee, Algorithm 1 (Laplace and Gaussian versions), RDP of Thm 2 / Thm 3
        (:func:`~sklearn_dpgd.accounting.sparse_vector_rdp`), amplified by Poisson
        sampling (Lemma 4). All queries are computed in one pass over the sample and
        all query noises are drawn at once; since only the index of the first
        noisy pass is released, the output has the distribution of the sequential
        algorithm.
        """
        q = self.sampling_rate
        self.privacy_filter.charge(SparseVectorSteps(float(budget), noise, q))
        candidates = np.concatenate(([0.0], etas))
        sums = self._objective_along(W, b, D, db, candidates, q, objective_clip)
        queries = sums[0] - sums[1:] + public_offsets
        sens = self._objective_sensitivity(objective_clip)
        if noise == "laplace":
            threshold = self._rng.laplace(0.0, sens / (budget / 2.0))
            nu = self._rng.laplace(0.0, sens / (budget / 4.0), size=queries.size)
        else:
            threshold = self._rng.normal(0.0, sens * np.sqrt(3.0 / (2.0 * budget)))
            nu = self._rng.normal(0.0, sens * np.sqrt(3.0 / budget), size=queries.size)
        passed = np.flatnonzero(queries + nu >= threshold)
        return int(passed[0]) if passed.size else -1


def newton_direction_sensitivity(gradient_norm, damping, curvature_bound):
    """L2 sensitivity of the damped Newton direction ``(H / m + D)^{-1} g``.

    ``H`` is the private sum of per-row Hessians, each positive semi-definite of
    operator norm at most ``m c`` (``c = curvature_bound``; rank one for the
    sigmoid loss, rank ``K - 1`` for the softmax), ``D`` a public diagonal with
    every entry ``>= lambda = damping``, and ``g`` a public (already privatised)
    vector. Under add/remove-one and under replace-one neighbouring alike::

        ||(M)^{-1} g - (M')^{-1} g|| <= ||g|| c / (lambda^2 + c lambda)

    Both neighbours are ``B + A`` (or ``B``) for the common part ``B >= lambda
    I`` and one row's term ``0 <= A <= c I``. Since the inverse is operator
    monotone, ``B + A <= B + c I`` gives ``0 <= P_A = B^{-1} - (B + A)^{-1} <=
    B^{-1} - (B + c I)^{-1}``, whose eigenvalues ``c / (b (b + c))`` (``b >=
    lambda`` an eigenvalue of ``B``) are at most ``c / (lambda (lambda + c))``
    (for a rank-one ``A = a a^T`` this is Sherman-Morrison's bound). The
    difference of the two inverses is ``P_A' - P_A`` (replace) or ``P_A``
    (add/remove): a difference of two positive semi-definite matrices, whose
    operator norm is at most the larger of theirs. So replacing a row costs no
    more than adding one (no factor 2, unlike the gradient sum). The bound is
    attained when ``g``, a top eigenvector of ``A`` of eigenvalue ``c`` and an
    eigenvector of ``B`` with eigenvalue ``lambda`` are parallel
    (``tests/test_newton.py`` and ``tests/test_newton_multinomial.py``).

    Parameters
    ----------
    gradient_norm : float
        ``||g||_2`` of the public vector the direction is computed for.
    damping : float
        ``lambda > 0``: a lower bound of every eigenvalue of the public part
        ``D`` of the matrix.
    curvature_bound : float
        ``c > 0``: the largest operator norm of one row's term of ``H / m``
        (``R^2 / (4 m)`` for the sigmoid loss, ``R^2 / (2 m)`` for the softmax,
        ``R`` the bound of the row norm, intercept included).

    Returns
    -------
    sensitivity : float

    Notes
    -----
    The "add" variant of the double-noise mechanism of Ganesh, Haghifam, Steinke
    & Thakurta (NeurIPS 2023), Algorithm 3 and its sensitivity lemma (there per
    mean Hessian of the binary loss with ``c = 1 / (4 n)``); the argument for
    replace-one and for the softmax's higher-rank terms is ours.
    """
    c = float(curvature_bound)
    return float(gradient_norm) * c / (damping**2 + c * damping)


class PrivateNewtonOracle:
    """Noisy gradients and noisy damped Newton directions of the logistic loss
    (sigmoid for ``n_outputs=1``, softmax over ``K = n_outputs`` classes
    otherwise): the double-noise mechanism.

    Each row's features are scaled to L2 norm at most ``row_clip`` (rows already
    within it are unchanged): the objective is the loss of the clipped rows
    ``x~_i = [s_i x_i, 1]``, of norm at most ``R = sqrt(row_clip^2 +
    fit_intercept)``. The sigmoid loss's per-row gradient ``(sigma(m_i) - y_i)
    x~_i`` has norm at most ``R`` and its Hessian ``sigma'(m_i) x~_i x~_i^T``
    operator norm at most ``R^2 / 4``. The softmax's per-row gradient ``(pi_i -
    e_{y_i}) (x) x~_i`` has norm at most ``sqrt(2) R`` (``||pi - e_y||^2 = (1 -
    pi_y)^2 + sum_{k != y} pi_k^2 <= 2 (1 - pi_y)^2``) and its Hessian ``(diag(pi_i)
    - pi_i pi_i^T) (x) x~_i x~_i^T`` operator norm at most ``R^2 / 2``, since
    ``diag(pi) - pi pi^T <= (I - 1 1^T / K) / 2`` (Böhning 1992). Both bounds
    are attained in the limit (two classes of probability 1/2; one class of
    probability 1 that is not the label). The bounds are enforced here, never
    read from the data.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features) or dask.array.Array
        Private dense features (float32 or float64), validated finite. A dask
        array (from :func:`sklearn_dpgd._engine._dask.check_fit_data`) selects
        :class:`~sklearn_dpgd._engine._dask.DaskNewtonRows`: the sums are taken
        chunk by chunk on the workers and only the totals reach this process.
    y : ndarray or dask.array.Array of shape (n_samples,), int
        Private labels: 0/1, or class indices ``0 .. K - 1``.
    row_clip : float
        Public bound ``> 0`` of each row's feature norm.
    sensitivity_factor : float
        1 (add/remove one row) or 2 (replace one row): the gradient sum's L2
        sensitivity is ``factor R`` (sigmoid) or ``factor sqrt(2) R`` (softmax).
    fit_intercept : bool
        Whether the last coordinate of each output (intercept) is fitted.
    privacy_filter : GaussianPrivacyFilter
        Charged with a :class:`~sklearn_dpgd.accounting.GaussianSteps` before each
        query reads data.
    rng : numpy.random.Generator
        Source of the Gaussian noise.
    public_n_samples : int
        ``m``, the public size: the divisor of the sums (never the private
        number of rows).
    chunk_rows : int, default=4096
        Rows per block of the Hessian sum (bounds the temporary memory at
        ``chunk_rows * n_features`` floats, ``K`` times that for the softmax:
        32 MB at :data:`~sklearn_dpgd.linear_model._newton.MAX_NEWTON_PARAMS`;
        the result does not depend on it up to rounding).
    n_outputs : int, default=1
        1 for the sigmoid loss, ``K >= 3`` for the softmax. The parameters
        ``theta`` are flat: ``K`` blocks of ``n_features + 1`` (coefficients, then
        the intercept), class by class.
    loss : {"logistic", "squared", "huber"}, default="logistic"
        The loss of :meth:`noisy_gradient` (``solver="pgd"``; the other queries
        are the logistic loss's). "squared" and "huber" need ``n_outputs=1`` and
        a real target ``y`` (a regressor's, scaled into ``[-1, 1]``): the row's
        gradient is ``l'(r_i) x~_i`` with ``r_i = x~_i . theta - y_i`` and
        ``l'(r) = r`` (squared, unbounded: :meth:`noisy_gradient` then needs a
        ``gradient_clip``) or ``clip(r, -h, h)`` (Huber: norm at most ``h R``).
    huber_width : float, default=0.0
        ``h > 0`` of the Huber loss (ignored by the others).
    """

    def __init__(
        self,
        X,
        y,
        *,
        row_clip,
        sensitivity_factor,
        fit_intercept,
        privacy_filter,
        rng,
        public_n_samples,
        chunk_rows=4096,
        n_outputs=1,
        loss="logistic",
        huber_width=0.0,
    ):
        if loss not in GRADIENT_LOSSES:
            raise ValueError(f"loss must be one of {GRADIENT_LOSSES}, got {loss!r}.")
        if loss != "logistic" and int(n_outputs) != 1:
            raise ValueError(f"the {loss} loss needs n_outputs=1")
        self._loss = (loss, float(huber_width))
        self.n_outputs = int(n_outputs)
        self._fit_intercept = bool(fit_intercept)
        # The clipping is part of the objective (done by the backend, row by
        # row), so the sensitivities below hold whatever the data.
        backend = DaskNewtonRows if is_dask_collection(X) else LocalNewtonRows
        self._rows = backend(
            X,
            y,
            row_clip=float(row_clip),
            fit_intercept=self._fit_intercept,
            n_outputs=self.n_outputs,
            chunk_rows=chunk_rows,
        )
        self._row_clip = float(row_clip)
        self._bound = float(np.sqrt(row_clip**2 + float(self._fit_intercept)))
        softmax_ = self.n_outputs > 1
        # The largest norm of one row's gradient term: |l'| <= 1 (sigmoid),
        # ||pi - e_y|| <= sqrt(2) (softmax), |clip(r, -h, h)| <= h (Huber); the
        # squared loss's is unbounded (a gradient_clip is required).
        self._gradient_bound = (
            self._bound
            * {
                "logistic": np.sqrt(2.0) if softmax_ else 1.0,
                "huber": float(huber_width),
                "squared": np.inf,
            }[loss]
        )
        self._factor = float(sensitivity_factor)
        self.privacy_filter = privacy_filter
        self._rng = rng
        self.n_samples, self.n_features = int(public_n_samples), self._rows.n_features
        # c: the largest operator norm of one row's term of H / m.
        self.curvature_bound = self._bound**2 / (
            (2.0 if softmax_ else 4.0) * self.n_samples
        )

    @property
    def _width(self):
        return self.n_features + int(self._fit_intercept)

    def noisy_gradient(self, theta, noise_multiplier, gradient_clip=None):
        """Private mean gradient ``(sum_i g_i + N(0, (z factor G)^2 I)) / m``.

        ``G`` is the bound of one row's gradient: ``R`` (sigmoid), ``sqrt(2)
        R`` (softmax) or ``h R`` (Huber), or ``gradient_clip``, to which each
        ``g_i`` (``(pi_i - e_{y_i}) (x) x~_i`` for the softmax) is then scaled
        (its norm is at most ``G`` either way; the squared loss needs it).

        Parameters
        ----------
        theta : ndarray of shape (n_outputs * (n_features + 1),)
            Coefficients, then the intercept (ignored without one), per output.
        noise_multiplier : float
            ``z`` > 0.
        gradient_clip : float or None, default=None
            Per-row gradient norm bound ``> 0``; the L2 sensitivity of the sum
            is then ``factor min(G, gradient_clip)`` under either relation.

        Returns
        -------
        grad : ndarray of shape (n_outputs * (n_features + 1),)
            Intercept entries 0 without an intercept.

        Raises
        ------
        BudgetExhaustedError
            If the query would overspend; nothing is computed then.
        ValueError
            If ``gradient_clip`` is missing for the squared loss (checked
            before the charge).
        """
        bound = self._gradient_bound
        if gradient_clip is not None:
            bound = min(bound, float(gradient_clip))
        if not np.isfinite(bound):
            raise ValueError("the squared loss's gradient needs a gradient_clip")
        self.privacy_filter.charge(GaussianSteps(noise_multiplier))
        with serial_blas():
            grad = self._rows.gradient_sum(theta, gradient_clip, self._loss)
        sigma = noise_multiplier * self._factor * bound
        width = self._width
        grad[:, :width] += sigma * self._rng.standard_normal((self.n_outputs, width))
        return grad.ravel() / self.n_samples

    def hessian_sum(self, theta):
        """The private Hessian sum over the fitted coordinates (no noise).

        ``sum_i sigma'(m_i) x~_i x~_i^T`` (sigmoid) or ``sum_i (diag(pi_i) - pi_i
        pi_i^T) (x) x~_i x~_i^T`` (softmax, ordered class by class). Never
        returned by a public method: :meth:`noisy_direction` reads it.

        Parameters
        ----------
        theta : ndarray of shape (n_outputs * (n_features + 1),)

        Returns
        -------
        hessian : ndarray of shape (K w, K w)
            ``w = n_features + fit_intercept``.
        """
        return self._rows.hessian_sum(theta)

    def noisy_direction(self, theta, gradient, damping, penalty, noise_multiplier):
        """Private damped Newton direction ``(H / m + D)^{-1} g + N(0, (z S)^2 I)``.

        ``D`` is ``damping + penalty`` on the coefficients and ``damping`` on
        the intercepts; ``S`` is :func:`newton_direction_sensitivity` at
        ``||g||``, ``damping`` and :attr:`curvature_bound`.

        Parameters
        ----------
        theta : ndarray of shape (n_outputs * (n_features + 1),)
            Where the Hessian is taken.
        gradient : ndarray of shape (n_outputs * (n_features + 1),)
            Public (privatised) gradient, penalty included.
        damping : float
            ``lambda > 0``.
        penalty : float
            L2 penalty ``alpha >= 0`` of the coefficients.
        noise_multiplier : float
            ``z`` > 0.

        Returns
        -------
        direction : ndarray of shape (n_outputs * (n_features + 1),)
            Intercept entries 0 without an intercept.

        Raises
        ------
        BudgetExhaustedError
            If the query would overspend; nothing is computed then.
        """
        self.privacy_filter.charge(GaussianSteps(noise_multiplier))
        d, k, width = self.n_features, self.n_outputs, self._width
        g = np.asarray(gradient, dtype=np.float64).reshape(k, d + 1)[:, :width]
        g = g.ravel()
        diagonal = np.full((k, width), float(damping))
        diagonal[:, :d] += penalty
        # The solve too: LAPACK's threads spin like BLAS's on a shared machine.
        with serial_blas():
            matrix = self.hessian_sum(theta) / self.n_samples
            matrix[np.diag_indices(k * width)] += diagonal.ravel()
            step = np.linalg.solve(matrix, g)
        direction = np.zeros((k, d + 1))
        sensitivity = newton_direction_sensitivity(
            np.linalg.norm(g), damping, self.curvature_bound
        )
        step += noise_multiplier * sensitivity * self._rng.standard_normal(k * width)
        direction[:, :width] = step.reshape(k, width)
        return direction.ravel()

    def noisy_gram(self, noise_multiplier):
        """Private mean Gram matrix of the clipped rows (``solver="pgd"``).

        ``(sum_i x~_i x~_i^T + E) / m``: ``E`` is symmetric, its upper
        triangle (diagonal included) i.i.d. ``N(0, (z S)^2)`` with ``S``
        :func:`gram_sensitivity`, mirrored below the diagonal (post-processing).

        Parameters
        ----------
        noise_multiplier : float
            ``z`` > 0.

        Returns
        -------
        gram : ndarray of shape (w, w)
            ``w = n_features + fit_intercept``; symmetric, maybe indefinite.

        Raises
        ------
        BudgetExhaustedError
            If the query would overspend; nothing is computed then.
        """
        self.privacy_filter.charge(GaussianSteps(noise_multiplier))
        with serial_blas():
            gram = self._rows.gram_sum()
        width = self._width
        sigma = noise_multiplier * gram_sensitivity(
            self._row_clip, self._fit_intercept, self._factor
        )
        noise = np.triu(sigma * self._rng.standard_normal((width, width)))
        noise += np.triu(noise, 1).T
        return (gram + noise) / self.n_samples
