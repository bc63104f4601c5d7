from django.urls import path

from .views import dashboard, sampling

urlpatterns = [
    path("", dashboard.audit_dashboard, name="audit_dashboard"),
    path("tables/<str:table>.csv", dashboard.audit_table_csv, name="audit_table_csv"),
    path("sample/", sampling.audit_sample, name="audit_sample"),
]
