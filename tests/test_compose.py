"""docker-compose.yml cannot be run here (no Docker engine), so it is read: every setting the service
takes from the environment reaches the web container."""

import re

from tests.processes import ROOT

COMPOSE = (ROOT / "docker-compose.yml").read_text()
# Set by compose itself for its own services, or meaningful only outside a container.
FIXED_BY_COMPOSE = {"DATABASE_URL", "REDIS_URL", "DJANGO_DEBUG"}


def documented_variables() -> set[str]:
    """The variables of the README's configuration table."""
    readme = (ROOT / "README.md").read_text()
    table = readme[
        readme.index("## Configuration") : readme.index("\n## ", readme.index("## Configuration") + 5)
    ]
    return {
        name for row in re.findall(r"^\| (`.+?`) \|", table, re.M) for name in re.findall(r"`(\w+)`", row)
    }


def test_every_documented_setting_reaches_the_web_container():
    passed = set(re.findall(r"^      (\w+): ", COMPOSE, re.M))
    missing = documented_variables() - passed - FIXED_BY_COMPOSE
    assert not missing, f"docker-compose.yml does not pass {sorted(missing)} to the web service"
