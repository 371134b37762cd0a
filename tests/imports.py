"""What a source file imports, read from its syntax tree: every absolute import, function-level ones too."""

import ast
from pathlib import Path


def top_level_imports(path: Path) -> set[str]:
    """The first name of every module `path` imports absolutely (`django` for `from django.db import …`)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found
