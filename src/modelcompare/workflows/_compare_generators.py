"""Which of two generative models is closer to a reference sample, and where?

Every relative test of the library runs in both directions on the same features, and one
correction, Bonferroni over all the p-values of the table, decides every entry, figure and
sentence of the result.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from modelcompare._foundation.errors import DegenerateDataWarning
from modelcompare._foundation.results import CollectionTestResult, check_alpha, result_class
from modelcompare._foundation.seeds import SeedLike, check_seed, spawn
from modelcompare._foundation.validation import check_int, check_output_path, check_same_width
from modelcompare.relative import fid, kid, power_criterion_map, rel_fid, rel_kid, rel_mmd, rel_ume
from modelcompare.workflows._generator_inputs import read_sample

__all__ = ["RELATIVE_TESTS", "GeneratorComparisonResult", "compare_generators"]


def _ume(x, y, z, rng, n_locations):
    return rel_ume(x, y, z, n_locations=n_locations, seed=rng)


def _mmd(x, y, z, rng, n_locations):
    return rel_mmd(x, y, z, seed=rng)


def _kid(x, y, z, rng, n_locations):
    return rel_kid(x, y, z, seed=rng)


def _fid(x, y, z, rng, n_locations):
    # jackknife groups small enough that each leave-a-group-out sample keeps a full-rank
    # covariance of the features, where the sample allows it
    n = min(len(x), len(y), len(z))
    groups = max(2, min(10, n // (2 * x.shape[1] + 2)))
    return rel_fid(x, y, z, n_blocks=groups, seed=rng)


#: The relative tests the comparison runs, by the name its table shows.
RELATIVE_TESTS: dict[str, Callable[..., Any]] = {
    "Rel-UME": _ume,
    "Rel-MMD": _mmd,
    "Rel-KID": _kid,
    "Rel-FID": _fid,
}


@result_class
class GeneratorComparisonResult(CollectionTestResult):
    """Result of :func:`compare_generators`: relative tests in both directions, metrics, "where".

    Attributes
    ----------
    table : pandas.DataFrame
        One row per relative test and direction: ``test``, ``better`` (the model the alternative
        says is closer), ``statistic``, ``pvalue``, ``pvalue_adjusted`` (Bonferroni over all
        rows).
    pvalue : float
        The smallest Bonferroni-adjusted p-value: the family-wise test of "no test finds either
        model closer".
    metrics : pandas.DataFrame
        FID and KID of each model to the reference, with the KID's interval.
    criterion : numpy.ndarray
        The Rel-UME power criterion at each reference row (the candidates): positive where the
        second model fits better, negative where the first does.
    names : tuple of str
        Display names of the first and second model.
    n : tuple of int
        Sizes of the first, second and reference samples.
    n_features : int
        Feature dimension d.
    extractor : str
        What made the features.
    origins : tuple of str
        Where each sample came from (a folder, an array, a tensor; images or features).
    correction : str
        The correction across the table ("bonferroni").
    seed_used : int or None
        Seed reproducing the result.

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import compare_generators
    >>> rng = np.random.default_rng(0)
    >>> ref = rng.normal(size=(150, 2))
    >>> res = compare_generators(rng.normal(size=(150, 2)) + 1.0, rng.normal(size=(150, 2)), ref,
    ...                          seed=0)
    >>> res.decision(0.05), res.better(0.05)
    (True, 'second')
    """

    table: pd.DataFrame
    pvalue: float
    metrics: pd.DataFrame
    criterion: np.ndarray
    names: tuple[str, str]
    n: tuple[int, int, int]
    n_features: int
    extractor: str
    origins: tuple[str, str, str]
    correction: str
    seed_used: int | None
    _images: tuple[Any, Any, Any] = (None, None, None)

    _repr_fields: ClassVar[tuple[str, ...]] = ("pvalue", "n_features", "correction")

    def rejected(self, alpha: float = 0.05) -> pd.Series:
        """Which rows of ``table`` reject at ``alpha`` after the correction."""
        return self.table["pvalue_adjusted"] <= check_alpha(alpha)

    def better(self, alpha: float = 0.05) -> str | None:
        """ "first", "second", "both" (tests disagree) or None (no row rejects at ``alpha``)."""
        sides = set(self.table.loc[self.rejected(alpha), "better"])
        if not sides:
            return None
        if len(sides) == 2:
            return "both"
        return "first" if sides == {self.names[0]} else "second"

    def verdict(self, alpha: float = 0.05) -> str:
        """The one-sentence verdict at ``alpha``, with the rule that decided it."""
        rule = (
            f"at α = {check_alpha(alpha):g}, Bonferroni-adjusted over the {len(self.table)} "
            "p-values of the table"
        )
        rej = self.table[self.rejected(alpha)]
        side = self.better(alpha)
        if side is None:
            return f"No test finds either model closer to the reference ({rule})."
        if side == "both":
            return (
                f"The tests disagree: some find {self.names[0]} closer, others {self.names[1]} "
                f"({rule}); look at the features and the sample sizes."
            )
        name = self.names[0] if side == "first" else self.names[1]
        tests = ", ".join(rej["test"])
        return f"{name} is closer to the reference ({tests}; {rule})."

    def where(self, top: int = 8) -> dict[str, np.ndarray]:
        """Indices of the reference rows where each model fits better, best first.

        Returns ``{first name: rows with the most negative criterion, second name: rows with
        the most positive}``; only rows of the right sign are listed.
        """
        top = check_int(top, "top", low=1)
        order = np.argsort(self.criterion, kind="stable")
        first = [i for i in order[:top] if self.criterion[i] < 0]
        second = [i for i in order[::-1][:top] if self.criterion[i] > 0]
        return {self.names[0]: np.array(first, int), self.names[1]: np.array(second, int)}

    def summary(self, alpha: float = 0.05) -> str:
        """A text summary: the verdict, the test table, the metrics and what was used."""
        adjusted = self.table.copy()
        adjusted["rejects"] = self.rejected(alpha).map({True: "yes", False: "no"})
        lines = [
            "Comparison of two generative models",
            self.verdict(alpha),
            "",
            adjusted.to_string(index=False, float_format=lambda v: f"{v:.3g}"),
            "",
            self.metrics.to_string(index=False, float_format=lambda v: f"{v:.4g}"),
            "",
            (
                f"features: {self.extractor}, d = {self.n_features}; n = {self.n[0]} "
                f"({self.names[0]}), {self.n[1]} ({self.names[1]}), {self.n[2]} (reference); "
                f"seed {self.seed_used}."
            ),
        ]
        return "\n".join(lines)

    def to_html(self, path: str | Path, *, alpha: float = 0.05) -> Path:
        """Write the self-contained HTML page (needs the ``html`` extra; figures ``plot``)."""
        from modelcompare.workflows._generators_page import render

        out = check_output_path(path, "path")
        out.write_text(render(self, check_alpha(alpha)), encoding="utf-8")
        return out


def _metrics(samples, names, rng) -> pd.DataFrame:
    ref = samples[2]
    rows = []
    for name, x, r in zip(names, samples[:2], spawn(rng, 2)):
        # subsets of half the rows, so that the subsets differ and their spread means something
        m = max(2, min(1000, len(x) // 2, len(ref) // 2))
        k = kid(x, ref, n_subsets=100, subset_size=m, seed=r)
        low, high = np.percentile(k.values, [2.5, 97.5])
        rows.append(
            {
                "model": name,
                "FID": fid(x, ref).value,
                "KID": k.value,
                "KID low": float(low),
                "KID high": float(high),
            }
        )
    return pd.DataFrame(rows)


def compare_generators(
    first: Any,
    second: Any,
    reference: Any,
    *,
    extractor: Callable[[np.ndarray], Any] | None = None,
    extractor_name: str | None = None,
    names: tuple[str, str] = ("first", "second"),
    images: tuple[Any, Any, Any] | None = None,
    n_locations: int = 5,
    seed: SeedLike = None,
) -> GeneratorComparisonResult:
    """Which of two generative models is closer to the reference, by calibrated tests, and where.

    Parameters
    ----------
    first, second, reference : array-like, tensor, or path
        Samples of the two models and of the real data: features (n, d), images (n, h, w) or
        (n, h, w, c) (a torch tensor (n, c, h, w) is moved to channels-last), a folder of
        images, or a ``.npy`` file. Sizes may differ.
    extractor : callable, optional
        Maps an array of images to features (n, d), e.g. a network's pooled features. Without
        one, images are compared by their pixels (flattened; 8-bit images divided by 255).
    extractor_name : str, optional
        How the page names the extractor (default: the callable's name, or "pixels").
    names : tuple of str
        Display names of the first and second model.
    images : tuple of three arrays, optional
        When the samples are features, the images they were computed from (row for row), for
        the page's sample grids and "where" pictures; an entry may be None.
    n_locations : int
        Number J of Rel-UME's optimised test locations (the paper's J = 5).
    seed : int, Generator or None
        Random source of every test, the metrics' subsets and the map.

    Returns
    -------
    GeneratorComparisonResult
        ``verdict(alpha)``, ``summary(alpha)``, ``to_html(path, alpha=...)``; ``table`` holds
        each test in each direction with its Bonferroni-adjusted p-value.

    Raises
    ------
    ValueError
        For samples of different feature widths, bad shapes, an empty folder, or bad options.
    TypeError
        For non-numeric samples.

    Notes
    -----
    Rel-UME (Jitkrittum et al. 2018), Rel-MMD (Bounliphone et al. 2016), the relative KID (Rel-MMD
    with KID's cubic kernel) and the relative FID jackknife each test H0 "this model is at
    least as close to the reference as the other" in both directions, so the table holds 8
    p-values, and each is multiplied by 8 (Bonferroni): the family-wise error of the whole table
    is at most α. FID and KID are scores, reported with KID's spread over subsets, never used for
    the verdict.

    The "where" map is the Rel-UME power criterion (J = 1) at each reference row: positive where
    the second model fits better, negative where the first does. It is descriptive and, as the
    paper says of its locations, to be read only where a test rejects.

    References
    ----------
    .. [1] W. Jitkrittum, H. Kanagawa, P. Sangkloy, J. Hays, B. Schölkopf, A. Gretton. Informative
       Features for Model Comparison. NeurIPS 2018. arXiv:1810.11630.
    .. [2] W. Bounliphone et al. A Test of Relative Similarity for Model Selection in Generative
       Models. ICLR 2016. arXiv:1511.04581.

    Examples
    --------
    >>> import numpy as np
    >>> from modelcompare import compare_generators
    >>> rng = np.random.default_rng(0)
    >>> ref = rng.normal(size=(150, 2))
    >>> res = compare_generators(rng.normal(size=(150, 2)), rng.normal(size=(150, 2)), ref,
    ...                          seed=0)
    >>> res.better(0.05) is None
    True
    """
    if (
        not isinstance(names, tuple | list)
        or len(names) != 2
        or not all(isinstance(s, str) for s in names)
        or names[0] == names[1]
    ):
        msg = f"`names` must be two different strings; got {names!r}."
        raise ValueError(msg)
    if extractor is not None and not callable(extractor):
        msg = f"`extractor` must be callable; got {type(extractor).__name__}."
        raise TypeError(msg)
    n_locations = check_int(n_locations, "n_locations", low=1)
    rng, seed_used = check_seed(seed)
    samples = [
        read_sample(v, label, extractor)
        for v, label in ((first, "first"), (second, "second"), (reference, "reference"))
    ]
    feats = [s.features for s in samples]
    for label, f in zip(("first", "second", "reference"), feats, strict=True):
        # squared distances of the kernels and of FID's covariances overflow float64 beyond this
        if np.abs(f).max() > 1e150:
            msg = (
                f"`{label}` holds values of order {np.abs(f).max():.3g}: standardise the features."
            )
            raise ValueError(msg)
    shown = [s.images for s in samples]
    if images is not None:
        if not isinstance(images, tuple | list) or len(images) != 3:
            msg = "`images` must be a tuple of three arrays (first, second, reference) or None."
            raise ValueError(msg)
        for i, (label, given) in enumerate(zip(("first", "second", "reference"), images)):
            if given is None:
                continue
            arr = np.array(given, copy=True)
            if arr.ndim not in (3, 4) or arr.shape[0] != len(feats[i]):
                msg = (
                    f"`images` for {label} must be {len(feats[i])} images (n, h, w) or "
                    f"(n, h, w, c); got shape {arr.shape}."
                )
                raise ValueError(msg)
            shown[i] = arr
    d = check_same_width(list(zip(("first", "second", "reference"), feats)), what="features")
    rows = []
    streams = spawn(rng, 2 * len(RELATIVE_TESTS) + 2)
    k = 0
    for test, run in RELATIVE_TESTS.items():
        for a, b, better in ((0, 1, names[1]), (1, 0, names[0])):
            with warnings.catch_warnings():
                # a degenerate test is p = 1, recorded in its row; the warning would repeat it
                warnings.simplefilter("ignore", DegenerateDataWarning)
                res = run(feats[a], feats[b], feats[2], streams[k], n_locations)
            k += 1
            rows.append(
                {
                    "test": test,
                    "better": better,
                    "statistic": float(res.statistic),
                    "pvalue": float(res.pvalue),
                }
            )
    table = pd.DataFrame(rows)
    m = len(table)
    table["pvalue_adjusted"] = np.minimum(1.0, table["pvalue"] * m)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDataWarning)
        crit = power_criterion_map(
            feats[0], feats[1], feats[2], feats[2], seed=streams[k], subsample=True
        ).criterion
    name = extractor_name or (
        "pixels (flattened; 8-bit images divided by 255)"
        if extractor is None
        else getattr(extractor, "__name__", type(extractor).__name__)
    )
    return GeneratorComparisonResult(
        table=table,
        pvalue=float(table["pvalue_adjusted"].min()),
        metrics=_metrics(feats, tuple(names), streams[k + 1]),
        criterion=np.nan_to_num(crit, nan=0.0),
        names=(names[0], names[1]),
        n=(len(feats[0]), len(feats[1]), len(feats[2])),
        n_features=int(d),
        extractor=name if any(s.images is not None for s in samples) else "given features",
        origins=tuple(s.origin for s in samples),
        correction="bonferroni",
        seed_used=seed_used,
        _images=(shown[0], shown[1], shown[2]),
    )
