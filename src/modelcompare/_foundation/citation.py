"""How to cite modelcompare and the methods it implements: one record, three renderings.

``modelcompare --cite`` prints :func:`bibtex`, the repository's ``CITATION.cff`` is
:func:`citation_cff` (``tests/foundation/test_citation.py`` fails when the file drifts from it), and
the documentation's citing page and the method functions' ``References`` sections are checked
against :data:`PAPERS`. Every identifier here was checked against the paper's arXiv, DOI or
journal page.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

from modelcompare._foundation.version import __version__

__all__ = [
    "PAPERS",
    "SOFTWARE",
    "Paper",
    "Software",
    "bibtex",
    "citation_cff",
    "paper_identifier",
]


@dataclass(frozen=True)
class Software:
    """The library's own citation record (the top of ``CITATION.cff``)."""

    title: str
    version: str
    authors: str
    license: str
    abstract: str
    keywords: tuple[str, ...]


@dataclass(frozen=True)
class Paper:
    """A published method the library implements.

    ``authors`` are "Family, Given" strings in the paper's order; ``venue`` is the journal
    (``kind="article"``) or the proceedings (``kind="inproceedings"``); ``functions`` are the
    public functions of ``modelcompare`` that implement the method, and each of them cites the
    paper, with its DOI or arXiv id, in its docstring's ``References`` section.
    """

    key: str
    kind: str
    authors: tuple[str, ...]
    title: str
    venue: str
    year: int
    method: str
    functions: tuple[str, ...]
    doi: str = ""
    arxiv: str = ""
    url: str = ""
    volume: str = ""
    number: str = ""
    pages: str = ""


SOFTWARE = Software(
    title="modelcompare: calibrated statistics for comparing models",
    version=__version__,
    authors="modelcompare developers",
    license="BSD-3-Clause",
    abstract=(
        "Calibrated two-sample tests, relative model comparison, cross-validated model "
        "comparison and posterior diagnostics for simulation-based inference, each reproducing "
        "the statistic of its reference implementation with a valid p-value."
    ),
    keywords=(
        "two-sample test",
        "model comparison",
        "simulation-based inference",
        "posterior calibration",
        "cross-validation",
    ),
)

PAPERS: tuple[Paper, ...] = (
    Paper(
        key="lopezpaz2017c2st",
        kind="inproceedings",
        authors=("Lopez-Paz, David", "Oquab, Maxime"),
        title="Revisiting Classifier Two-Sample Tests",
        venue="International Conference on Learning Representations (ICLR)",
        year=2017,
        arxiv="1610.06545",
        method="Classifier two-sample test (C2ST)",
        functions=("c2st", "c2st_many"),
    ),
    Paper(
        key="lueckmann2021sbibm",
        kind="inproceedings",
        authors=(
            "Lueckmann, Jan-Matthis",
            "Boelts, Jan",
            "Greenberg, David S.",
            "Gonçalves, Pedro J.",
            "Macke, Jakob H.",
        ),
        title="Benchmarking Simulation-Based Inference",
        venue="International Conference on Artificial Intelligence and Statistics (AISTATS)",
        year=2021,
        arxiv="2101.04653",
        method="sbibm's C2ST recipe (network, z-scoring, folds)",
        functions=("c2st", "c2st_many"),
    ),
    Paper(
        key="nadeau2003inference",
        kind="article",
        authors=("Nadeau, Claude", "Bengio, Yoshua"),
        title="Inference for the Generalization Error",
        venue="Machine Learning",
        year=2003,
        volume="52",
        number="3",
        pages="239--281",
        doi="10.1023/A:1024068626366",
        method="Corrected resampled t-test (and C2ST's fold-variance inflation)",
        functions=("corrected_ttest", "compare_models", "split_sizes", "c2st"),
    ),
    Paper(
        key="benavoli2017timeforachange",
        kind="article",
        authors=("Benavoli, Alessio", "Corani, Giorgio", "Demšar, Janez", "Zaffalon, Marco"),
        title=(
            "Time for a Change: a Tutorial for Comparing Multiple Classifiers Through "
            "Bayesian Analysis"
        ),
        venue="Journal of Machine Learning Research",
        year=2017,
        volume="18",
        number="77",
        pages="1--36",
        arxiv="1606.04316",
        method="Bayesian correlated t-test and signed-rank test with a ROPE",
        functions=("bayesian_ttest", "bayesian_signed_rank", "compare_models", "plot_posterior"),
    ),
    Paper(
        key="demsar2006statistical",
        kind="article",
        authors=("Demšar, Janez",),
        title="Statistical Comparisons of Classifiers over Multiple Data Sets",
        venue="Journal of Machine Learning Research",
        year=2006,
        volume="7",
        pages="1--30",
        url="https://jmlr.org/papers/v7/demsar06a.html",
        method="Friedman and Nemenyi tests, critical-difference diagrams",
        functions=("friedman_test", "nemenyi_test", "plot_critical_difference"),
    ),
    Paper(
        key="jitkrittum2018informative",
        kind="inproceedings",
        authors=(
            "Jitkrittum, Wittawat",
            "Kanagawa, Heishiro",
            "Sangkloy, Patsorn",
            "Hays, James",
            "Schölkopf, Bernhard",
            "Gretton, Arthur",
        ),
        title="Informative Features for Model Comparison",
        venue="Advances in Neural Information Processing Systems (NeurIPS)",
        year=2018,
        arxiv="1810.11630",
        method="Rel-UME and Rel-FSSD, their optimised test locations and power-criterion maps",
        functions=(
            "rel_ume",
            "rel_fssd",
            "optimize_ume",
            "optimize_fssd",
            "select_locations",
            "power_criterion_map",
            "fssd_power_criterion_map",
            "plot_power_criterion_map",
        ),
    ),
    Paper(
        key="bounliphone2016relmmd",
        kind="inproceedings",
        authors=(
            "Bounliphone, Wacha",
            "Belilovsky, Eugene",
            "Blaschko, Matthew B.",
            "Antonoglou, Ioannis",
            "Gretton, Arthur",
        ),
        title="A Test of Relative Similarity for Model Selection in Generative Models",
        venue="International Conference on Learning Representations (ICLR)",
        year=2016,
        arxiv="1511.04581",
        method="Rel-MMD, the relative MMD test",
        functions=("rel_mmd", "rel_kid"),
    ),
    Paper(
        key="binkowski2018kid",
        kind="inproceedings",
        authors=(
            "Bińkowski, Mikołaj",
            "Sutherland, Danica J.",
            "Arbel, Michael",
            "Gretton, Arthur",
        ),
        title="Demystifying MMD GANs",
        venue="International Conference on Learning Representations (ICLR)",
        year=2018,
        arxiv="1801.01401",
        method="Kernel inception distance (KID) and the bias of FID",
        functions=("kid", "rel_kid", "rel_fid"),
    ),
    Paper(
        key="heusel2017fid",
        kind="inproceedings",
        authors=(
            "Heusel, Martin",
            "Ramsauer, Hubert",
            "Unterthiner, Thomas",
            "Nessler, Bernhard",
            "Hochreiter, Sepp",
        ),
        title="GANs Trained by a Two Time-Scale Update Rule Converge to a Local Nash Equilibrium",
        venue="Advances in Neural Information Processing Systems (NeurIPS)",
        year=2017,
        arxiv="1706.08500",
        method="Fréchet inception distance (FID)",
        functions=("fid", "rel_fid"),
    ),
    Paper(
        key="zhao2021diagnostics",
        kind="inproceedings",
        authors=("Zhao, David", "Dalmasso, Niccolò", "Izbicki, Rafael", "Lee, Ann B."),
        title="Diagnostics for Conditional Density Models and Bayesian Inference Algorithms",
        venue="Conference on Uncertainty in Artificial Intelligence (UAI)",
        year=2021,
        arxiv="2102.10473",
        method="Local coverage test (LCT) and amortized local PP-plots",
        functions=(
            "local_coverage_test",
            "fit_null_regressors",
            "global_coverage_test",
            "plot_local_pp",
            "plot_local_statistics",
        ),
    ),
    Paper(
        key="linhart2022flowdiagnostics",
        kind="article",
        authors=("Linhart, Julia", "Gramfort, Alexandre", "Rodrigues, Pedro L. C."),
        title="Validation Diagnostics for SBI algorithms based on Normalizing Flows",
        venue="arXiv preprint",
        year=2022,
        arxiv="2211.09602",
        method="Multivariate PIT of a flow's latent: global, independence and local checks",
        functions=(
            "pit",
            "global_coverage_test",
            "pit_independence_test",
            "local_independence_test",
            "local_coverage_test",
            "plot_global_pp",
            "plot_global_histograms",
            "plot_pit_correlations",
            "calibration_findings",
        ),
    ),
    Paper(
        key="linhart2023lc2st",
        kind="inproceedings",
        authors=("Linhart, Julia", "Gramfort, Alexandre", "Rodrigues, Pedro L. C."),
        title=(
            "L-C2ST: Local Diagnostics for Posterior Approximations in Simulation-Based Inference"
        ),
        venue="Advances in Neural Information Processing Systems (NeurIPS)",
        year=2023,
        arxiv="2306.03580",
        method="L-C2ST-NF, the local classifier two-sample test for flows",
        functions=("lc2st_nf",),
    ),
    Paper(
        key="talts2018sbc",
        kind="article",
        authors=(
            "Talts, Sean",
            "Betancourt, Michael",
            "Simpson, Daniel",
            "Vehtari, Aki",
            "Gelman, Andrew",
        ),
        title="Validating Bayesian Inference Algorithms with Simulation-Based Calibration",
        venue="arXiv preprint",
        year=2018,
        arxiv="1804.06788",
        method="Simulation-based calibration (SBC) ranks and their uniformity test",
        functions=("sbc", "sbc_ranks", "sbc_test", "plot_sbc", "calibration_findings"),
    ),
    Paper(
        key="sailynoja2022graphical",
        kind="article",
        authors=("Säilynoja, Teemu", "Bürkner, Paul-Christian", "Vehtari, Aki"),
        title=(
            "Graphical Test for Discrete Uniformity and its Applications in Goodness-of-Fit "
            "Evaluation and Multiple Sample Comparison"
        ),
        venue="Statistics and Computing",
        year=2022,
        volume="32",
        pages="32",
        doi="10.1007/s11222-022-10090-6",
        arxiv="2103.10522",
        method="Simultaneous ECDF bands and the ECDF log-gamma statistic for SBC",
        functions=("ecdf_band", "sbc_log_gamma", "plot_sbc"),
    ),
    Paper(
        key="modrak2023sbc",
        kind="article",
        authors=(
            "Modrák, Martin",
            "Moon, Angie H.",
            "Kim, Shinyoung",
            "Bürkner, Paul-Christian",
            "Huurre, Niko",
            "Faltejsková, Kateřina",
            "Gelman, Andrew",
            "Vehtari, Aki",
        ),
        title=(
            "Simulation-Based Calibration Checking for Bayesian Computation: "
            "The Choice of Test Quantities Shapes Sensitivity"
        ),
        venue="Bayesian Analysis",
        year=2023,
        doi="10.1214/23-BA1404",
        arxiv="2211.02383",
        method="SBC with the log-gamma statistic and data-dependent test quantities",
        functions=("sbc_log_gamma",),
    ),
    Paper(
        key="lemos2023tarp",
        kind="inproceedings",
        authors=(
            "Lemos, Pablo",
            "Coogan, Adam",
            "Hezaveh, Yashar",
            "Perreault-Levasseur, Laurence",
        ),
        title="Sampling-Based Accuracy Testing of Posterior Estimators for General Inference",
        venue="International Conference on Machine Learning (ICML)",
        year=2023,
        arxiv="2302.03026",
        method="Tests of accuracy with random points (TARP)",
        functions=("tarp", "plot_tarp"),
    ),
    Paper(
        key="hermans2022crisis",
        kind="article",
        authors=(
            "Hermans, Joeri",
            "Delaunoy, Arnaud",
            "Rozet, François",
            "Wehenkel, Antoine",
            "Begy, Volodimir",
            "Louppe, Gilles",
        ),
        title=(
            "A Crisis In Simulation-Based Inference? Beware, Your Posterior Approximations "
            "Can Be Unfaithful"
        ),
        venue="Transactions on Machine Learning Research",
        year=2022,
        arxiv="2110.06581",
        method="Expected coverage of highest-posterior-density regions",
        functions=("hpd_coverage_test", "hpd_coverage"),
    ),
    Paper(
        key="regol2023categorical",
        kind="inproceedings",
        authors=("Regol, Florence", "Kroon, Anja", "Coates, Mark"),
        title=(
            "Evaluation of Categorical Generative Models -- Bridging the Gap Between Real "
            "and Synthetic Data"
        ),
        venue="IEEE International Conference on Acoustics, Speech and Signal Processing (ICASSP)",
        year=2023,
        arxiv="2210.16405",
        method="Granularity of categorical generative models: stair distributions and binnings",
        functions=(
            "granularity",
            "stair_distribution",
            "adaptive_binning",
            "random_binning",
            "max_bins",
            "l2_statistic",
            "l2_statistic_variance",
            "perturb",
            "plot_granularity",
        ),
    ),
)


def paper_identifier(paper: Paper) -> str:
    """The paper's resolvable identifier: ``doi:...``, else ``arXiv:...``, else its URL."""
    if paper.doi:
        return f"doi:{paper.doi}"
    if paper.arxiv:
        return f"arXiv:{paper.arxiv}"
    return paper.url


def _bibtex_entry(paper: Paper) -> str:
    venue_field = "journal" if paper.kind == "article" else "booktitle"
    fields = [
        ("title", f"{{{paper.title}}}"),
        ("author", " and ".join(paper.authors)),
        (venue_field, paper.venue),
        ("year", str(paper.year)),
        ("volume", paper.volume),
        ("number", paper.number),
        ("pages", paper.pages),
        ("doi", paper.doi),
        ("eprint", paper.arxiv),
        ("archiveprefix", "arXiv" if paper.arxiv else ""),
        ("url", paper.url),
    ]
    body = ",\n".join(_bibtex_field(name, value) for name, value in fields if value)
    return f"@{paper.kind}{{{paper.key},\n{body}\n}}"


def _bibtex_field(name: str, value: str) -> str:
    """``  name = {value}``, wrapped inside the braces to 88 characters with its comma (BibTeX allows it)."""
    head = f"  {name} = {{"
    lines = textwrap.wrap(
        value + "}", width=87, initial_indent=head, subsequent_indent=" " * len(head)
    )
    return "\n".join(lines)


def bibtex() -> str:
    """BibTeX for the library and every method it implements (``modelcompare --cite``).

    Examples
    --------
    >>> from modelcompare._foundation.citation import bibtex
    >>> bibtex().splitlines()[0]
    '@software{modelcompare,'
    """
    software = (
        "@software{modelcompare,\n"
        f"  title = {{{{{SOFTWARE.title}}}}},\n"
        f"  author = {{{{{SOFTWARE.authors}}}}},\n"
        f"  version = {{{SOFTWARE.version}}},\n"
        f"  license = {{{SOFTWARE.license}}}\n"
        "}"
    )
    return "\n".join([software, *(_bibtex_entry(paper) for paper in PAPERS)])


def _yaml(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _cff_person(author: str, indent: str) -> list[str]:
    family, _, given = author.partition(", ")
    return [f"{indent}- family-names: {_yaml(family)}", f"{indent}  given-names: {_yaml(given)}"]


def citation_cff() -> str:
    """The text of the repository's ``CITATION.cff`` (Citation File Format 1.2.0).

    Examples
    --------
    >>> from modelcompare._foundation.citation import citation_cff
    >>> citation_cff().splitlines()[0]
    'cff-version: 1.2.0'
    """
    lines = [
        "cff-version: 1.2.0",
        "message: >-",
        "  If you use modelcompare, please cite it as below, together with the paper of each",
        "  method you use (listed under references; `modelcompare --cite` prints them as BibTeX).",
        "type: software",
        f"title: {_yaml(SOFTWARE.title)}",
        f"version: {_yaml(SOFTWARE.version)}",
        "authors:",
        f"  - name: {_yaml(SOFTWARE.authors)}",
        f"license: {SOFTWARE.license}",
        f"abstract: {_yaml(SOFTWARE.abstract)}",
        "keywords:",
        *(f"  - {_yaml(word)}" for word in SOFTWARE.keywords),
        "references:",
    ]
    for paper in PAPERS:
        lines.append(f"  - type: {'article' if paper.kind == 'article' else 'conference-paper'}")
        lines.append(f"    title: {_yaml(paper.title)}")
        lines.append("    authors:")
        lines += _cff_person_list(paper.authors)
        key = "journal" if paper.kind == "article" else "conference"
        if key == "journal":
            lines.append(f"    journal: {_yaml(paper.venue)}")
        else:
            lines.append("    conference:")
            lines.append(f"      name: {_yaml(paper.venue)}")
        lines.append(f"    year: {paper.year}")
        for name, value in (("volume", paper.volume), ("issue", paper.number)):
            if value:
                lines.append(f"    {name}: {value}")
        if paper.pages:
            start, _, end = paper.pages.partition("--")
            lines.append(f"    start: {start}")
            if end:
                lines.append(f"    end: {end}")
        if paper.doi:
            lines.append(f"    doi: {_yaml(paper.doi)}")
        if paper.arxiv:
            lines.append("    identifiers:")
            lines.append("      - type: other")
            lines.append(f"        value: {_yaml('arXiv:' + paper.arxiv)}")
        if paper.url:
            lines.append(f"    url: {_yaml(paper.url)}")
    return "\n".join(lines) + "\n"


def _cff_person_list(authors: tuple[str, ...]) -> list[str]:
    return [line for author in authors for line in _cff_person(author, "      ")]
