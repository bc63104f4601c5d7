"""Review endpoints, mounted inside the `api` namespace (see annotation/api/urls.py)."""

from django.urls import path

from .adjudication import AdjudicationDecideView, AdjudicationListView, ItemHistoryView
from .exports import ExportDetailView, ExportListView

P = "projects/<slug:slug>/"

urlpatterns = [
    path(P + "adjudications/", AdjudicationListView.as_view(), name="adjudication-list"),
    path(P + "adjudications/<int:item_id>/", AdjudicationDecideView.as_view(), name="adjudication-decide"),
    path(P + "items/<int:item_id>/history/", ItemHistoryView.as_view(), name="item-history"),
    path(P + "exports/", ExportListView.as_view(), name="export-list"),
    path(P + "exports/<int:export_id>/", ExportDetailView.as_view(), name="export-detail"),
]
