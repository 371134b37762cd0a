"""Every outside package the site's code imports is one of pyproject.toml's own dependencies, pinned: a plain
`pip install .` (the image, `make run`) must be able to serve, without the test extras that happen to
install it."""

import re
import sys
from importlib.metadata import packages_distributions
from pathlib import Path

from tests.imports import PROJECT, PROJECT_PACKAGES, ROOT, top_level_imports

APPS = set(PROJECT_PACKAGES)


def normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def requirement_name(requirement: str) -> str:
    return normalized(re.match(r"[A-Za-z0-9._-]+", requirement).group())


def imported_modules(path: Path) -> set[str]:
    return top_level_imports(path) - APPS - sys.stdlib_module_names


def test_every_package_the_site_imports_is_a_pinned_dependency():
    declared = {requirement_name(requirement) for requirement in PROJECT["project"]["dependencies"]}
    distributions = packages_distributions()
    undeclared = {
        str(path.relative_to(ROOT)): sorted(
            module
            for module in imported_modules(path)
            if not {normalized(name) for name in distributions.get(module, [])} & declared
        )
        for app in sorted(APPS)
        for path in sorted((ROOT / app).rglob("*.py"))
    }
    assert {path: modules for path, modules in undeclared.items() if modules} == {}


def test_every_dependency_is_pinned_to_one_version():
    assert [
        requirement for requirement in PROJECT["project"]["dependencies"] if "==" not in requirement
    ] == []
