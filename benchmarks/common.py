"""What every benchmark script starts with: the project importable, Django set up, and a best-of-5 timer.
Import it before anything of the project."""

import os
import sys
import timeit
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django

django.setup()


def seconds_per_call(function, number: int) -> float:
    """The best of five runs, so the machine's other work counts as little as it can."""
    return min(timeit.repeat(function, number=number, repeat=5)) / number


def print_per_call(label: str, function, number: int) -> None:
    print(f"{label:<52} {seconds_per_call(function, number) * 1e6:9.1f} µs per call")
