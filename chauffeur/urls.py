from django.contrib import admin
from django.urls import include, path, re_path
from django.views.generic import TemplateView
from drf_spectacular.views import SpectacularJSONAPIView, SpectacularSwaggerView

from booking import views as booking_pages
from booking.api import (
    AvailabilityApi,
    BookingApi,
    CancelBookingApi,
    CheckoutApi,
    CheckoutLegacyApi,
    PaymentIntentLegacyApi,
    SessionDataLegacyApi,
)
from booking.webhooks import stripe_webhook
from chauffeur import views
from chauffeur.api.catalog import CatalogApi
from places.api import (
    CalculateDistanceLegacyApi,
    DistanceApi,
    GoogleRatingLegacyApi,
    PlacesApi,
    PlacesAutocompleteLegacyApi,
    RatingApi,
)
from pricing.api import PriceApi

v1 = [
    path("api/v1", CatalogApi.as_view(), name="v1-catalog"),
    path("api/v1/price", PriceApi.as_view(), name="v1-price"),
    path("api/v1/availability", AvailabilityApi.as_view(), name="v1-availability"),
    path("api/v1/distance", DistanceApi.as_view(), name="v1-distance"),
    path("api/v1/places", PlacesApi.as_view(), name="v1-places"),
    path("api/v1/rating", RatingApi.as_view(), name="v1-rating"),
    path("api/v1/checkout", CheckoutApi.as_view(), name="v1-checkout"),
    path("api/v1/bookings/<str:reference>", BookingApi.as_view(), name="v1-booking"),
    path("api/v1/bookings/<str:reference>/cancel", CancelBookingApi.as_view(), name="v1-cancel-booking"),
]

legacy = [
    path("api/calculate-distance", CalculateDistanceLegacyApi.as_view(), name="calculate-distance"),
    path("api/places-autocomplete", PlacesAutocompleteLegacyApi.as_view(), name="places-autocomplete"),
    path("api/google-rating", GoogleRatingLegacyApi.as_view(), name="google-rating"),
    path("api/create-checkout-session", CheckoutLegacyApi.as_view(), name="create-checkout-session"),
    path("api/create-payment-intent", PaymentIntentLegacyApi.as_view(), name="create-payment-intent"),
    path("api/get-session-data", SessionDataLegacyApi.as_view(), name="get-session-data"),
    path("api/payments/stripe/webhook", stripe_webhook, name="stripe-webhook"),
]

pages = [
    path("booking/success", booking_pages.success_page, name="booking-success"),
    path("booking/cancel", booking_pages.cancel_page, name="booking-cancel"),
    path("booking/manage", booking_pages.manage_page, name="booking-manage"),
    path("booking/sandbox/<str:session_id>", booking_pages.sandbox_checkout, name="sandbox-checkout"),
]

urlpatterns = [
    path("", TemplateView.as_view(template_name="home.html"), name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("openapi.json", SpectacularJSONAPIView.as_view(), name="openapi"),
    path("api/docs", SpectacularSwaggerView.as_view(url_name="openapi"), name="api-docs"),
    *v1,
    *legacy,
    *pages,
    path("", include("agents.urls")),
    # Unknown API paths answer in their surface's error format (problem+json under /api/v1).
    re_path(r"^api(?:/.*)?$", views.unknown_api_path),
    path("admin/", admin.site.urls),
]

handler400 = "chauffeur.views.bad_request"
handler500 = "chauffeur.views.server_error"
