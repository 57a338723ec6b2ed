"""Which posterior checks catch which failures of NPE on sbibm's tasks (reference posteriors).

sbibm (Lueckmann et al. 2021, arXiv:2101.04653) ships reference posterior samples at ten
observations per task, so the true quality of an estimator there is known: C2ST of its draws
against the reference. This script trains sbi's NPE (the default density estimator, a masked
autoregressive flow) on several tasks, budgets and seeds, and for each estimator computes

- the local ground truth: C2ST (sbibm's MLP recipe, ``modelcompare.c2st``) of the estimator's
  draws against the reference draws at each of the ten observations;
- the global ground truth: C2ST averaged over x. For gaussian_linear (closed-form posterior)
  over new x drawn from the prior predictive; for the other tasks the mean over the ten
  observations (sbibm drew them from the prior predictive too);
- ``validate_posterior`` with its defaults, a calibration set from the task's prior and
  simulator, and the ten observations as ``x_obs``: each check's verdict at α = 0.05 (after the
  report's Holm correction across checks), the local checks' verdicts at each observation, and
  the report's time; ``expected_coverage``, which the default report leaves out, in a report of
  its own;
- ``compare_posteriors`` of the 10⁴-simulation estimator against the 10³ one of the same seed.

The estimator is the untruncated flow the library's sbi adapter wraps (``as_flow``): its draws
feed both the checks and the ground-truth C2ST, so both judge the same distribution (sbi's
``DirectPosterior`` would reject draws outside a bounded prior's support; the fraction of such
draws is recorded as ``leakage``).

Stages (every output is cached under ``--runs``, so a stage reruns without the ones before it):

- ``train``: simulate and train each (task, budget, seed); saves the estimator (``*.pt``);
- ``analyse``: the ground truth, the reports and the comparisons; saves one JSON per
  estimator and per comparison;
- ``truncated``: for tasks whose flow puts mass outside a bounded prior, C2ST at each
  observation of the flow truncated to the prior's support too (sbi's ``DirectPosterior``);
- ``table``: reads the JSON files and prints the rejection table (Markdown) and the estimators;
- ``fixture``: writes the small test fixture ``tests/data/sbibm_two_moons.npz`` from the cached
  two_moons estimators of seed 0.

Environment (a virtual environment outside the repository; the CPU wheel of torch first, so that
pip never pulls a CUDA build; sbibm without its pins, which ask for sbi 0.21, julia, pyabc)::

    python3 -m venv /tmp/sbvenv
    /tmp/sbvenv/bin/pip install torch==2.13.0
    /tmp/sbvenv/bin/pip install torch==2.13.0 sbi==0.27.0 pyro-ppl
    /tmp/sbvenv/bin/pip install --no-deps sbibm==1.1.0
    /tmp/sbvenv/bin/pip install torch==2.13.0 -e ".[torch]"

sbibm then imports and runs the five tasks used here with nothing more (``sir`` and
``lotka_volterra`` need Julia and are not used).

Run from the repository root, one heavy process at a time::

    OMP_NUM_THREADS=1 nice -n 10 /tmp/sbvenv/bin/python benchmarks/sbibm_study.py \
        [--stage all|train|analyse|table] [--seeds 0 1] [--runs /tmp/sbibm_runs] [--quick]

``--quick``: two_moons only, 500 and 1,000 simulations, one seed, few epochs, 200 calibration
pairs, 3 observations, logistic C2ST: a smoke test of every stage in a couple of minutes.

The analysis functions live in ``examples/case_studies/sbibm_study.py`` (no sbi, no sbibm):
the test ``tests/case_studies/test_sbibm_study.py`` runs them on a committed fixture.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import tempfile
import time
import warnings
from pathlib import Path

import _harness

_harness.one_thread()

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples" / "case_studies"))

import sbibm_study as study

import modelcompare as mc

TASKS = ("gaussian_linear", "two_moons", "slcp", "gaussian_mixture", "bernoulli_glm")
BUDGETS = (1_000, 10_000)
CLOSED_FORM = ("gaussian_linear",)  # tasks whose reference posterior can be drawn at any x


def _task(name: str):
    import sbibm

    return sbibm.get_task(name)


def _simulate(task, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    import torch

    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        theta = task.get_prior()(num_samples=n)
        x = task.get_simulator()(theta)
    return theta.double().numpy(), x.double().numpy()


def _name(task: str, budget: int, seed: int) -> str:
    return f"{task}_n{budget}_s{seed}"


def train(task_name: str, budget: int, seed: int, out: Path, max_epochs: int) -> None:
    """sbi's NPE (default MAF) on ``budget`` simulations; saves the density estimator."""
    import torch
    from sbi.inference import NPE

    path = out / f"{_name(task_name, budget, seed)}.pt"
    if path.exists():
        return
    task = _task(task_name)
    theta, x = _simulate(task, budget, seed=100_000 + 1000 * seed + budget % 997)
    t0 = time.perf_counter()
    with (
        tempfile.TemporaryDirectory() as logs,
        contextlib.chdir(logs),  # sbi's tensorboard logs, not in the working folder
        warnings.catch_warnings(),
        torch.random.fork_rng(devices=[]),
    ):
        warnings.filterwarnings("ignore", message="Maximum number of epochs")
        torch.manual_seed(seed)
        npe = NPE(prior=task.get_prior_dist(), show_progress_bars=False)
        npe.append_simulations(
            torch.as_tensor(theta, dtype=torch.float32), torch.as_tensor(x, dtype=torch.float32)
        )
        with contextlib.redirect_stdout(None):
            estimator = npe.train(max_num_epochs=max_epochs, show_train_summary=False)
        epochs = len(npe.summary["training_loss"])
    train_s = time.perf_counter() - t0
    torch.save(
        {"estimator": estimator, "epochs": epochs, "train_s": train_s, "budget": budget}, path
    )
    print(f"trained {path.stem}: {epochs} epochs, {train_s:.0f} s", flush=True)


def common(task_name: str, out: Path, cfg: argparse.Namespace) -> dict[str, np.ndarray]:
    """The task's calibration set, observations, reference draws (and new x with their exact
    posterior draws for closed-form tasks), shared by every estimator of the task; cached."""
    path = out / f"{task_name}_common.npz"
    if path.exists():
        with np.load(path) as f:
            return dict(f)
    import torch

    task = _task(task_name)
    rng = np.random.default_rng(7)
    theta_cal, x_cal = _simulate(task, cfg.n_cal, seed=7)
    obs = range(1, cfg.n_obs + 1)
    x_obs = np.concatenate([task.get_observation(num_observation=i).double().numpy() for i in obs])
    reference = []
    for i in obs:
        ref = task.get_reference_posterior_samples(num_observation=i).double().numpy()
        reference.append(ref[rng.choice(ref.shape[0], cfg.n_draws, replace=False)])
    data = {
        "theta_cal": theta_cal,
        "x_cal": x_cal,
        "x_obs": x_obs,
        "reference": np.stack(reference),
    }
    if task_name in CLOSED_FORM and cfg.n_new:
        _, x_new = _simulate(task, cfg.n_new, seed=8)
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(8)
            ref_new = [
                task._sample_reference_posterior(
                    cfg.n_draws, observation=torch.as_tensor(xi[None], dtype=torch.float32)
                )
                .double()
                .numpy()
                for xi in x_new
            ]
        data |= {"x_new": x_new, "reference_new": np.stack(ref_new)}
    np.savez(path, **data)
    return data


def _load_flow(out: Path, name: str):
    import torch

    ckpt = torch.load(out / f"{name}.pt", weights_only=False)
    return mc.as_flow(ckpt["estimator"]), ckpt


def analyse(task_name: str, budget: int, seed: int, out: Path, cfg: argparse.Namespace) -> dict:
    """Ground truth, the default report and expected coverage of one estimator; cached JSON."""
    import torch

    name = _name(task_name, budget, seed)
    path = out / f"{name}.json"
    if path.exists():
        return json.loads(path.read_text())
    data = common(task_name, out, cfg)
    flow, ckpt = _load_flow(out, name)
    task = _task(task_name)
    n_obs = data["x_obs"].shape[0]

    t0 = time.perf_counter()
    draws = flow.sample(data["x_obs"], cfg.n_draws, seed=1000 + seed)
    c2st_obs = [
        study.ground_truth_c2st(ref, d, n=cfg.n_c2st, classifier=cfg.classifier, seed=j)
        for j, (ref, d) in enumerate(zip(data["reference"], draws))
    ]
    prior = task.get_prior_dist()
    flat = torch.as_tensor(draws.reshape(-1, draws.shape[-1]), dtype=torch.float32)
    leakage = float(torch.isinf(prior.log_prob(flat)).double().mean())
    record = {"c2st_global_source": "mean over the observations", "c2st_new": None}
    if "x_new" in data:
        draws_new = flow.sample(data["x_new"], cfg.n_draws, seed=2000 + seed)
        c2st_new = [
            study.ground_truth_c2st(ref, d, n=cfg.n_c2st, classifier=cfg.classifier, seed=j)
            for j, (ref, d) in enumerate(zip(data["reference_new"], draws_new))
        ]
        record = {"c2st_global_source": f"mean over {len(c2st_new)} new x", "c2st_new": c2st_new}
    c2st_s = time.perf_counter() - t0
    c2st_global = float(np.mean(record["c2st_new"] or c2st_obs))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        report = mc.validate_posterior(
            flow, data["theta_cal"], data["x_cal"], x_obs=data["x_obs"], seed=0
        )
        report_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        ec = mc.validate_posterior(
            flow, data["theta_cal"], data["x_cal"], checks=["expected_coverage"], seed=0
        )
        ec_s = time.perf_counter() - t0
    verdicts = study.report_verdicts(report, n_obs)
    ec_verdict = study.report_verdicts(ec, 0)["checks"]["expected_coverage"]
    verdicts["checks"]["expected_coverage"] = ec_verdict | {"own_report": True}
    record |= {
        "name": name,
        "task": task_name,
        "budget": budget,
        "seed": seed,
        "epochs": int(ckpt["epochs"]),
        "train_s": float(ckpt["train_s"]),
        "n_cal": int(data["theta_cal"].shape[0]),
        "n_draws": cfg.n_draws,
        "classifier": cfg.classifier,
        "c2st_obs": c2st_obs,
        "c2st_global": c2st_global,
        "leakage": leakage,
        "c2st_s": c2st_s,
        "report_s": report_s,
        "expected_coverage_s": ec_s,
        "n_resamples": report.settings["n_resamples"],
        "verdicts": verdicts,
    }
    path.write_text(json.dumps(record, indent=1))
    np.savez_compressed(out / f"{name}_draws.npz", draws=draws.astype(np.float32))
    print(
        f"{name}: C2ST at x_o {np.round(c2st_obs, 2).tolist()}, global {c2st_global:.3f}; "
        f"fails {verdicts['failures']}; report {report_s:.0f} s, C2ST {c2st_s:.0f} s",
        flush=True,
    )
    return record


def truncated(task_name: str, budget: int, seed: int, out: Path, cfg: argparse.Namespace) -> None:
    """C2ST at each observation of the flow truncated to the prior's support (what sbi's
    ``DirectPosterior`` samples), beside the untruncated one; added to the estimator's JSON."""
    import torch

    name = _name(task_name, budget, seed)
    path = out / f"{name}.json"
    record = json.loads(path.read_text())
    if "c2st_obs_truncated" in record or record["leakage"] == 0.0:
        return
    data = common(task_name, out, cfg)
    flow, _ = _load_flow(out, name)
    prior = _task(task_name).get_prior_dist()
    rng = np.random.default_rng(3000 + seed)
    accs = []
    for j, (x_o, ref) in enumerate(zip(data["x_obs"], data["reference"])):
        kept = np.empty((0, ref.shape[1]))
        while kept.shape[0] < cfg.n_draws:
            d = flow.sample(x_o[None], 4 * cfg.n_draws, seed=rng)[0]
            inside = torch.isfinite(prior.log_prob(torch.as_tensor(d, dtype=torch.float32)))
            kept = np.concatenate([kept, d[inside.numpy()]])
        accs.append(
            study.ground_truth_c2st(
                ref, kept[: cfg.n_draws], n=cfg.n_c2st, classifier=cfg.classifier, seed=j
            )
        )
    record["c2st_obs_truncated"] = accs
    path.write_text(json.dumps(record, indent=1))
    print(f"{name}: truncated C2ST {np.round(accs, 2).tolist()}", flush=True)


def compare(task_name: str, seed: int, budgets: list[int], out: Path, cfg) -> dict | None:
    """compare_posteriors of the largest-budget estimator against the smallest, same seed."""
    lo, hi = min(budgets), max(budgets)
    path = out / f"{task_name}_s{seed}_compare.json"
    if path.exists():
        return json.loads(path.read_text())
    if lo == hi:
        return None
    data = common(task_name, out, cfg)
    first, _ = _load_flow(out, _name(task_name, hi, seed))
    second, _ = _load_flow(out, _name(task_name, lo, seed))
    t0 = time.perf_counter()
    res = mc.compare_posteriors(first, second, data["theta_cal"], data["x_cal"], seed=0)
    ci = res.confidence_interval()
    record = {
        "task": task_name,
        "seed": seed,
        "first": hi,
        "second": lo,
        "statistic": float(res.statistic),
        "ci": [float(ci.low), float(ci.high)],
        "pvalue": float(res.pvalue),
        "time_s": time.perf_counter() - t0,
    }
    path.write_text(json.dumps(record, indent=1))
    return record


REJECTIONS = "posterior-16-posterior-checks-on-sbibm-s-tasks"


def _markdown_rows(text: str) -> tuple[list[str], list[list[str]]]:
    """The header and the rows of a Markdown table."""
    lines = [line.strip().strip("|").split(" | ") for line in text.splitlines() if line.strip()]
    return [c.strip() for c in lines[0]], [[c.strip() for c in line] for line in lines[2:]]


def table(out: Path, args: argparse.Namespace) -> None:
    """Print the rejection table, the estimators and the comparisons from the JSON files.

    The rejection table is saved as the results file of the benchmarks page.
    """
    estimators = [
        json.loads(p.read_text())
        for p in sorted(out.glob("*.json"))
        if not p.name.endswith("_compare.json")
    ]
    if not estimators:
        print(f"no results under {out}")
        return
    records = study.verdict_records(estimators)
    order = ("any local", *study.LOCAL_CHECKS, *study.GLOBAL_CHECKS, "report", "misspecification")
    rej = study.rejection_table(records, order=order)
    columns, rows = _markdown_rows(study.markdown_table(rej))
    _harness.rerun(args, REJECTIONS, rows, script=__file__, columns=columns)
    print()
    edges = (0.0, 0.55, 0.6, 0.7, 0.8, 1.01)
    checks = (
        "any local",
        "local_coverage",
        "lc2st_nf",
        "report",
        "sbc",
        "tarp",
        "expected_coverage",
    )
    binned = study.binned_rates(records, checks, edges)
    labels = list(dict.fromkeys(binned["bin"]))
    print("| scope | check | " + " | ".join(f"C2ST {b}" for b in labels) + " |")
    print("|---|---|" + "---|" * len(labels))
    for (scope, check), g in binned.groupby(["scope", "check"], sort=False):
        cells = [f"{r.k}/{r.n}" if r.n else "—" for r in g.itertuples()]
        print(f"| {scope} | {check} | " + " | ".join(cells) + " |")
    print()
    print(
        "| estimator | epochs | train s | C2ST at x_o: mean (min–max) | global C2ST | leakage | "
        "truncated: mean C2ST | report fails | report s |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for e in estimators:
        acc = e["c2st_obs"]
        fails = ", ".join(e["verdicts"]["failures"]) or "none"
        ec = e["verdicts"]["checks"]["expected_coverage"]["rejects"]
        tr = e.get("c2st_obs_truncated")
        tr = f"{np.mean(tr):.2f}" if tr else "="
        print(
            f"| {e['name']} | {e['epochs']} | {e['train_s']:.0f} | {np.mean(acc):.2f} "
            f"({min(acc):.2f}–{max(acc):.2f}) | {e['c2st_global']:.2f} | {e['leakage']:.3f} | "
            f"{tr} | "
            f"{fails}{' (+ expected_coverage)' if ec else ''} | {e['report_s']:.0f} |"
        )
    comparisons = [json.loads(p.read_text()) for p in sorted(out.glob("*_compare.json"))]
    if comparisons:
        by = {e["name"]: e for e in estimators}
        print()
        print("| task | seed | log-score difference [95 % CI] | p | global C2ST 10^4 / 10^3 | s |")
        print("|---|---|---|---|---|---|")
        for c in comparisons:
            a = by.get(_name(c["task"], c["first"], c["seed"]), {}).get("c2st_global", np.nan)
            b = by.get(_name(c["task"], c["second"], c["seed"]), {}).get("c2st_global", np.nan)
            print(
                f"| {c['task']} | {c['seed']} | {c['statistic']:.3f} [{c['ci'][0]:.3f}, "
                f"{c['ci'][1]:.3f}] | {c['pvalue']:.2g} | {a:.2f} / {b:.2f} | {c['time_s']:.1f} |"
            )
    times = np.array([e["report_s"] for e in estimators])
    print(
        f"\nreport time: median {np.median(times):.0f} s, range {times.min():.0f}–{times.max():.0f}"
        f" s over {len(times)} estimators; C2ST ground truth: "
        f"{np.sum([e['c2st_s'] for e in estimators]) / 60:.0f} min in all"
    )


def fixture(out: Path, cfg: argparse.Namespace, path: Path) -> None:
    """The committed test fixture: two two_moons estimators (10³ and 10⁴ simulations, seed 0),
    at three observations, from the cached run under ``out``: reference and estimator draws
    (500 each), C2ST on them, and a 300-pair calibration subset with PIT values and SBC ranks."""
    data = common("two_moons", out, cfg)
    keep, n_pairs, n_sbc = 3, 300, 50
    arrays: dict[str, np.ndarray] = {
        "x_obs": data["x_obs"][:keep],
        "reference": data["reference"][:keep, :500].astype(np.float32),
        "theta": data["theta_cal"][:n_pairs],
        "x": data["x_cal"][:n_pairs],
        "n_posterior_samples": np.array(n_sbc),
        "budgets": np.array(BUDGETS),
    }
    for budget in BUDGETS:
        flow, _ = _load_flow(out, _name("two_moons", budget, 0))
        draws = flow.sample(arrays["x_obs"], 500, seed=3).astype(np.float32)
        arrays[f"draws_{budget}"] = draws
        arrays[f"c2st_{budget}"] = np.array(
            [
                study.ground_truth_c2st(r, d, n=None, classifier="mlp", seed=j)
                for j, (r, d) in enumerate(zip(arrays["reference"], draws))
            ]
        )
        arrays[f"pit_{budget}"] = mc.pit(flow, arrays["theta"], arrays["x"])
        arrays[f"ranks_{budget}"] = mc.sbc_ranks(
            flow, arrays["theta"], arrays["x"], n_posterior_samples=n_sbc, seed=4
        ).astype(np.int16)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, **arrays)
    print(f"wrote {path} ({path.stat().st_size / 1e3:.0f} kB)")
    print({k: v for k, v in arrays.items() if k.startswith("c2st")})


def main() -> None:
    parser = _harness.parser(__doc__)
    parser.add_argument(
        "--stage",
        default="all",
        choices=("all", "train", "analyse", "truncated", "table", "fixture"),
    )
    parser.add_argument("--tasks", nargs="+", default=list(TASKS))
    parser.add_argument("--budgets", nargs="+", type=int, default=list(BUDGETS))
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1])
    parser.add_argument("--max-epochs", type=int, default=300)
    parser.add_argument(
        "--runs", type=Path, default=Path("/tmp/sbibm_runs"), help="the stages' cache folder"
    )
    parser.add_argument("--n-cal", type=int, default=1000, help="calibration pairs")
    parser.add_argument("--n-obs", type=int, default=10, help="observations (sbibm has ten)")
    parser.add_argument("--n-draws", type=int, default=1000, help="draws a side for C2ST")
    parser.add_argument("--n-new", type=int, default=10, help="new x (closed-form tasks)")
    parser.add_argument("--classifier", default="mlp", choices=("mlp", "logistic"))
    args = parser.parse_args()
    if args.quick:
        args.tasks, args.budgets, args.seeds, args.max_epochs = ["two_moons"], [500, 1000], [0], 20
        args.n_cal, args.n_obs, args.n_draws, args.n_new = 200, 3, 300, 0
        args.classifier = "logistic"
        if args.runs == Path("/tmp/sbibm_runs"):
            args.runs = Path("/tmp/sbibm_runs_quick")
    args.n_c2st = args.n_draws
    import torch

    torch.set_num_threads(1)
    args.runs.mkdir(parents=True, exist_ok=True)
    if args.stage in ("all", "train"):
        for seed in args.seeds:
            for task in args.tasks:
                for budget in args.budgets:
                    train(task, budget, seed, args.runs, args.max_epochs)
    if args.stage in ("all", "analyse"):
        for seed in args.seeds:
            for task in args.tasks:
                for budget in args.budgets:
                    analyse(task, budget, seed, args.runs, args)
                compare(task, seed, args.budgets, args.runs, args)
    if args.stage in ("all", "truncated"):
        for seed in args.seeds:
            for task in args.tasks:
                for budget in args.budgets:
                    truncated(task, budget, seed, args.runs, args)
    if args.stage in ("all", "table"):
        table(args.runs, args)
    if args.stage == "fixture":
        fixture(args.runs, args, ROOT / "tests" / "data" / "sbibm_two_moons.npz")


if __name__ == "__main__":
    main()
