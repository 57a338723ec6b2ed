"""Posterior diagnostics for normalising-flow posteriors (Linhart et al. 2022; Zhao et al. 2021).

The wing has one room per theme, each importing only the rooms below it:

- ``_plots``: the figures of the checks below;
- ``_local``: the tests at given observations x (local coverage, L-C2ST, local PIT independence),
  their regressors and classifiers; they reuse the PIT and the level grid of global calibration;
- ``_calibration``: the global checks over all calibration pairs (PIT uniformity, SBC, HPD,
  TARP, global PIT independence, the posterior-draw metrics, misspecification) and the findings
  that explain a failed SBC;
- ``_flows``: the flow interface and the adapters of sbi, zuko and nflows estimators.

:mod:`modelcompare.posterior.comparison`, the comparison of estimators by proper scores, stands
apart: it needs only draws or log-densities and imports none of the diagnostics. It is public
because the posterior report reaches it from outside the wing. Every public name lives here,
and the rooms are private.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from modelcompare._lazy import attach

# Each name is imported from its module on first use (scientific-python SPEC 1), so that reading
# a constant (the command line's choices) loads none of the heavy dependencies.
if TYPE_CHECKING:
    from modelcompare.posterior._calibration._findings import (
        FINDING_KINDS,
        NEXT_STEPS,
        CalibrationFindingsResult,
        calibration_findings,
    )
    from modelcompare.posterior._calibration._global import (
        GlobalCoverageResult,
        ecdf_band,
        global_coverage_test,
        level_grid,
    )
    from modelcompare.posterior._calibration._hpd import (
        HPDCoverageResult,
        hpd_coverage,
        hpd_coverage_test,
    )
    from modelcompare.posterior._calibration._metrics import (
        CalibrationErrorResult,
        ParameterRecoveryResult,
        PosteriorContractionResult,
        calibration_error,
        parameter_recovery,
        posterior_contraction,
    )
    from modelcompare.posterior._calibration._misspecification import (
        MisspecificationResult,
        misspecification_test,
    )
    from modelcompare.posterior._calibration._pit import pit
    from modelcompare.posterior._calibration._pit_independence import (
        IndependenceResult,
        pit_independence_test,
    )
    from modelcompare.posterior._calibration._sbc import SBCResult, sbc, sbc_ranks, sbc_test
    from modelcompare.posterior._calibration._sbc_ecdf import SBCLogGammaResult, sbc_log_gamma
    from modelcompare.posterior._calibration._tarp import TARPResult, tarp
    from modelcompare.posterior._flows._adapters import (
        NflowsFlow,
        SbiFlow,
        ZukoFlow,
        adapt_flow,
        adapt_sampler,
        as_flow,
        is_estimator,
    )
    from modelcompare.posterior._flows._flows import (
        AffineGaussianFlow,
        ConditionalFlow,
        ConditionalGaussianModel,
        FlowCheckResult,
        check_flow,
    )
    from modelcompare.posterior._local._lc2st import LC2STResult, lc2st_nf
    from modelcompare.posterior._local._lct import (
        AmortizedRegressor,
        LocalCoverageResult,
        NearestNeighborRegressor,
        NullRegressors,
        PerLevelRegressor,
        fit_null_regressors,
        local_coverage_test,
        max_null_resamples,
    )
    from modelcompare.posterior._local._local_independence import (
        LocalIndependenceResult,
        local_independence_test,
    )
    from modelcompare.posterior._local._names import (
        INDEPENDENCE_REGRESSORS,
        LC2ST_CLASSIFIERS,
        REGRESSORS,
    )
    from modelcompare.posterior._plots._calibration_plots import (
        plot_pit_correlations,
        plot_sbc,
        plot_tarp,
    )
    from modelcompare.posterior._plots._plots import (
        plot_global_histograms,
        plot_global_pp,
        plot_local_pp,
        plot_local_statistics,
    )

__getattr__, __dir__, _public = attach(__name__, __file__)

__all__ = [
    "FINDING_KINDS",
    "INDEPENDENCE_REGRESSORS",
    "LC2ST_CLASSIFIERS",
    "NEXT_STEPS",
    "REGRESSORS",
    "AffineGaussianFlow",
    "AmortizedRegressor",
    "CalibrationErrorResult",
    "CalibrationFindingsResult",
    "ConditionalFlow",
    "ConditionalGaussianModel",
    "FlowCheckResult",
    "GlobalCoverageResult",
    "HPDCoverageResult",
    "IndependenceResult",
    "LC2STResult",
    "LocalCoverageResult",
    "LocalIndependenceResult",
    "MisspecificationResult",
    "NearestNeighborRegressor",
    "NflowsFlow",
    "NullRegressors",
    "ParameterRecoveryResult",
    "PerLevelRegressor",
    "PosteriorContractionResult",
    "SBCLogGammaResult",
    "SBCResult",
    "SbiFlow",
    "TARPResult",
    "ZukoFlow",
    "adapt_flow",
    "adapt_sampler",
    "as_flow",
    "calibration_error",
    "calibration_findings",
    "check_flow",
    "ecdf_band",
    "fit_null_regressors",
    "global_coverage_test",
    "hpd_coverage",
    "hpd_coverage_test",
    "is_estimator",
    "lc2st_nf",
    "level_grid",
    "local_coverage_test",
    "local_independence_test",
    "max_null_resamples",
    "misspecification_test",
    "parameter_recovery",
    "pit",
    "pit_independence_test",
    "plot_global_histograms",
    "plot_global_pp",
    "plot_local_pp",
    "plot_local_statistics",
    "plot_pit_correlations",
    "plot_sbc",
    "plot_tarp",
    "posterior_contraction",
    "sbc",
    "sbc_log_gamma",
    "sbc_ranks",
    "sbc_test",
    "tarp",
]
