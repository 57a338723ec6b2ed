"""A script written against 0.1's spellings still runs, with a FutureWarning per old spelling."""

from __future__ import annotations

import runpy
import warnings
from pathlib import Path

SCRIPT = Path(__file__).parent / "data" / "compat_0_1.py"

#: The new spellings each old spelling's warning must name (in the order the script uses them).
NEW_SPELLINGS = [
    "wilcoxon_holm_test",
    "is_classifier",
    "PosteriorValidationResult",
    "statistic",
    "reference_points",
    "combine",
    "posterior_samples",
    "optimizer",
    "n_locations",
    "n_bins",
    "n_bins_requested",
    "n_bins_grid",
    "result.decision(alpha)",
]


def test_a_script_using_0_1_spellings_runs_and_warns() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        runpy.run_path(str(SCRIPT), run_name="__main__")
    messages = [str(w.message) for w in caught if issubclass(w.category, FutureWarning)]
    others = [w for w in caught if not issubclass(w.category, FutureWarning)]
    assert not others, [str(w.message) for w in others]
    for new in NEW_SPELLINGS:
        assert any(f"`{new}" in m or f"{new}`" in m for m in messages), (new, messages)
    # Every old spelling in the script warns: at least one warning per renamed call.
    assert len(messages) >= 17


def test_axes_still_works_with_a_warning() -> None:
    import numpy as np
    import pytest

    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from modelcompare import global_coverage_test, plot_global_pp

    res = global_coverage_test(np.random.default_rng(0).uniform(size=(50, 2)), seed=0)
    _, axes = plt.subplots(1, 2)
    with pytest.warns(FutureWarning, match="`axes` was renamed `ax`"):
        plot_global_pp(res, axes=axes)
    plt.close("all")


def test_old_command_line_options_still_work_with_a_warning(tmp_path: Path) -> None:
    """0.1's ``relative --locations J --no-optimize`` gives what the new options give."""
    import json

    import numpy as np
    from click.testing import CliRunner

    from modelcompare.cli import app

    rng = np.random.default_rng(0)
    paths = []
    for name, shift in (("p", 1.0), ("q", 0.1), ("r", 0.0)):
        paths.append(str(tmp_path / f"{name}.npy"))
        np.save(paths[-1], rng.normal(size=(60, 2)) + shift)
    common = ["relative", *paths, "--test", "ume", "--seed", "0", "--json", "--quiet"]
    old = CliRunner().invoke(app, [*common, "--locations", "2", "--no-optimize"])
    new = CliRunner().invoke(app, [*common, "--n-locations", "2", "--optimizer", "none"])
    assert old.exit_code == 0, old.output
    assert new.exit_code == 0, new.output
    assert "`--locations` was renamed `--n-locations`" in old.stderr
    assert "`--no-optimize` was renamed `--optimizer`" in old.stderr
    old_payload, new_payload = json.loads(old.stdout), json.loads(new.stdout)
    for payload in (old_payload, new_payload):
        payload.pop("runtime_s", None)
    assert old_payload == new_payload
    assert "renamed" not in new.stderr
