"""Staff told that an endpoint was paused (in English, as the operator's other alerts): its deliveries wait
until it is resumed in the admin."""

from django.conf import settings
from django.core.mail import EmailMessage
from django.urls import reverse
from django_tasks import task

from jobqueue import delivery
from webhooks.models import Endpoint


@task()
def alert_paused(endpoint_id: int, paused_at: str) -> None:
    """Once per pause (a retried job does not mail again)."""
    endpoint = Endpoint.objects.filter(pk=endpoint_id).first()
    if endpoint is None or not settings.OPERATOR_EMAIL:
        return
    page = settings.PUBLIC_BASE_URL + reverse("admin:webhooks_endpoint_change", args=[endpoint.pk])
    owner = f"API token “{endpoint.api_token.name}”" if endpoint.api_token else "staff"
    with delivery.scope(f"webhook-paused:{endpoint_id}:{paused_at}"):
        delivery.send_once(
            EmailMessage(
                f"Webhook endpoint paused: {endpoint.url[:120]}",
                f"Deliveries to {endpoint.url} (added by {owner}) failed until every retry was spent, so "
                f"the endpoint is paused: {endpoint.pause_reason}\n\n"
                f"Its events wait and go out in order once it is resumed, on its page: {page}",
                settings.DEFAULT_FROM_EMAIL,
                [settings.OPERATOR_EMAIL],
            )
        )
