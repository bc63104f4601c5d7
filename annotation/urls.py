from django.urls import path

from .views import browse, imports, labeling, members, projects
from .views.labeling.step import step_checklist_edit

urlpatterns = [
    path("", projects.home, name="home"),
    path("p/<slug:slug>/", projects.project_overview, name="project"),
    path("p/<slug:slug>/next/", labeling.queue_next, name="queue_next"),
    path("p/<slug:slug>/items/", browse.item_list, name="item_list"),
    path("p/<slug:slug>/items/<int:item_id>/label/", labeling.label_item, name="label_item"),
    path("p/<slug:slug>/items/<int:item_id>/skip/", labeling.skip_item, name="skip_item"),
    path("p/<slug:slug>/items/<int:item_id>/checklist/", step_checklist_edit, name="step_checklist_edit"),
    path(
        "p/<slug:slug>/items/<int:item_id>/message/<str:part>/<int:index>/",
        labeling.message_body,
        name="message_body",
    ),
    path("p/<slug:slug>/members/", members.member_list, name="member_list"),
    path("p/<slug:slug>/settings/", members.project_settings, name="project_settings"),
    path("p/<slug:slug>/members/<int:membership_id>/remove/", members.member_remove, name="member_remove"),
    path("p/<slug:slug>/labels/", browse.my_labels, name="my_labels"),
    path("p/<slug:slug>/import/", imports.import_upload, name="import_upload"),
    path("p/<slug:slug>/import/<int:job_id>/", imports.import_status, name="import_status"),
    path("p/<slug:slug>/media/<path:path>", imports.media_file, name="media_file"),
]
