"""What a web worker loads: the libraries only a PDF, an e-invoice or a phone number's place needs stay out of
it (fpdf2 and its fonts, factur-x, libphonenumber's geocoder: about 160 MB per worker together), and load
where they are used."""

from tests.processes import project_env, run_python

LOADED_ONLY_WHERE_USED = ("fpdf", "facturx", "phonenumbers.geocoder", "fontTools", "PIL")

WORKER_START = """
import sys
import django
django.setup()
from django.urls import get_resolver
get_resolver().url_patterns  # every view module, as gunicorn's post_worker_init loads them
from apikit.catalog import v1_operations
v1_operations()
from sitekit import phones
phones.country_names()  # what a refusal of a text message names
print(" ".join(sorted(name for name in {LOADED} if name in sys.modules)) or "-")
"""


def test_a_web_worker_loads_no_pdf_nor_geocoder_library():
    code = WORKER_START.replace("{LOADED}", repr(LOADED_ONLY_WHERE_USED))
    result = run_python("-c", code, env=project_env(DJANGO_DEBUG="true"))
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "-"
