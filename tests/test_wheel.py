"""The wheel works outside the repository: its data, its metadata, and every example, installed.

The default run builds the wheel (a few seconds) and checks what it holds: the example data of
``modelcompare.datasets``, the project URLs derived from the one ``repository`` line of
``pyproject.toml``, and a long description with absolute links that ``twine check`` accepts. The
``slow`` test installs that wheel into a fresh virtual environment and runs, in an empty
directory, every ``$ modelcompare ...`` example of the subcommands' ``--help`` texts, the install
page's "Check the install" lines and the README's examples, as a new user would.
"""

from __future__ import annotations

import email
import os
import re
import subprocess
import sys
import sysconfig
import tomllib
import zipfile
from pathlib import Path

import pytest

from modelcompare.datasets import example_files
from tests.cli.test_help_examples import parse_examples, quote_mismatch

ROOT = Path(__file__).resolve().parents[1]
BLOCK = re.compile(r"(<!-- skip-test -->\n)?```(\w+)\n(.*?)```", re.DOTALL)


def _hook_config() -> dict[str, str]:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return pyproject["tool"]["hatch"]["metadata"]["hooks"]["custom"]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("build")
    pytest.importorskip("hatchling")
    out = tmp_path_factory.mktemp("dist")
    done = subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "-o", str(out), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    (path,) = out.glob("modelcompare-*.whl")
    return path


def _metadata(wheel: Path) -> email.message.Message:
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        return email.message_from_bytes(archive.read(name))


# ---------------------------------------------------------------------------------------------
# the build hook, on known values


def test_project_urls_derive_from_the_repository() -> None:
    from hatch_build import project_urls

    assert project_urls("https://github.com/Owner/proj/") == {
        "Documentation": "https://owner.github.io/proj/",
        "Source": "https://github.com/Owner/proj",
        "Issues": "https://github.com/Owner/proj/issues",
        "Changelog": "https://github.com/Owner/proj/blob/main/docs/changelog.md",
    }


def test_relative_links_become_absolute() -> None:
    from hatch_build import absolute_links

    repo = "https://github.com/o/p"
    text = (
        "![plot](docs/a.png) see [install](docs/install.md), [web](https://x.org/a), "
        "[here](#set-up) and [lic](./LICENSE)"
    )
    assert absolute_links(text, repo) == (
        "![plot](https://github.com/o/p/raw/main/docs/a.png) see "
        "[install](https://github.com/o/p/blob/main/docs/install.md), [web](https://x.org/a), "
        "[here](#set-up) and [lic](https://github.com/o/p/blob/main/LICENSE)"
    )


# ---------------------------------------------------------------------------------------------
# the built wheel


def test_the_wheel_ships_the_example_data(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    shipped = {n.rsplit("/", 1)[-1] for n in names if n.startswith("modelcompare/datasets/data/")}
    assert shipped == set(example_files())
    assert len(shipped) >= 15
    assert "modelcompare/py.typed" in names
    assert not any("__pycache__" in n for n in names)


def test_the_wheel_ships_the_page_templates(wheel: Path) -> None:
    from modelcompare._foundation.html import TEMPLATES

    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    templates = {f"modelcompare/_foundation/templates/{p.name}" for p in TEMPLATES.glob("*.html")}
    assert {"base.html", "posterior_report.html"} <= {t.rsplit("/", 1)[-1] for t in templates}
    assert templates <= names


def test_the_metadata_has_the_project_urls(wheel: Path) -> None:
    metadata = _metadata(wheel)
    urls = dict(value.split(", ", 1) for value in metadata.get_all("Project-URL"))
    assert set(urls) == {"Documentation", "Source", "Issues", "Changelog"}
    assert urls["Source"] == _hook_config()["repository"].rstrip("/")


def test_the_long_description_has_absolute_links_and_renders(wheel: Path) -> None:
    pytest.importorskip("comrak")  # readme_renderer's Markdown engine (readme_renderer[md])
    readme_renderer = pytest.importorskip("readme_renderer.markdown")
    metadata = _metadata(wheel)
    assert metadata["Description-Content-Type"].startswith("text/markdown")
    text = metadata.get_payload()
    assert "modelcompare" in text
    targets = re.findall(r"\]\(([^)\s]+)\)", text)
    assert targets
    relative = [t for t in targets if not re.match(r"https?://|#", t)]
    assert relative == []
    html = readme_renderer.render(text)
    assert html is not None
    assert "<img" in html


# ---------------------------------------------------------------------------------------------
# installed in a fresh environment, in an empty directory


def _steps() -> list[tuple[str, str, int, str]]:
    """(where, command, exit code, quoted output) of every step a new user would run."""
    import click
    from click.testing import CliRunner

    from modelcompare.cli import app

    steps = []
    with click.Context(app) as ctx:
        names = app.list_commands(ctx)
    for name in names:
        text = CliRunner().invoke(app, [name, "--help"], terminal_width=100).output
        steps += [
            (f"{name} --help", e.command, e.exit_code, e.quoted) for e in parse_examples(text)
        ]
    install = (ROOT / "docs" / "install.md").read_text(encoding="utf-8")
    check = install.split("## Check the install", 1)[1].split("\n## ", 1)[0]
    for skip, language, body in BLOCK.findall(check):
        if language == "bash" and not skip:
            steps += [("docs/install.md", line, 0, "") for line in body.splitlines() if line]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for skip, language, body in BLOCK.findall(readme):
        if skip:
            continue
        if language == "bash":
            steps += [("README.md", line, 0, "") for line in body.splitlines() if line]
        elif language == "python" and "import sbi" not in body and "from sbi" not in body:
            steps.append(("README.md", f"python -c {_quote(body)}", 0, ""))
    return steps


def _quote(code: str) -> str:
    return "'" + code.replace("'", "'\"'\"'") + "'"


def test_the_steps_are_found() -> None:
    steps = _steps()
    wheres = {where for where, *_ in steps}
    assert {"docs/install.md", "README.md", "c2st --help", "example-data --help"} <= wheres
    assert any(command == "modelcompare example-data" for _, command, _, _ in steps)


@pytest.mark.slow
def test_every_example_runs_from_the_installed_wheel(wheel: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"
    # The dependencies come from this environment (no network): its site-packages as a plain path
    # entry, so that its own .pth files (an editable install of the checkout) are not read.
    site = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    (site / "zz_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)],
        check=True,
        timeout=300,
    )
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(
        PATH=str(venv / "bin") + os.pathsep + env.get("PATH", ""),
        MPLBACKEND="Agg",
        OMP_NUM_THREADS="1",
        COLUMNS="100",
    )
    work = tmp_path / "empty"
    work.mkdir()
    where = subprocess.run(
        ["python", "-c", "import modelcompare; print(modelcompare.__file__)"],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert where.startswith(str(venv)), where
    failures = []
    for source, command, exit_code, quoted in _steps():
        done = subprocess.run(
            command,
            shell=True,
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        mismatch = quote_mismatch(quoted, done.stdout) if quoted else None
        if done.returncode != exit_code or mismatch:
            failures.append(f"{source}: `{command}` exited {done.returncode}: {done.stderr[-800:]}")
    assert failures == []


def test_the_install_page_names_the_repository_and_the_index_command() -> None:
    install = (ROOT / "docs" / "install.md").read_text(encoding="utf-8")
    assert f"git clone {_hook_config()['repository']}" in install
    assert "(once published)" in install
    assert "pip install modelcompare" in install


def test_the_release_workflow_builds_checks_and_tests_both_distributions() -> None:
    workflow = (ROOT / ".github" / "workflows" / "release.yml").read_text(encoding="utf-8")
    for step in ("tags:", "--sdist --wheel", "twine check", "python -m venv", "pytest"):
        assert step in workflow, step
