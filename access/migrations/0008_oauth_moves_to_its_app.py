"""The authorization server's models leave this app's state for the oauth app's (oauth 0001), and an API
token's grant points there; the database is not touched: the tables keep their names."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("access", "0007_oauth_clients_in_a_labels_and_plain_names"),
        ("oauth", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.RemoveField(
                    model_name="authorizationcode",
                    name="grant",
                ),
                migrations.RemoveField(
                    model_name="oauthgrant",
                    name="client",
                ),
                migrations.RemoveField(
                    model_name="oauthgrant",
                    name="approved_by",
                ),
                migrations.RemoveField(
                    model_name="refreshtoken",
                    name="grant",
                ),
                migrations.AlterField(
                    model_name="apitoken",
                    name="grant",
                    field=models.ForeignKey(
                        blank=True,
                        editable=False,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="access_tokens",
                        to="oauth.oauthgrant",
                        verbose_name="OAuth grant",
                    ),
                ),
                migrations.DeleteModel(
                    name="SignInCode",
                ),
                migrations.DeleteModel(
                    name="AuthorizationCode",
                ),
                migrations.DeleteModel(
                    name="OAuthClient",
                ),
                migrations.DeleteModel(
                    name="RefreshToken",
                ),
                migrations.DeleteModel(
                    name="OAuthGrant",
                ),
            ],
            database_operations=[],
        ),
    ]
