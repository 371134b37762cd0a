"""API tokens moved to the `access` app: the table is renamed and the model leaves this app's state; no
row is touched, so every issued token keeps working. access.0001 takes the model over."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("agents", "0001_initial")]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.AlterModelTable(name="apitoken", table="access_apitoken")],
            state_operations=[migrations.DeleteModel(name="ApiToken")],
        )
    ]
