from django.urls import path

from access.oauth import views

urlpatterns = [
    path("oauth/authorize", views.authorize, name="oauth-authorize"),
    path("oauth/consent", views.consent, name="oauth-consent"),
]
