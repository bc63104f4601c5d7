"""The REST API, mounted under /api/ (namespace `api`). Schema: /api/schema/, docs: /api/docs/."""

from django.urls import include, path
from rest_framework.authtoken.views import obtain_auth_token

from . import views

app_name = "api"

P = "projects/<slug:slug>/"

urlpatterns = [
    path("auth/token/", obtain_auth_token, name="token"),
    path("projects/", views.ProjectListView.as_view(), name="project-list"),
    path(P, views.ProjectDetailView.as_view(), name="project-detail"),
    path(P + "items/", views.ItemListView.as_view(), name="item-list"),
    path(P + "items/<int:item_id>/", views.ItemDetailView.as_view(), name="item-detail"),
    path(P + "items/<int:item_id>/trace/", views.ItemTraceView.as_view(), name="item-trace"),
    path(P + "items/<int:item_id>/checklist/", views.ItemChecklistView.as_view(), name="item-checklist"),
    path(P + "import/", views.ImportCreateView.as_view(), name="import-create"),
    path(P + "import/<int:job_id>/", views.ImportDetailView.as_view(), name="import-detail"),
    path(P + "annotations/", views.AnnotationListView.as_view(), name="annotation-list"),
    path(
        P + "annotations/<int:annotation_id>/", views.AnnotationDetailView.as_view(), name="annotation-detail"
    ),
    path(P + "queue/next/", views.QueueNextView.as_view(), name="queue-next"),
    path(P + "queue/<int:item_id>/skip/", views.QueueSkipView.as_view(), name="queue-skip"),
    # Review and audit endpoints share the `api` namespace.
    path("", include("review.api.urls")),
    path("", include("audit.api.urls")),
    path("", include("workers.api.urls")),
]
