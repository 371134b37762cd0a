"""The project's own packages, and what a source file imports, read from its syntax tree: every absolute
import, function-level ones too."""

import ast
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
# The apps and the project package, as pyproject.toml installs them.
PROJECT_PACKAGES = tuple(
    pattern.rstrip("*") for pattern in PROJECT["tool"]["setuptools"]["packages"]["find"]["include"]
)


def top_level_imports(path: Path) -> set[str]:
    """The first name of every module `path` imports absolutely (`django` for `from django.db import …`)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found
