"""The moved models' content types take the oauth label, so staff permissions (in groups and on users) and
the admin's log entries follow the models instead of pointing at a label that no longer has them."""

from django.db import migrations

MOVED = ["oauthclient", "oauthgrant", "authorizationcode", "refreshtoken", "signincode"]


def relabel(source: str, target: str):
    def move(apps, schema_editor):
        content_types = apps.get_model("contenttypes", "ContentType")
        for model in MOVED:
            if not content_types.objects.filter(app_label=target, model=model).exists():
                content_types.objects.filter(app_label=source, model=model).update(app_label=target)

    return move


class Migration(migrations.Migration):
    dependencies = [
        ("oauth", "0001_initial"),
        ("access", "0008_oauth_moves_to_its_app"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [
        migrations.RunPython(relabel("access", "oauth"), relabel("oauth", "access")),
    ]
