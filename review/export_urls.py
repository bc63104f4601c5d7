from django.urls import path

from .views import exports

urlpatterns = [
    path("", exports.export_list, name="export_list"),
    path("<int:export_id>/", exports.export_detail, name="export_detail"),
    path("<int:export_id>/files/<str:filename>", exports.export_download, name="export_download"),
]
