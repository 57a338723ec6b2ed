"""One option factory per argument name of docs/glossary.md, and the CLI's names for the library's.

Each factory returns a click decorator for the option of that name, with its type, default and
help written here once: a subcommand's options then read like its function's signature
(``@options.classifier()``, ``@options.n_folds()``, ``@options.seed()``). A factory takes the
default and help of the subcommand where they differ (the glossary's "Defaults that differ
between kinds"). The options most subcommands share (``--seed``, ``--json``, ``--alpha``,
``--fail-on-reject``, ``--quiet``, ``--columns``) come together from :func:`common_options`, which
hands them to the command as one :class:`CommonOptions`.

:data:`LIBRARY_NAMES` maps, per subcommand, the library's argument names to the options or
positionals the user typed, where the two are not spelled alike (``x`` is ``REFERENCE`` in
``modelcompare c2st``); :func:`cli_message` rewrites a library message or warning through it, so
that ``"`x`, `y` must have the same number of columns"`` reaches the user as ``"`REFERENCE`,
`SAMPLES` must have the same number of columns"`` and ``"Pass `subsample=True`"`` as ``"Pass
`--subsample`"``.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from typing import Any, TypeVar

import click

from modelcompare._foundation.pvalues import CORRECTIONS

__all__ = [
    "CORRECTION_CHOICES",
    "KEEPS_LIBRARY_NAMES",
    "LIBRARY_NAMES",
    "CommonOptions",
    "FiniteFloat",
    "alpha",
    "alternative",
    "as_json",
    "bandwidth",
    "choice",
    "classifier",
    "cli_message",
    "columns",
    "common_options",
    "correction",
    "device",
    "eval_correction",
    "fail_on_reject",
    "library_correction",
    "method",
    "n_blocks",
    "n_folds",
    "n_jobs",
    "n_levels",
    "n_locations",
    "n_posterior_samples",
    "n_resamples",
    "n_test",
    "n_train",
    "nan_policy",
    "optimizer",
    "pass_as",
    "quiet",
    "regressor",
    "renamed_option",
    "rope",
    "scoring_rule",
    "seed",
    "subsample",
    "theta",
    "x_eval",
    "x_obs",
]

F = TypeVar("F", bound=Callable[..., Any])
Decorator = Callable[[F], F]

#: The values of ``--correction`` and ``--eval-correction``: the library's ``correction=``
#: values, with ``none`` for ``None``.
CORRECTION_CHOICES = tuple("none" if c is None else c for c in CORRECTIONS)


def renamed_option(
    old: str,
    new: str,
    dest: str,
    *,
    is_flag: bool = False,
    convert: Callable[[Any], Any] | None = None,
) -> Decorator:
    """A hidden option ``old`` that still works as the option ``new`` (whose parameter is ``dest``).

    The old spelling is left out of ``--help`` and warns (a ``FutureWarning``, shown on stderr)
    naming the new one; its value reaches the command as if ``new`` had been given. ``old`` may be
    a ``--flag/--no-flag`` pair with ``is_flag=True``; ``convert`` maps the old value to the new
    option's (e.g. ``True`` to ``"default"``). Given both, the new spelling wins.
    """

    def callback(ctx: click.Context, param: click.Parameter, value: Any) -> None:
        if value is None or ctx.resilient_parsing:
            return
        spelled = old.split("/")[0] if value in (True, None) or not is_flag else old.split("/")[1]
        # One line on stderr, as the command line prints every library warning (a Python warning
        # here would print its source line).
        click.echo(
            f"Warning: FutureWarning: the option `{spelled}` was renamed `{new}`; `{spelled}` "
            "still works but will be removed in a future release.",
            err=True,
        )
        # This eager option is processed before the new one, which, when it is not on the command
        # line, takes its value from the default map and so goes through its own type and checks.
        ctx.default_map = {**(ctx.default_map or {}), dest: convert(value) if convert else value}

    name = "_renamed_" + old.lstrip("-").split("/")[0].replace("-", "_")
    return click.option(
        old,
        name,
        is_flag=is_flag,
        default=None,
        hidden=True,
        expose_value=False,
        is_eager=True,
        callback=callback,
    )


class FiniteFloat(click.FloatRange):
    """A ``FloatRange`` that also refuses NaN and ±inf (which a plain range lets through)."""

    name = "finite float"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        out = super().convert(value, param, ctx)
        if not math.isfinite(out):
            self.fail(f"{value!r} is not a finite number.", param, ctx)
        return out


def choice(
    name: str, choices: Sequence[str], *, dest: str | None = None, help: str | None = None
) -> Decorator:
    """An option ``name`` that takes one of ``choices``, the first by default (shown in --help)."""
    return click.option(
        name,
        *([dest] if dest else []),
        type=click.Choice(choices),
        default=choices[0],
        show_default=True,
        help=help,
    )


def library_correction(value: str) -> str | None:
    """The library's ``correction=`` value of a ``--correction`` choice (``none`` is ``None``)."""
    return None if value == "none" else value


# ---------------------------------------------------------------------------------------------
# the options every test shares


def seed(*, help: str = "Random seed.") -> Decorator:
    return click.option("--seed", type=click.IntRange(min=0), default=None, help=help)


def as_json() -> Decorator:
    return click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")


def alpha() -> Decorator:
    return click.option(
        "--alpha",
        type=FiniteFloat(0, 1, min_open=True, max_open=True),
        default=None,
        help="Also report the decision: reject H0 iff p <= alpha.",
    )


def fail_on_reject() -> Decorator:
    return click.option(
        "--fail-on-reject", is_flag=True, help="Exit with code 1 when H0 is rejected at --alpha."
    )


def quiet() -> Decorator:
    return click.option("--quiet", "-q", is_flag=True, help="Silence progress and hints on stderr.")


def columns() -> Decorator:
    return click.option(
        "--columns", type=str, default=None, help="CSV/Parquet columns to use, a,b,c."
    )


#: The shared options by the :class:`CommonOptions` field each one fills, in the order of --help.
_SHARED = {
    "columns": columns,
    "seed": seed,
    "as_json": as_json,
    "alpha": alpha,
    "fail_on_reject": fail_on_reject,
    "quiet": quiet,
}


@dataclass(frozen=True)
class CommonOptions:
    """The options the subcommands share, as one argument ``opts`` (see :func:`common_options`).

    A command without one of them gets its default here (``fid`` takes no ``--seed``).
    """

    columns: str | None = None
    seed: int | None = None
    as_json: bool = False
    alpha: float | None = None
    fail_on_reject: bool = False
    quiet: bool = False

    @property
    def column_names(self) -> list[str] | None:
        """``--columns a,b,c`` as ``["a", "b", "c"]``; ``None`` without it."""
        return self.columns.split(",") if self.columns else None

    @property
    def level(self) -> float:
        """The level of a command that always decides: ``--alpha``, else 0.05."""
        return 0.05 if self.alpha is None else self.alpha


def pass_as(name: str, cls: type) -> Decorator:
    """Pass the command's parameters named like the fields of dataclass ``cls`` as one ``name``.

    The parameters are gathered whichever decorator added them (``sweep`` shows its ``--seed``
    away from ``--json`` and ``--quiet``, and it still reaches ``opts.seed``).
    """
    names = {f.name for f in fields(cls) if f.init}

    def decorator(func: F) -> F:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            gathered = {key: kwargs.pop(key) for key in names & kwargs.keys()}
            return func(*args, **kwargs, **{name: cls(**gathered)})

        # functools.wraps copies func's __dict__, where click keeps the options declared below
        # this decorator; those declared above it join that same list, so --help keeps the
        # written order.
        return wrapper  # type: ignore[return-value]

    return decorator


def common_options(*, columns: bool = False, seed: bool = True, decision: bool = True) -> Decorator:
    """Add the shared options and pass them to the command as ``opts``, a :class:`CommonOptions`.

    In this order: ``--columns`` (with ``columns=True``), ``--seed`` (unless ``seed=False``),
    ``--json``, ``--alpha`` and ``--fail-on-reject`` (unless ``decision=False``), ``--quiet``.
    """
    wanted = {"columns": columns, "seed": seed, "alpha": decision, "fail_on_reject": decision}
    chosen = [factory() for name, factory in _SHARED.items() if wanted.get(name, True)]

    def decorator(func: F) -> F:
        func = pass_as("opts", CommonOptions)(func)
        for option in reversed(chosen):
            func = option(func)
        return func

    return decorator


# ---------------------------------------------------------------------------------------------
# the glossary's argument names


def n_blocks(*, default: int | None = None, help: str | None = None) -> Decorator:
    return click.option(
        "--n-blocks",
        type=click.IntRange(min=2),
        default=default,
        show_default=default is not None,
        help=help or "Disjoint blocks of each sample, one statistic per block.",
    )


def n_resamples(*, default: int | None = None, help: str | None = None) -> Decorator:
    return click.option(
        "--n-resamples",
        type=click.IntRange(min=1),
        default=default,
        show_default=default is not None,
        help=help or "Monte Carlo resamples of the null distribution (or bootstrap replicates).",
    )


def correction(*, default: str = "holm", help: str | None = None) -> Decorator:
    return click.option(
        "--correction",
        type=click.Choice(CORRECTION_CHOICES),
        default=default,
        show_default=True,
        help=help or "Multiplicity correction of the family of p-values (none: unadjusted).",
    )


def eval_correction(*, default: str = "holm") -> Decorator:
    return click.option(
        "--eval-correction",
        type=click.Choice(CORRECTION_CHOICES),
        default=default,
        show_default=True,
        help="Correction of the local p-values across evaluation points.",
    )


def regressor(
    *,
    choices: Sequence[str] | None = None,
    default: str = "knn",
    help: str | None = None,
) -> Decorator:
    return click.option(
        "--regressor",
        type=None if choices is None else click.Choice(list(choices)),
        default=default,
        show_default=True,
        help=help,
    )


def classifier(*, choices: Sequence[str] = ("mlp", "logistic"), default: str = "mlp") -> Decorator:
    return click.option(
        "--classifier", type=click.Choice(list(choices)), default=default, show_default=True
    )


def n_jobs(*, help: str = "joblib workers, a non-zero int; -1: all cores.") -> Decorator:
    return click.option("--n-jobs", type=int, default=None, callback=_check_n_jobs, help=help)


def _check_n_jobs(_ctx: click.Context, _param: click.Parameter, value: int | None) -> int | None:
    if value == 0:
        msg = "0 workers; use a positive number, or -1 for all cores."
        raise click.BadParameter(msg)
    return value


def n_levels(*, default: int = 99) -> Decorator:
    return click.option(
        "--n-levels",
        type=click.IntRange(min=1),
        default=default,
        show_default=True,
        help="Credibility levels k/(K+1), k=1..K.",
    )


def n_folds(*, default: int = 5) -> Decorator:
    return click.option("--n-folds", type=click.IntRange(min=2), default=default, show_default=True)


def x_eval(*, help: str = "Evaluation points of the local checks, (E, d).") -> Decorator:
    return click.option("--x-eval", "x_eval", default=None, help=help)


def x_obs(
    *, help: str = "Observed data sets, (n_obs, d): the local checks run there too."
) -> Decorator:
    return click.option("--x-obs", "x_obs", default=None, help=help)


def theta(*, help: str = "True parameters θ of the calibration pairs, (N, m).") -> Decorator:
    return click.option("--theta", type=str, default=None, help=help)


def n_posterior_samples(*, help: str = "S, the posterior draws per observation.") -> Decorator:
    return click.option("--n-posterior-samples", type=click.IntRange(min=1), help=help)


def n_locations() -> Decorator:
    return click.option(
        "--n-locations",
        type=click.IntRange(min=1),
        default=None,
        help="Rel-UME: number J of test locations [default: 5].",
    )


def bandwidth() -> Decorator:
    return click.option(
        "--bandwidth",
        type=click.FloatRange(min=0, min_open=True),
        default=None,
        help="Gaussian width sigma in exp(-|a-b|^2/(2 sigma^2)) (ume, mmd). Default: median "
        "heuristic.",
    )


def optimizer() -> Decorator:
    return click.option(
        "--optimizer",
        type=click.Choice(["default", "paper-ex1", "paper-ex2", "demo", "none"]),
        default=None,
        help="Rel-UME: the optimiser preset for locations and width on a 20% split, or none to "
        "test all rows without optimising [default: default].",
    )


def subsample() -> Decorator:
    return click.option(
        "--subsample",
        is_flag=True,
        default=None,
        help="ume/mmd/kid need equal sample sizes: subsample each file to the smallest (seeded).",
    )


def alternative(*, help: str | None = None) -> Decorator:
    return click.option(
        "--alternative",
        type=click.Choice(["two-sided", "greater", "less"]),
        default="two-sided",
        show_default=True,
        help=help,
    )


def method(*, choices: Sequence[str], default: str) -> Decorator:
    return click.option(
        "--method", type=click.Choice(list(choices)), default=default, show_default=True
    )


def scoring_rule() -> Decorator:
    return click.option(
        "--scoring-rule", type=click.Choice(["log", "energy"]), default="log", show_default=True
    )


def nan_policy() -> Decorator:
    return click.option(
        "--nan-policy",
        type=click.Choice(["raise", "omit"]),
        default="raise",
        show_default=True,
        help="NaN scores (failed fits): error, or drop those splits.",
    )


def rope(*, default: float = 0.01) -> Decorator:
    return click.option(
        "--rope",
        type=FiniteFloat(min=0),
        default=default,
        show_default=True,
        help="Half-width of the region of practical equivalence (0: none).",
    )


def n_train(*, help: str = "Training-set size of one split.") -> Decorator:
    return click.option(
        "--n-train", type=FiniteFloat(min=0, min_open=True), default=None, help=help
    )


def n_test(*, help: str = "Test-set size of one split.") -> Decorator:
    return click.option("--n-test", type=FiniteFloat(min=0, min_open=True), default=None, help=help)


def device() -> Decorator:
    return click.option(
        "--device",
        type=click.Choice(["cpu", "cuda", "mps", "gpu", "auto"]),
        default="cpu",
        show_default=True,
    )


# ---------------------------------------------------------------------------------------------
# the library's argument names in the CLI's words

#: Per subcommand: the library's argument names whose option or positional is spelled otherwise.
#: Every other option and positional names itself (``n_folds`` is ``--n-folds``, ``scores`` is
#: ``SCORES``): :func:`cli_names` adds them from the command.
LIBRARY_NAMES: dict[str, dict[str, str]] = {
    "c2st": {"x": "REFERENCE", "y": "SAMPLES"},
    "relative": {"x": "P_SAMPLES", "y": "Q_SAMPLES", "z": "REF_SAMPLES"},
    "fid": {"x": "SAMPLES", "z": "REF_SAMPLES"},
    "coverage": {"levels": "--n-levels"},
    "granularity": {
        "p": "--reference",
        "n_bins_grid": "--n-bins-max",
    },
    "report": {
        "pit_values": "--pit",
        "x": "--x",
        "x_obs": "--x-obs",
        "ranks": "--ranks",
        "posterior_samples": "--posterior-samples",
        "reference": "--reference",
        "posterior_samples_at_reference": "--posterior-samples-at-reference",
        "flow": "--flow-pickle",
    },
}

#: Subcommands whose messages keep the library's names: a sweep config is written in them.
KEEPS_LIBRARY_NAMES = frozenset({"sweep"})


def _spelling(param: click.Parameter) -> str:
    if isinstance(param, click.Argument):
        return param.human_readable_name
    long = [opt for opt in param.opts if opt.startswith("--")]
    return (long or param.opts)[0]


def cli_names(command: click.Command) -> dict[str, click.Parameter]:
    """The command's parameters by the library argument name each stands for."""
    by_spelling = {_spelling(p): p for p in command.params}
    names: dict[str, click.Parameter] = {}
    for param in command.params:
        if param.name is not None:
            names[param.name] = param
    for library_name, typed in LIBRARY_NAMES.get(command.name or "", {}).items():
        if typed in by_spelling:
            names[library_name] = by_spelling[typed]
    return names


_BACKTICKED = re.compile(r"`([A-Za-z_]\w*)(?:=([^`]*))?`")
_PASS_NONE = re.compile(r"\b([Pp])ass `([A-Za-z_]\w*)=None`")
_SPAN = re.compile(r"(`[^`]*`)")


def _with_value(param: click.Parameter, value: str) -> str:
    """How the user writes ``name=value``: ``--flag``, ``--name value`` or ``no --name``."""
    typed = _spelling(param)
    value = value.strip().strip("'\"")
    if getattr(param, "is_flag", False):
        return f"`{typed}`" if value == "True" else f"no `{typed}`"
    if value == "None":
        choices = getattr(param.type, "choices", ())
        return f"`{typed} none`" if "none" in choices else f"no `{typed}`"
    if isinstance(param, click.Argument):
        return f"`{typed}`={value}"
    return f"`{typed} {value}`"


def cli_message(text: str, command: click.Command | None) -> str:
    """``text`` with the library's argument names replaced by the ones ``command`` takes.

    Backticked names (```x```, ```subsample=True```) are replaced where the command has that
    argument; a bare name with an underscore (``n_resamples >= 359``) too, as a whole word, outside
    backticks. Names the command does not take are left as they are.

    Examples
    --------
    >>> from modelcompare.cli import app
    >>> relative = app.get_command(click.Context(app), "relative")
    >>> cli_message("`x`, `y` and `z` differ in size. Pass `subsample=True`.", relative)
    '`P_SAMPLES`, `Q_SAMPLES` and `REF_SAMPLES` differ in size. Pass `--subsample`.'
    """
    if command is None or command.name in KEEPS_LIBRARY_NAMES:
        return text
    names = cli_names(command)

    def omit(match: re.Match[str]) -> str:
        param = names.get(match.group(2))
        if (
            param is None
            or getattr(param, "is_flag", False)
            or "none" in getattr(param.type, "choices", ())
        ):
            return match.group(0)
        verb = "Omit" if match.group(1) == "P" else "omit"
        return f"{verb} `{_spelling(param)}`"

    def swap(match: re.Match[str]) -> str:
        param = names.get(match.group(1))
        if param is None:
            return match.group(0)
        if match.group(2) is None:
            return f"`{_spelling(param)}`"
        return _with_value(param, match.group(2))

    text = _BACKTICKED.sub(swap, _PASS_NONE.sub(omit, text))
    bare = sorted((n for n in names if "_" in n), key=len, reverse=True)
    if not bare:
        return text
    word = re.compile(r"\b(" + "|".join(map(re.escape, bare)) + r")\b")
    parts = _SPAN.split(text)  # the odd parts are backticked spans, left as they are
    for i in range(0, len(parts), 2):
        parts[i] = word.sub(lambda m: _spelling(names[m.group(1)]), parts[i])
    return "".join(parts)
