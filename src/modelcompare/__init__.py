"""modelcompare: calibrated statistics for comparing models.

Do a model's draws match the reference, and which of two models fits the data better, and where?

``import modelcompare`` loads almost nothing: each public name is imported from its part when it is
first used, so scikit-learn, scipy, pandas, torch and matplotlib load only for the functions that
need them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from modelcompare._foundation.version import __version__
from modelcompare._lazy import attach

if TYPE_CHECKING:
    from modelcompare._foundation.results import ConfidenceInterval
    from modelcompare._foundation.errors import (
        ConvergenceWarning,
        DegenerateDataWarning,
        MissingDependencyError,
        ModelCompareError,
        ModelCompareWarning,
        NotFittedError,
        ResourceLimitError,
        TooFewResamplesWarning,
    )

    # C2ST
    from modelcompare.twosample import C2STResult, c2st

    # relative fit
    from modelcompare.relative import (
        FSSDParams,
        LocationSelection,
        OptimizerOptions,
        PowerCriterionMap,
        RelFSSDResult,
        RelUMEResult,
        UMEParams,
        fssd_power_criterion_map,
        optimize_fssd,
        optimize_ume,
        plot_locations_as_images,
        plot_power_criterion_map,
        power_criterion_map,
        rel_fssd,
        rel_ume,
        select_locations,
    )

    # Rel-MMD, KID, FID
    from modelcompare.relative import (
        FIDResult,
        FIDStats,
        KIDResult,
        RelFIDResult,
        RelKIDResult,
        RelMMDResult,
        fid,
        kid,
        load_fid_stats,
        rel_fid,
        rel_kid,
        rel_mmd,
    )

    # generative-model scores
    from modelcompare.relative import (
        CMMDResult,
        FDInfinityResult,
        FDResult,
        PRDCResult,
        cmmd,
        fd,
        fd_infinity,
        prdc,
    )

    # posterior diagnostics
    from modelcompare.posterior import (
        AffineGaussianFlow,
        AmortizedRegressor,
        CalibrationFindingsResult,
        CalibrationErrorResult,
        ConditionalFlow,
        ConditionalGaussianModel,
        FlowCheckResult,
        GlobalCoverageResult,
        HPDCoverageResult,
        IndependenceResult,
        LC2STResult,
        LocalCoverageResult,
        LocalIndependenceResult,
        MisspecificationResult,
        NearestNeighborRegressor,
        NflowsFlow,
        NullRegressors,
        ParameterRecoveryResult,
        PerLevelRegressor,
        PosteriorContractionResult,
        SBCLogGammaResult,
        SBCResult,
        SbiFlow,
        TARPResult,
        ZukoFlow,
        as_flow,
        calibration_findings,
        calibration_error,
        check_flow,
        fit_null_regressors,
        global_coverage_test,
        hpd_coverage,
        hpd_coverage_test,
        lc2st_nf,
        local_coverage_test,
        local_independence_test,
        misspecification_test,
        parameter_recovery,
        pit,
        pit_independence_test,
        plot_global_histograms,
        plot_global_pp,
        plot_local_pp,
        plot_local_statistics,
        plot_pit_correlations,
        plot_sbc,
        plot_tarp,
        posterior_contraction,
        sbc,
        sbc_log_gamma,
        sbc_ranks,
        sbc_test,
        tarp,
    )

    # categorical granularity
    from modelcompare.categorical import (
        Binning,
        CategoricalReference,
        ClosenessResult,
        GranularityResult,
        adaptive_binning,
        closeness_test,
        granularity,
        perturb,
        plot_granularity,
        random_binning,
        stair_distribution,
        two_sample_closeness_test,
    )

    # multiple testing
    from modelcompare._foundation.pvalues import adjust_pvalues

    # cross-validated comparison
    from modelcompare.cv import (
        BayesianSignedRankResult,
        BayesianTTestResult,
        CorrectedTTestResult,
        CrossValidate5x2Result,
        CVScoresResult,
        FiveByTwoFTestResult,
        FiveByTwoTTestResult,
        FriedmanResult,
        HierarchicalTTestResult,
        McNemarResult,
        ModelComparisonReport,
        ModelComparisonResult,
        NemenyiResult,
        SplitSizes,
        WilcoxonHolmResult,
        bayesian_hierarchical_ttest,
        bayesian_signed_rank,
        bayesian_ttest,
        combined_ftest_5x2cv,
        compare_models,
        compare_models_report,
        corrected_ttest,
        cross_validate_5x2,
        friedman_test,
        mcnemar_table,
        mcnemar_test,
        nemenyi_test,
        paired_ttest_5x2cv,
        plot_critical_difference,
        plot_pair_probabilities,
        plot_posterior,
        scores_from_cv_results,
        split_sizes,
        wilcoxon_holm_test,
    )

    # scale-out
    from modelcompare.twosample import C2STManyResult, c2st_many
    from modelcompare.experiments import PowerStudyResult, power_study, run_many, run_sweep

    # posterior validation
    from modelcompare.workflows import (
        PosteriorValidationResult,
        ReferenceC2STResult,
        validate_posterior,
    )

    # comparing posterior estimators
    from modelcompare.posterior.comparison import (
        PosteriorComparisonResult,
        PosteriorRankingResult,
        compare_posteriors,
        plot_posterior_comparison,
        plot_posterior_ranking,
        rank_posteriors,
    )

    # comparing generative models
    from modelcompare.workflows import GeneratorComparisonResult, compare_generators

#: Old public names (still served, with a ``FutureWarning`` naming the new one; not in ``__all__``).
_RENAMED = {
    "PosteriorReport": "PosteriorValidationResult",
    "wilcoxon_holm": "wilcoxon_holm_test",
    "relative_kid": "rel_kid",
    "relative_fid": "rel_fid",
    "ClosenessTestResult": "ClosenessResult",
    "ClosenessThresholdResult": "ClosenessResult",
}

__getattr__, __dir__, _public = attach(__name__, __file__, _RENAMED)
__all__ = ["__version__", *_public]
