from django.urls import path

from access.oauth import endpoints, views

urlpatterns = [
    path("oauth/authorize", views.authorize, name="oauth-authorize"),
    path("oauth/consent", views.consent, name="oauth-consent"),
    path("oauth/token", endpoints.token, name="oauth-token"),
    path("oauth/revoke", endpoints.revoke, name="oauth-revoke"),
]
