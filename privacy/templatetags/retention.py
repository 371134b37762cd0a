"""The retention table on the privacy page (templates/legal.html): what is kept how long, and why, in the
page's language, from the policy that the schedule applies."""

from django import template

from privacy import retention
from privacy.models import retention_policy

register = template.Library()


@register.inclusion_tag("privacy/retention_table.html")
def retention_table() -> dict:
    policy = retention_policy()
    return {
        "rows": [(category, category.kept_for(category.period(policy))) for category in retention.CATEGORIES]
    }
