from django.urls import path

from .views import adjudication, history

urlpatterns = [
    path("", adjudication.adjudication_queue, name="adjudication_queue"),
    path("items/<int:item_id>/", adjudication.adjudicate_item, name="adjudicate_item"),
    path("items/<int:item_id>/history/", history.item_history, name="item_history"),
]
