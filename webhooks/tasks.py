"""The scheduled job: events whose deliveries are settled are removed after WEBHOOKS_KEEP_DAYS."""

from datetime import timedelta

from django.conf import settings
from django.utils import timezone
from django_tasks import task

from webhooks.models import Delivery, Event


@task()
def remove_old_events() -> int:
    """How many events went; one still waiting for an endpoint stays."""
    before = timezone.now() - timedelta(days=settings.WEBHOOKS_KEEP_DAYS)
    waiting = Delivery.objects.filter(state=Delivery.State.PENDING).values("event_id")
    return (
        Event.objects.filter(created_at__lt=before)
        .exclude(pk__in=waiting)
        .delete()[1]
        .get("webhooks.Event", 0)
    )
