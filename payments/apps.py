from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class PaymentsConfig(AppConfig):
    name = "payments"
    verbose_name = _("Payments")

    def ready(self) -> None:
        from booking import money_shown
        from operator_profile.seller import details_complete
        from payments import shown, tasks

        money_shown.supplied_by(shown.PaymentsShown())

        details_complete.connect(
            tasks.seller_details_complete, dispatch_uid="payments.seller_details_complete"
        )
