from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from config.health import healthz

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    path("api/", include("annotation.api.urls")),
    path("p/<slug:slug>/review/", include("review.urls")),
    path("p/<slug:slug>/exports/", include("review.export_urls")),
    path("p/<slug:slug>/audit/", include("audit.urls")),
    path("p/<slug:slug>/judges/", include("workers.urls")),
    path("", include("annotation.urls")),
]
