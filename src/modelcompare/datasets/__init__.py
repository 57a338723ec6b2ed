"""Small example data sets shipped with the package, in scikit-learn's ``load_*`` spirit.

The files are the ones the command-line examples, the README and the documentation use. They are
installed with the package, so they are available outside a clone of the repository:

- from Python, with the ``load_*`` functions below;
- as files, with :func:`write_example_data` or ``modelcompare example-data [DIR]``, which copies
  them to ``DIR`` (by default ``examples/data``, the paths the ``--help`` examples use).

Importing this module loads nothing heavy: numpy (and pandas, for :func:`load_cv_scores`) is
imported when a loader is called.
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

__all__ = [
    "DEFAULT_DIRECTORY",
    "data_path",
    "example_files",
    "load_categorical",
    "load_coverage",
    "load_cv_scores",
    "load_posterior_comparison",
    "load_relative_fit",
    "load_two_samples",
    "write_example_data",
]

#: Where ``modelcompare example-data`` writes the files when no directory is given.
DEFAULT_DIRECTORY = Path("examples") / "data"


def _data() -> resources.abc.Traversable:
    return resources.files(__name__).joinpath("data")


def example_files() -> list[str]:
    """The names of the shipped example files, sorted.

    Returns
    -------
    list of str
        File names, such as ``"reference.npy"``; :func:`data_path` gives their location.

    Examples
    --------
    >>> from modelcompare.datasets import example_files
    >>> "reference.npy" in example_files()
    True
    """
    return sorted(entry.name for entry in _data().iterdir() if entry.is_file())


def data_path(name: str) -> Path:
    """The path of one shipped example file.

    Parameters
    ----------
    name : str
        A file name from :func:`example_files`, such as ``"reference.npy"``.

    Returns
    -------
    pathlib.Path
        The installed file (the package is installed as a directory, so this is a real file).

    Raises
    ------
    ValueError
        If ``name`` is not a shipped file.

    Examples
    --------
    >>> from modelcompare.datasets import data_path
    >>> data_path("sweep.yaml").name
    'sweep.yaml'
    """
    names = example_files()
    if name not in names:
        msg = f"name must be one of the shipped example files {names}; got {name!r}."
        raise ValueError(msg)
    return Path(str(_data().joinpath(name)))


def _load(name: str) -> np.ndarray:
    import numpy as np

    return np.load(data_path(name))


def load_two_samples() -> tuple[np.ndarray, np.ndarray]:
    """Two 2-D sample sets of 1,000 draws each, for the C2ST (``modelcompare c2st``).

    Returns
    -------
    reference : ndarray of shape (1000, 2)
        Draws of the reference (``reference.npy``).
    samples : ndarray of shape (1000, 2)
        Draws of the model under test (``samples.npy``; ``samples.csv`` holds the same draws as
        a table with columns ``theta0`` and ``theta1``).

    Examples
    --------
    >>> from modelcompare.datasets import load_two_samples
    >>> reference, samples = load_two_samples()
    >>> reference.shape, samples.shape
    ((1000, 2), (1000, 2))
    """
    return _load("reference.npy"), _load("samples.npy")


def load_relative_fit() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Draws of two models and of the data, for the relative tests (``modelcompare relative``).

    P is N((0.6, 0.6), I), Q is N((0.2, 0.2), I) and the data are N(0, I), so Q is the closer
    model.

    Returns
    -------
    p : ndarray of shape (400, 2)
        Draws of model P (``rel_p.npy``).
    q : ndarray of shape (400, 2)
        Draws of model Q (``rel_q.npy``).
    data : ndarray of shape (400, 2)
        The observed data (``rel_ref.npy``).

    Examples
    --------
    >>> from modelcompare.datasets import load_relative_fit
    >>> p, q, data = load_relative_fit()
    >>> p.shape
    (400, 2)
    """
    return _load("rel_p.npy"), _load("rel_q.npy"), _load("rel_ref.npy")


def load_coverage() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """PIT values of an over-dispersed posterior, for ``modelcompare coverage`` and ``report``.

    The posterior of a conditional Gaussian model, 1.3 times too wide, evaluated at 500 held-out
    simulations (θ, x).

    Returns
    -------
    pit : ndarray of shape (500, 2)
        The PIT value of each true parameter under the estimated posterior (``pit.npy``).
    x : ndarray of shape (500, 2)
        The observations the posteriors are conditioned on (``x.npy``).
    x_eval : ndarray of shape (3, 2)
        Three observations of the same model, evaluation points of the local coverage test
        (``x_eval.npy``).

    Examples
    --------
    >>> from modelcompare.datasets import load_coverage
    >>> pit, x, x_eval = load_coverage()
    >>> pit.shape, x_eval.shape
    ((500, 2), (3, 2))
    """
    return _load("pit.npy"), _load("x.npy"), _load("x_eval.npy")


def load_categorical() -> np.ndarray:
    """5,000 draws of a categorical model over {0, ..., 5}^6, for ``modelcompare granularity``.

    The model is a stair distribution (6 categories, 6 dimensions, 3 stairs, ratio 2) perturbed
    by a total variation of 0.08.

    Returns
    -------
    ndarray of shape (5000, 6), dtype uint8
        The draws (``categorical.npy``).

    Examples
    --------
    >>> from modelcompare.datasets import load_categorical
    >>> load_categorical().shape
    (5000, 6)
    """
    return _load("categorical.npy")


def load_cv_scores() -> pd.DataFrame:
    """Cross-validated accuracies of four models on 100 splits, for ``modelcompare cv``.

    The scores of scikit-learn's grid-search example (support vector classifiers, 10 times
    repeated 10-fold cross-validation with 90 training and 10 test rows per split).

    Returns
    -------
    pandas.DataFrame
        One row per model (index ``model``), one column per split (``cv_scores.csv``).

    Examples
    --------
    >>> from modelcompare.datasets import load_cv_scores
    >>> load_cv_scores().shape
    (4, 100)
    """
    import pandas as pd

    return pd.read_csv(data_path("cv_scores.csv"), index_col="model")


def load_posterior_comparison() -> dict[str, np.ndarray]:
    """Two posterior estimates at 200 held-out simulations, for ``modelcompare compare-posteriors``.

    The exact posterior of a conditional Gaussian model ("first") against one 1.5 times wider
    ("second").

    Returns
    -------
    dict of str to ndarray
        ``logq_first`` and ``logq_second`` (shape (200,)): each estimate's log-density at the true
        parameter; ``draws_first`` and ``draws_second`` (shape (200, 10, 2)): ten draws of each
        estimate per observation; ``theta`` (shape (200, 2)): the true parameters.

    Examples
    --------
    >>> from modelcompare.datasets import load_posterior_comparison
    >>> data = load_posterior_comparison()
    >>> sorted(data)
    ['draws_first', 'draws_second', 'logq_first', 'logq_second', 'theta']
    """
    names = ("logq_first", "logq_second", "draws_first", "draws_second", "theta")
    return {name: _load(f"posterior_{name}.npy") for name in names}


def write_example_data(directory: str | os.PathLike[str] = DEFAULT_DIRECTORY) -> list[Path]:
    """Copy the shipped example files into ``directory``.

    Parameters
    ----------
    directory : str or path-like, default ``"examples/data"``
        Where to write the files; created if missing. Files of the same name are replaced.

    Returns
    -------
    list of pathlib.Path
        The files written, in the order of :func:`example_files`.

    Examples
    --------
    >>> import tempfile
    >>> from modelcompare.datasets import write_example_data
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     written = write_example_data(tmp)
    >>> [path.name for path in written][:2]
    ['categorical.npy', 'cv_5x2.csv']
    """
    target = Path(directory)
    if target.exists() and not target.is_dir():
        msg = f"directory must be a directory; {str(target)!r} is a file."
        raise ValueError(msg)
    target.mkdir(parents=True, exist_ok=True)
    written = []
    for name in example_files():
        path = target / name
        # write beside the target and rename: concurrent writers never leave a half-written file
        partial = path.with_name(f".{name}.{os.getpid()}.partial")
        partial.write_bytes(_data().joinpath(name).read_bytes())
        partial.replace(path)
        written.append(path)
    return written
