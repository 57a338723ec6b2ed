"""``modelcompare granularity``: granularity of categorical samples against a reference.

The reference is given one of three ways:

* ``--reference stairs:c=6,L=6,stairs=2[,ratio=3][,layout=index|sort][,positive_fraction=F]``, the
  built-in stair distribution (``stairs`` = S, the positive stairs);
* ``--reference-table FILE``: probabilities over Ω = {0..c-1}^L in ``itertools.product`` order
  (L is the number of sample columns, c is inferred from the table length);
* ``--reference-samples FILE``: draws from the reference (two-sample mode, CDVV statistic); may be
  combined with ``--reference`` to take the stairs (level sets) from it.

``--alpha`` is the level of the closeness test at every level k (default 0.05). The output is the
library's :class:`~modelcompare.GranularityResult` (``value`` is the granularity) and its per-level
``decisions``. A malformed ``--reference`` spec (an unknown key, a value that is not a number, or
values that name no stair distribution, e.g. ``c=0`` or ``layout=sort`` with ``stairs=3``) and a
``--n-bins-max`` outside [s, finest partition] are usage errors: one line ``Error: ...`` and exit 2,
like any bad option value. Unreadable files, bad shapes, categories out of range and invalid tables
are data errors (exit 3).
"""

from __future__ import annotations

import sys
import time
from typing import Any, NoReturn

import click

from modelcompare._foundation.io import DataError, read_matrix
from modelcompare.cli import _options as options
from modelcompare.cli._common import emit, handle_errors, say
from modelcompare.cli._exit import EXIT_USAGE

_SPEC_KEYS = {
    "c": int,
    "L": int,
    "stairs": int,
    "ratio": float,
    "layout": str,
    "positive_fraction": float,
}


def parse_reference_spec(spec: str) -> dict[str, Any]:
    """Parse ``stairs:c=6,L=6,stairs=2[,ratio=…][,layout=…]`` (raises ``click.BadParameter``).

    Parameters
    ----------
    spec : str
        The ``--reference`` value.

    Returns
    -------
    dict
        The keyword arguments of :func:`~modelcompare.stair_distribution` it names.

    Examples
    --------
    >>> parse_reference_spec("stairs:c=6,L=6,stairs=2,ratio=3")
    {'c': 6, 'L': 6, 'stairs': 2, 'ratio': 3.0}
    """
    kind, _, body = spec.partition(":")
    if kind != "stairs" or not body:
        msg = f"expected 'stairs:c=C,L=L,stairs=S[,ratio=R][,layout=index|sort]'; got {spec!r}."
        raise click.BadParameter(msg, param_hint="'--reference'")
    out: dict[str, Any] = {}
    for item in body.split(","):
        key, eq, value = item.partition("=")
        key = key.strip()
        if not eq or key not in _SPEC_KEYS:
            msg = f"unknown or malformed entry {item!r} (keys: {', '.join(_SPEC_KEYS)})."
            raise click.BadParameter(msg, param_hint="'--reference'")
        try:
            out[key] = _SPEC_KEYS[key](value.strip())
        except ValueError:
            msg = f"{key}={value!r} is not a valid {_SPEC_KEYS[key].__name__}."
            raise click.BadParameter(msg, param_hint="'--reference'") from None
    missing = [k for k in ("c", "L", "stairs") if k not in out]
    if missing:
        msg = f"missing {', '.join(missing)} in {spec!r}."
        raise click.BadParameter(msg, param_hint="'--reference'")
    return out


def _usage_error(message: str) -> NoReturn:
    """One line ``Error: ...`` on stderr and exit code 2 (a usage problem, not a data problem)."""
    say(message)
    sys.exit(EXIT_USAGE)


def _spec_reference(spec: str) -> Any:
    """The stair reference a ``--reference`` spec names; any problem with it is a usage error."""
    from modelcompare.categorical import stair_distribution

    try:
        kw = parse_reference_spec(spec)
        return stair_distribution(
            kw["c"],
            kw["L"],
            kw["stairs"],
            kw.get("ratio", 2.0),
            layout=kw.get("layout", "index"),
            positive_fraction=kw.get("positive_fraction"),
        )
    except click.BadParameter as exc:
        _usage_error(exc.format_message())
    except (ValueError, TypeError) as exc:
        _usage_error(f"Invalid value for '--reference' ({spec!r}): {exc}")


def _table_reference(path: str, length: int) -> Any:
    import numpy as np

    from modelcompare.categorical import CategoricalReference

    table = read_matrix(path).reshape(-1)
    size = table.shape[0]
    c = round(size ** (1.0 / length))
    match = [cc for cc in (c - 1, c, c + 1) if cc >= 1 and cc**length == size]
    if not match:
        msg = f"{path}: the table has {size} entries, which is not c**L for L={length} columns."
        raise DataError(msg)
    return CategoricalReference.from_table(np.asarray(table), match[0], length)


@click.command("granularity")
@click.argument("samples")
@click.option(
    "--reference",
    "reference_spec",
    default=None,
    help="Built-in stair reference: stairs:c=6,L=6,stairs=2[,ratio=3][,layout=sort].",
)
@click.option(
    "--reference-table",
    default=None,
    help="File of p over Ω (c**L values, itertools.product order).",
)
@click.option(
    "--reference-samples", default=None, help="File of reference draws (two-sample mode)."
)
@click.option(
    "--epsilon",
    type=click.FloatRange(min=0, min_open=True),
    default=0.1,
    show_default=True,
    help="Tolerance on the ℓ2 norm ‖p^B − q^B‖₂.",
)
@click.option(
    "--mode",
    type=click.Choice(
        [
            "paper",
            "amplified",
            "cantelli",
            "asymptotic",
            "mc",
            "tv-bound",
            "threshold",
            "permutation",
        ]
    ),
    default=None,
    help="Closeness test (default: paper; threshold in two-sample mode).",
)
@click.option("--split", is_flag=True, help="Choose bins on half the samples, test on the rest.")
@click.option(
    "--n-bins-max",
    type=click.IntRange(min=1),
    default=None,
    help="Last granularity k, the most bins (default 2s; at most |Ω⁺| + 1, or the pooled rows without a reference).",
)
@options.n_resamples(default=999)
@options.common_options()
@options.renamed_option("--k-max", "--n-bins-max", "n_bins_max")
@handle_errors
def granularity_command(
    samples: str,
    reference_spec: str | None,
    reference_table: str | None,
    reference_samples: str | None,
    epsilon: float,
    mode: str | None,
    split: bool,
    n_bins_max: int | None,
    n_resamples: int,
    opts: options.CommonOptions,
) -> None:
    """Granularity of categorical SAMPLES (rows of L categories, 0-based) against a reference.

    Bins Ω ever more finely (B*_k, k = s..2s) and tests closeness at tolerance --epsilon and level
    --alpha (default 0.05) at each level (Regol, Kroon & Coates 2023). The score `value` is the
    granularity, the largest accepted k: higher is better. --fail-on-reject exits 1 when some
    level rejects.

    \b
    Example (k = 4 is accepted, k = 5 rejected: the granularity is 4):
      $ modelcompare example-data
      $ modelcompare granularity examples/data/categorical.npy --reference stairs:c=6,L=6,stairs=3,ratio=2 --seed 0 --json
      {"all_accepted": false, "alpha": 0.05, "decisions": [false, true, true, true, true],
       "epsilon": 0.1, "first_rejected_k": 5, "k_values": [4, 5, 6, 7, 8], ...,
       "test": "granularity", ..., "value": 4, ...}
    """
    from modelcompare.categorical import granularity, limit_message, max_bins

    given = [r for r in (reference_spec, reference_table) if r is not None]
    if len(given) > 1:
        raise click.UsageError("give at most one of --reference and --reference-table.")
    if not given and reference_samples is None:
        raise click.UsageError(
            "give the reference: --reference, --reference-table or --reference-samples."
        )
    started = time.perf_counter()
    ref = None
    if reference_spec is not None:
        ref = _spec_reference(reference_spec)
    x = read_matrix(samples)
    if reference_table is not None:
        ref = _table_reference(reference_table, x.shape[1])
    ref_x = read_matrix(reference_samples) if reference_samples is not None else None
    n_bins_grid = None
    if n_bins_max is not None:
        lo = ref.n_stairs + 1 if ref is not None else 2
        if n_bins_max < lo:
            _usage_error(f"`--n-bins-max`={n_bins_max} is below s={lo}, the coarsest level.")
        n_rows = x.shape[0] + (ref_x.shape[0] if ref_x is not None else 0)
        limit, why = max_bins(ref, adaptive=True, n_rows=n_rows)
        if n_bins_max > limit:
            _usage_error(limit_message("--n-bins-max", n_bins_max, limit, why))
        n_bins_grid = range(lo, n_bins_max + 1)
    result = granularity(
        ref,
        x,
        epsilon=epsilon,
        alpha=opts.level,
        mode=mode,
        split=split,
        n_bins_grid=n_bins_grid,
        reference_samples=ref_x,
        n_resamples=n_resamples,
        seed=opts.seed,
    )
    rows = [
        ("granularity (value)", result.value),
        ("first rejected k", result.first_rejected_k),
        ("all accepted", result.all_accepted),
        ("mode", result.mode),
        ("epsilon", result.epsilon),
        ("alpha", result.alpha),
        ("split", result.split),
        ("n samples", result.n_samples),
    ]
    emit(
        opts,
        test="granularity",
        result=result,
        params={
            "reference": reference_spec or reference_table or "samples",
            "reference_samples": reference_samples,
            "epsilon": epsilon,
            "alpha": opts.level,
            "mode": result.mode,
            "split": split,
            "n_bins_max": n_bins_max,
            "n_resamples": n_resamples,
        },
        seed=result.seed_used,
        started=started,
        rows=rows,
        table=result.table(),
        reject=bool(result.decisions.any()),
    )
