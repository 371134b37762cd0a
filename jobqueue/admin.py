"""Staff see every job with its state, attempts and last error, and run failed ones again."""

from django.contrib import admin, messages
from django.utils import timezone
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext
from django_tasks_db.compat import TaskResultStatus
from django_tasks_db.models import DBTaskResult, get_date_max

from jobqueue.models import Job
from sitekit.admin import ReadOnlyAdmin

# The library's own page lists the same rows under its names; ours replaces it.
if admin.site.is_registered(DBTaskResult):
    admin.site.unregister(DBTaskResult)


@admin.register(Job)
class JobAdmin(ReadOnlyAdmin, admin.ModelAdmin):
    list_display = ("task", "state", "attempts", "enqueued_at", "next_attempt", "error")
    list_filter = ("status", "task_path")
    ordering = ["-enqueued_at"]
    actions = ["run_again"]
    fields = (
        "task",
        "state",
        "attempts",
        "arguments",
        "enqueued_at",
        "started_at",
        "finished_at",
        "next_attempt",
        "error",
        "traceback_shown",
    )
    readonly_fields = fields

    def has_retry_permission(self, request):
        return request.user.has_perm("jobs.retry_job")

    @admin.display(description=_("task"), ordering="task_path")
    def task(self, job):
        return job.task_path.rsplit(".", 2)[-2:][0] + "." + job.task_name

    @admin.display(description=_("state"), ordering="status")
    def state(self, job):
        return {
            TaskResultStatus.READY: _("waiting"),
            TaskResultStatus.RUNNING: _("running"),
            TaskResultStatus.SUCCESSFUL: _("done"),
            TaskResultStatus.FAILED: _("failed"),
        }.get(job.status, job.status)

    @admin.display(description=_("attempts"))
    def attempts(self, job):
        return len(job.worker_ids)

    @admin.display(description=_("arguments"))
    def arguments(self, job):
        return job.args_kwargs

    @admin.display(description=_("next attempt"), ordering="run_after")
    def next_attempt(self, job):
        if job.status != TaskResultStatus.READY or job.run_after == get_date_max():
            return "–" if job.status != TaskResultStatus.READY else _("now")
        return job.run_after

    @admin.display(description=_("last error"))
    def error(self, job):
        if not job.traceback:
            return "–"
        return job.traceback.strip().splitlines()[-1][:200]

    @admin.display(description=_("traceback"))
    def traceback_shown(self, job):
        return format_html("<pre>{}</pre>", job.traceback) if job.traceback else "–"

    @admin.action(description=_("Run the selected failed jobs again"), permissions=["retry"])
    def run_again(self, request, queryset):
        count = queryset.filter(status=TaskResultStatus.FAILED).update(
            status=TaskResultStatus.READY, run_after=timezone.now(), finished_at=None, worker_ids=[]
        )
        self.message_user(
            request,
            ngettext("%(count)d job will run again.", "%(count)d jobs will run again.", count)
            % {"count": count},
            messages.SUCCESS,
        )
