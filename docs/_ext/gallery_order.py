"""The reading order of the gallery: the examples follow the parts of the user guide.

sphinx-gallery imports this sort key by name (``"gallery_order.ExampleOrder"`` in conf.py), so that
the configuration stays picklable.
"""

from __future__ import annotations

from pathlib import Path

ORDER = (
    "plot_relative_ume_map.py",
    "plot_relative_fssd_map.py",
    "plot_generative_digits.py",
    "plot_digits_where.py",
    "plot_posterior_tutorial.py",
    "plot_posterior_global.py",
    "plot_posterior_local.py",
    "plot_posterior_validation.py",
    "plot_failing_report.py",
    "plot_compare_posteriors.py",
    "plot_jansen_rit.py",
    "plot_categorical_granularity.py",
    "plot_bayesian_ttest.py",
    "plot_critical_difference.py",
    "plot_cv_many_datasets.py",
)


class ExampleOrder:
    """Sort key for the examples of one gallery folder: listed ones first, the rest by name."""

    def __init__(self, src_dir: str) -> None:
        self.src_dir = src_dir

    def __call__(self, filename: str) -> tuple[int, str]:
        name = Path(filename).name
        return (ORDER.index(name) if name in ORDER else len(ORDER), name)

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"
