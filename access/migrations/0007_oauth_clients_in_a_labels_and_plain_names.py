"""Clients stored before hosts were kept in IDNA A-labels and names refused control and bidi characters:
their redirect URIs and links get A-label hosts (a URI whose host cannot be converted stays as it is and
matches nothing), their names lose such characters. Self-contained: later code may change its rules."""

import unicodedata
from urllib.parse import urlsplit, urlunsplit

import idna
from django.db import migrations

INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp"})


def a_label_url(uri):
    try:
        parts = urlsplit(uri)
        host, port = parts.hostname, parts.port
        if not host or host.isascii():
            return uri
        converted = idna.encode(host, uts46=True).decode("ascii")
    except (ValueError, idna.IDNAError, UnicodeError):
        return uri
    userinfo = parts.netloc.rpartition("@")[0]
    netloc = (f"{userinfo}@" if userinfo else "") + converted + (f":{port}" if port is not None else "")
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def plain(text):
    kept = "".join(" " if unicodedata.category(c) in INVISIBLE_CATEGORIES else c for c in text)
    return " ".join(kept.split())


def forwards(apps, schema_editor):
    OAuthClient = apps.get_model("access", "OAuthClient")
    for client in OAuthClient.objects.all().iterator():
        changed = {
            "name": plain(client.name),
            "redirect_uris": [
                a_label_url(uri) if isinstance(uri, str) else uri for uri in client.redirect_uris
            ],
            "client_uri": a_label_url(client.client_uri),
            "logo_uri": a_label_url(client.logo_uri),
        }
        if any(getattr(client, field) != value for field, value in changed.items()):
            OAuthClient.objects.filter(pk=client.pk).update(**changed)


class Migration(migrations.Migration):
    dependencies = [
        ("access", "0006_oauthclient_metadata_expires_at"),
    ]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
