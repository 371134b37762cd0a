"""The pages' own JavaScript and CSS: small enough for a phone on a slow line, and served by whitenoise under
hashed names in production (browsers keep them for a year)."""

import textwrap

from tests.processes import ROOT, project_env, run_python

ASSETS = ROOT / "web" / "static" / "booking"  # served as /static/booking/…, as before the move
BUDGET = 72 * 1024  # bytes of JS and CSS together, uncompressed (about a quarter of it gzipped)
SECRET_KEY = "static-assets-test-secret-key-" + "s" * 30  # long enough for production mode


def test_the_pages_javascript_and_css_stay_under_72_kb():
    sizes = {path.name: path.stat().st_size for path in ASSETS.iterdir() if path.suffix in {".js", ".css"}}
    assert set(sizes) == {"booking.js", "booking.css", "embed.js", "manage.js", "ride.js", "ride_map.js"}
    print(f"\nJS + CSS: {sum(sizes.values())} bytes ({sizes})")
    assert sum(sizes.values()) < BUDGET


def test_production_serves_the_assets_under_hashed_names(tmp_path):
    # collectstatic into a folder of the test's, then the booking page and its script as a browser gets them.
    script = textwrap.dedent(f"""
        import re, django
        from django.conf import settings
        django.setup()
        settings.STATIC_ROOT = {str(tmp_path)!r}
        from django.core.management import call_command
        from django.test import Client
        call_command("collectstatic", "--noinput", verbosity=0)
        call_command("migrate", "--noinput", verbosity=0)
        client = Client()
        page = client.get("/en/").content.decode()
        script = re.search(r'src="(/static/booking/booking\\.[0-9a-f]{{12}}\\.js)"', page)[1]
        print(script)
        print(re.search(r'href="(/static/booking/booking\\.[0-9a-f]{{12}}\\.css)"', page)[1])
        print(client.get(script)["Cache-Control"].replace(" ", ""))
    """)
    env = project_env(
        DJANGO_DEBUG="false",
        DJANGO_SECRET_KEY=SECRET_KEY,
        PAYMENT_PROVIDER="none",
        DATABASE_URL=f"sqlite:///{tmp_path}/db.sqlite3",
        DJANGO_ALLOWED_HOSTS="testserver",
    )
    result = run_python("-c", script, env=env)
    assert result.returncode == 0, result.stderr
    script_url, stylesheet_url, caching = result.stdout.split()
    assert caching == "max-age=315360000,public,immutable"  # whitenoise: a hashed name never changes
    assert (tmp_path / script_url.removeprefix("/static/")).read_bytes() == (
        ASSETS / "booking.js"
    ).read_bytes()
    assert (tmp_path / stylesheet_url.removeprefix("/static/")).exists()
    assert (tmp_path / "booking" / "embed.js").exists()  # the embed tag's stable address
