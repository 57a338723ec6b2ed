"""Build-time metadata: the project URLs and the long description, from one repository address.

``[tool.hatch.metadata.hooks.custom]`` in ``pyproject.toml`` sets ``repository``; this hook fills
``[project.urls]`` from it and gives the index the README with its relative links and images made
absolute (an index page has no repository beside it to resolve them against).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from hatchling.metadata.plugin.interface import MetadataHookInterface

BRANCH = "main"
# [text](target) and ![alt](target); a target with a scheme or an anchor is left alone
_LINK = re.compile(r"(!?)\[([^\]]*)\]\(([^)\s]+)\)")


def project_urls(repository: str) -> dict[str, str]:
    """``[project.urls]`` of a repository on GitHub (``https://github.com/OWNER/NAME``)."""
    repository = repository.rstrip("/")
    owner, name = repository.split("/")[-2:]
    return {
        "Documentation": f"https://{owner.lower()}.github.io/{name}/",
        "Source": repository,
        "Issues": f"{repository}/issues",
        "Changelog": f"{repository}/blob/{BRANCH}/docs/changelog.md",
    }


def absolute_links(markdown: str, repository: str) -> str:
    """``markdown`` with its relative link and image targets made absolute in ``repository``."""
    repository = repository.rstrip("/")

    def replace(match: re.Match[str]) -> str:
        bang, text, target = match.groups()
        if re.match(r"^[a-z][a-z0-9+.-]*:|^#|^/", target):
            return match.group(0)
        kind = "raw" if bang else "blob"
        return f"{bang}[{text}]({repository}/{kind}/{BRANCH}/{target.removeprefix('./')})"

    return _LINK.sub(replace, markdown)


class CustomMetadataHook(MetadataHookInterface):
    """Sets ``urls`` and ``readme`` (both listed in ``[project] dynamic``)."""

    def update(self, metadata: dict[str, Any]) -> None:
        repository = self.config["repository"]
        metadata["urls"] = project_urls(repository)
        readme = (Path(self.root) / "README.md").read_text(encoding="utf-8")
        metadata["readme"] = {
            "content-type": "text/markdown",
            "text": absolute_links(readme, repository),
        }
