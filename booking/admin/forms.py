"""The forms of the staff booking page: each validates one action and calls one service."""

from django import forms
from django.utils.translation import gettext_lazy as _

from booking.models import Booking
from fleet.models import Driver, Vehicle
from pricing.models import VehicleClass

STAFF_DATETIME = forms.SplitDateTimeWidget(
    date_attrs={"type": "date"}, time_attrs={"type": "time"}, date_format="%Y-%m-%d", time_format="%H:%M"
)


class AssignForm(forms.Form):
    driver = forms.ModelChoiceField(Driver.objects.none(), label=_("Driver"))
    vehicle = forms.ModelChoiceField(Vehicle.objects.none(), label=_("Vehicle"))

    def __init__(self, *args, booking: Booking, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["driver"].queryset = Driver.objects.filter(active=True)
        # Only vehicles of the booked class are offered; the service refuses any other all the same.
        self.fields["vehicle"].queryset = Vehicle.objects.filter(
            active=True, vehicle_class__code=booking.vehicle_class
        ).select_related("vehicle_class")
        self.initial = {"driver": booking.driver_id, "vehicle": booking.vehicle_id}


class NoteForm(forms.Form):
    text = forms.CharField(
        label=_("Internal note"), widget=forms.Textarea(attrs={"rows": 2}), max_length=2000
    )


class ChangeForm(forms.Form):
    pickup = forms.SplitDateTimeField(label=_("Pickup (Vienna time)"), widget=STAFF_DATETIME)
    vehicle_class = forms.ChoiceField(label=_("Vehicle class"))
    through_provider = forms.TypedChoiceField(
        label=_("A price difference is"),
        choices=[
            ("1", _("charged or refunded through the payment provider")),
            ("", _("settled by staff (cash, invoice, card terminal)")),
        ],
        coerce=bool,
        initial="1",
        widget=forms.RadioSelect,
        required=False,
    )

    def __init__(self, *args, booking: Booking, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["vehicle_class"].choices = [
            (item.code, item.display_name) for item in VehicleClass.objects.filter(active=True)
        ]
        self.initial = {
            "pickup": booking.pickup_at,
            "vehicle_class": booking.vehicle_class,
            "through_provider": "1",
        }


class RefundForm(forms.Form):
    amount = forms.DecimalField(label=_("Amount (EUR)"), min_value=0.01, max_digits=9, decimal_places=2)
    reason = forms.CharField(label=_("Reason"), max_length=200, required=False)
    manual = forms.BooleanField(
        label=_("Paid back by staff outside the payment provider (cash, bank transfer)"), required=False
    )


class MarkPaidForm(forms.Form):
    method = forms.ChoiceField(label=_("Paid by"), choices=[("invoice", _("invoice")), ("cash", _("cash"))])
